// The evaluation sees both colours alike: a position and the same position turned half a
// turn with the colours swapped (the Makruk start position's own symmetry, kings on d1
// and e8) score the same for the side to move.
#include "helpers.h"

#include "khun/eval/eval_params.h"
#include "khun/eval/evaluate.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <random>
#include <vector>

using namespace testutil;

namespace {

// Board turned 180 degrees, colours and side to move swapped; a running count or the
// halfmove clock kept.
std::string rotate_fen(const std::string& fen) {
    auto f = words(fen);
    std::string board = f[0];
    std::reverse(board.begin(), board.end()); // ranks and files both reversed
    for (char& c : board)
        if (std::isalpha(static_cast<unsigned char>(c)))
            c = std::isupper(static_cast<unsigned char>(c)) ? char(std::tolower(c))
                                                            : char(std::toupper(c));
    const bool counting = f.size() >= 5 && f[3] != "-" && f[3] != "0";
    const std::string clock = f.size() >= 5 ? f[4] : "0";
    return board + (f[1] == "w" ? " b" : " w") +
           (counting ? " - " + f[3] + " " + f[4] : " - - " + clock) + " 1";
}

} // namespace

TEST_CASE("eval: a position and its colour-swapped half turn score alike", "[eval]") {
    init();
    std::mt19937 rng(12345);
    int checked = 0;
    for (int gameNo = 0; gameNo < 40; ++gameNo) {
        auto g = game("startpos");
        for (int ply = 0; ply < 160; ++ply) {
            khun::MoveList ml(g->pos);
            if (ml.size() == 0 || g->pos.outcome() != khun::Outcome::None) break;
            if (!g->pos.in_check()) {
                const std::string fen = g->pos.fen();
                auto r = game(rotate_fen(fen));
                INFO(fen << "  rotated: " << r->pos.fen());
                REQUIRE(khun::eval::evaluate(g->pos) == khun::eval::evaluate(r->pos));
                // Every feature count, not only those with weight now: White minus Black
                // turns into its negation.
                int16_t a[khun::eval::PARAM_NB] = {}, b[khun::eval::PARAM_NB] = {};
                khun::eval::trace_terms(g->pos, a);
                khun::eval::trace_terms(r->pos, b);
                int mismatch = -1;
                for (int i = 0; i < khun::eval::PARAM_NB && mismatch < 0; ++i)
                    if (a[i] != -b[i]) mismatch = i;
                INFO("first feature that differs: " << mismatch);
                REQUIRE(mismatch == -1);
                ++checked;
            }
            g->play(*(ml.begin() + rng() % ml.size()));
        }
    }
    CHECK(checked > 2000);
}

TEST_CASE("eval: a count running out pulls the score toward the draw", "[eval]") {
    init();
    // Ruea and met against a lone met, no pawns: board's honour. The same placement with
    // no count, with the count just started, half run and nearly run out: the score
    // shrinks with the plies the count leaves.
    const std::string board = "8/8/3k4/8/2m5/8/3KM3/R7 w";
    const int vNone = khun::eval::evaluate(game(board + " - - 0 1")->pos);
    const int vFresh = khun::eval::evaluate(game(board + " - 128 0 30")->pos);
    const int vPlenty = khun::eval::evaluate(game(board + " - 128 10 30")->pos);
    const int vHalf = khun::eval::evaluate(game(board + " - 128 64 60")->pos);
    const int vLittle = khun::eval::evaluate(game(board + " - 128 120 80")->pos);
    INFO(vNone << " " << vFresh << " " << vPlenty << " " << vHalf << " " << vLittle);
    CHECK(vNone > 200);
    CHECK(vFresh == vNone);
    CHECK(vPlenty < vNone);
    CHECK(vPlenty > vNone * 3 / 4);
    CHECK(std::abs(vHalf - vNone / 2) <= 2);
    CHECK(vLittle > 0);
    CHECK(vLittle < vNone / 8);
    // Against a bare king the count is pieces' honour and the exact tables rule; only a
    // count nearly run out fades the score there.
    const std::string bare = "8/8/3k4/8/8/8/3KM3/R7 w";
    const int bNone = khun::eval::evaluate(game(bare + " - - 0 1")->pos);
    const int bLittle = khun::eval::evaluate(game(bare + " - 32 22 30")->pos);
    INFO(bNone << " " << bLittle);
    CHECK(std::abs(bLittle - bNone * 10 / 40) <= 2); // 10 plies left of the last 40
}

