// `khun train`: fits the network of nnue_arch.h to training records (packed.h) and writes
// the quantised net file (nnue.h). The trainer keeps a float model of exactly the
// quantised net's shape, so what it learns is what the engine evaluates, up to rounding.
#pragma once

#include "khun/eval/nnue.h"
#include "khun/rules/position.h"
#include "khun/tools/packed.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace khun::tools {
namespace train {

// The most pieces a position can have: a record stores at most 32 (packed.h).
constexpr int MaxPieces = 32;
// Quantisation bounds. The first layer sums the bias and one column per piece in int16,
// so each first-layer weight and bias stays within 32767 / (MaxPieces + 1) = 992 (x QA):
// no sum of 32 columns and the bias can overflow. The output weights stay within 127
// (x QB), the bound the engine's 16-bit product clamp(x)*w needs (nnue.cpp).
constexpr int FtQuantMax = 32767 / (MaxPieces + 1);
constexpr int OutQuantMax = 127;
constexpr float FtLimit = float(FtQuantMax) / nnue::QA;   // 3.89
constexpr float OutLimit = float(OutQuantMax) / nnue::QB; // 1.98
// The head's bounds (nnue_arch.h) in float.
constexpr float HeadW1Limit = float(nnue::HeadW1Max) / nnue::QH;      // 2
constexpr float HeadB1Limit = float(nnue::HeadB1Max) / nnue::HeadOne; // 8
constexpr float HeadW2Limit = float(nnue::HeadW2Max) / nnue::QH2;     // 8
constexpr float HeadB2Limit = float(nnue::HeadB2Max) / nnue::QH2;     // 8

// The float model: the quantised net's arrays in float, one unit of the first layer being
// QA there and one unit of an output weight QB. Its output, times OutputScale, is the
// score in centipawns for the side to move.
struct FloatNet {
    nnue::KingLayout kings; // which first-layer copy each side's king picks (nnue_arch.h)
    bool hand = false;      // whether it has inputs for the pieces in hand (HandInputs)
    bool promoted = false;  // whether promoted mets read their own kind (PromotedMetKind)
    std::vector<float> ftWeights = std::vector<float>(size_t(nnue::InputSize) * nnue::HiddenSize);
    std::vector<float> ftBias = std::vector<float>(nnue::HiddenSize);
    std::vector<float> outWeights = std::vector<float>(nnue::output_offset(nnue::OutputBuckets));
    std::vector<float> outBias = std::vector<float>(nnue::OutputBuckets);
    // The head (nnue_arch.h), empty in a net without one: headW1[(bucket * 2 * HiddenSize
    // + input) * HeadSize + j], headB1 and headW2 [bucket * HeadSize + j], headB2[bucket].
    std::vector<float> headW1, headB1, headW2, headB2;

    // Each layer's weights uniform in +-1/sqrt(its inputs), the biases 0: a first-layer sum
    // of 30 pieces starts near +-0.1, and the untrained net scores near 0.
    [[nodiscard]] static FloatNet random(uint64_t seed);
    // The values a quantised net stands for (to continue training from a net file).
    [[nodiscard]] static FloatNet from(const nnue::Network& net);
    // Gives the net a head whose first weights are uniform in +-1/sqrt(2 * HiddenSize)
    // (seeded) and whose last weights are 0: it scores every position as before, and
    // training grows the head from there.
    void add_head(uint64_t seed);
    [[nodiscard]] bool has_head() const { return !headW1.empty(); }

