// The NNUE trainer: a float copy of the engine's net, fitted by AdamW to training records
// and quantised into a net file. Everything that decides the result (shuffles, batches,
// the order of every sum) is fixed by the seed and the thread count, so a run can be
// repeated bit for bit.
#include "khun/tools/train.h"
#include "khun/rules/prng.h"
#include "khun/rules/variant.h"
#include "khun/search/thread.h"
#include "khun/tools/cli.h"
#include "khun/tools/progress.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <ostream>
#include <thread>

namespace khun::tools {
namespace train {

using nnue::HiddenSize;
using nnue::InputSize;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "records are read as they lie on disk: little-endian");

namespace {

constexpr int H = HiddenSize;
constexpr double Pi = 3.14159265358979323846;
// Partial sums of a dot product over the hidden units: independent lanes the compiler
// turns into vector registers (a single float sum would be a serial chain), added in a
// fixed order at the end.
constexpr int Lanes = 16;
static_assert(H % Lanes == 0, "the hidden layer splits into whole lanes");

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// The first layer's sums for one side: the bias plus one column per feature.
void accumulate(const FloatNet& net, const int* f, int n, float* __restrict acc) {
    std::memcpy(acc, net.ftBias.data(), sizeof(float) * H);
    for (int k = 0; k < n; ++k) {
        const float* __restrict col = net.ftWeights.data() + size_t(f[k]) * H;
        for (int i = 0; i < H; ++i) acc[i] += col[i];
    }
}

// The output before OutputScale from both sides' sums (`us` the side to move's) through
// output bucket `bucket`, and the activations clamp(x, 0, 1)^2 in `aUs`, `aThem` when asked.
float output(const FloatNet& net, const float* us, const float* them, int bucket,
             float* aUs = nullptr, float* aThem = nullptr) {
    const float* w = net.outWeights.data() + nnue::output_offset(bucket);
    float part[Lanes] = {};
    for (int i = 0; i < H; i += Lanes)
        for (int j = 0; j < Lanes; ++j) {
            const float u = std::clamp(us[i + j], 0.0f, 1.0f),
                        t = std::clamp(them[i + j], 0.0f, 1.0f);
            const float au = u * u, at = t * t;
            if (aUs) aUs[i + j] = au, aThem[i + j] = at;
            part[j] += au * w[i + j] + at * w[H + i + j];
        }
    float sum = net.outBias[size_t(bucket)];
    for (float p : part) sum += p;
    return sum;
}

float evaluate_features(const FloatNet& net, const int* us, const int* them, int n) {
    alignas(64) float accUs[H], accThem[H];
    accumulate(net, us, n, accUs);
    accumulate(net, them, n, accThem);
    return output(net, accUs, accThem, nnue::output_bucket(n)) * nnue::OutputScale;
}

// Per-thread gradient buffers (the same shape as FloatNet) and which first-layer rows a
// batch touched: the only rows to sum and to clear afterwards.
struct Gradient {
    FloatNet g;
    std::vector<uint8_t> touched; // sized by fit() to the net's rows
    double loss = 0;
};

// The batch's positions [begin, end): adds d(loss)/d(weight) * scale to `grad`. Position
// begin[k] is turned over left to right where `mirror` is given and mirror[k] is set.
void backprop(const FloatNet& net, const PackedPosition* begin, const PackedPosition* end,
              const uint8_t* mirror, float lambda, float scale, Gradient& grad) {
    alignas(64) float accUs[H], accThem[H], aUs[H], aThem[H], dUs[H], dThem[H];
    int fw[MaxPieces], fb[MaxPieces];
    float* gBias = grad.g.ftBias.data();
    for (const PackedPosition* p = begin; p != end; ++p) {
        const int n = features(*p, fw, fb, mirror && mirror[p - begin], net.kings);
        const bool white = p->side_to_move() == WHITE;
        const int* us = white ? fw : fb;
        const int* them = white ? fb : fw;
        const int bucket = nnue::output_bucket(n);
        float* gOut = grad.g.outWeights.data() + nnue::output_offset(bucket);
        const float* w = net.outWeights.data() + nnue::output_offset(bucket);
        accumulate(net, us, n, accUs);
        accumulate(net, them, n, accThem);
        const float out = output(net, accUs, accThem, bucket, aUs, aThem);
        const float s = sigmoid(out), err = s - target(*p, lambda);
        grad.loss += double(err) * err;
        // d(err^2)/d(out), times the batch's 1/size.
        const float g = 2 * err * s * (1 - s) * scale;
        grad.g.outBias[size_t(bucket)] += g;
        for (int i = 0; i < H; ++i) {
            gOut[i] += g * aUs[i];
            gOut[H + i] += g * aThem[i];
            // d(clamp(x,0,1)^2)/dx = 2x inside (0, 1), 0 outside.
            const float xu = accUs[i], xt = accThem[i];
            dUs[i] = xu > 0 && xu < 1 ? g * w[i] * 2 * xu : 0.0f;
            dThem[i] = xt > 0 && xt < 1 ? g * w[H + i] * 2 * xt : 0.0f;
            gBias[i] += dUs[i] + dThem[i];
        }
        for (int k = 0; k < n; ++k) {
            float* rowUs = grad.g.ftWeights.data() + size_t(us[k]) * H;
            for (int i = 0; i < H; ++i) rowUs[i] += dUs[i];
            float* rowThem = grad.g.ftWeights.data() + size_t(them[k]) * H;
            for (int i = 0; i < H; ++i) rowThem[i] += dThem[i];
            grad.touched[us[k]] = grad.touched[them[k]] = 1;
        }
    }
}

// One AdamW step on n weights: moments m, v; `step` counts from 1.
struct Adam {
    static constexpr float Beta1 = 0.9f, Beta2 = 0.999f, Epsilon = 1e-8f;
    std::vector<float> m, v;
    explicit Adam(size_t n) : m(n), v(n) {}
    void update(float* __restrict w, const float* __restrict g, size_t n, float lr, float decay,
                int step, float limit) {
        assert(n == m.size());
        // Bias correction folded into the step size.
        const float c1 = 1 - std::pow(Beta1, float(step)), c2 = 1 - std::pow(Beta2, float(step));
        const float stepSize = lr * std::sqrt(c2) / c1, shrink = 1 - lr * decay;
        float* __restrict mm = m.data();
        float* __restrict vv = v.data();
        for (size_t i = 0; i < n; ++i) {
            mm[i] = Beta1 * mm[i] + (1 - Beta1) * g[i];
            vv[i] = Beta2 * vv[i] + (1 - Beta2) * g[i] * g[i];
            const float x = w[i] * shrink - stepSize * mm[i] / (std::sqrt(vv[i]) + Epsilon);
            w[i] = std::clamp(x, -limit, limit);
        }
    }
};

// Fisher-Yates with the project's generator (std::shuffle's result differs between
// standard libraries).
template <typename T>
void shuffle(std::vector<T>& v, Prng& rng) {
    for (size_t i = v.size(); i > 1; --i) {
        const size_t j = size_t((unsigned __int128)rng.next() * i >> 64);
        std::swap(v[i - 1], v[j]);
    }
}

// [begin, end) of slice t of n items cut in `slices`.
size_t slice_begin(size_t n, size_t t, size_t slices) { return n * t / slices; }

double loss_on(const FloatNet& net, const std::vector<PackedPosition>& data, float lambda,
               search::ThreadPool& pool) {
    if (data.empty()) return 0;
    const size_t T = pool.size();
    std::vector<double> sums(T);
    pool.for_each([&](size_t t) {
        int fw[MaxPieces], fb[MaxPieces];
        double sum = 0;
        for (size_t i = slice_begin(data.size(), t, T); i < slice_begin(data.size(), t + 1, T);
             ++i) {
            const PackedPosition& p = data[i];
            const int n = features(p, fw, fb, false, net.kings);
            const bool white = p.side_to_move() == WHITE;
            const float cp = evaluate_features(net, white ? fw : fb, white ? fb : fw, n);
            const float err = sigmoid(cp / nnue::OutputScale) - target(p, lambda);
            sum += double(err) * err;
        }
        sums[t] = sum;
    });
    double sum = 0;
    for (double s : sums) sum += s;
    return sum / double(data.size());
}

std::string fixed(double v, int decimals) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

} // namespace

// --- The float model -------------------------------------------------------------------

FloatNet FloatNet::random(uint64_t seed) {
    FloatNet net;
    Prng rng(seed);
    // Uniform in [-limit, limit) from 24 random bits.
    const auto uniform = [&](float limit) {
        return limit * (float(rng.next() >> 40) / float(1 << 23) - 1.0f);
    };
    for (float& w : net.ftWeights) w = uniform(1.0f / std::sqrt(float(InputSize)));
    for (float& w : net.outWeights) w = uniform(1.0f / std::sqrt(float(2 * H)));
    return net;
}

FloatNet FloatNet::from(const nnue::Network& q) {
    FloatNet net;
    net.kings = q.kings;
    net.ftWeights.resize(size_t(net.rows()) * H);
    for (size_t i = 0; i < net.ftWeights.size(); ++i)
        net.ftWeights[i] = float(q.ftWeights[i]) / nnue::QA;
    for (int i = 0; i < H; ++i) net.ftBias[i] = float(q.ftBias[i]) / nnue::QA;
    for (size_t i = 0; i < net.outWeights.size(); ++i)
        net.outWeights[i] = float(q.outWeights[i]) / nnue::QB;
    for (size_t b = 0; b < net.outBias.size(); ++b)
        net.outBias[b] = float(double(q.outBias[b]) / (nnue::QA * nnue::QB));
    return net;
}

float FloatNet::evaluate(const Position& pos) const {
    int fw[SQUARE_NB], fb[SQUARE_NB];
    int n = 0;
    const int bw = nnue::king_bucket(pos, kings, WHITE), bb = nnue::king_bucket(pos, kings, BLACK);
    for (Bitboard b = pos.pieces(); b; ++n) {
        const Square s = pop_lsb(b);
        fw[n] = nnue::feature_index(WHITE, bw, pos.piece_on(s), s);
        fb[n] = nnue::feature_index(BLACK, bb, pos.piece_on(s), s);
    }
    const bool white = pos.side_to_move() == WHITE;
    return evaluate_features(*this, white ? fw : fb, white ? fb : fw, n);
}

float FloatNet::evaluate(const PackedPosition& p) const {
    int fw[MaxPieces], fb[MaxPieces];
    const int n = features(p, fw, fb, false, kings);
    const bool white = p.side_to_move() == WHITE;
    return evaluate_features(*this, white ? fw : fb, white ? fb : fw, n);
}

nnue::Network FloatNet::quantise() const {
    nnue::Network q;
    q.kings = kings;
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
    return q;
}

nnue::Network FloatNet::quantise(const std::vector<PackedPosition>& sample) const {
    nnue::Network q = quantise();
    const size_t M = sample.size();
    if (!M) return q;
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
        const int n = features(p, fw, fb, false, kings);
        const bool white = p.side_to_move() == WHITE;
        const int b = bucketOf[j] = nnue::output_bucket(n);
        const int16_t* w = q.outWeights + nnue::output_offset(b);
        double out = double(q.outBias[b]) / QAB;
        for (int side = 0; side < 2; ++side) {
            const int* f = (side == 0) == white ? fw : fb;
            for (int i = 0; i < H; ++i) {
                int32_t x = q.ftBias[i];
                for (int k = 0; k < n; ++k) x += q.ftWeights[size_t(f[k]) * H + i];
                const double c = std::clamp<int32_t>(x, 0, nnue::QA) / double(nnue::QA);
                const size_t unit = size_t(side * H + i);
                act[unit * M + j] = float(c * c);
                out += c * c * w[unit] / nnue::QB;
            }
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
    return q;
}

void FloatNet::clip() {
    for (float& w : ftWeights) w = std::clamp(w, -FtLimit, FtLimit);
    for (float& w : ftBias) w = std::clamp(w, -FtLimit, FtLimit);
    for (float& w : outWeights) w = std::clamp(w, -OutLimit, OutLimit);
}

void FloatNet::spread(const nnue::KingLayout& layout) {
    assert(kings.buckets == 1 && layout.buckets >= 1 && layout.buckets <= nnue::MaxKingBuckets);
    const size_t perBucket = size_t(InputSize) * H; // weights in one copy
    ftWeights.resize(perBucket * size_t(layout.buckets));
    for (int b = 1; b < layout.buckets; ++b)
        std::copy_n(ftWeights.begin(), perBucket,
                    ftWeights.begin() + std::ptrdiff_t(perBucket * size_t(b)));
    kings = layout;
}

// --- Records ---------------------------------------------------------------------------

int features(const PackedPosition& p, int white[MaxPieces], int black[MaxPieces], bool mirror,
             const nnue::KingLayout& kings) {
    int bw = 0, bb = 0;
    if (kings.buckets > 1)
        p.for_each_piece([&](Piece pc, Square s) {
            if (type_of(pc) != KING) return;
            if (mirror) s = flip_file(s);
            (color_of(pc) == WHITE ? bw : bb) = kings.bucket(color_of(pc), s);
        });
    int n = 0;
    p.for_each_piece([&](Piece pc, Square s) {
        assert(n < MaxPieces);
        if (mirror) s = flip_file(s);
        white[n] = nnue::feature_index(WHITE, bw, pc, s);
        black[n] = nnue::feature_index(BLACK, bb, pc, s);
        ++n;
    });
    return n;
}

bool king_layout(const std::string& name, nnue::KingLayout& out) {
    // Squares from the king's own side: rank 0 is its first rank.
    const auto make = [&](int buckets, auto bucketOf) {
        out.buckets = buckets;
        for (int s = 0; s < SQUARE_NB; ++s)
            out.of[s] = uint8_t(bucketOf(rank_of(Square(s)), file_of(Square(s))));
        return true;
    };
    if (name == "none") return make(1, [](Rank, File) { return 0; });
    // At home on the first two ranks, or out.
    if (name == "home") return make(2, [](Rank r, File) { return r <= RANK_2 ? 0 : 1; });
    // The first rank, the second, further up.
    if (name == "ranks")
        return make(3, [](Rank r, File) { return r == RANK_1 ? 0 : r == RANK_2 ? 1 : 2; });
    // The home ranks or out, on the king's starting half (files a-d) or the other.
    if (name == "quarters")
        return make(4,
                    [](Rank r, File f) { return (r <= RANK_2 ? 0 : 2) + (f <= FILE_D ? 0 : 1); });
    return false;
}

std::optional<std::string> load(const std::string& file, std::vector<PackedPosition>& out) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return "cannot open " + file;
    const auto size = uint64_t(in.tellg());
    constexpr uint64_t Record = sizeof(PackedPosition);
    if (size % Record)
        return file + ": " + std::to_string(size) + " bytes is not a whole number of " +
               std::to_string(Record) + "-byte records (damaged, or not a training file)";
    const size_t first = out.size();
    out.resize(first + size / Record);
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(out.data() + first), std::streamsize(size))) {
        out.resize(first);
        return "cannot read " + file;
    }
    for (size_t i = first; i < out.size(); ++i)
        if (auto why = out[i].damage()) {
            const size_t index = i - first;
            out.resize(first);
            return file + ": record " + std::to_string(index) + " (byte " +
                   std::to_string(index * Record) + ") is damaged: " + *why;
        }
    return std::nullopt;
}

