// The NNUE trainer's fit and its command: the float model (train_model.cpp) fitted by
// AdamW to training records, then quantised (train_quant.cpp) into a net file. Everything
// that decides the result (shuffles, batches, the order of every sum) is fixed by the seed
// and the thread count, so a run can be repeated bit for bit.
#include "khun/rules/prng.h"
#include "khun/search/thread.h"
#include "khun/tools/cli.h"
#include "khun/tools/progress.h"
#include "train_internal.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <ostream>
#include <thread>

namespace khun::tools {
namespace train {

using namespace detail;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "records are read as they lie on disk: little-endian");

namespace {

constexpr double Pi = 3.14159265358979323846;

// Per-thread gradient buffers (the same shape as FloatNet) and which first-layer rows a
// batch touched: the only rows to sum and to clear afterwards.
struct Gradient {
    FloatNet g;
    std::vector<uint8_t> touched; // sized by fit() to the net's rows
    double loss = 0;
};

// The batch's positions [begin, end): adds d(loss)/d(weight) * scale to `grad`. Position
// begin[k] is turned over left to right where `mirror` is given and mirror[k] is set.
// With `headOnly` only the head's gradients: nothing else would be applied.
void backprop(const FloatNet& net, const PackedPosition* begin, const PackedPosition* end,
              const uint8_t* mirror, float lambda, float scale, bool headOnly, Gradient& grad) {
    alignas(64) float accUs[H], accThem[H], a[2 * H], dUs[H], dThem[H], da[2 * H], h[L], dh[L];
    int fw[MaxPieces], fb[MaxPieces];
    float* gBias = grad.g.ftBias.data();
    const bool head = net.has_head();
    for (const PackedPosition* p = begin; p != end; ++p) {
        const int n = features_for(net, *p, fw, fb, mirror && mirror[p - begin]);
        const bool white = p->side_to_move() == WHITE;
        const int* us = white ? fw : fb;
        const int* them = white ? fb : fw;
        const int bucket = nnue::output_bucket(p->piece_count());
        float* gOut = grad.g.outWeights.data() + nnue::output_offset(bucket);
        const float* w = net.outWeights.data() + nnue::output_offset(bucket);
        accumulate(net, us, n, accUs);
        accumulate(net, them, n, accThem);
        const float out = output(net, accUs, accThem, bucket, a, h);
        const float s = sigmoid(out), err = s - target(*p, lambda);
        grad.loss += double(err) * err;
        // d(err^2)/d(out), times the batch's 1/size.
        const float g = 2 * err * s * (1 - s) * scale;
        if (!headOnly) {
            grad.g.outBias[size_t(bucket)] += g;
            // d(out)/d(activation): the output weight, plus the head's share below.
            for (int i = 0; i < 2 * H; ++i) da[i] = g * w[i];
        }
        if (head) {
            const size_t b = size_t(bucket);
            const float* W1 = net.headW1.data() + b * 2 * H * L;
            const float* W2 = net.headW2.data() + b * L;
            float* gW1 = grad.g.headW1.data() + b * 2 * H * L;
            grad.g.headB2[b] += g;
            // d/d(W2) is the clamped unit; d/d(unit) is W2 inside (0, 1), 0 outside.
            for (int j = 0; j < L; ++j) {
                grad.g.headW2[b * L + j] += g * std::clamp(h[j], 0.0f, 1.0f);
                dh[j] = h[j] > 0 && h[j] < 1 ? g * W2[j] : 0.0f;
                grad.g.headB1[b * L + j] += dh[j];
            }
            // An activation at 0 neither learns in the head nor passes anything back.
            for (int i = 0; i < 2 * H; ++i) {
                if (a[i] == 0) continue;
                float* __restrict gRow = gW1 + size_t(i) * L;
                for (int j = 0; j < L; ++j) gRow[j] += a[i] * dh[j];
                if (headOnly) continue;
                const float* __restrict row = W1 + size_t(i) * L;
                float back = 0;
                for (int j = 0; j < L; ++j) back += row[j] * dh[j];
                da[i] += back;
            }
        }
        if (headOnly) continue;
        for (int i = 0; i < H; ++i) {
            gOut[i] += g * a[i];
            gOut[H + i] += g * a[H + i];
            // d(clamp(x,0,1)^2)/dx = 2x inside (0, 1), 0 outside.
            const float xu = accUs[i], xt = accThem[i];
            dUs[i] = xu > 0 && xu < 1 ? da[i] * 2 * xu : 0.0f;
            dThem[i] = xt > 0 && xt < 1 ? da[H + i] * 2 * xt : 0.0f;
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
            const int n = features_for(net, p, fw, fb);
            const bool white = p.side_to_move() == WHITE;
            const float cp =
                evaluate_features(net, white ? fw : fb, white ? fb : fw, n, p.piece_count());
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

Summary fit(FloatNet& net, std::vector<PackedPosition> train,
            const std::vector<PackedPosition>& validation, const Options& opt, std::ostream& log) {
    assert(!train.empty() && opt.epochs > 0 && opt.batch > 0);
    Summary summary;
    const size_t T = size_t(std::max(1, opt.threads));
    search::ThreadPool pool(T);
    std::vector<Gradient> grads(T);
    // The head's four arrays, in the net and in a gradient, one by one.
    const auto heads = [](FloatNet& n) {
        return std::array<std::vector<float>*, 4>{&n.headW1, &n.headB1, &n.headW2, &n.headB2};
    };
    const std::array<float, 4> headLimits{HeadW1Limit, HeadB1Limit, HeadW2Limit, HeadB2Limit};
    const std::array<bool, 4> headDecays{true, false, true, false}; // weights, not biases
    for (Gradient& g : grads) { // the net's shape, every king bucket, the head if it has one
        g.g.ftWeights.resize(net.ftWeights.size());
        g.touched.assign(size_t(net.rows()), 0);
        for (size_t k = 0; k < 4; ++k) heads(g.g)[k]->assign(heads(net)[k]->size(), 0.0f);
    }
    Adam adamFtW(net.ftWeights.size()), adamFtB(H), adamOutW(net.outWeights.size()),
        adamOutB(net.outBias.size());
    std::vector<Adam> adamHead;
    for (std::vector<float>* v : heads(net)) adamHead.emplace_back(v->size());
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
                         1.0f / float(size), opt.headOnly, grads[t]);
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
                for (size_t k = 0; k < 4; ++k) {
                    std::vector<float>&dst = *heads(g.g)[k], &src = *heads(o.g)[k];
                    for (size_t i = 0; i < dst.size(); ++i) dst[i] += src[i];
                    std::fill(src.begin(), src.end(), 0.0f);
                }
                g.loss += o.loss;
                std::fill(o.g.ftBias.begin(), o.g.ftBias.end(), 0.0f);
                std::fill(o.g.outWeights.begin(), o.g.outWeights.end(), 0.0f);
                std::fill(o.g.outBias.begin(), o.g.outBias.end(), 0.0f);
                o.loss = 0;
            }
            // Dense over the first layer: rows no position touched still follow their
            // moments, as plain AdamW does.
            if (!opt.headOnly) {
                adamFtW.update(net.ftWeights.data(), g.g.ftWeights.data(), net.ftWeights.size(), lr,
                               opt.decay, step, FtLimit);
                adamFtB.update(net.ftBias.data(), g.g.ftBias.data(), H, lr, 0, step, FtLimit);
                adamOutW.update(net.outWeights.data(), g.g.outWeights.data(), net.outWeights.size(),
                                lr, opt.decay, step, OutLimit);
                adamOutB.update(net.outBias.data(), g.g.outBias.data(), net.outBias.size(), lr, 0,
                                step, 1e6f);
            }
            for (size_t k = 0; k < 4; ++k) {
                std::vector<float>&w = *heads(net)[k], &d = *heads(g.g)[k];
                adamHead[k].update(w.data(), d.data(), w.size(), lr, headDecays[k] ? opt.decay : 0,
                                   step, headLimits[k]);
                std::fill(d.begin(), d.end(), 0.0f);
            }
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
    CommandLine app{"khun train",
                    "Fits the network to files of 32-byte training records: AdamW with weight "
                    "decay, the learning rate from lr down to lr/100 on a cosine, target "
                    "lambda * sigmoid(score/400) + (1 - lambda) * result, a share of the games "
                    "held out for validation. Writes the quantised net (docs/nnue.md)."};
    app.add("DATA", files, "files of datagen's records").required();
    app.add("--out", outFile, "the net file (default: its own name, nn-<hash>.nnue)");
    app.add("--epochs", opt.epochs, "passes over the training records")
        .check(int_in(1, 1000000))
        .show_default();
    app.add("--batch", opt.batch, "records a step").check(int_in(1, 100000000)).show_default();
    app.add("--lr", opt.lr, "the first step's learning rate")
        .check(real_in(0, 10, true))
        .show_default();
    app.add("--lambda", opt.lambda, "the score's share of the target")
        .check(real_in(0, 1))
        .show_default();
    app.add("--val", opt.val, "the share of the records held out for validation")
        .check(real_in(0, 1, false, true))
        .show_default();
    app.add("--decay", opt.decay, "AdamW's weight decay").check(real_in(0, 100)).show_default();
    app.add("--threads", opt.threads, "threads (default: every core)").check(int_in(1, 1024));
    app.add("--seed", opt.seed, "the random seed of the first weights and the shuffles")
        .check(int_in(0, 9'000'000'000'000'000))
        .show_default();
    app.add("--init", initFile, "a net file to start from instead of random weights");
    std::string layoutName;
    app.add("--king-buckets", layoutName,
            "copies of the first layer by where each side's king stands: none, home, "
            "ranks or quarters (docs/nnue.md; default: none, or the --init net's)");
    app.flag("--mirror", opt.mirror,
             "train half the records of each epoch turned over left to right (a <-> h)");
    bool addHand = false;
    app.flag("--hand", addHand,
             "give the net inputs for the pieces in hand (the drop games: sittuyin, "
             "makrukhouse) if it has none: from --init's net they start at 0, adding nothing");
    bool addPromoted = false;
    app.flag("--promoted", addPromoted,
             "let the net tell makrukhouse's promoted mets (back to the hand as pawns) from "
             "mets, if it cannot: their inputs start as the met's, scoring as before");
    bool addHead = false;
    app.flag("--head", addHead,
             "give the net a second hidden layer (docs/nnue.md) if it has none: from "
             "--init's net it starts adding nothing, and training grows it");
    app.flag("--head-only", opt.headOnly,
             "train the head alone, the rest of the net as it starts (with --head, or "
             "--init from a net with a head)");
    if (auto exit = app.parse(args, std::cout, log)) return *exit;

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
    if (addHand && !net.hand) {
        net.add_hand();
        log << "train: inputs for the pieces in hand added, adding nothing yet\n";
    }
    if (!net.hand && std::any_of(data.begin(), data.end(), [](const PackedPosition& p) {
            return p.piece_count() != popcount(p.occupancy);
        }))
        log << "train: warning: some positions have pieces in hand, which this net does not "
               "see (--hand gives it inputs for them)\n";
    if (addPromoted && !net.promoted) {
        net.add_promoted();
        log << "train: inputs for promoted mets added, as the met's\n";
    }
    if (addHead && !net.has_head()) {
        net.add_head(opt.seed);
        log << "train: a head of " << nnue::HeadSize << " units added, adding nothing yet\n";
    }
    if (opt.headOnly && !net.has_head()) {
        log << "train: --head-only needs a head: --head, or --init from a net with one\n";
        return 2;
    }
    log << "train: " << opt.epochs << " epochs, batch " << opt.batch << ", lr " << opt.lr
        << " (cosine to lr/100), lambda " << opt.lambda << ", decay " << opt.decay << ", "
        << opt.threads << (opt.threads == 1 ? " thread" : " threads") << ", seed " << opt.seed
        << (opt.mirror ? ", mirrored half the time" : "")
        << (opt.headOnly ? ", the head alone" : "") << "\n";
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

    std::unique_ptr<nnue::Network> q = net.quantise(sample);
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
        q = net.quantise();
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
