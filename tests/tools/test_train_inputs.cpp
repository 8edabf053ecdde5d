// The trainer's optional inputs and layers: king buckets, a second hidden layer, the pieces
// in hand and makrukhouse's promoted mets, each added scoring as before, trained, and read by
// the engine.
#include "train_helpers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;
using namespace traintest;

namespace {

// The same with the pieces in hand of a drop game.
int material_with_hands(const Position& pos) {
    int sum = material(pos);
    for (Color c : {WHITE, BLACK})
        for (PieceType pt = PAWN; pt <= ROOK; ++pt)
            sum += (c == WHITE ? 1 : -1) * MaterialValue[pt] * pos.in_hand(c, pt);
    return sum;
}

// Calls f(pos) after each move of random games, game g of the game `game(g)` from its start
// and at most `plies` long, until f returns false.
template <typename G, typename F>
void random_games(uint64_t seed, size_t plies, G&& game, F&& f) {
    Prng rng(seed);
    for (int g = 0;; ++g) {
        const Variant& v = game(g);
        std::vector<StateInfo> states(plies + 1);
        Position pos;
        REQUIRE(!pos.set(v.startFen, v, &states[0]));
        for (size_t ply = 1; ply < states.size(); ++ply) {
            const MoveList moves(pos);
            if (moves.size() == 0 || pos.outcome() != Outcome::None) break;
            pos.do_move(*(moves.begin() + rng.next() % moves.size()), states[ply]);
            if (!f(pos)) return;
        }
    }
}

// `net` quantised (its output layer fitted on `records`), written to a file in `dir` and
// read back as the engine reads a net file; with the mean |engine's score - the float
// model's| over `records`, each set up from its record's FEN in its own game.
struct ReadBack {
    std::shared_ptr<const nnue::Network> net;
    std::string bytes;
    double meanDiff = 0;
};
ReadBack read_back(const train::FloatNet& net, const std::vector<PackedPosition>& records,
                   const TempDir& dir) {
    ReadBack r;
    r.bytes = nnue::serialise(*net.quantise(records));
    write(dir.file("back.nnue"), r.bytes.data(), r.bytes.size());
    const nnue::Loaded loaded = nnue::load_file(dir.file("back.nnue"));
    REQUIRE(loaded.net);
    r.net = loaded.net;
    for (const PackedPosition& p : records) {
        StateInfo st;
        Position pos;
        const auto fen = p.fen();
        REQUIRE(fen);
        REQUIRE(!pos.set(*fen, *p.game(), &st));
        r.meanDiff += std::abs(nnue::evaluate(pos, *r.net) - net.evaluate(p));
    }
    r.meanDiff /= double(std::max<size_t>(1, records.size()));
    return r;
}

} // namespace