TEST_CASE("eval: with no count running a score fades with the plies since a capture or pawn "
          "move",
          "[eval]") {
    init();
    // Locked bia, White a ruea up (a game Khun drew at the move limit, shuffling): the
    // same placement after 0, 16, 80, 144 and 400 plies without a capture or pawn move.
    const std::string board = "8/8/3k4/1p1p4/1P1P4/3K4/8/R7 ";
    // Without a net evaluate() gives the hand-written score.
    auto at = [&](const char* side, int clock, const khun::nnue::Network* net = nullptr) {
        return khun::eval::evaluate(
            game(board + side + " - - " + std::to_string(clock) + " 100")->pos, net);
    };
    const int v0 = at("w", 0), v16 = at("w", 16), v80 = at("w", 80), v144 = at("w", 144),
              v400 = at("w", 400);
    INFO(v0 << " " << v16 << " " << v80 << " " << v144 << " " << v400);
    CHECK(v0 > 200);
    CHECK(v16 == v0); // a few waiting moves cost nothing
    CHECK(v80 < v16);
    CHECK(v80 > v0 / 2);
    CHECK(std::abs(v144 - v0 / 2) <= 2); // half at most ...
    CHECK(v400 == v144);                 // ... however long it waits
    // The side behind sees the same fade from its side.
    const int b0 = at("b", 0), b144 = at("b", 144);
    INFO(b0 << " " << b144);
    CHECK(b0 < -200);
    CHECK(std::abs(b144 - b0 / 2) <= 2);
    // So does the net's score.
    const auto net = khun::nnue::embedded(khun::GameNet::Makruk);
    REQUIRE(net);
    const int n0 = at("w", 0, net.get()), n144 = at("w", 144, net.get());
    INFO(n0 << " " << n144);
    CHECK(n0 > 200);
    CHECK(std::abs(n144 - n0 / 2) <= 2);
}

