// Moves: UCI text in and out, and the move generator checked against itself (the
// CAPTURES/QUIETS/EVASIONS partition), against a brute-force legality oracle, and through
// make/unmake and the Zobrist key over many positions.
#include "helpers.h"

#include "khun/search/movepick.h"

#include <random>
#include <set>

using namespace khun;
using namespace khun::search;
using namespace khun::protocol;
using namespace testutil;

TEST_CASE("moves: promotion is written with an m and read with or without it", "[moves]") {
    auto g = game("4k3/8/3r4/4P3/8/8/8/4K3 w - - 0 1");
    const Move push(SQ_E5, SQ_E6, PROMOTION);
    const Move take(SQ_E5, SQ_D6, PROMOTION);
    MoveList ml(g->pos);
    REQUIRE(ml.contains(push));
    REQUIRE(ml.contains(take));
    CHECK_FALSE(ml.contains(Move(SQ_E5, SQ_E6)));
    CHECK(to_uci(push, g->pos) == "e5e6m");
    CHECK(to_uci(take, g->pos) == "e5d6m");
    CHECK(parse_uci_move(g->pos, "e5e6m") == push);
    CHECK(parse_uci_move(g->pos, "e5e6") == push);
    CHECK(parse_uci_move(g->pos, "e5d6m") == take);
    CHECK(parse_uci_move(g->pos, "e5d6") == take);
    // Makruk promotes to the met only.
    CHECK(parse_uci_move(g->pos, "e5e6r") == Move::none());
    CHECK(parse_uci_move(g->pos, "e5e6q") == Move::none());

    play(*g, "e5e6");
    CHECK(g->pos.piece_on(SQ_E6) == W_MET);
    CHECK(g->pos.count(WHITE, PAWN) == 0);
    // The last pawn is gone and both sides have pieces: board's honour starts.
    CHECK(g->pos.fen() == "4k3/8/3rM3/8/8/8/8/4K3 b - 128 0 1");
}

TEST_CASE("moves: black promotes on rank 3", "[moves]") {
    auto g = game("4k3/8/8/8/3p4/8/8/K7 b - - 0 1");
    const Move push(SQ_D4, SQ_D3, PROMOTION);
    CHECK(to_uci(push, g->pos) == "d4d3m");
    CHECK(parse_uci_move(g->pos, "d4d3") == push);
    play(*g, "d4d3m");
    CHECK(g->pos.piece_on(SQ_D3) == B_MET);
}

TEST_CASE("moves: illegal and garbled strings give Move::none()", "[moves]") {
    auto g = game("startpos");
    for (const char* s : {"e2e5",   "zz99", "",       "e3e4x", "e3e5", "e3e4m", "e3",
                          "e3e4mm", "E3E4", "e3e4 ",  " e3e4", "a1a1", "0000",  "e9e4",
                          "i3i4",   "e1e2", "d1d2d3", "b1c3",  "e6e5", "(none)"}) {
        INFO("'" << s << "'");
        CHECK(parse_uci_move(g->pos, s) == Move::none());
    }
    CHECK(parse_uci_move(g->pos, "e3e4") == Move(SQ_E3, SQ_E4));
    CHECK(parse_uci_move(g->pos, "b1d2") == Move(SQ_B1, SQ_D2));
    CHECK(to_uci(Move::none(), g->pos) == "(none)");
    CHECK(to_uci(Move::null(), g->pos) == "0000");
}