TEST_CASE("king buckets: a spread net scores as before, trains, and the engine reads it",
          "[train]") {
    nnue::KingLayout layout;
    REQUIRE(train::king_layout("quarters", layout));
    CHECK(layout.buckets == 4);
    CHECK(layout.bucket(WHITE, SQ_D1) == 0);
    CHECK(layout.bucket(BLACK, SQ_E8) == 0); // Black's e8 is its d1
    CHECK(layout.bucket(WHITE, SQ_E2) == 1);
    CHECK(layout.bucket(WHITE, SQ_C3) == 2);
    CHECK(layout.bucket(BLACK, SQ_C3) == 3); // Black's c3 is its f6
    nnue::KingLayout other;
    CHECK(!train::king_layout("everywhere", other));
    REQUIRE(train::king_layout("none", other));
    CHECK(other.buckets == 1);

    // Spread over the buckets, a net scores every position as it did.
    train::FloatNet net = trained().net;
    train::FloatNet spread = net;
    spread.spread(layout);
    CHECK(spread.rows() == 4 * nnue::InputSize);
    std::vector<std::string> fens;
    random_positions(300, 47, [&](const Position& pos) { fens.push_back(pos.fen()); });
    StateInfo st;
    for (const std::string& fen : fens) {
        Position pos;
        REQUIRE(!pos.set(fen, testutil::makruk(), &st));
        CHECK(spread.evaluate(pos) == Approx(net.evaluate(pos)).margin(1e-3));
    }

    // Trained on records where the king's whereabouts matter, the net learns them and its
    // copies part; the quantised net, written and read back, scores as its float model in
    // the engine. (Which layout plays better is a question for matches: from random weights
    // on a few thousand positions, a copy used by few of them learns little.)
    std::vector<PackedPosition> data;
    random_positions(
        16000, 49,
        [&](const Position& pos) {
            int score = material(pos);
            // A ruea is worth more to a side whose king has left its first two ranks.
            for (Color c : {WHITE, BLACK})
                if (relative_rank(c, pos.king_square(c)) > RANK_2)
                    score += (c == WHITE ? 1 : -1) * 120 * popcount(pos.pieces(c, ROOK));
            data.push_back(PackedPosition::pack(pos, score, 0.5));
        },
        60);
    const auto val = train::hold_out(data, 0.1, 3);
    // As the nets are made: a trained net of one bucket, spread, then trained further.
    train::FloatNet bucketed = spread;
    const train::Options opt = small_options();
    const double before = train::loss(bucketed, val, opt.lambda, 2);
    std::ostringstream log;
    const double after = train::fit(bucketed, data, val, opt, log).valLoss;
    INFO("before " << before << ", after " << after << "\n" << log.str());
    CHECK(after < before / 2);
    const size_t copy = size_t(nnue::InputSize) * nnue::HiddenSize;
    for (int b = 1; b < 4; ++b)
        CHECK(!std::equal(bucketed.ftWeights.begin(),
                          bucketed.ftWeights.begin() + std::ptrdiff_t(copy),
                          bucketed.ftWeights.begin() + std::ptrdiff_t(b * copy)));
    TempDir dir;
    const ReadBack back = read_back(bucketed, val, dir);
    CHECK(back.net->kings.buckets == 4);
    CHECK(back.meanDiff < 8);
}

