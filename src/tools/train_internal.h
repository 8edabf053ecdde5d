// What the trainer's parts share: the float model's forward pass, which the model
// (train_model.cpp), the quantiser (train_quant.cpp) and the fit (train.cpp) all run.
// Inline, as it was when the trainer was one file: the fit runs it for every position,
// and the optimiser sees it whole in each part. Not a public header.
#pragma once

#include "khun/tools/train.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace khun::tools::train::detail {

constexpr int H = nnue::HiddenSize;
constexpr int L = nnue::HeadSize;
// Partial sums of a dot product over the hidden units: independent lanes the compiler
// turns into vector registers (a single float sum would be a serial chain), added in a
// fixed order at the end.
constexpr int Lanes = 16;
static_assert(H % Lanes == 0, "the hidden layer splits into whole lanes");

inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// The first layer's sums for one side: the bias plus one column per feature.
inline void accumulate(const FloatNet& net, const int* f, int n, float* __restrict acc) {
    std::memcpy(acc, net.ftBias.data(), sizeof(float) * H);
    for (int k = 0; k < n; ++k) {
        const float* __restrict col = net.ftWeights.data() + size_t(f[k]) * H;
        for (int i = 0; i < H; ++i) acc[i] += col[i];
    }
}

// The head's units before their clamp (`h`), from the activations `a` (the side to
// move's H, then the other side's) through bucket `bucket`. An activation at 0 adds
// nothing: skipped, as the engine skips them.
inline void head_units(const FloatNet& net, const float* a, int bucket, float* h) {
    std::copy_n(net.headB1.data() + size_t(bucket) * L, L, h);
    const float* W1 = net.headW1.data() + size_t(bucket) * 2 * H * L;
    for (int i = 0; i < 2 * H; ++i) {
        if (a[i] == 0) continue;
        const float* __restrict row = W1 + size_t(i) * L;
        for (int j = 0; j < L; ++j) h[j] += a[i] * row[j];
    }
}

// What the head adds to the output before OutputScale, from its units.
inline float head_output(const FloatNet& net, const float* h, int bucket) {
    float sum = net.headB2[size_t(bucket)];
    const float* W2 = net.headW2.data() + size_t(bucket) * L;
    for (int j = 0; j < L; ++j) sum += std::clamp(h[j], 0.0f, 1.0f) * W2[j];
    return sum;
}

// The output before OutputScale from both sides' sums (`us` the side to move's) through
// output bucket `bucket`; the activations clamp(x, 0, 1)^2 in `a` (2 * H) and the head's
// units in `h` when asked.
inline float output(const FloatNet& net, const float* us, const float* them, int bucket,
                    float* a = nullptr, float* h = nullptr) {
    const float* w = net.outWeights.data() + nnue::output_offset(bucket);
    alignas(64) float act[2 * H];
    float part[Lanes] = {};
    for (int i = 0; i < H; i += Lanes)
        for (int j = 0; j < Lanes; ++j) {
            const float u = std::clamp(us[i + j], 0.0f, 1.0f),
                        t = std::clamp(them[i + j], 0.0f, 1.0f);
            const float au = u * u, at = t * t;
            act[i + j] = au, act[H + i + j] = at;
            part[j] += au * w[i + j] + at * w[H + i + j];
        }
    float sum = net.outBias[size_t(bucket)];
    for (float p : part) sum += p;
    if (a) std::copy_n(act, 2 * H, a);
    if (net.has_head()) {
        float units[L];
        head_units(net, act, bucket, units);
        sum += head_output(net, units, bucket);
        if (h) std::copy_n(units, L, h);
    }
    return sum;
}

// Centipawns for the side to move from its features (`us`) and the other side's, `n` each,
// with `pieces` on the board and in the hands (which picks the output bucket).
inline float evaluate_features(const FloatNet& net, const int* us, const int* them, int n,
                               int pieces) {
    alignas(64) float accUs[H], accThem[H];
    accumulate(net, us, n, accUs);
    accumulate(net, them, n, accThem);
    return output(net, accUs, accThem, nnue::output_bucket(pieces)) * nnue::OutputScale;
}

// A record's features for `net` (its king buckets, its hand inputs and promoted mets if it
// has them).
inline int features_for(const FloatNet& net, const PackedPosition& p, int* white, int* black,
                        bool mirror = false) {
    return features(p, white, black, mirror, net.kings, net.hand, net.promoted);
}

} // namespace khun::tools::train::detail
