// Khun's network (NNUE): quantised weights, the net file, and the evaluation. The shape is
// in nnue_arch.h; docs/nnue.md describes the architecture and the pipeline that makes a
// net (datagen -> train -> match).
#pragma once

#include "khun/rules/nnue_arch.h"
#include "khun/rules/position.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace khun {
namespace nnue {

// The quantised network the engine evaluates with (integer inference).
struct Network {
    // Which copy of the first layer each side's king square picks (one copy unless the
    // file has king buckets).
    KingLayout kings;
    // Whether the net has inputs for the pieces in hand (nnue_arch.h, HandInputs).
    bool hasHand = false;
    // Whether it reads makrukhouse's promoted mets as their own kind (nnue_arch.h,
    // PromotedMetKind); a net without sees them as mets.
    bool hasPromoted = false;
    // ftWeights[feature * HiddenSize + i]: feature's contribution to hidden unit i (x QA),
    // feature_index's rows for kings.buckets copies, then hand_feature_index's when the net
    // has them; the rows past those are unused.
    alignas(64) int16_t ftWeights[(MaxKingBuckets * InputSize + HandInputs) * HiddenSize];
    alignas(64) int16_t ftBias[HiddenSize]; // x QA
    // Bucket b's output layer (output_bucket): outWeights[output_offset(b) + i] for the side
    // to move's units, [output_offset(b) + HiddenSize + i] for the other side's (x QB).
    alignas(64) int16_t outWeights[output_offset(OutputBuckets)];
    int32_t outBias[OutputBuckets]; // x QA * QB
    // The head (nnue_arch.h), when the net has one: headW1 at head_w1_index (x QH), the
    // units' biases headB1[bucket * HeadSize + j] (x HeadOne), the last weights headW2 at
    // the same index and their bias headB2[bucket] (both x QH2).
    bool hasHead = false;
    alignas(64) int16_t headW1[HeadW1Size];
    alignas(64) int32_t headB1[OutputBuckets * HeadSize];
    int32_t headW2[OutputBuckets * HeadSize];
    int32_t headB2[OutputBuckets];
};

// The net file: "KHUNNNUE", then u32 version, input size, hidden size, output buckets, QA,
// QB and output scale; versions 3 to 5 then have the number of king buckets (u32) and
// each own king square's bucket (64 bytes, from the king's side), and version 5 a u32 of
// parts (bit 0: a head, bit 1: inputs for the pieces in hand, bit 2: promoted mets read
// as their own kind, which adds no rows). Then the arrays of Network
// in order (little-endian int16, the first layer's rows for each king bucket in turn, then
// the hand's rows if it has them, the biases int32); a net with a head (version 4, or 5
// with bit 0) then has the head's four arrays (headW1 int16, the rest int32). Then nothing:
// anything else is a damaged or foreign file. A net is written as the oldest version that
// holds it: with hand inputs or promoted mets 5; else with a head 4; else 3, or 2 when it also has
// one king bucket (byte for byte the file of a net made before king buckets). Version 1 had no
// output buckets.
constexpr char FileMagic[8] = {'K', 'H', 'U', 'N', 'N', 'N', 'U', 'E'};
constexpr uint32_t FileVersion = 5;

// The file's bytes for `net`.
[[nodiscard]] std::string serialise(const Network& net);
// Reads a net from the file's bytes into `out`; on error returns why and leaves `out`
// as it was.
[[nodiscard]] std::optional<std::string> parse(const std::string& bytes, Network& out);
// A net's name: "nn-" and the first 12 hex digits of the SHA-256 of its file, ".nnue"
// (what `sha256sum` shows, as Stockfish names its nets).
[[nodiscard]] std::string net_name(const std::string& bytes);
[[nodiscard]] std::string sha256_hex(const std::string& bytes);

// A net built into the binary (CMake embeds the files named in CMakeLists.txt), and its
// name; `which` is not GameNet::None.
[[nodiscard]] std::shared_ptr<const Network> embedded(GameNet which);
[[nodiscard]] const std::string& embedded_name(GameNet which);
// The built-in net of that name, or GameNet::None.
[[nodiscard]] GameNet embedded_named(const std::string& name);

// Loads a net file; on error returns why (the caller keeps its current net).
struct Loaded {
    std::shared_ptr<const Network> net;
    std::string name;
    std::string error;
};
[[nodiscard]] Loaded load_file(const std::string& path);

// The pieces that choose the output bucket (output_bucket): those on the board and in the
// hands, so that a drop game's bucket does not change as its pieces come and go.
[[nodiscard]] inline int piece_count(const Position& pos) {
    return popcount(pos.pieces()) + pos.hand_count(WHITE) + pos.hand_count(BLACK);
}

// The network's score for the side to move, in centipawns, before any of the
// evaluation's corrections (counting, drawish material). Brings the position's
// accumulators up to date from its ancestors' (or computes them afresh).
[[nodiscard]] int evaluate(const Position& pos, const Network& net);

// The king bucket of `c`'s inputs in pos under `kings` (bucket 0 while c has no king).
[[nodiscard]] int king_bucket(const Position& pos, const KingLayout& kings, Color c);

// The first layer computed from scratch for `pos` (both sides): what the incremental
// update must equal; for tests and the refresh.
void refresh(const Position& pos, const Network& net, Accumulator& acc);
// The accumulators of pos's state, brought up to date incrementally where an ancestor's
// are known.
const Accumulator& accumulator(const Position& pos, const Network& net);
// The output layer on given accumulators, for the side to move `stm`, with `pieces` on the
// board (which picks the output bucket).
[[nodiscard]] int output(const Accumulator& acc, Color stm, int pieces, const Network& net);

} // namespace nnue
} // namespace khun