    // Centipawns for the side to move, as the quantised net computes them but in float.
    [[nodiscard]] float evaluate(const Position& pos) const;
    [[nodiscard]] float evaluate(const PackedPosition& p) const;
    // Rounded to the nearest quantised value, within the bounds above. On the heap: a
    // Network is 2 MB, and a few in one call chain overflow an 8 MB stack in a sanitizer
    // build.
    [[nodiscard]] std::unique_ptr<nnue::Network> quantise() const;
    // The same, then the output layer's rounding chosen to fit this net's outputs on
    // `sample` (valid records): each output weight moves a step up or down from the
    // nearest where that lowers the squared error of the quantised output, and the
    // output bias absorbs the mean error, bucket by bucket. An output weight's step, 1/QB,
    // is coarse: its errors summed over 512 units would otherwise shift every score by
    // several centipawns. A bucket with fewer than MinFitPositions in `sample` keeps the
    // nearest rounding: fitted to a handful of positions, its weights would fit those and
    // miss the rest by more than rounding does.
    static constexpr size_t MinFitPositions = 1024;
    [[nodiscard]] std::unique_ptr<nnue::Network>
    quantise(const std::vector<PackedPosition>& sample) const;
    // Keeps every weight within the bounds above (what quantise() would clip).
    void clip();
    // Gives a net of one king bucket the buckets of `layout`, each a copy of its first
    // layer: it scores every position as before, and training lets the copies part.
    void spread(const nnue::KingLayout& layout);
    // Gives the net inputs for the pieces in hand, their weights 0: it scores every position
    // as before, and training on a drop game's records teaches them.
    void add_hand();
    // Lets the net tell makrukhouse's promoted mets from mets: their rows (the ai-wok's,
    // nnue_arch.h) start as copies of the met's, so it scores every position as before,
    // and training on the game's records teaches the difference.
    void add_promoted();
    // The first layer's rows: InputSize for each king bucket, then the hand's.
    [[nodiscard]] int rows() const {
        return kings.buckets * nnue::InputSize + (hand ? nnue::HandInputs : 0);
    }
};

// The features of a position's pieces seen from each side (feature_index of nnue_arch.h,
// in the king buckets of `kings`, with `hand` hand_feature_index's for the pieces in hand,
// with `promoted` a promoted met as nnue::PromotedMetKind); returns how many there are. `p` must be
// valid (PackedPosition::damage()). With `mirror`, those of the position turned over left to right
// (file a <-> h): the family's rules have no file of their own, so that position is worth the same
// to the side to move.
int features(const PackedPosition& p, int white[MaxPieces], int black[MaxPieces],
             bool mirror = false, const nnue::KingLayout& kings = {}, bool hand = false,
             bool promoted = false);

// The king bucket layouts `khun train --king-buckets` knows, by name ("none" is one
// bucket); false for a name it does not know.
[[nodiscard]] bool king_layout(const std::string& name, nnue::KingLayout& out);

// Appends the records of `file` to `out`; on error (unreadable, a size that is not a
// multiple of 32, a damaged record) returns why and appends nothing.
[[nodiscard]] std::optional<std::string> load(const std::string& file,
                                              std::vector<PackedPosition>& out);

// The training target for the side to move: lambda * sigmoid(score / 400) + (1 - lambda) *
// the game's result (0, 0.5, 1), both from the side to move's side.
[[nodiscard]] float target(const PackedPosition& p, float lambda);

struct Options {
    int epochs = 15;
    // Small batches and a brisk rate: the first net's batch 16384 at lr 0.001 took too few
    // steps (the sweep is in docs/nnue.md, "The pipeline").
    int batch = 1024;
    float lr = 0.005f; // the first step's; cosine decay to lr / 100 at the last
    // The score's share of the target. The score alone by default: four in five makruk
    // self-play positions come from drawn games, and blending their results in (0.7, 0.4)
    // shrank the net's scores below the scale the search's margins are fitted to; those
    // nets lost clearly to the net trained on scores alone (docs/log/nnue.md, "Nets"). A net
    // fine-tuned on its own games is another case: once it has learnt its search's scores,
    // the results are the news, and lambda 0.8 beat 1.0 there (docs/log/nnue.md,
    // "Results blended in").
    float lambda = 1.0f;
    float decay = 0.01f; // AdamW's decoupled weight decay (times lr), on weights, not biases
    double val = 0.02;   // the share of the records held out for validation
    int threads = 1;     // `khun train`'s default: every core
    uint64_t seed = 1;
    // Trains each record as it is or turned over left to right, half and half by the seed:
    // twice the positions from the same games (docs/nnue.md, "Mirrored records").
    bool mirror = false;
    // Trains the head alone (a net with one): the first layer and the output layer keep
    // their values, so a fine-tune adds to the net it starts from and takes nothing away
    // (docs/nnue.md, "A head").
    bool headOnly = false;
};

// The mean loss of `net` on `data`: (sigmoid(out) - target)^2, out the net's output
// (the score / OutputScale).
[[nodiscard]] double loss(const FloatNet& net, const std::vector<PackedPosition>& data,
                          float lambda, int threads);

// How the quantised net compares with the float one on `data`.
struct QuantisedCheck {
    double loss = 0;        // the quantised net's (its integer scores, as the engine's)
    double meanAbsDiff = 0; // mean |float score - quantised score|, centipawns
    double maxAbsDiff = 0;
};
[[nodiscard]] QuantisedCheck compare(const FloatNet& net, const nnue::Network& quantised,
                                     const std::vector<PackedPosition>& data, float lambda);

// Moves whole games, chosen at random with `seed`, out of `data` into the result (the
// validation set) until it holds at least `share` of the records; the rest, in file
// order, is the training set. A game is a run of records whose move number never goes
// back, as datagen writes them.
[[nodiscard]] std::vector<PackedPosition> hold_out(std::vector<PackedPosition>& data, double share,
                                                   uint64_t seed);

struct Summary {
    double trainLoss = 0; // the last epoch's mean over its batches
    double valLoss = 0;   // the float net's on the validation set (0 when it is empty)
    double rate = 0;      // training positions per second over the whole run
};

// Trains `net` on `train` for `epochs` passes of AdamW in batches, reshuffled each epoch
// (seeded), each batch split into `threads` fixed slices whose gradients are summed in a
// fixed order: the same seed and thread count give the same net bit for bit. Writes a
// progress line and a line per epoch (losses, learning rate, rate) to `log`.
Summary fit(FloatNet& net, std::vector<PackedPosition> train,
            const std::vector<PackedPosition>& validation, const Options& opt, std::ostream& log);

// `khun train DATA [DATA...] [--name value]...`: see `khun train --help`. Returns the
// exit code: 0, 2 on bad arguments or data, 1 when the net cannot be written (with why on
// `log`, where the errors go; --help prints to stdout).
int train_main(const std::vector<std::string>& args, std::ostream& log);

} // namespace train
} // namespace khun::tools
