// Quantisation (train.h): the float model rounded into the engine's integer net, the
// output layer's rounding fitted to a sample, and how far the quantised net strays.
#include "train_internal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>

namespace khun::tools {
namespace train {

using namespace detail;

std::unique_ptr<nnue::Network> FloatNet::quantise() const {
    auto result = std::make_unique<nnue::Network>();
    nnue::Network& q = *result;
    q.kings = kings;
    q.hasHand = hand;
    q.hasPromoted = promoted;
    const auto round = [](float v, float scale, int limit) {
        return int16_t(std::clamp<long>(std::lround(double(v) * scale), -limit, limit));
    };
    for (size_t i = 0; i < ftWeights.size(); ++i)
        q.ftWeights[i] = round(ftWeights[i], nnue::QA, FtQuantMax);
    for (int i = 0; i < H; ++i) q.ftBias[i] = round(ftBias[i], nnue::QA, FtQuantMax);
    for (size_t i = 0; i < outWeights.size(); ++i)
        q.outWeights[i] = round(outWeights[i], nnue::QB, OutQuantMax);
    // Any bias a trained net has is far inside int32 (1.0 is 16320); clamped all the same.
    for (size_t b = 0; b < outBias.size(); ++b)
        q.outBias[b] = int32_t(std::clamp(std::llround(double(outBias[b]) * nnue::QA * nnue::QB),
                                          -(1LL << 30), 1LL << 30));
    q.hasHead = has_head();
    if (!q.hasHead) return result;
    const auto round32 = [](float v, double scale, int32_t limit) {
        return int32_t(std::clamp<long long>(std::llround(double(v) * scale), -limit, limit));
    };
    for (int b = 0; b < nnue::OutputBuckets; ++b)
        for (int i = 0; i < 2 * H; ++i)
            for (int j = 0; j < L; ++j)
                q.headW1[nnue::head_w1_index(b, i, j)] =
                    round(headW1[(size_t(b) * 2 * H + size_t(i)) * L + size_t(j)], nnue::QH,
                          nnue::HeadW1Max);
    for (size_t k = 0; k < headB1.size(); ++k) {
        q.headB1[k] = round32(headB1[k], nnue::HeadOne, nnue::HeadB1Max);
        q.headW2[k] = round32(headW2[k], nnue::QH2, nnue::HeadW2Max);
    }
    for (size_t b = 0; b < headB2.size(); ++b)
        q.headB2[b] = round32(headB2[b], nnue::QH2, nnue::HeadB2Max);
    return result;
}

std::unique_ptr<nnue::Network> FloatNet::quantise(const std::vector<PackedPosition>& sample) const {
    std::unique_ptr<nnue::Network> result = quantise();
    nnue::Network& q = *result;
    const size_t M = sample.size();
    if (!M) return result;
    constexpr double QAB = double(nnue::QA) * nnue::QB;
    // The quantised first layer's activations, as the engine computes them (unit i of
    // position j at act[i * M + j]: each weight's pass reads one row), each position's
    // output bucket, and what is left of the float output once the quantised output layer
    // is taken off.
    std::vector<float> act(size_t(2 * H) * M);
    std::vector<double> residual(M);
    std::vector<int> bucketOf(M);
    int fw[MaxPieces], fb[MaxPieces];
    for (size_t j = 0; j < M; ++j) {
        const PackedPosition& p = sample[j];
        const int n = features_for(*this, p, fw, fb);
        const bool white = p.side_to_move() == WHITE;
        const int b = bucketOf[j] = nnue::output_bucket(p.piece_count());
        const int16_t* w = q.outWeights + nnue::output_offset(b);
        double out = double(q.outBias[b]) / QAB;
        alignas(64) float a[2 * H];
        for (int side = 0; side < 2; ++side) {
            const int* f = (side == 0) == white ? fw : fb;
            for (int i = 0; i < H; ++i) {
                int32_t x = q.ftBias[i];
                for (int k = 0; k < n; ++k) x += q.ftWeights[size_t(f[k]) * H + i];
                const double c = std::clamp<int32_t>(x, 0, nnue::QA) / double(nnue::QA);
                const size_t unit = size_t(side * H + i);
                act[unit * M + j] = a[unit] = float(c * c);
                out += c * c * w[unit] / nnue::QB;
            }
        }
        // The head is not refitted: its float output on these activations is taken off.
        if (has_head()) {
            float units[L];
            head_units(*this, a, b, units);
            out += head_output(*this, units, b);
        }
        residual[j] = double(evaluate(p)) / nnue::OutputScale - out;
    }
    // Each bucket's weights only act on its own positions: fitted one bucket at a time.
    for (int b = 0; b < nnue::OutputBuckets; ++b) {
        std::vector<size_t> js;
        for (size_t j = 0; j < M; ++j)
            if (bucketOf[j] == b) js.push_back(j);
        if (js.size() < MinFitPositions) continue;
        int16_t* w = q.outWeights + nnue::output_offset(b);
        const auto centre = [&] {
            double mean = 0;
            for (size_t j : js) mean += residual[j];
            const auto shift = std::llround(mean / double(js.size()) * QAB);
            q.outBias[b] =
                int32_t(std::clamp<long long>(q.outBias[b] + shift, -(1LL << 30), 1LL << 30));
            for (size_t j : js) residual[j] -= double(shift) / QAB;
        };
        centre();
        // Coordinate descent over the integer weights: a few passes settle it.
        for (int pass = 0; pass < 4; ++pass) {
            bool moved = false;
            for (int unit = 0; unit < 2 * H; ++unit) {
                const float* a = act.data() + size_t(unit) * M;
                double ra = 0, aa = 0;
                for (size_t j : js) ra += residual[j] * a[j], aa += double(a[j]) * a[j];
                // The squared error changes by -2 d ra + d^2 aa for a step d = +-1/QB.
                const double d = 1.0 / nnue::QB, up = -2 * d * ra + d * d * aa,
                             down = 2 * d * ra + d * d * aa;
                int step = 0;
                if (up < 0 && up <= down && w[unit] < OutQuantMax)
                    step = 1;
                else if (down < 0 && w[unit] > -OutQuantMax)
                    step = -1;
                if (!step) continue;
                w[unit] = int16_t(w[unit] + step);
                for (size_t j : js) residual[j] -= step * d * a[j];
                moved = true;
            }
            centre();
            if (!moved) break;
        }
    }
    return result;
}

QuantisedCheck compare(const FloatNet& net, const nnue::Network& q,
                       const std::vector<PackedPosition>& data, float lambda) {
    QuantisedCheck r;
    if (data.empty()) return r;
    int fw[MaxPieces], fb[MaxPieces];
    auto acc = std::make_unique<nnue::Accumulator>();
    for (const PackedPosition& p : data) {
        const int n = features(p, fw, fb, false, q.kings, q.hasHand, q.hasPromoted);
        // The sums as nnue::refresh makes them (int32, then int16: no overflow within the
        // bounds), then the engine's own output layer.
        for (Color c : {WHITE, BLACK}) {
            const int* f = c == WHITE ? fw : fb;
            int32_t sum[H];
            for (int i = 0; i < H; ++i) sum[i] = q.ftBias[i];
            for (int k = 0; k < n; ++k)
                for (int i = 0; i < H; ++i) sum[i] += q.ftWeights[size_t(f[k]) * H + i];
            for (int i = 0; i < H; ++i) acc->values[c][i] = int16_t(sum[i]);
        }
        const int cp = nnue::output(*acc, p.side_to_move(), p.piece_count(), q);
        const float err = sigmoid(float(cp) / nnue::OutputScale) - target(p, lambda);
        r.loss += double(err) * err;
        const double diff = std::abs(double(net.evaluate(p)) - cp);
        r.meanAbsDiff += diff;
        r.maxAbsDiff = std::max(r.maxAbsDiff, diff);
    }
    r.loss /= double(data.size());
    r.meanAbsDiff /= double(data.size());
    return r;
}

} // namespace train
} // namespace khun::tools