TEST_CASE("a head: added it scores as before, its gradients are the loss's slopes, and the engine "
          "scores it as the float model",
          "[train]") {
    const Trained& t = trained();
    train::FloatNet headed = t.net;
    CHECK(!headed.has_head());
    headed.add_head(3);
    REQUIRE(headed.has_head());
    std::vector<std::string> fens;
    random_positions(300, 61, [&](const Position& pos) { fens.push_back(pos.fen()); });
    StateInfo st;
    for (const std::string& fen : fens) {
        Position pos;
        REQUIRE(!pos.set(fen, testutil::makruk(), &st));
        CHECK(headed.evaluate(pos) == t.net.evaluate(pos)); // its last weights are 0
    }
    // Trained, the head grows: its last weights leave 0 and it moves the scores. (Once:
    // Catch runs the body again for each section, and the fit is most of the test's time.)
    std::ostringstream log;
    static const train::FloatNet grownOnce = [&] {
        train::FloatNet g = headed;
        train::Options opt = small_options();
        opt.epochs = 3;
        (void)train::fit(g, t.data, {}, opt, log);
        return g;
    }();
    train::FloatNet grown = grownOnce;
    CHECK(std::any_of(grown.headW2.begin(), grown.headW2.end(), [](float w) { return w != 0; }));
    double moved = 0;
    train::FloatNet cut = grown;
    std::fill(cut.headW2.begin(), cut.headW2.end(), 0.0f);
    std::fill(cut.headB2.begin(), cut.headB2.end(), 0.0f);
    for (const PackedPosition& p : t.data) moved += std::abs(grown.evaluate(p) - cut.evaluate(p));
    CHECK(moved / double(t.data.size()) > 0.5);

    SECTION("one step moves each weight against the loss's slope") {
        // AdamW's first step on one batch, without decay, moves every weight by about lr
        // against the sign of its gradient; the slope is measured by nudging the weight.
        // The head's last weights set large, so that its units have slopes worth measuring.
        const std::vector<PackedPosition> batch(t.data.begin(), t.data.begin() + 400);
        for (size_t k = 0; k < grown.headW2.size(); ++k) grown.headW2[k] = k % 3 ? 0.5f : -0.5f;
        train::Options one;
        one.epochs = 1, one.batch = int(batch.size()), one.threads = 1, one.decay = 0;
        one.lr = 1e-4f;
        train::FloatNet stepped = grown;
        (void)train::fit(stepped, batch, {}, one, log);
        int checked = 0, agreed = 0;
        // Returns whether the weight had a slope to check.
        const auto check = [&](std::vector<float> train::FloatNet::*array, size_t k) {
            train::FloatNet probe = grown;
            float& w = (probe.*array)[k];
            const float w0 = w, e = 1e-3f;
            w = w0 + e;
            const double up = train::loss(probe, batch, one.lambda, 1);
            w = w0 - e;
            const double down = train::loss(probe, batch, one.lambda, 1);
            const double slope = (up - down) / (2 * e);
            const float moved = (stepped.*array)[k] - (grown.*array)[k];
            if (std::abs(slope) < 1e-7) return false; // flat, or lost in float noise
            ++checked, agreed += (slope > 0) == (moved < 0);
            return true;
        };
        // Each of the head's arrays and the first layer (reached through the head too), at
        // every `stride`th weight: each probe costs two losses over the batch.
        const auto count = [&](std::vector<float> train::FloatNet::*array, size_t stride) {
            int n = 0;
            for (size_t k = 0; k < (grown.*array).size(); k += stride) n += check(array, k);
            return n;
        };
        const int w2 = count(&train::FloatNet::headW2, 1), b1 = count(&train::FloatNet::headB1, 1),
                  w1 = count(&train::FloatNet::headW1, 211),
                  ft = count(&train::FloatNet::ftBias, 4);
        INFO(agreed << " of " << checked << " weights moved against their slope; W2 " << w2
                    << ", B1 " << b1 << ", W1 " << w1 << ", first-layer biases " << ft);
        CHECK(std::min({w2, b1, w1, ft}) >= 10);
        CHECK(agreed >= checked * 95 / 100);
    }
    SECTION("--head-only trains the head and leaves the rest as it was") {
        train::FloatNet alone = headed;
        train::Options only = small_options();
        only.epochs = 2, only.headOnly = true;
        (void)train::fit(alone, t.data, {}, only, log);
        CHECK(alone.ftWeights == headed.ftWeights);
        CHECK(alone.ftBias == headed.ftBias);
        CHECK(alone.outWeights == headed.outWeights);
        CHECK(alone.outBias == headed.outBias);
        CHECK(alone.headW2 != headed.headW2);
        CHECK(train::loss(alone, t.data, only.lambda, 2) <
              train::loss(headed, t.data, only.lambda, 2));
    }
    SECTION("quantised and read back, the engine scores it as the float model") {
        TempDir dir;
        const std::string bytes = nnue::serialise(*grown.quantise(t.data));
        write(dir.file("h.nnue"), bytes.data(), bytes.size());
        const nnue::Loaded loaded = nnue::load_file(dir.file("h.nnue"));
        REQUIRE(loaded.net);
        CHECK(loaded.net->hasHead);
        const train::FloatNet back = train::FloatNet::from(*loaded.net);
        CHECK(back.has_head());
        CHECK(nnue::serialise(*back.quantise()) == bytes); // the file's values, exactly
        double diff = 0, diffBack = 0;
        for (const std::string& fen : fens) {
            Position pos;
            REQUIRE(!pos.set(fen, testutil::makruk(), &st));
            const int cp = nnue::evaluate(pos, *loaded.net);
            diff += std::abs(grown.evaluate(pos) - cp);
            diffBack += std::abs(back.evaluate(pos) - cp);
        }
        INFO("mean |float - engine| " << diff / double(fens.size()) << " cp, dequantised "
                                      << diffBack / double(fens.size()));
        CHECK(diff / double(fens.size()) < 4);
        CHECK(diffBack / double(fens.size()) < 1.5);
    }
    SECTION("the command adds a head to a net without one") {
        TempDir dir;
        write(dir.file("d.bin"), t.data);
        const std::string plain = nnue::serialise(*t.net.quantise());
        write(dir.file("plain.nnue"), plain.data(), plain.size());
        const auto run = [&](const std::string& init, const std::string& out, bool head) {
            std::vector<std::string> args{dir.file("d.bin"), "--epochs", "1",
                                          "--threads",       "1",        "--init",
                                          dir.file(init),    "--out",    dir.file(out)};
            if (head) args.push_back("--head");
            std::ostringstream runLog;
            REQUIRE(train::train_main(args, runLog) == 0);
            return read(dir.file(out));
        };
        CHECK(run("plain.nnue", "p.nnue", false)[8] == 2);
        CHECK(run("plain.nnue", "h.nnue", true)[8] == 4);
        CHECK(run("h.nnue", "hh.nnue", false)[8] == 4); // a head stays
        CHECK(nnue::load_file(dir.file("hh.nnue")).net->hasHead);
        // Training the head alone needs one.
        std::ostringstream refused;
        CHECK(
            train::train_main({dir.file("d.bin"), "--init", dir.file("plain.nnue"), "--head-only"},
                              refused) == 2);
        CHECK(refused.str().find("--head-only needs a head") != std::string::npos);
    }
}