TEST_CASE("moves: Game::make refuses an illegal move and Engine keeps its game", "[moves]") {
    init();
    std::string err;
    auto bad = Game::make(StartFen, {"e3e4", "e6e5", "e4e5"}, makruk(), err);
    CHECK_FALSE(bad);
    CHECK(!err.empty());
    CHECK(err.find("e4e5") != std::string::npos);
    err.clear();
    CHECK_FALSE(Game::make(StartFen, {"zz99"}, makruk(), err));
    CHECK(!err.empty());

    Engine engine;
    REQUIRE_FALSE(engine.set_position("", {"e3e4", "e6e5"}));
    const std::string fen = engine.position().fen();
    const Key key = engine.position().key();
    CHECK(fen == "rnsmksnr/8/pppp1ppp/4p3/4P3/PPPP1PPP/8/RNSKMSNR w - - 0 2");
    for (std::vector<std::string> moves : std::vector<std::vector<std::string>>{
             {"e3e4", "e6e5", "zzzz"}, {"e3e4", "e3e4"}, {"e3e5"}, {"d1d2", "d8d7", "d2d1", "x"}}) {
        auto e = engine.set_position("", moves);
        CHECK(e);
        CHECK(engine.position().fen() == fen);
        CHECK(engine.position().key() == key);
    }
    // An illegal move after a FEN is refused as well.
    CHECK(engine.set_position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", {"a1a8", "e8d8"}));
    CHECK(engine.position().fen() == fen);
}

// ---------------------------------------------------------------------------------------
// The generator over many positions

namespace {

std::set<uint16_t> as_set(const Move* b, const Move* e) {
    std::set<uint16_t> s;
    for (const Move* m = b; m != e; ++m) s.insert(m->raw());
    return s;
}

// Every legal move found by brute force: each piece's attack set (pushes for pawns), made
// on the board and kept when our king is not attacked afterwards.
std::set<uint16_t> oracle_moves(Position& pos) {
    std::set<uint16_t> out;
    const Color us = pos.side_to_move(), them = ~us;
    const Bitboard ours = pos.pieces(us), theirs = pos.pieces(them);
    for (Bitboard b = ours; b;) {
        const Square from = pop_lsb(b);
        const PieceType pt = type_of(pos.piece_on(from));
        Bitboard targets;
        if (pt == PAWN) {
            targets = attacks::pawn(us, from) & theirs;
            const Square push = from + pawn_push(us);
            if (pos.empty(push)) targets |= square_bb(push);
        } else
            targets = attacks::of(pt, us, from, pos.pieces()) & ~ours;
        while (targets) {
            const Square to = pop_lsb(targets);
            const bool promo = pt == PAWN && relative_rank(us, to) >= pos.variant().promotionRank;
            const Move m(from, to, promo ? PROMOTION : NORMAL);
            StateInfo st;
            pos.do_move(m, st);
            const bool legal =
                !(pos.attackers_to(pos.king_square(us), pos.pieces()) & pos.pieces(them));
            pos.undo_move(m);
            if (legal) out.insert(m.raw());
        }
    }
    return out;
}

// Checks one position; returns a description of the first problem, or "".
std::string check_position(Position& pos) {
    const std::string fen = pos.fen();
    const Key key = pos.key();
    std::string why;
    if (!pos.is_ok(&why)) return "is_ok fails: " + why;

    Move legal[MAX_MOVES], caps[MAX_MOVES], quiets[MAX_MOVES], evas[MAX_MOVES];
    Move* le = generate<LEGAL>(pos, legal);
    Move* ce = generate<CAPTURES>(pos, caps);
    Move* qe = generate<QUIETS>(pos, quiets);
    const auto L = as_set(legal, le), C = as_set(caps, ce), Q = as_set(quiets, qe);
    if (L.size() != size_t(le - legal)) return "LEGAL has duplicates";
    if (C.size() != size_t(ce - caps) || Q.size() != size_t(qe - quiets))
        return "CAPTURES or QUIETS has duplicates";
    for (uint16_t m : C)
        if (Q.count(m)) return "move in both CAPTURES and QUIETS";
    std::set<uint16_t> U = C;
    U.insert(Q.begin(), Q.end());
    if (U != L) return "CAPTURES + QUIETS != LEGAL";
    if (count_legal(pos) != int(L.size())) return "count_legal != LEGAL size";
    if (MoveList(pos).size() != L.size()) return "MoveList size != LEGAL size";
    for (const Move* m = caps; m != ce; ++m)
        if (!pos.is_capture(*m) && !m->is_promotion())
            return "CAPTURES holds a quiet move " + to_uci(*m, pos);
    for (const Move* m = quiets; m != qe; ++m)
        if (pos.is_capture(*m) || m->is_promotion())
            return "QUIETS holds a capture or promotion " + to_uci(*m, pos);
    if (pos.in_check()) {
        Move* ee = generate<EVASIONS>(pos, evas);
        if (as_set(evas, ee) != L) return "EVASIONS != LEGAL in check";
    }
    if (oracle_moves(pos) != L) return "LEGAL differs from the brute-force oracle";

    // The move picker returns each legal move once; once late move pruning skips the
    // quiet moves, it still returns every capture, promotion and check not yet returned.
    static const std::unique_ptr<History> hist = [] {
        auto h = std::make_unique<History>();
        h->clear();
        return h;
    }();
    const Move noKillers[2] = {Move::none(), Move::none()};
    MovePicker picker(pos, Move::none(), *hist, noKillers, Move::none(), nullptr);
    std::set<uint16_t> picked, rest, expected;
    for (int i = 0; i < 2; ++i)
        if (Move m = picker.next()) picked.insert(m.raw());
    picker.skip_quiets(pos);
    for (Move m; (m = picker.next());)
        if (!rest.insert(m.raw()).second || picked.count(m.raw()))
            return "move picker repeats " + to_uci(m, pos);
    for (uint16_t raw : L)
        if (!picked.count(raw) && (C.count(raw) || pos.gives_check(Move::from_raw(raw))))
            expected.insert(raw);
    if (rest != expected) return "skip_quiets dropped a capture or check, or kept a quiet move";
    // Quiescence: captures and promotions; in check, every evasion.
    MovePicker qs(pos, Move::none(), *hist);
    std::set<uint16_t> got;
    for (Move m; (m = qs.next());)
        if (!got.insert(m.raw()).second) return "quiescence picker repeats " + to_uci(m, pos);
    if (got != (pos.in_check() ? L : C)) return "quiescence picker moves wrong";

    for (const Move* mp = legal; mp != le; ++mp) {
        const Move m = *mp;
        const std::string u = to_uci(m, pos);
        if (!pos.is_legal(m)) return "is_legal false for generated " + u;
        if (parse_uci_move(pos, u) != m) return "to_uci/parse_uci_move round trip fails: " + u;
        const bool givesCheck = pos.gives_check(m);
        StateInfo st;
        pos.do_move(m, st);
        std::string w;
        if (!pos.is_ok(&w)) return "is_ok fails after " + u + ": " + w;
        if (pos.in_check() != givesCheck) return "gives_check wrong for " + u;
        if (pos.last_move() != m) return "last_move wrong after " + u;
        // Zobrist: incremental key == key of the same position set from scratch.
        const std::string after = pos.fen();
        Position fresh;
        StateInfo fst;
        if (auto err = fresh.set(after, pos.variant(), &fst))
            return "written FEN refused after " + u + ": " + *err;
        if (fresh.key() != pos.key()) return "incremental key != fresh key after " + u;
        if (fresh.fen() != after) return "FEN round trip fails after " + u;
        if (pos.key() == key) return "key unchanged by " + u;
        pos.undo_move(m);
        if (pos.fen() != fen) return "undo does not restore the FEN after " + u;
        if (pos.key() != key) return "undo does not restore the key after " + u;
    }
    // Random 16-bit values: is_legal agrees with the list (what a TT move needs).
    static std::mt19937 rng(20240601);
    for (int i = 0; i < 32; ++i) {
        const Move m = Move::from_raw(uint16_t(rng()));
        if (pos.is_legal(m) != (L.count(m.raw()) > 0))
            return "is_legal disagrees with LEGAL for raw " + std::to_string(m.raw());
    }
    if (pos.is_legal(Move::none()) || pos.is_legal(Move::null())) return "none/null legal";
    return "";
}

// Positions from the data files plus random games from them and from the start.
struct Walker {
    std::mt19937 rng{12345};
    int positions = 0, checks = 0, captures = 0, promotions = 0;
    std::vector<std::string> failures;

    void visit(Game& g) {
        ++positions;
        if (g.pos.in_check()) ++checks;
        std::string f = check_position(g.pos);
        if (!f.empty() && failures.size() < 10) failures.push_back(g.pos.fen() + ": " + f);
    }

    void walk(const std::string& fen, int plies) {
        auto g = game(fen);
        visit(*g);
        for (int i = 0; i < plies; ++i) {
            MoveList ml(g->pos);
            if (ml.size() == 0) break;
            const Move m = *(ml.begin() + rng() % ml.size());
            if (g->pos.is_capture(m)) ++captures;
            if (m.is_promotion()) ++promotions;
            g->play(m);
            visit(*g);
        }
    }
};

} // namespace

TEST_CASE("moves: generation partition and legality and make/unmake and keys",
          "[moves][movegen][sweep]") {
    Walker w;
    for (const std::string& fen : data_fens()) w.walk(fen, 8);
    for (int game = 0; game < 40; ++game) w.walk(StartFen, 160);
    INFO("positions " << w.positions << ", in check " << w.checks << ", captures " << w.captures
                      << ", promotions " << w.promotions);
    for (const std::string& f : w.failures) UNSCOPED_INFO(f);
    CHECK(w.failures.empty());
    // The walk must have seen the interesting cases, or it proves little.
    CHECK(w.positions > 8000);
    CHECK(w.checks > 200);
    CHECK(w.captures > 500);
    CHECK(w.promotions > 20);
}

TEST_CASE("moves: copy_from gives an independent copy", "[moves]") {
    auto g = game("startpos", "e3e4 e6e5");
    Position copy;
    StateInfo st;
    copy.copy_from(g->pos, &st);
    CHECK(copy.fen() == g->pos.fen());
    CHECK(copy.key() == g->pos.key());
    StateInfo st2;
    const Move m = parse_uci_move(copy, "b1d2");
    copy.do_move(m, st2);
    CHECK(copy.fen() != g->pos.fen());
    CHECK(g->pos.fen() == "rnsmksnr/8/pppp1ppp/4p3/4P3/PPPP1PPP/8/RNSKMSNR w - - 0 2");
    copy.undo_move(m);
    CHECK(copy.fen() == g->pos.fen());
    CHECK(copy.key() == g->pos.key());
}

TEST_CASE("moves: a null move flips the side and keeps the key consistent", "[moves]") {
    for (const char* fen : {StartFen.c_str(), "4k2r/8/8/8/8/8/8/4K2N w - 128 7 30"}) {
        auto g = game(fen);
        const std::string before = g->pos.fen();
        const Key key = g->pos.key();
        StateInfo st;
        g->pos.do_null_move(st);
        CHECK(g->pos.side_to_move() == BLACK);
        CHECK(g->pos.key() != key);
        CHECK(game(g->pos.fen())->pos.key() == g->pos.key());
        std::string why;
        CHECK(g->pos.is_ok(&why));
        g->pos.undo_null_move();
        CHECK(g->pos.fen() == before);
        CHECK(g->pos.key() == key);
    }
}

TEST_CASE("moves: the start position's legal moves", "[moves]") {
    auto g = game("startpos");
    CHECK(uci_moves(g->pos) ==
          sorted({"a3a4", "b3b4", "c3c4", "d3d4", "e3e4", "f3f4", "g3g4", "h3h4",
                  "a1a2", "h1h2", "b1d2", "g1e2", "c1c2", "c1b2", "c1d2", "f1f2",
                  "f1e2", "f1g2", "d1c2", "d1d2", "d1e2", "e1d2", "e1f2"}));
}
