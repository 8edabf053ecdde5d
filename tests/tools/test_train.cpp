// The NNUE trainer: the quantised net scores as its float model, training fits a simple
// target and repeats bit for bit, mirrored records, damaged data is refused.
#include "train_helpers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <unistd.h>

using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;
using namespace traintest;

namespace {

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
