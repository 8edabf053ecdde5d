// The NNUE trainer: the quantised net scores as its float model, training fits a simple
// target and repeats bit for bit, damaged data is refused.
#include "helpers.h"

#include "khun/eval/nnue.h"
#include "khun/rules/prng.h"
#include "khun/tools/packed.h"
#include "khun/tools/train.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <unistd.h>

using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;
namespace fs = std::filesystem;

namespace {

// Material from White's side, in centipawns: the synthetic data's score, a target any
// net of this shape can fit.
constexpr int MaterialValue[PIECE_TYPE_NB] = {0, 100, 300, 250, 200, 500, 0, 0};
int material(const Position& pos) {
    int sum = 0;
    for (Bitboard b = pos.pieces(); b;) {
        const Piece pc = pos.piece_on(pop_lsb(b));
        sum += color_of(pc) == WHITE ? MaterialValue[type_of(pc)] : -MaterialValue[type_of(pc)];
    }
    return sum;
}

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

// Calls f(pos) for the positions of random games from the start, `count` in all, each
// game at most `plies` long.
template <typename F>
void random_positions(int count, uint64_t seed, F&& f, size_t plies = 199) {
    testutil::init();
    Prng rng(seed);
    std::vector<StateInfo> states(plies + 1);
    Position pos;
    for (int done = 0; done < count;) {
        REQUIRE(!pos.set(testutil::StartFen, testutil::makruk(), &states[0]));
        for (size_t ply = 1; ply < states.size() && done < count; ++ply) {
            const MoveList moves(pos);
            if (moves.size() == 0) break;
            pos.do_move(*(moves.begin() + rng.next() % moves.size()), states[ply]);
            f(pos);
            ++done;
        }
    }
}

// Records scored by material, the result its sign.
std::vector<PackedPosition> material_data(int count, uint64_t seed, size_t plies = 199) {
    std::vector<PackedPosition> data;
    random_positions(
        count, seed,
        [&](const Position& pos) {
            const int m = material(pos);
            data.push_back(PackedPosition::pack(pos, m, m > 150 ? 1.0 : m < -150 ? 0.0 : 0.5));
        },
        plies);
    return data;
}

train::Options small_options() {
    train::Options opt;
    opt.epochs = 8;
    opt.batch = 256;
    opt.lr = 0.005f;
    opt.threads = 2;
    opt.seed = 7;
    return opt;
}

// A net trained briefly on material (weights of the size training gives them), and the
// records it was trained on.
struct Trained {
    std::vector<PackedPosition> data;
    train::FloatNet net;
};
const Trained& trained() {
    static const Trained t = [] {
        Trained r;
        r.data = material_data(3000, 11);
        const auto val = train::hold_out(r.data, 0.1, 3);
        r.net = train::FloatNet::random(5);
        std::ostringstream log;
        (void)train::fit(r.net, r.data, val, small_options(), log);
        return r;
    }();
    return t;
}

// A fresh directory for the test's files, removed at the end.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string p = (fs::temp_directory_path() / "khun-train-XXXXXX").string();
        REQUIRE(mkdtemp(p.data()));
        path = p;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

void write(const std::string& file, const void* data, size_t size) {
    std::ofstream out(file, std::ios::binary);
    out.write(static_cast<const char*>(data), std::streamsize(size));
    REQUIRE(out.good());
}

void write(const std::string& file, const std::vector<PackedPosition>& data) {
    write(file, data.data(), data.size() * sizeof(PackedPosition));
}

// The FEN of `fen`'s position turned over left to right: each rank's field read backwards
// (a digit stands for empty squares whichever way it is read; no '~' in makruk).
std::string mirrored_fen(const std::string& fen) {
    const size_t space = fen.find(' ');
    std::string board;
    for (std::string rank : testutil::split(fen.substr(0, space), '/')) {
        std::reverse(rank.begin(), rank.end());
        board += (board.empty() ? "" : "/") + rank;
    }
    return board + fen.substr(space);
}

std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
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

TEST_CASE("the quantised net scores as its float model", "[train]") {
    const train::FloatNet& net = trained().net;
    const std::unique_ptr<nnue::Network> nearest = net.quantise(),
                                         fitted = net.quantise(trained().data);
    // Through the file, as the engine would load it.
    auto loaded = std::make_unique<nnue::Network>();
    REQUIRE(!nnue::parse(nnue::serialise(*fitted), *loaded));
    const train::FloatNet dequantised = train::FloatNet::from(*loaded);

    struct Diff {
        double sum = 0, max = 0;
        void add(double d) { sum += std::abs(d), max = std::max(max, std::abs(d)); }
    } diffNearest, diffFitted;
    double sumAbs = 0;
    int n = 0;
    random_positions(2000, 99, [&](const Position& pos) {
        const int cp = nnue::evaluate(pos, *loaded);
        // The same weights in float: the integer net only truncates its last division
        // (< 1 cp) and sum / QA (< 0.03 cp).
        INFO(pos.fen());
        REQUIRE(std::abs(dequantised.evaluate(pos) - cp) < 1.05);
        const float exact = net.evaluate(pos);
        diffFitted.add(exact - cp);
        diffNearest.add(exact - nnue::evaluate(pos, *nearest));
        sumAbs += std::abs(cp);
        ++n;
    });
    // The trained float net against its quantised self, on positions it was not fitted
    // to. The first layer's weights are rounded to 1/255 and about 30 are summed, the
    // output weights to 1/64 over 512 units, the score truncated: a few centipawns.
    INFO("fitted: mean |diff| " << diffFitted.sum / n << " cp, max " << diffFitted.max
                                << "; nearest: mean " << diffNearest.sum / n << ", max "
                                << diffNearest.max << "; mean |score| " << sumAbs / n);
    CHECK(diffFitted.sum / n <= 4.0);
    CHECK(diffFitted.max <= 16.0);
    CHECK(diffFitted.sum <= diffNearest.sum);
    // The net is not trivially flat: it scores material.
    CHECK(sumAbs / n > 50);
}

TEST_CASE("quantisation keeps the weights in the engine's bounds", "[train]") {
    train::FloatNet net = train::FloatNet::random(1);
    net.ftWeights[0] = 100, net.ftWeights[1] = -100, net.ftBias[0] = 7;
    net.outWeights[0] = 3, net.outWeights[1] = -3;
    const std::unique_ptr<nnue::Network> q = net.quantise();
    CHECK(q->ftWeights[0] == train::FtQuantMax);
    CHECK(q->ftWeights[1] == -train::FtQuantMax);
    CHECK(q->ftBias[0] == train::FtQuantMax);
    CHECK(q->outWeights[0] == 127);
    CHECK(q->outWeights[1] == -127);
    // 32 pieces and the bias at the bound still fit the int16 accumulator.
    CHECK((train::MaxPieces + 1) * train::FtQuantMax <= 32767);
    auto parsed = std::make_unique<nnue::Network>();
    CHECK(!nnue::parse(nnue::serialise(*q), *parsed));
}

TEST_CASE("the validation set is whole games, chosen by the seed", "[train]") {
    const std::vector<PackedPosition> all = material_data(6000, 31);
    // The games as datagen would write them: runs whose move number never goes back.
    std::vector<std::pair<size_t, size_t>> games; // [begin, end)
    for (size_t i = 0; i < all.size(); ++i)
        if (i == 0 || all[i].fullmove < all[i - 1].fullmove)
            games.emplace_back(i, i + 1);
        else
            games.back().second = i + 1;
    REQUIRE(games.size() > 20);
    auto same = [](const PackedPosition* a, const PackedPosition* b, size_t n) {
        return std::memcmp(a, b, n * sizeof(PackedPosition)) == 0;
    };
    std::vector<PackedPosition> data = all;
    const auto val = train::hold_out(data, 0.15, 4);
    REQUIRE(val.size() + data.size() == all.size());
    // Both sets keep the file's order, so each game must lie whole in one of them.
    size_t v = 0, t = 0, heldGames = 0, longest = 0;
    for (const auto& [b, e] : games) {
        const size_t n = e - b;
        longest = std::max(longest, n);
        if (v + n <= val.size() && same(&val[v], &all[b], n))
            v += n, ++heldGames;
        else {
            REQUIRE(t + n <= data.size());
            REQUIRE(same(&data[t], &all[b], n));
            t += n;
        }
    }
    CHECK(heldGames > 0);
    // At least the share, and short of it by less than one game before the last was added.
    CHECK(val.size() >= 900);
    CHECK(val.size() < 900 + longest);
    // Another seed holds out other games; the same seed the same ones.
    std::vector<PackedPosition> again = all, other = all;
    const auto val2 = train::hold_out(again, 0.15, 4);
    const auto val3 = train::hold_out(other, 0.15, 5);
    CHECK((val2.size() == val.size() && same(val2.data(), val.data(), val.size())));
    CHECK(!(val3.size() == val.size() && same(val3.data(), val.data(), val.size())));
}

TEST_CASE("training lowers the loss and repeats bit for bit", "[train]") {
    // Short games, so that the held-out games are many and like the others.
    std::vector<PackedPosition> data = material_data(20000, 21, 40);
    SECTION("the validation loss drops") {
        const auto val = train::hold_out(data, 0.1, 1);
        REQUIRE(val.size() >= 2000);
        REQUIRE(val.size() + data.size() == 20000);
        train::FloatNet net = train::FloatNet::random(1);
        const train::Options opt = small_options();
        const double before = train::loss(net, val, opt.lambda, 2);
        std::ostringstream log;
        const train::Summary s = train::fit(net, data, val, opt, log);
        INFO(log.str());
        CHECK(s.valLoss == Approx(train::loss(net, val, opt.lambda, 1)).epsilon(1e-6));
        CHECK(s.valLoss < before / 4);
        CHECK(s.rate > 0);
    }
    SECTION("the command writes the same net from the same seed") {
        TempDir dir;
        write(dir.file("a.bin"), std::vector<PackedPosition>(data.begin(), data.begin() + 2500));
        write(dir.file("b.bin"),
              std::vector<PackedPosition>(data.begin() + 2500, data.begin() + 4000));
        const auto run = [&](const std::string& out, const std::string& threads) {
            std::ostringstream log;
            const int rc = train::train_main({dir.file("a.bin"), dir.file("b.bin"), "--epochs", "3",
                                              "--batch", "512", "--threads", threads, "--seed", "5",
                                              "--out", dir.file(out)},
                                             log);
            INFO(log.str());
            REQUIRE(rc == 0);
            CHECK(log.str().find("quantised") != std::string::npos);
            return read(dir.file(out));
        };
        const std::string a = run("a.nnue", "2"), b = run("b.nnue", "2");
        CHECK(a == b);
        // It is a net the engine loads.
        const nnue::Loaded loaded = nnue::load_file(dir.file("a.nnue"));
        CHECK(loaded.error.empty());
        CHECK(loaded.name == nnue::net_name(a));
        // Continuing from it works too.
        std::ostringstream log;
        CHECK(train::train_main({dir.file("a.bin"), "--epochs", "1", "--threads", "1", "--init",
                                 dir.file("a.nnue"), "--out", dir.file("c.nnue")},
                                log) == 0);
    }
}

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

TEST_CASE("mirrored training records are the positions turned over left to right", "[train]") {
    std::vector<std::string> fens;
    random_positions(300, 41, [&](const Position& pos) { fens.push_back(pos.fen()); });
    std::vector<StateInfo> st(2);
    int asymmetric = 0;
    for (const std::string& fen : fens) {
        INFO(fen);
        Position pos, flipped;
        REQUIRE(!pos.set(fen, testutil::makruk(), &st[0]));
        REQUIRE(!flipped.set(mirrored_fen(fen), testutil::makruk(), &st[1]));
        const PackedPosition a = PackedPosition::pack(pos, 0, 0.5),
                             b = PackedPosition::pack(flipped, 0, 0.5);
        int aw[train::MaxPieces], ab[train::MaxPieces], bw[train::MaxPieces], bb[train::MaxPieces];
        const int n = train::features(a, aw, ab, true);
        REQUIRE(train::features(b, bw, bb) == n);
        std::sort(aw, aw + n), std::sort(ab, ab + n), std::sort(bw, bw + n), std::sort(bb, bb + n);
        CHECK(std::equal(aw, aw + n, bw));
        CHECK(std::equal(ab, ab + n, bb));
        int plain[train::MaxPieces], unused[train::MaxPieces];
        (void)train::features(a, plain, unused);
        std::sort(plain, plain + n);
        asymmetric += !std::equal(plain, plain + n, aw);
    }
    // Makruk's start is not symmetric (king and met), so nearly every position changes.
    CHECK(asymmetric > 290);
}

TEST_CASE("training with mirrored records repeats and scores both sides of the board alike",
          "[train]") {
    // Each record is played on the left half of the board only in its score: a term for
    // White's ruea on files a-d, which the plain net learns and the mirrored net halves.
    std::vector<PackedPosition> data;
    std::vector<std::string> fens;
    random_positions(6000, 43, [&](const Position& pos) {
        int score = material(pos);
        for (Bitboard b = pos.pieces(WHITE, ROOK); b;)
            score += file_of(pop_lsb(b)) <= FILE_D ? 150 : 0;
        data.push_back(PackedPosition::pack(pos, score, 0.5));
        if (fens.size() < 400) fens.push_back(pos.fen());
    });
    train::Options opt = small_options();
    std::ostringstream log;
    train::FloatNet plain = train::FloatNet::random(1), mirrored = plain;
    (void)train::fit(plain, data, {}, opt, log);
    opt.mirror = true;
    (void)train::fit(mirrored, data, {}, opt, log);
    train::FloatNet again = train::FloatNet::random(1);
    (void)train::fit(again, data, {}, opt, log);
    CHECK(again.ftWeights == mirrored.ftWeights);
    CHECK(again.outWeights == mirrored.outWeights);
    CHECK(mirrored.ftWeights != plain.ftWeights);
    // How far apart each net scores a position and its mirror image.
    const auto gap = [&](const train::FloatNet& net) {
        std::vector<StateInfo> st(2);
        double sum = 0;
        for (const std::string& fen : fens) {
            Position pos, flipped;
            REQUIRE(!pos.set(fen, testutil::makruk(), &st[0]));
            REQUIRE(!flipped.set(mirrored_fen(fen), testutil::makruk(), &st[1]));
            sum += std::abs(net.evaluate(pos) - net.evaluate(flipped));
        }
        return sum / double(fens.size());
    };
    const double plainGap = gap(plain), mirroredGap = gap(mirrored);
    INFO("plain " << plainGap << " cp, mirrored " << mirroredGap << " cp");
    CHECK(mirroredGap < plainGap / 2);
}

TEST_CASE("damaged training data is refused", "[train]") {
    TempDir dir;
    std::vector<PackedPosition> data = material_data(10, 3);
    for (const PackedPosition& p : data) REQUIRE(!p.damage());
    const auto refused = [&](const std::string& file, const std::string& why) {
        std::ostringstream log;
        CHECK(train::train_main({file, "--threads", "1"}, log) == 2);
        INFO(log.str());
        CHECK(log.str().find(why) != std::string::npos);
    };
    SECTION("a size that is not whole records") {
        std::string bytes(reinterpret_cast<const char*>(data.data()), 3 * 32 + 5);
        write(dir.file("short.bin"), bytes.data(), bytes.size());
        refused(dir.file("short.bin"), "not a whole number of 32-byte records");
    }
    SECTION("a bad result") {
        data[4].result = 3;
        write(dir.file("result.bin"), data);
        refused(dir.file("result.bin"), "record 4 (byte 128) is damaged: result 3");
    }
    SECTION("a piece of no kind") {
        data[2].pieces[0] &= 0xF0; // the first piece's kind becomes 0
        write(dir.file("kind.bin"), data);
        refused(dir.file("kind.bin"), "record 2");
    }
    SECTION("no king") {
        PackedPosition& p = data[7];
        p.occupancy = 1; // a white king on a1 alone
        std::fill(std::begin(p.pieces), std::end(p.pieces), 0);
        p.pieces[0] = KING;
        REQUIRE(p.damage() == std::string("1 white and 0 black kings"));
        write(dir.file("king.bin"), data);
        refused(dir.file("king.bin"), "record 7");
    }
    SECTION("an unknown game") {
        data[0].variant = 200;
        write(dir.file("game.bin"), data);
        refused(dir.file("game.bin"), "unknown game");
    }
    SECTION("a missing file and bad arguments") {
        refused(dir.file("none.bin"), "cannot open");
        write(dir.file("ok.bin"), data);
        std::ostringstream log;
        CHECK(train::train_main({dir.file("ok.bin"), "--epochs", "0"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--lambda", "2"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--lr", "0"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--val", "1"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--seed", "-1"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--batch", "x"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--speed", "3"}, log) == 2);
        CHECK(train::train_main({dir.file("ok.bin"), "--epochs"}, log) == 2);
        CHECK(train::train_main({}, log) == 2);
        // Each refusal is one line naming the tool, the option and where the help is.
        std::ostringstream one;
        CHECK(train::train_main({dir.file("ok.bin"), "--lambda", "2"}, one) == 2);
        CHECK(one.str() == "khun train: --lambda: must be a number from 0 to 1, not '2'; see "
                           "khun train --help\n");
    }
    // A refused file adds nothing.
    std::vector<PackedPosition> out;
    for (const char* name : {"short.bin", "result.bin", "kind.bin", "king.bin", "game.bin"})
        if (fs::exists(dir.file(name))) {
            CHECK(train::load(dir.file(name), out));
            CHECK(out.empty());
        }
}