float target(const PackedPosition& p, float lambda) {
    const bool white = p.side_to_move() == WHITE;
    const float score = white ? p.score : -p.score;
    const float result = white ? p.result / 2.0f : 1 - p.result / 2.0f;
    return lambda * sigmoid(score / nnue::OutputScale) + (1 - lambda) * result;
}

// --- Training --------------------------------------------------------------------------

double loss(const FloatNet& net, const std::vector<PackedPosition>& data, float lambda,
            int threads) {
    search::ThreadPool pool(size_t(std::max(1, threads)));
    return loss_on(net, data, lambda, pool);
}

QuantisedCheck compare(const FloatNet& net, const nnue::Network& q,
                       const std::vector<PackedPosition>& data, float lambda) {
    QuantisedCheck r;
    if (data.empty()) return r;
    int fw[MaxPieces], fb[MaxPieces];
    auto acc = std::make_unique<nnue::Accumulator>();
    for (const PackedPosition& p : data) {
        const int n = features(p, fw, fb, false, q.kings);
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
        const int cp = nnue::output(*acc, p.side_to_move(), n, q);
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

std::vector<PackedPosition> hold_out(std::vector<PackedPosition>& data, double share,
                                     uint64_t seed) {
    // Positions of one game are alike; held out one by one, the validation set would hold
    // neighbours of training positions and hide overfitting. So whole games are held out.
    // datagen writes a game's records together, its move number never going back.
    std::vector<size_t> starts{0};
    for (size_t i = 1; i < data.size(); ++i)
        if (data[i].fullmove < data[i - 1].fullmove || data[i].variant != data[i - 1].variant)
            starts.push_back(i);
    starts.push_back(data.size());
    std::vector<size_t> games(starts.size() - 1);
    std::iota(games.begin(), games.end(), size_t(0));
    Prng rng(seed);
    shuffle(games, rng);
    const auto target = size_t(std::llround(std::clamp(share, 0.0, 1.0) * double(data.size())));
    std::vector<char> held(games.size(), 0);
    size_t count = 0;
    for (size_t k = 0; k < games.size() && count < target; ++k) {
        held[games[k]] = 1;
        count += starts[games[k] + 1] - starts[games[k]];
    }
    std::vector<PackedPosition> val, rest;
    val.reserve(count);
    rest.reserve(data.size() - count);
    for (size_t g = 0; g + 1 < starts.size(); ++g) {
        auto& to = held[g] ? val : rest;
        to.insert(to.end(), data.begin() + std::ptrdiff_t(starts[g]),
                  data.begin() + std::ptrdiff_t(starts[g + 1]));
    }
    data = std::move(rest);
    return val;
}

Summary fit(FloatNet& net, std::vector<PackedPosition> train,
            const std::vector<PackedPosition>& validation, const Options& opt, std::ostream& log) {
    assert(!train.empty() && opt.epochs > 0 && opt.batch > 0);
    Summary summary;
    const size_t T = size_t(std::max(1, opt.threads));
    search::ThreadPool pool(T);
    std::vector<Gradient> grads(T);
    for (Gradient& g : grads) { // the net's shape, every king bucket
        g.g.ftWeights.resize(net.ftWeights.size());
        g.touched.assign(size_t(net.rows()), 0);
    }
    Adam adamFtW(net.ftWeights.size()), adamFtB(H), adamOutW(net.outWeights.size()),
        adamOutB(net.outBias.size());
    // A stream of its own: the validation split used the seed as it is.
    Prng rng(opt.seed ^ 0x5DEECE66Dull);
    net.clip();

    const size_t N = train.size(), B = size_t(opt.batch);
    const size_t batchesPerEpoch = (N + B - 1) / B;
    const double totalSteps = double(batchesPerEpoch) * opt.epochs;
    Progress progress(log, "train", "positions", uint64_t(N) * uint64_t(opt.epochs));
    double trainSeconds = 0;
    int step = 0;
    float lr = opt.lr;
    // Which records this epoch trains turned over (opt.mirror): half of them, drawn anew
    // each epoch, so every record is seen both ways over a run.
    std::vector<uint8_t> mirror(opt.mirror ? N : 0);
    for (int epoch = 1; epoch <= opt.epochs; ++epoch) {
        shuffle(train, rng);
        for (size_t i = 0; i < mirror.size(); i += 64) {
            const uint64_t bits = rng.next();
            for (size_t j = i; j < std::min(i + 64, N); ++j) mirror[j] = (bits >> (j - i)) & 1;
        }
        const auto start = std::chrono::steady_clock::now();
        double epochLoss = 0;
        for (size_t first = 0; first < N; first += B) {
            const size_t size = std::min(B, N - first);
            // Cosine decay from lr to lr / 100 over the whole run.
            lr = opt.lr * (0.01f + 0.99f * 0.5f * float(1 + std::cos(Pi * step / totalSteps)));
            ++step;
            const PackedPosition* batch = train.data() + first;
            pool.for_each([&](size_t t) {
                const size_t from = slice_begin(size, t, T);
                backprop(net, batch + from, batch + slice_begin(size, t + 1, T),
                         opt.mirror ? mirror.data() + first + from : nullptr, opt.lambda,
                         1.0f / float(size), grads[t]);
            });
            // Sum the slices' gradients into the first buffer, thread by thread in order.
            Gradient& g = grads[0];
            for (size_t t = 1; t < T; ++t) {
                Gradient& o = grads[t];
                for (int r = 0; r < net.rows(); ++r) {
                    if (!o.touched[r]) continue;
                    float* __restrict dst = g.g.ftWeights.data() + size_t(r) * H;
                    float* __restrict src = o.g.ftWeights.data() + size_t(r) * H;
                    for (int i = 0; i < H; ++i) dst[i] += src[i];
                    std::fill(src, src + H, 0.0f);
                    g.touched[r] = 1, o.touched[r] = 0;
                }
                for (int i = 0; i < H; ++i) g.g.ftBias[i] += o.g.ftBias[i];
                for (size_t i = 0; i < g.g.outWeights.size(); ++i)
                    g.g.outWeights[i] += o.g.outWeights[i];
                for (size_t b = 0; b < g.g.outBias.size(); ++b) g.g.outBias[b] += o.g.outBias[b];
                g.loss += o.loss;
                std::fill(o.g.ftBias.begin(), o.g.ftBias.end(), 0.0f);
                std::fill(o.g.outWeights.begin(), o.g.outWeights.end(), 0.0f);
                std::fill(o.g.outBias.begin(), o.g.outBias.end(), 0.0f);
                o.loss = 0;
            }
            // Dense over the first layer: rows no position touched still follow their
            // moments, as plain AdamW does.
            adamFtW.update(net.ftWeights.data(), g.g.ftWeights.data(), net.ftWeights.size(), lr,
                           opt.decay, step, FtLimit);
            adamFtB.update(net.ftBias.data(), g.g.ftBias.data(), H, lr, 0, step, FtLimit);
            adamOutW.update(net.outWeights.data(), g.g.outWeights.data(), net.outWeights.size(), lr,
                            opt.decay, step, OutLimit);
            adamOutB.update(net.outBias.data(), g.g.outBias.data(), net.outBias.size(), lr, 0, step,
                            1e6f);
            epochLoss += g.loss;
            for (int r = 0; r < net.rows(); ++r)
                if (g.touched[r]) {
                    std::fill_n(g.g.ftWeights.data() + size_t(r) * H, H, 0.0f);
                    g.touched[r] = 0;
                }
            std::fill(g.g.ftBias.begin(), g.g.ftBias.end(), 0.0f);
            std::fill(g.g.outWeights.begin(), g.g.outWeights.end(), 0.0f);
            std::fill(g.g.outBias.begin(), g.g.outBias.end(), 0.0f);
            g.loss = 0;

            const uint64_t done = uint64_t(epoch - 1) * N + first + size;
            if (progress.due())
                progress.update(done, "epoch " + std::to_string(epoch) + "/" +
                                          std::to_string(opt.epochs) + ", loss " +
                                          fixed(epochLoss / double(first + size), 6));
        }
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        trainSeconds += seconds;
        summary.trainLoss = epochLoss / double(N);
        summary.valLoss = loss_on(net, validation, opt.lambda, pool);
        progress.clear();
        log << "train: epoch " << epoch << "/" << opt.epochs << ": train loss "
            << fixed(summary.trainLoss, 6) << ", val loss "
            << (validation.empty() ? std::string("-") : fixed(summary.valLoss, 6)) << ", lr " << lr
            << ", " << format_rate(double(N) / std::max(seconds, 1e-9)) << " positions/s"
            << std::endl;
    }
    progress.update(uint64_t(N) * uint64_t(opt.epochs));
    progress.finish();
    summary.rate = double(N) * opt.epochs / std::max(trainSeconds, 1e-9);
    return summary;
}

// --- The command -----------------------------------------------------------------------

int train_main(const std::vector<std::string>& args, std::ostream& log) {
    Options opt;
    opt.threads = int(std::max(1u, std::thread::hardware_concurrency()));
    std::vector<std::string> files;
    std::string outFile, initFile;
    CLI::App app{"Fits the network to files of 32-byte training records: AdamW with weight "
                 "decay, the learning rate from lr down to lr/100 on a cosine, target "
                 "lambda * sigmoid(score/400) + (1 - lambda) * result, a share of the games "
                 "held out for validation. Writes the quantised net (docs/nnue.md).",
                 "khun train"};
    app.add_option("DATA", files, "files of datagen's records")->required();
    app.add_option("--out", outFile, "the net file (default: its own name, nn-<hash>.nnue)");
    app.add_option("--epochs", opt.epochs, "passes over the training records")
        ->check(CLI::Range(1, 1000000))
        ->capture_default_str();
    app.add_option("--batch", opt.batch, "records a step")
        ->check(CLI::Range(1, 100000000))
        ->capture_default_str();
    app.add_option("--lr", opt.lr, "the first step's learning rate")
        ->check(real_in(0, 10, true))
        ->capture_default_str();
    app.add_option("--lambda", opt.lambda, "the score's share of the target")
        ->check(real_in(0, 1))
        ->capture_default_str();
    app.add_option("--val", opt.val, "the share of the records held out for validation")
        ->check(real_in(0, 1, false, true))
        ->capture_default_str();
    app.add_option("--decay", opt.decay, "AdamW's weight decay")
        ->check(real_in(0, 100))
        ->capture_default_str();
    app.add_option("--threads", opt.threads, "threads (default: every core)")
        ->check(CLI::Range(1, 1024));
    app.add_option("--seed", opt.seed, "the random seed of the first weights and the shuffles")
        ->check(CLI::Range(uint64_t(0), uint64_t(9e15)))
        ->capture_default_str();
    app.add_option("--init", initFile, "a net file to start from instead of random weights");
    std::string layoutName;
    app.add_option("--king-buckets", layoutName,
                   "copies of the first layer by where each side's king stands: none, home, "
                   "ranks or quarters (docs/nnue.md; default: none, or the --init net's)");
    app.add_flag("--mirror", opt.mirror,
                 "train half the records of each epoch turned over left to right (a <-> h)");
    if (auto exit = parse_args(app, args, std::cout, log)) return *exit;

    nnue::KingLayout layout;
    if (!layoutName.empty() && !king_layout(layoutName, layout)) {
        log << "train: --king-buckets: no layout named " << layoutName
            << " (none, home, ranks, quarters)\n";
        return 2;
    }
    std::vector<PackedPosition> data;
    for (const std::string& f : files)
        if (auto error = load(f, data)) {
            log << "train: " << *error << "\n";
            return 2;
        }
    std::vector<PackedPosition> validation = hold_out(data, opt.val, opt.seed);
    log << "train: " << format_count(data.size() + validation.size()) << " positions from "
        << files.size() << (files.size() == 1 ? " file" : " files") << ", "
        << format_count(validation.size()) << " held out for validation\n";
    if (data.empty()) {
        log << "train: no positions to train on\n";
        return 2;
    }

    FloatNet net;
    if (initFile.empty()) {
        net = FloatNet::random(opt.seed);
    } else {
        const nnue::Loaded loaded = nnue::load_file(initFile);
        if (!loaded.net) {
            log << "train: " << loaded.error << "\n";
            return 2;
        }
        net = FloatNet::from(*loaded.net);
        log << "train: starting from " << loaded.name << "\n";
    }
    if (!layoutName.empty() &&
        (net.kings.buckets != layout.buckets ||
         !std::equal(std::begin(layout.of), std::end(layout.of), std::begin(net.kings.of)))) {
        if (net.kings.buckets != 1) {
            log << "train: --init's net has " << net.kings.buckets
                << " king buckets in another layout; it can continue only in its own\n";
            return 2;
        }
        net.spread(layout);
        log << "train: king buckets " << layoutName << " (" << layout.buckets
            << "), each a copy of the first layer\n";
    }
    log << "train: " << opt.epochs << " epochs, batch " << opt.batch << ", lr " << opt.lr
        << " (cosine to lr/100), lambda " << opt.lambda << ", decay " << opt.decay << ", "
        << opt.threads << (opt.threads == 1 ? " thread" : " threads") << ", seed " << opt.seed
        << (opt.mirror ? ", mirrored half the time" : "") << "\n";
    // The output layer's rounding is fitted on training records (the validation set
    // stays unseen to judge it), evenly spaced over all of them: the files' first records
    // would be one file's games and their opening phase.
    std::vector<PackedPosition> sample;
    const size_t stride = std::max<size_t>(1, data.size() / 32768);
    for (size_t k = 0; k < data.size() && sample.size() < 32768; k += stride)
        sample.push_back(data[k]);
    const Summary s = fit(net, std::move(data), validation, opt, log);
    log << "train: " << format_rate(s.rate) << " positions/s with " << opt.threads
        << (opt.threads == 1 ? " thread\n" : " threads\n");

    auto q = std::make_unique<nnue::Network>();
    *q = net.quantise(sample);
    const std::string bytes = nnue::serialise(*q);
    const std::string name = nnue::net_name(bytes);
    const std::string path = outFile.empty() ? name : outFile;
    {
        std::ofstream out(path, std::ios::binary);
        if (!out.write(bytes.data(), std::streamsize(bytes.size())) || !out.flush()) {
            log << "train: cannot write " << path << "\n";
            return 1;
        }
    }
    if (!validation.empty()) {
        const QuantisedCheck c = compare(net, *q, validation, opt.lambda);
        // What plain rounding would have given: how much the fitted output layer helps.
        *q = net.quantise();
        const QuantisedCheck plain = compare(net, *q, validation, opt.lambda);
        log << "train: validation loss " << fixed(s.valLoss, 6) << " float, " << fixed(c.loss, 6)
            << " quantised; |float - quantised| " << fixed(c.meanAbsDiff, 2) << " cp on average, "
            << fixed(c.maxAbsDiff, 1)
            << " at most (rounded to nearest: " << fixed(plain.meanAbsDiff, 2) << ", "
            << fixed(plain.maxAbsDiff, 1) << ")\n";
    }
    log << "train: wrote " << path << (path == name ? "" : " (" + name + ")") << "\n";
    return 0;
}

} // namespace train
} // namespace khun::tools