TEST_CASE("eval: pawnless edges and mets against a bare king are scaled toward the draw",
          "[eval]") {
    init();
    using khun::eval::scale;
    struct Case {
        const char* fen;
        int scale; // White's scale factor, out of 64
    };
    const Case cases[] = {
        {"1r2k3/4s3/8/R3NS2/8/1K6/8/8 w - - 0 1", 14}, // ruea, ma, khon v ruea, khon
        {"8/8/8/3kmS1R/3r4/3K4/8/8 w - - 0 1", 14},    // ruea, khon v ruea, met
        {"8/3s1k2/8/3SK3/5N2/8/8/8 w - - 0 1", 4},     // ma, khon v khon
        {"8/3k4/8/3pK3/5N2/8/8/8 w - - 0 1", 0},       // lone ma v bia
        {"8/7k/8/8/4K3/8/3RR3/8 w - - 0 1", 64},       // two ruea v bare king
        {"8/r6k/8/8/4K3/5P2/3RN3/8 w - - 0 1", 64},    // the strong side keeps a bia
        {"8/7k/8/8/4K3/8/3SM3/8 w - - 0 1", 64},       // khon and met mate a bare king
        // Bigger pawnless edges under board's honour, by who holds the rueas.
        {"8/r6k/8/8/4K3/8/3RR3/8 w - - 0 1", 48},     // two ruea v ruea: a ruea up
        {"8/r6k/8/8/4K3/8/3RS3/6M1 w - - 0 1", 18},   // ruea, khon, met v ruea
        {"8/r6k/8/8/4K3/8/2NRS3/6M1 w - - 0 1", 26},  // ruea, ma, khon, met v ruea
        {"8/m6k/8/8/4K3/8/3SM3/6M1 w - - 0 1", 32},   // khon, two mets v met
        {"8/r6k/8/8/4K3/8/3RR3/8 w - 128 64 40", 24}, // half the count gone: half the chance
        // Mets and bia v a bare king: mets on one colour never mate.
        {"8/8/8/P3Mk2/3K4/8/8/8 w - - 0 1", 0},    // met and bia: two mets at most
        {"8/8/8/P1P1Mk2/3K4/8/8/8 w - - 0 1", 64}, // bia promoting on both colours
        {"8/8/8/2M1Mk2/3K1M2/8/8/8 w - - 0 1", 0}, // three mets, all on one colour
        {"8/8/8/P3Mk1p/3K4/8/8/8 w - - 0 1", 64},  // the defender has a bia: not bare
    };
    for (const Case& c : cases) {
        auto g = game(c.fen);
        INFO(c.fen);
        CHECK(scale(g->pos, khun::WHITE) == c.scale);
    }
    // The net has learnt how drawish the material is from the games' results: only what
    // cannot mate, and the count's last 80 plies, scale its score.
    const Case netCases[] = {
        {"8/r6k/8/8/4K3/8/3RS3/6M1 w - - 0 1", 64},    // ruea, khon, met v ruea
        {"8/m6k/8/8/4K3/8/3SM3/6M1 w - - 0 1", 64},    // khon, two mets v met
        {"1r2k3/4s3/8/R3NS2/8/1K6/8/8 w - - 0 1", 64}, // ruea, ma, khon v ruea, khon
        {"8/r6k/8/8/4K3/8/3RR3/8 w - 128 40 40", 64},  // 88 plies left: no fade yet
        {"8/r6k/8/8/4K3/8/3RR3/8 w - 128 88 40", 32},  // 40 of the last 80 plies left
        {"8/r6k/8/8/4K3/8/3RR3/8 w - 128 120 40", 6},  // 8 left
        {"8/3k4/8/3pK3/5N2/8/8/8 w - - 0 1", 0},       // lone ma v bia
        {"8/8/8/2M1Mk2/3K1M2/8/8/8 w - - 0 1", 0},     // three mets, all on one colour
        {"8/r6k/8/8/4K3/5P2/3RN3/8 w - - 0 1", 64},    // the strong side keeps a bia
    };
    for (const Case& c : netCases) {
        auto g = game(c.fen);
        INFO(c.fen);
        CHECK(scale(g->pos, khun::WHITE, true) == c.scale);
    }
    // The score itself: ruea and ma against a ruea is worth far less than two ruea
    // against one, though the ma alone would be counted as most of a ruea.
    auto rn = game("8/r6k/8/8/4K3/8/3RN3/8 w - - 0 1");
    auto rr = game("8/r6k/8/8/4K3/8/3RR3/8 w - - 0 1");
    const int vRn = khun::eval::evaluate(rn->pos), vRr = khun::eval::evaluate(rr->pos);
    INFO(vRn << " " << vRr);
    CHECK(vRn > 0);
    CHECK(vRn < vRr / 4);
}

namespace {

// The score for the side to move from the tuner's trace: the tapered sum of feature
// counts times the game's weights, scaled for the side ahead (what evaluate() gives with
// pawns on the board, no count and no fade for want of progress).
long traced_score(const khun::Position& pos) {
    int16_t coef[khun::eval::PARAM_NB] = {};
    khun::eval::trace_terms(pos, coef);
    const khun::eval::Score* w = khun::eval::weights(pos.variant().weights);
    long mg = 0, eg = 0;
    for (int i = 0; i < khun::eval::PARAM_NB; ++i) {
        mg += long(coef[i]) * w[i].mg;
        eg += long(coef[i]) * w[i].eg;
    }
    const int ph = khun::eval::phase(pos);
    long white = (mg * ph + eg * (khun::eval::PhaseMax - ph)) / khun::eval::PhaseMax;
    white = white * khun::eval::scale(pos, white > 0 ? khun::WHITE : khun::BLACK) / 64;
    return pos.side_to_move() == khun::WHITE ? white : -white;
}

} // namespace