TEST_CASE("hand inputs: added they score as before, learn what the hands hold, and the engine "
          "reads them",
          "[train]") {
    testutil::init();
    // Random sittuyin games (their setups: pieces in hand) and makrukhouse games (captures
    // into the hand, drops), scored by material on the board and in the hands: a net that
    // sees the board only cannot fit the hands' share.
    std::vector<PackedPosition> data;
    random_games(
        61, 80,
        [](int g) -> const Variant& { return *find_variant(g % 2 ? "makrukhouse" : "sittuyin"); },
        [&](const Position& pos) {
            data.push_back(PackedPosition::pack(pos, material_with_hands(pos), 0.5));
            return data.size() < 14000;
        });
    const size_t withHand = size_t(std::count_if(data.begin(), data.end(), [](const auto& p) {
        return p.piece_count() > popcount(p.occupancy);
    }));
    INFO(withHand << " of " << data.size() << " records have pieces in hand");
    REQUIRE(withHand > data.size() / 4);
    const auto val = train::hold_out(data, 0.1, 3);

    // Added, the inputs start at 0: every position scores as before.
    const train::FloatNet plain = trained().net;
    train::FloatNet handed = plain;
    handed.add_hand();
    CHECK(handed.rows() == nnue::InputSize + nnue::HandInputs);
    for (size_t i = 0; i < val.size(); i += 37)
        CHECK(handed.evaluate(val[i]) == Approx(plain.evaluate(val[i])).margin(1e-3));

    // Trained alike from there, the net with them fits the hands' share; the one without
    // cannot.
    const train::Options opt = small_options();
    train::FloatNet boardOnly = plain;
    std::ostringstream log;
    const double without = train::fit(boardOnly, data, val, opt, log).valLoss;
    const double with = train::fit(handed, data, val, opt, log).valLoss;
    INFO("validation loss without hand inputs " << without << ", with " << with);
    CHECK(with < without * 0.7);

    // The position and its record give the same features, and the engine reads the net
    // back and scores as its float model, hands included.
    for (size_t i = 0; i < val.size(); i += 7) {
        StateInfo st;
        Position pos;
        REQUIRE(!pos.set(*val[i].fen(), *val[i].game(), &st));
        CHECK(handed.evaluate(pos) == Approx(handed.evaluate(val[i])).margin(1e-2));
    }
    TempDir dir;
    const ReadBack back = read_back(handed, val, dir);
    CHECK(back.bytes[8] == 5);
    CHECK(back.net->hasHand);
    CHECK(back.meanDiff < 8);

    // The command: --hand gives a net without them the inputs, and they stay; a net without
    // them told of records with pieces in hand.
    write(dir.file("d.bin"), data);
    const std::string plainBytes = nnue::serialise(*plain.quantise());
    write(dir.file("plain.nnue"), plainBytes.data(), plainBytes.size());
    const auto run = [&](const std::string& init, const std::string& out, bool hand) {
        std::vector<std::string> args{dir.file("d.bin"), "--epochs",     "1",     "--threads",  "1",
                                      "--init",          dir.file(init), "--out", dir.file(out)};
        if (hand) args.push_back("--hand");
        std::ostringstream runLog;
        REQUIRE(train::train_main(args, runLog) == 0);
        return std::make_pair(read(dir.file(out)), runLog.str());
    };
    const auto [p, pLog] = run("plain.nnue", "p.nnue", false);
    CHECK(p[8] == 2);
    CHECK(pLog.find("pieces in hand, which this net does not see") != std::string::npos);
    const auto [h, hLog] = run("plain.nnue", "h2.nnue", true);
    CHECK(h[8] == 5);
    CHECK(hLog.find("which this net does not see") == std::string::npos);
    CHECK(run("h2.nnue", "hh.nnue", false).first[8] == 5);
}

