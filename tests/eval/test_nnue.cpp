// The network in the engine (nnue.h): the accumulators a position gets move by move
// equal the ones computed from scratch, in every game of the family and through null
// moves and take-backs; the net file round-trips and is named by its hash; a damaged or
// foreign net file is an `info string` error and the net in use stays; the training
// record (packed.h) keeps a position whole.
#include "engine_session.h"

#include "khun/eval/evaluate.h"
#include "khun/eval/nnue.h"
#include "khun/rules/movegen.h"
#include "khun/tools/packed.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <memory>
#include <random>
#include <regex>

using namespace enginetest;
using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;

namespace {

// A net with random weights, small enough that no sum overflows, large enough that every
// piece moves every sum.
std::unique_ptr<nnue::Network> random_net(uint64_t seed) {
    auto net = std::make_unique<nnue::Network>();
    std::mt19937_64 rng(seed);
    auto draw = [&](int lo, int hi) { return int16_t(lo + int(rng() % uint64_t(hi - lo + 1))); };
    for (int16_t& w : net->ftWeights) w = draw(-40, 40);
    for (int16_t& w : net->ftBias) w = draw(-100, 200);
    for (int16_t& w : net->outWeights) w = draw(-127, 127);
    for (int32_t& b : net->outBias) b = int32_t(rng() % 20000) - 10000;
    return net;
}

// The same with king buckets: three copies of the first layer, the bucket changing with
// most of a king's steps (by square, in a pattern no real layout has), so that refreshes
// and updates alternate.
std::unique_ptr<nnue::Network> bucketed_net(uint64_t seed) {
    auto net = random_net(seed);
    net->kings.buckets = 3;
    for (int s = 0; s < SQUARE_NB; ++s) net->kings.of[s] = uint8_t((s + s / 8) % 3);
    return net;
}

// The same with inputs for the pieces in hand (their rows random like the rest).
std::unique_ptr<nnue::Network> hand_net(uint64_t seed, bool buckets = false) {
    auto net = buckets ? bucketed_net(seed) : random_net(seed);
    net->hasHand = true;
    return net;
}

// The same with a head of random weights (within the file's bounds, large enough that
// most units sit inside their clamp for some positions and outside it for others).
std::unique_ptr<nnue::Network> headed_net(uint64_t seed) {
    auto net = random_net(seed);
    std::mt19937_64 rng(seed + 1);
    const auto draw = [&](int32_t bound) {
        return int32_t(rng() % uint64_t(2 * bound + 1)) - bound;
    };
    net->hasHead = true;
    for (int16_t& w : net->headW1) w = int16_t(draw(300));
    for (int32_t& b : net->headB1) b = draw(nnue::HeadOne / 2);
    for (int32_t& w : net->headW2) w = draw(nnue::QH2 / 4);
    for (int32_t& b : net->headB2) b = draw(nnue::QH2 / 100);
    return net;
}

// The head's centipawns as nnue_arch.h defines them, one multiply at a time: what the
// engine's vector code, skipping the activations at 0, must equal.
int reference_head(const nnue::Accumulator& acc, Color stm, int pieces, const nnue::Network& net) {
    const int b = nnue::output_bucket(pieces);
    int64_t out = 0;
    for (int j = 0; j < nnue::HeadSize; ++j) {
        int64_t h = net.headB1[b * nnue::HeadSize + j];
        for (int i = 0; i < 2 * nnue::HiddenSize; ++i) {
            const int x = acc.values[i < nnue::HiddenSize ? stm : ~stm][i % nnue::HiddenSize];
            const int c = std::clamp(x, 0, nnue::QA);
            h += int64_t((c * c) >> nnue::HeadActShift) * net.headW1[nnue::head_w1_index(b, i, j)];
        }
        out += std::clamp<int64_t>(h, 0, nnue::HeadOne) * net.headW2[b * nnue::HeadSize + j];
    }
    return int((out / nnue::HeadOne + net.headB2[b]) * nnue::OutputScale / nnue::QH2);
}

bool same_sums(const nnue::Accumulator& a, const nnue::Accumulator& b) {
    for (Color c : {WHITE, BLACK})
        for (int i = 0; i < nnue::HiddenSize; ++i)
            if (a.values[c][i] != b.values[c][i]) return false;
    return true;
}

// The position with the board turned half a turn and the colours swapped.
std::string turned_fen(const Position& pos) {
    Piece board[SQUARE_NB] = {};
    for (Bitboard b = pos.pieces(); b;) {
        const Square s = pop_lsb(b);
        const Piece pc = pos.piece_on(s);
        board[int(s) ^ 63] = make_piece(~color_of(pc), type_of(pc));
    }
    return board_fen(board, pos.variant()) + (pos.side_to_move() == WHITE ? " b" : " w") +
           " - - 0 1";
}

std::string temp_file(const std::string& name, const std::string& bytes) {
    const std::string path = "/tmp/khun-test-" + std::to_string(::getpid()) + "-" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

} // namespace

TEST_CASE("nnue: incremental accumulators equal a full refresh in every game", "[nnue]") {
    testutil::init();
    const bool buckets = GENERATE(false, true);
    // Inputs for the pieces in hand: a drop takes one away, a capture into the hand
    // (makrukhouse) adds one. With them, makrukhouse's promoted mets as their own kind: a
    // promotion marks one, its moves carry the mark, a capture takes it away.
    const bool hand = GENERATE(false, true);
    INFO((buckets ? "king buckets" : "one bucket") << (hand ? ", hand inputs, promoted mets" : ""));
    const auto net = hand ? hand_net(1, buckets) : buckets ? bucketed_net(1) : random_net(1);
    net->hasPromoted = hand;
    int promotedChecked = 0;
    std::mt19937_64 rng(2024);
    for (const std::string& name : variant_names()) {
        INFO("game " << name);
        const Variant& v = *find_variant(name);
        for (int game = 0; game < 20; ++game) {
            std::deque<StateInfo> states(1);
            Position pos;
            REQUIRE(!pos.set(v.startFen, v, &states.back()));
            std::vector<Move> played;
            int checked = 0;
            for (int ply = 0; ply < 120; ++ply) {
                // Evaluate only some positions, so that updates span several moves.
                if (rng() % 3 == 0) {
                    const nnue::Accumulator& inc = nnue::accumulator(pos, *net);
                    nnue::Accumulator full;
                    nnue::refresh(pos, *net, full);
                    INFO("after " << played.size() << " moves: " << pos.fen());
                    REQUIRE(same_sums(inc, full));
                    ++checked;
                    promotedChecked += pos.promoted() != 0;
                }
                MoveList moves(pos);
                if (moves.size() == 0 || pos.outcome() != Outcome::None) break;
                const int r = int(rng() % 10);
                if (r == 0 && !played.empty()) { // take a move back
                    pos.undo_move(played.back());
                    played.pop_back();
                    states.pop_back();
                    continue;
                }
                states.emplace_back();
                if (r == 1 && !pos.in_check()) { // a null move and back
                    pos.do_null_move(states.back());
                    const nnue::Accumulator& inc = nnue::accumulator(pos, *net);
                    nnue::Accumulator full;
                    nnue::refresh(pos, *net, full);
                    REQUIRE(same_sums(inc, full));
                    pos.undo_null_move();
                    states.pop_back();
                    continue;
                }
                const Move m = *(moves.begin() + rng() % moves.size());
                pos.do_move(m, states.back());
                played.push_back(m);
            }
            CHECK(checked > 0);
        }
    }
    // The random makrukhouse games promote (the marks are what a promoted net reads).
    CHECK(promotedChecked > 20);
}

TEST_CASE("nnue: a copied position evaluates as its original", "[nnue]") {
    testutil::init();
    const bool buckets = GENERATE(false, true);
    const auto net = buckets ? bucketed_net(3) : random_net(3);
    StateInfo a, b;
    Position pos, copy;
    REQUIRE(!pos.set("r1sm1snr/4k3/p1pppp1p/1p4p1/3P4/PPP1PPPP/4K3/RNSM1SNR w - - 0 8",
                     default_variant(), &a));
    const int before = nnue::evaluate(pos, *net);
    copy.copy_from(pos, &b);
    CHECK(nnue::evaluate(copy, *net) == before);
    // The net sees the board from each side's own end: the same position with the
    // colours swapped and the board turned scores the same for the side to move.
    StateInfo c;
    Position turned;
    REQUIRE(!turned.set(turned_fen(pos), default_variant(), &c));
    CHECK(turned.side_to_move() == BLACK);
    CHECK(nnue::evaluate(turned, *net) == before);
}

TEST_CASE("nnue: the output bucket follows the number of pieces", "[nnue]") {
    testutil::init();
    CHECK(nnue::output_bucket(32) == nnue::OutputBuckets - 1);
    CHECK(nnue::output_bucket(2) == 0);
    CHECK(nnue::output_bucket(6) == 1);
    CHECK(nnue::output_bucket(5) == 0);
    // Changing one bucket's output layer changes the scores of the positions with that
    // many pieces and of no others.
    auto net = random_net(7);
    const std::string full = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"; // 32
    const std::string fewer = "4k3/8/3p4/8/8/3P4/8/R3K3 w - - 0 1";                   // 5
    const auto score = [&](const std::string& fen) {
        StateInfo st;
        Position pos;
        REQUIRE(!pos.set(fen, default_variant(), &st));
        return nnue::evaluate(pos, *net);
    };
    const int fullBefore = score(full), fewerBefore = score(fewer);
    net->outBias[nnue::OutputBuckets - 1] += 100 * nnue::QA * nnue::QB / nnue::OutputScale;
    CHECK(score(full) == fullBefore + 100);
    CHECK(score(fewer) == fewerBefore);
    net->outBias[0] -= 50 * nnue::QA * nnue::QB / nnue::OutputScale;
    CHECK(score(fewer) == fewerBefore - 50);
}

TEST_CASE("nnue: the net file round-trips and is named by its SHA-256", "[nnue]") {
    CHECK(nnue::sha256_hex("abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(nnue::sha256_hex("") ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    // FIPS 180-4's two-block example (the padding spills into a second block) and a
    // million bytes.
    CHECK(nnue::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(nnue::sha256_hex(std::string(1000000, 'a')) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    const auto net = random_net(5);
    const std::string bytes = nnue::serialise(*net);
    CHECK(nnue::net_name(bytes) == "nn-" + nnue::sha256_hex(bytes).substr(0, 12) + ".nnue");
    auto back = std::make_unique<nnue::Network>();
    REQUIRE(!nnue::parse(bytes, *back));
    CHECK(nnue::serialise(*back) == bytes);
    // Damaged copies are refused, and the target keeps what it held.
    const std::string before = nnue::serialise(*back);
    CHECK(nnue::parse(bytes.substr(0, bytes.size() - 1), *back));
    CHECK(nnue::parse(bytes + "x", *back));
    CHECK(nnue::parse("KHUNNNUE", *back));
    std::string wrongSize = bytes;
    wrongSize[8 + 8] = char(0x7F); // hidden size
    CHECK(nnue::parse(wrongSize, *back));
    std::string badWeight = bytes;
    // An output weight of 0x7FFF: outside what the 16-bit product allows. The output
    // weights (int16) and biases (int32) end the file.
    const size_t out =
        bytes.size() - 4 * nnue::OutputBuckets - 2 * nnue::output_offset(nnue::OutputBuckets);
    badWeight[out] = char(0xFF), badWeight[out + 1] = char(0x7F);
    CHECK(nnue::parse(badWeight, *back));
    CHECK(nnue::serialise(*back) == before);
    // The built-in nets are ones this build reads, each under its own name.
    for (GameNet g : BuiltInNets) {
        REQUIRE(nnue::embedded(g));
        CHECK(nnue::embedded_name(g).rfind("nn-", 0) == 0);
        CHECK(nnue::embedded_named(nnue::embedded_name(g)) == g);
    }
    for (GameNet a : BuiltInNets)
        for (GameNet b : BuiltInNets)
            if (a != b) CHECK(nnue::embedded_name(a) != nnue::embedded_name(b));
    CHECK(nnue::embedded_named("nn-000000000000.nnue") == GameNet::None);
}

TEST_CASE("nnue: a net with king buckets round-trips, and its buckets are checked", "[nnue]") {
    testutil::init();
    const auto net = bucketed_net(9);
    const std::string bytes = nnue::serialise(*net);
    // Version 3: the bucket count and map after the header, then three copies of the rows.
    CHECK(bytes[8] == 3);
    CHECK(bytes.size() == nnue::serialise(*random_net(9)).size() + 4 + 64 +
                              2 * size_t(2) * nnue::InputSize * nnue::HiddenSize);
    auto back = std::make_unique<nnue::Network>();
    REQUIRE(!nnue::parse(bytes, *back));
    CHECK(back->kings.buckets == 3);
    CHECK(std::equal(std::begin(back->kings.of), std::end(back->kings.of), net->kings.of));
    CHECK(nnue::serialise(*back) == bytes);
    // It scores as the net it was written from.
    StateInfo st;
    Position pos;
    REQUIRE(!pos.set("r1sm1snr/4k3/p1pppp1p/1p4p1/3P4/PPP1PPPP/4K3/RNSM1SNR w - - 0 8",
                     default_variant(), &st));
    CHECK(nnue::evaluate(pos, *back) == nnue::evaluate(pos, *net));
    // A bucket past the count, no bucket, too many, a cut file: refused, the net kept.
    const size_t header = 8 + 7 * 4;
    std::string badMap = bytes;
    badMap[header + 4 + 10] = 3;
    CHECK(nnue::parse(badMap, *back));
    for (uint8_t count : {0, nnue::MaxKingBuckets + 1}) {
        std::string badCount = bytes;
        badCount[header] = char(count);
        CHECK(nnue::parse(badCount, *back));
    }
    CHECK(nnue::parse(bytes.substr(0, header + 20), *back));
    CHECK(nnue::parse(bytes.substr(0, bytes.size() - 2), *back));
    std::string badVersion = bytes;
    badVersion[8] = 4;
    CHECK(nnue::parse(badVersion, *back));
    CHECK(nnue::serialise(*back) == bytes);
    // Version 3 with one bucket is the version-2 net, which is how it is written back.
    const std::string v2 = nnue::serialise(*random_net(9));
    std::string one = v2.substr(0, header) + std::string("\1\0\0\0", 4) +
                      std::string(SQUARE_NB, '\0') + v2.substr(header);
    one[8] = 3;
    REQUIRE(!nnue::parse(one, *back));
    CHECK(back->kings.buckets == 1);
    CHECK(nnue::serialise(*back) == v2);
}

TEST_CASE("nnue: a net with hand inputs reads the hands, and its file is version 5", "[nnue]") {
    testutil::init();
    const auto net = hand_net(11);
    const std::string bytes = nnue::serialise(*net);
    // Version 5: the king buckets, the parts (bit 1: the hand), the hand's rows after the
    // board's.
    CHECK(bytes[8] == 5);
    const size_t header = 8 + 7 * 4;
    CHECK(bytes.size() == nnue::serialise(*random_net(11)).size() + 4 + 64 + 4 +
                              2 * size_t(nnue::HandInputs) * nnue::HiddenSize);
    CHECK(bytes[header + 4 + 64] == 2);
    auto back = std::make_unique<nnue::Network>();
    REQUIRE(!nnue::parse(bytes, *back));
    CHECK(back->hasHand);
    CHECK(!back->hasHead);
    CHECK(nnue::serialise(*back) == bytes);
    // The hand's inputs count: two sittuyin positions alike on the board, one with a rook
    // more in White's hand, score apart with the hand net and alike without.
    // (A position keeps the sums of the net that evaluated it: a fresh one for each net.)
    const auto score = [](const std::string& fen, const nnue::Network& n) {
        StateInfo st;
        Position pos;
        REQUIRE(!pos.set(fen, *find_variant("sittuyin"), &st));
        return nnue::evaluate(pos, n);
    };
    const std::string full = "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRRSSNNkfrrssnn] w - - 0 1";
    const std::string lessRook = "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRSSNNkfrrssnn] w - - 0 1";
    CHECK(score(full, *back) != score(lessRook, *back));
    // A net without them sees the board only (31 and 32 pieces share an output bucket).
    const auto plain = random_net(11);
    CHECK(score(full, *plain) == score(lessRook, *plain));
    StateInfo st;
    Position a;
    REQUIRE(!a.set(full, *find_variant("sittuyin"), &st));
    CHECK(nnue::piece_count(a) == 32);
    REQUIRE(!a.set(lessRook, *find_variant("sittuyin"), &st));
    CHECK(nnue::piece_count(a) == 31);
    // Parts this build does not know, a file cut short, a version-4 file of this size:
    // refused, the net kept.
    std::string badParts = bytes;
    badParts[header + 4 + 64] = 8;
    CHECK(nnue::parse(badParts, *back));
    CHECK(nnue::parse(bytes.substr(0, header + 4 + 64 + 2), *back));
    CHECK(nnue::parse(bytes.substr(0, bytes.size() - 2), *back));
    std::string badVersion = bytes;
    badVersion[8] = 4;
    CHECK(nnue::parse(badVersion, *back));
    CHECK(nnue::serialise(*back) == bytes);
    // With a head as well: both parts.
    auto both = hand_net(12);
    both->hasHead = true;
    std::fill(std::begin(both->headW1), std::end(both->headW1), int16_t(3));
    std::fill(std::begin(both->headB1), std::end(both->headB1), 0);
    std::fill(std::begin(both->headW2), std::end(both->headW2), 5);
    std::fill(std::begin(both->headB2), std::end(both->headB2), 0);
    const std::string bothBytes = nnue::serialise(*both);
    CHECK(bothBytes[header + 4 + 64] == 3);
    REQUIRE(!nnue::parse(bothBytes, *back));
    CHECK((back->hasHand && back->hasHead));
    CHECK(score(full, *back) == score(full, *both));
}

TEST_CASE("nnue: a net that reads promoted mets tells them from mets, and its file says so",
          "[nnue]") {
    testutil::init();
    auto net = random_net(13);
    net->hasPromoted = true;
    const std::string bytes = nnue::serialise(*net);
    // Version 5 for the parts (bit 2), and no rows more: the ai-wok's are read.
    CHECK(bytes[8] == 5);
    const size_t header = 8 + 7 * 4;
    CHECK(bytes.size() == nnue::serialise(*random_net(13)).size() + 4 + 64 + 4);
    CHECK(bytes[header + 4 + 64] == 4);
    auto back = std::make_unique<nnue::Network>();
    REQUIRE(!nnue::parse(bytes, *back));
    CHECK(back->hasPromoted);
    CHECK(!back->hasHand);
    CHECK(nnue::serialise(*back) == bytes);
    // Two makrukhouse positions alike but for a met's mark score apart with the net and
    // alike without it; an unmarked met scores the same with both.
    const auto score = [](const std::string& fen, const nnue::Network& n) {
        StateInfo st;
        Position pos;
        REQUIRE(!pos.set(fen, *find_variant("makrukhouse"), &st));
        return nnue::evaluate(pos, n);
    };
    const std::string marked = "r2mk2r/8/3M~4/8/8/8/8/R2K3R[Pp] w - - 0 30";
    const std::string unmarked = "r2mk2r/8/3M4/8/8/8/8/R2K3R[Pp] w - - 0 30";
    const auto plain = random_net(13);
    CHECK(score(marked, *back) != score(unmarked, *back));
    CHECK(score(unmarked, *back) == score(unmarked, *plain));
    CHECK(score(marked, *plain) == score(unmarked, *plain));
}

TEST_CASE("nnue: a net with a head scores as its definition, and its file is checked", "[nnue]") {
    testutil::init();
    const auto net = headed_net(21);
    auto plain = std::make_unique<nnue::Network>(*net);
    plain->hasHead = false;
    // Version 4: version 3's layout (the king buckets) and arrays, then the head's.
    const std::string bytes = nnue::serialise(*net);
    CHECK(bytes[8] == 4);
    const size_t headBytes =
        2 * nnue::HeadW1Size + 4 * (2 * nnue::OutputBuckets * nnue::HeadSize + nnue::OutputBuckets);
    CHECK(bytes.size() == nnue::serialise(*plain).size() + 4 + 64 + headBytes);
    auto back = std::make_unique<nnue::Network>();
    REQUIRE(!nnue::parse(bytes, *back));
    CHECK(back->hasHead);
    CHECK(nnue::serialise(*back) == bytes);

    // In every position of random games, evaluated move by move (the sums brought up to
    // date, not refreshed), the score is the plain net's plus the reference head.
    std::mt19937_64 rng(77);
    int positions = 0, moved = 0, outside = 0;
    for (int game = 0; game < 30; ++game) {
        std::deque<StateInfo> states(1);
        Position pos;
        REQUIRE(!pos.set(testutil::StartFen, testutil::makruk(), &states.back()));
        for (int ply = 0; ply < 150; ++ply) {
            const int pieces = popcount(pos.pieces());
            const nnue::Accumulator& acc = nnue::accumulator(pos, *back);
            const int head = reference_head(acc, pos.side_to_move(), pieces, *back);
            INFO(pos.fen());
            REQUIRE(nnue::evaluate(pos, *back) == nnue::evaluate(pos, *plain) + head);
            ++positions, moved += head != 0;
            for (int i = 0; i < nnue::HiddenSize; ++i) outside += acc.values[WHITE][i] <= 0;
            MoveList moves(pos);
            if (moves.size() == 0 || pos.outcome() != Outcome::None) break;
            states.emplace_back();
            pos.do_move(*(moves.begin() + rng() % moves.size()), states.back());
        }
    }
    // The head moves most scores, and the skipped activations (at 0) were there to skip.
    CHECK(moved > positions * 3 / 4);
    CHECK(outside > positions * nnue::HiddenSize / 10);

    // A head weight past the bound a sum needs, or a cut head: refused, the net kept.
    const size_t w1 = bytes.size() - headBytes;
    std::string badW1 = bytes;
    badW1[w1] = char(0xFF), badW1[w1 + 1] = char(0x7F); // 32767 > HeadW1Max
    CHECK(nnue::parse(badW1, *back));
    std::string badB2 = bytes;
    badB2[bytes.size() - 1] = char(0x40); // the last bucket's bias, 2^30 and more
    CHECK(nnue::parse(badB2, *back));
    CHECK(nnue::parse(bytes.substr(0, bytes.size() - 4), *back));
    CHECK(nnue::serialise(*back) == bytes);
    // A net without a head is still written as before: version 2 here.
    CHECK(nnue::serialise(*plain)[8] == 2);
}

TEST_CASE("nnue: EvalFile loads a net, a damaged one is an error and the net stays",
          "[nnue][engine]") {
    const auto net = random_net(7);
    const std::string bytes = nnue::serialise(*net);
    const std::string good = temp_file(nnue::net_name(bytes), bytes);
    const std::string cut = temp_file("cut.nnue", bytes.substr(0, bytes.size() / 2));
    const std::string foreign = temp_file("foreign.nnue", std::string(1000, 'x'));

    EngineSession e;
    ENGINE_REQUIRE(e, e.reply("uci"));
    auto eval = [&]() {
        e.send("eval");
        auto at = e.expect_prefix("Final evaluation");
        return at ? e.texts(*at, *at + 1)[0] : std::string("(none)");
    };
    ENGINE_REQUIRE(e, e.reply("setoption name Use NNUE value true"));
    const std::string builtin = eval();
    auto r = e.reply("setoption name EvalFile value " + good);
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());
    const std::string loaded = eval();
    ENGINE_CHECK(e, loaded != builtin); // a random net does not score as the built-in one
    {
        // The sums kept from the built-in net's evaluation are recomputed: an engine that
        // loads the file before it evaluates anything scores the same.
        EngineSession fresh;
        ENGINE_REQUIRE(fresh, fresh.reply("uci"));
        ENGINE_REQUIRE(fresh, fresh.reply("setoption name Use NNUE value true"));
        ENGINE_REQUIRE(fresh, fresh.reply("setoption name EvalFile value " + good));
        fresh.send("eval");
        auto at = fresh.expect_prefix("Final evaluation");
        ENGINE_REQUIRE(fresh, at);
        ENGINE_CHECK(fresh, fresh.texts(*at, *at + 1)[0] == loaded);
    }
    for (const std::string& bad : {cut, foreign, std::string("/nonexistent/net.nnue")}) {
        INFO(bad);
        auto err = e.reply("setoption name EvalFile value " + bad);
        ENGINE_REQUIRE(e, err);
        ENGINE_REQUIRE(e, err->size() == 1);
        ENGINE_CHECK(e, starts_with((*err)[0], "info string error"));
        ENGINE_CHECK(e, (*err)[0].find(nnue::net_name(bytes)) != std::string::npos);
        ENGINE_CHECK(e, eval() == loaded); // the loaded net is still the one in use
    }
    e.send("go depth 4");
    ENGINE_CHECK(e, e.expect_prefix("bestmove"));
    // Back to the built-in net by its name.
    ENGINE_REQUIRE(
        e, e.reply("setoption name EvalFile value " + nnue::embedded_name(GameNet::Makruk)));
    ENGINE_CHECK(e, eval() == builtin);
    for (const std::string& f : {good, cut, foreign}) std::remove(f.c_str());
}

TEST_CASE("nnue: each game evaluates with its own built-in net, a net file with every game's",
          "[nnue][engine]") {
    const auto net = random_net(9);
    const std::string bytes = nnue::serialise(*net);
    const std::string file = temp_file(nnue::net_name(bytes), bytes);
    // The trace names what evaluated the position: the net's line only where a net does.
    auto trace = [](Engine& e) { return eval::trace(e.position(), e.net()); };
    auto by_net = [&](Engine& e) { return trace(e).find("NNUE evaluation") != std::string::npos; };
    Engine e;
    REQUIRE(!e.set_option("UCI_Variant", "asean").error);
    REQUIRE(!e.set_position("", {"e3e4", "d6d5"}));
    CHECK(e.net() == nnue::embedded(GameNet::Asean).get());
    CHECK(by_net(e));
    // `eval` names the net that scored (command.cpp passes Engine::net_name).
    CHECK(eval::trace(e.position(), e.net(), e.net_name())
              .find("; " + nnue::embedded_name(GameNet::Asean) + ")") != std::string::npos);
    const std::string asean = trace(e);
    // Each of its three scores in pawns to the hundredth, as Stockfish writes them: a
    // round score keeps its zeros (+0.40, not +0.4).
    const std::regex scoreLine(R"((NNUE|Hand-written|Final) evaluation: [+-]\d+\.\d\d \()");
    CHECK(std::distance(std::sregex_iterator(asean.begin(), asean.end(), scoreLine),
                        std::sregex_iterator()) == 3);
    // Makruk's net scores the same asean position otherwise. (From fresh sums: a
    // position's kept accumulators belong to the one net that evaluates it.)
    auto score = [&](GameNet g) {
        const Position& pos = e.position();
        nnue::Accumulator acc;
        nnue::refresh(pos, *nnue::embedded(g), acc);
        return nnue::output(acc, pos.side_to_move(), popcount(pos.pieces()), *nnue::embedded(g));
    };
    CHECK(score(GameNet::Asean) == nnue::evaluate(e.position(), *nnue::embedded(GameNet::Asean)));
    CHECK(score(GameNet::Asean) != score(GameNet::Makruk));
    // A net file evaluates every game a net serves (each game has one), and none with `Use
    // NNUE` off.
    REQUIRE(!e.set_option("EvalFile", file).error);
    CHECK(e.net_name() == nnue::net_name(bytes));
    CHECK(trace(e) != asean);
    CHECK(e.wdl_model() == eval::wdl::Model::Net); // a file's scores: makruk's net fit
    REQUIRE(!e.set_option("UCI_Variant", "makruk").error);
    CHECK(e.net_name() == nnue::net_name(bytes));
    REQUIRE(!e.set_option("UCI_Variant", "makpong").error);
    CHECK(e.net_name() == nnue::net_name(bytes));
    REQUIRE(!e.set_option("UCI_Variant", "karouk").error);
    CHECK(e.net_name() == nnue::net_name(bytes));
    CHECK(by_net(e));
    REQUIRE(!e.set_option("Use NNUE", "false").error);
    CHECK(e.net() == nullptr);
    CHECK(!by_net(e));
    REQUIRE(!e.set_option("Use NNUE", "true").error);
    // <default> (or a built-in net's name) gives each game its built-in net back.
    REQUIRE(!e.set_option("EvalFile", "<default>").error);
    REQUIRE(!e.set_option("UCI_Variant", "asean").error);
    REQUIRE(!e.set_position("", {"e3e4", "d6d5"}));
    CHECK(e.net_name() == nnue::embedded_name(GameNet::Asean));
    CHECK(trace(e) == asean);
    CHECK(e.wdl_model() == eval::wdl::Model::AseanNet);
    std::remove(file.c_str());
}

TEST_CASE("packed: a training record keeps the position, score and result", "[nnue]") {
    testutil::init();
    std::mt19937_64 rng(11);
    for (const std::string& name : variant_names()) {
        INFO("game " << name);
        const Variant& v = *find_variant(name);
        std::deque<StateInfo> states(1);
        Position pos;
        REQUIRE(!pos.set(v.startFen, v, &states.back()));
        for (int ply = 0; ply < 60; ++ply) {
            MoveList moves(pos);
            if (moves.size() == 0 || pos.outcome() != Outcome::None) break;
            states.emplace_back();
            pos.do_move(*(moves.begin() + rng() % moves.size()), states.back());
            const int score = int(rng() % 2001) - 1000;
            const PackedPosition p = PackedPosition::pack(pos, score, ply % 3 / 2.0);
            CHECK(p.score == score);
            CHECK(p.white_result() == ply % 3 / 2.0);
            REQUIRE(p.game() == find_variant(name));
            const auto fen = p.fen();
            REQUIRE(fen);
            StateInfo si;
            Position back;
            INFO(*fen);
            REQUIRE(!back.set(*fen, v, &si));
            CHECK(back.pieces() == pos.pieces());
            CHECK(back.side_to_move() == pos.side_to_move());
            for (Bitboard b = pos.pieces(); b;) {
                const Square s = pop_lsb(b);
                CHECK(back.piece_on(s) == pos.piece_on(s));
            }
            CHECK(back.promoted() == pos.promoted());
            CHECK(back.count_limit() == pos.count_limit());
        }
    }
    PackedPosition damaged{};
    damaged.variant = 200;
    CHECK(!damaged.fen());
}

TEST_CASE("packed: makrukhouse's promoted mets keep their mark, nowhere else is the code taken",
          "[nnue]") {
    testutil::init();
    const Variant& house = *find_variant("makrukhouse");
    StateInfo st;
    Position pos;
    const std::string fen = "r2mk2r/8/3M~4/8/8/8/8/R2K3R[Pp] w - - 0 30";
    REQUIRE(!pos.set(fen, house, &st));
    const PackedPosition p = PackedPosition::pack(pos, 0, 0.5);
    CHECK(!p.damage());
    REQUIRE(p.fen());
    CHECK(p.fen()->substr(0, fen.find(' ')) == fen.substr(0, fen.find(' ')));
    int promoted = 0, mets = 0;
    p.for_each_piece([&](Piece pc, Square s, bool isPromoted) {
        promoted += isPromoted;
        mets += type_of(pc) == MET;
        CHECK(isPromoted == (s == SQ_D6));
    });
    CHECK((promoted == 1 && mets == 2));
    p.for_each_piece([&](Piece pc, Square) { CHECK(type_of(pc) != AIWOK); });
    // The code is the ai-wok's: a makruk record holding it, or a hand holding it, is damaged.
    StateInfo st2, st3;
    Position noHands;
    REQUIRE(!noHands.set("r2mk2r/8/3M~4/8/8/8/8/R2K3R[] w - - 0 30", house, &st2));
    PackedPosition makruk = PackedPosition::pack(noHands, 0, 0.5);
    CHECK(!makruk.damage());
    Position start;
    REQUIRE(!start.set(testutil::StartFen, testutil::makruk(), &st3));
    makruk.variant = PackedPosition::pack(start, 0, 0.5).variant;
    CHECK(makruk.damage());
    PackedPosition inHand = p;
    const int n = popcount(p.occupancy); // the first piece in hand, White's pawn
    REQUIRE((inHand.pieces[n / 2] >> (4 * (n % 2)) & 15) == PAWN);
    inHand.pieces[n / 2] ^= uint8_t((PAWN ^ PromotedMetCode) << (4 * (n % 2)));
    CHECK(inHand.damage());
}