TEST_CASE("eval: the score is the weighted sum of the traced features, cached or not", "[eval]") {
    // evaluate() caches the pawn-only terms by pawn structure; the tuner's trace counts
    // every term afresh. With pawns on the board, no count running and the progress fade
    // not begun, the two agree, whichever positions came before.
    init();
    std::mt19937 rng(777);
    int checked = 0, again = 0;
    std::vector<std::string> seen;
    for (int gameNo = 0; gameNo < 30; ++gameNo) {
        auto g = game("startpos");
        for (int ply = 0; ply < 140; ++ply) {
            khun::MoveList ml(g->pos);
            if (ml.size() == 0 || g->pos.outcome() != khun::Outcome::None) break;
            if (g->pos.pieces(khun::PAWN) && !g->pos.count_limit() &&
                g->pos.rule50() <= khun::eval::ProgressFadeStart) {
                INFO(g->pos.fen());
                REQUIRE(khun::eval::evaluate(g->pos) == traced_score(g->pos));
                ++checked;
                seen.push_back(g->pos.fen());
            }
            g->play(*(ml.begin() + rng() % ml.size()));
        }
    }
    // The same positions again, in another order: now mostly from the cache.
    std::shuffle(seen.begin(), seen.end(), rng);
    for (size_t i = 0; i < seen.size(); i += 7) {
        auto p = game(seen[i]);
        INFO(seen[i]);
        REQUIRE(khun::eval::evaluate(p->pos) == traced_score(p->pos));
        ++again;
    }
    CHECK(checked > 2000);
    CHECK(again > 250);
}

TEST_CASE("eval: the drop games score the weighted sum of their own set's traced features",
          "[eval]") {
    // What `khun tune --variant` fits is what the engine plays with: sittuyin's setup
    // (kings in hand), its middlegame, and makrukhouse's hands, each game with its own
    // weight set, the pawn cache shared across games.
    init();
    std::mt19937 rng(4242);
    int setup = 0, hands = 0, board = 0;
    for (const char* name : {"sittuyin", "makrukhouse", "makruk", "sittuyin"}) {
        const khun::Variant* v = khun::find_variant(name);
        REQUIRE(v);
        for (int gameNo = 0; gameNo < 12; ++gameNo) {
            std::string err;
            auto g = khun::Game::make(v->startFen, {}, *v, err);
            REQUIRE(g);
            for (int ply = 0; ply < 120; ++ply) {
                khun::MoveList ml(g->pos);
                if (ml.size() == 0 || g->pos.outcome() != khun::Outcome::None) break;
                const khun::Position& pos = g->pos;
                if (pos.pieces(khun::WHITE, khun::PAWN) && pos.pieces(khun::BLACK, khun::PAWN) &&
                    !pos.count_limit() && pos.rule50() <= khun::eval::ProgressFadeStart) {
                    INFO(name << " " << pos.fen());
                    REQUIRE(khun::eval::evaluate(pos) == traced_score(pos));
                    if (!pos.has_king(khun::WHITE) || !pos.has_king(khun::BLACK))
                        ++setup;
                    else if (pos.hand_count(khun::WHITE) | pos.hand_count(khun::BLACK))
                        ++hands;
                    else
                        ++board;
                }
                g->play(*(ml.begin() + rng() % ml.size()));
            }
        }
    }
    CHECK(setup > 100);
    CHECK(hands > 300);
    CHECK(board > 1000);
    // Sittuyin plays with weights of its own, fitted on its records.
    const khun::eval::Score* s = khun::eval::weights(khun::find_variant("sittuyin")->weights);
    CHECK(s != khun::eval::weights(khun::default_variant().weights));
    CHECK(!std::equal(s, s + khun::eval::PARAM_NB, khun::eval::Weights,
                      [](auto a, auto b) { return a.mg == b.mg && a.eg == b.eg; }));
}