TEST_CASE("promoted mets: added they score as before, learn what a promoted met is worth, and the "
          "engine reads them",
          "[train]") {
    testutil::init();
    // Random makrukhouse games scored by material on the board and in the hands, a promoted
    // met worth a pawn (what it gives the other side when taken), each position with a
    // promoted met beside its twin where those mets are dropped ones (unmarked, worth a
    // met): a net that sees both as mets cannot fit the difference.
    const Variant& house = *find_variant("makrukhouse");
    std::vector<PackedPosition> data;
    random_games(
        71, 120, [&](int) -> const Variant& { return house; },
        [&](const Position& pos) {
            int score = material_with_hands(pos);
            if (pos.promoted()) {
                std::string fen = pos.fen();
                fen.erase(std::remove(fen.begin(), fen.end(), '~'), fen.end());
                StateInfo twinSt;
                Position twin;
                REQUIRE(!twin.set(fen, house, &twinSt));
                data.push_back(PackedPosition::pack(twin, score, 0.5));
            }
            for (Bitboard b = pos.promoted(); b;) {
                const Square s = pop_lsb(b);
                score -= (color_of(pos.piece_on(s)) == WHITE ? 1 : -1) *
                         (MaterialValue[MET] - MaterialValue[PAWN]);
            }
            data.push_back(PackedPosition::pack(pos, score, 0.5));
            return data.size() < 14000;
        });
    const auto marked = [](const PackedPosition& p) {
        bool any = false;
        p.for_each_piece([&](Piece, Square, bool promoted) { any |= promoted; });
        return any;
    };
    const size_t withPromoted = size_t(std::count_if(data.begin(), data.end(), marked));
    INFO(withPromoted << " of " << data.size() << " records have a promoted met");
    REQUIRE(withPromoted > data.size() / 4);
    const auto val = train::hold_out(data, 0.1, 3);

    // Added, the promoted mets read copies of the met's rows: every position scores as
    // before.
    train::FloatNet handed = trained().net;
    handed.add_hand();
    train::FloatNet promoted = handed;
    promoted.add_promoted();
    CHECK(promoted.rows() == handed.rows());
    for (size_t i = 0; i < val.size(); i += 37)
        CHECK(promoted.evaluate(val[i]) == Approx(handed.evaluate(val[i])).margin(1e-3));

    // Trained alike from there, the net that tells them apart fits better.
    const train::Options opt = small_options();
    std::ostringstream log;
    const double without = train::fit(handed, data, val, opt, log).valLoss;
    const double with = train::fit(promoted, data, val, opt, log).valLoss;
    INFO("validation loss seeing promoted mets as mets " << without << ", as their own " << with);
    CHECK(with < without * 0.95);

    // The position and its record give the same features, and the engine reads the net
    // back and scores as its float model.
    int compared = 0;
    for (size_t i = 0; i < val.size(); i += 3) {
        if (!marked(val[i])) continue;
        StateInfo st;
        Position pos;
        REQUIRE(!pos.set(*val[i].fen(), *val[i].game(), &st));
        REQUIRE(pos.promoted());
        CHECK(promoted.evaluate(pos) == Approx(promoted.evaluate(val[i])).margin(1e-2));
        ++compared;
    }
    CHECK(compared > 50);
    TempDir dir;
    const ReadBack back = read_back(promoted, val, dir);
    CHECK(back.bytes[8] == 5);
    CHECK((back.net->hasPromoted && back.net->hasHand));
    CHECK(back.meanDiff < 8);

    // The command: --promoted gives a net the inputs, and they stay.
    write(dir.file("d.bin"), data);
    const std::string handBytes = nnue::serialise(*handed.quantise());
    write(dir.file("hand.nnue"), handBytes.data(), handBytes.size());
    std::ostringstream runLog;
    REQUIRE(train::train_main({dir.file("d.bin"), "--epochs", "1", "--threads", "1", "--init",
                               dir.file("hand.nnue"), "--out", dir.file("p.nnue"), "--promoted"},
                              runLog) == 0);
    CHECK(runLog.str().find("inputs for promoted mets added") != std::string::npos);
    const nnue::Loaded loaded = nnue::load_file(dir.file("p.nnue"));
    REQUIRE(loaded.net);
    CHECK((loaded.net->hasPromoted && loaded.net->hasHand));
}
