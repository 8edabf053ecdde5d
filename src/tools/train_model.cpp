// The trainer's float model (train.h): the quantised net's arrays in float, its first
// weights, a net file's values read back, and its growth (a head, king buckets).
#include "khun/rules/prng.h"
#include "train_internal.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>

namespace khun::tools {
namespace train {

using namespace detail;
using nnue::InputSize;

namespace {

// Uniform in [-limit, limit) from 24 random bits: a weight's first value.
float uniform(Prng& rng, float limit) {
    return limit * (float(rng.next() >> 40) / float(1 << 23) - 1.0f);
}

} // namespace

FloatNet FloatNet::random(uint64_t seed) {
    FloatNet net;
    Prng rng(seed);
    for (float& w : net.ftWeights) w = uniform(rng, 1.0f / std::sqrt(float(InputSize)));
    for (float& w : net.outWeights) w = uniform(rng, 1.0f / std::sqrt(float(2 * H)));
    return net;
}

FloatNet FloatNet::from(const nnue::Network& q) {
    FloatNet net;
    net.kings = q.kings;
    net.hand = q.hasHand;
    net.promoted = q.hasPromoted;
    net.ftWeights.resize(size_t(net.rows()) * H);
    for (size_t i = 0; i < net.ftWeights.size(); ++i)
        net.ftWeights[i] = float(q.ftWeights[i]) / nnue::QA;
    for (int i = 0; i < H; ++i) net.ftBias[i] = float(q.ftBias[i]) / nnue::QA;
    for (size_t i = 0; i < net.outWeights.size(); ++i)
        net.outWeights[i] = float(q.outWeights[i]) / nnue::QB;
    for (size_t b = 0; b < net.outBias.size(); ++b)
        net.outBias[b] = float(double(q.outBias[b]) / (nnue::QA * nnue::QB));
    if (q.hasHead) {
        net.headW1.resize(nnue::HeadW1Size);
        for (int b = 0; b < nnue::OutputBuckets; ++b)
            for (int i = 0; i < 2 * H; ++i)
                for (int j = 0; j < L; ++j)
                    net.headW1[(size_t(b) * 2 * H + size_t(i)) * L + size_t(j)] =
                        float(q.headW1[nnue::head_w1_index(b, i, j)]) / nnue::QH;
        const auto scaled = [](const auto& from, float scale) {
            std::vector<float> v;
            for (int32_t x : from) v.push_back(float(double(x) / scale));
            return v;
        };
        net.headB1 = scaled(q.headB1, float(nnue::HeadOne));
        net.headW2 = scaled(q.headW2, float(nnue::QH2));
        net.headB2 = scaled(q.headB2, float(nnue::QH2));
    }
    return net;
}

void FloatNet::add_hand() {
    if (hand) return;
    hand = true;
    ftWeights.resize(size_t(rows()) * H, 0.0f); // the hand's rows follow the board's
}

void FloatNet::add_promoted() {
    if (promoted) return;
    promoted = true;
    for (int b = 0; b < kings.buckets; ++b)
        for (Color perspective : {WHITE, BLACK})
            for (Color c : {WHITE, BLACK})
                for (Square s = SQ_A1; s < SQUARE_NB; ++s) {
                    const auto row = [&](PieceType pt) {
                        const int f = nnue::feature_index(perspective, b, make_piece(c, pt), s);
                        return ftWeights.begin() + std::ptrdiff_t(size_t(f) * H);
                    };
                    std::copy_n(row(MET), H, row(nnue::PromotedMetKind));
                }
}

void FloatNet::add_head(uint64_t seed) {
    Prng rng(seed);
    headW1.resize(nnue::HeadW1Size);
    for (float& w : headW1) w = uniform(rng, 1.0f / std::sqrt(float(2 * H)));
    headB1.assign(size_t(nnue::OutputBuckets) * L, 0.0f);
    headW2.assign(size_t(nnue::OutputBuckets) * L, 0.0f);
    headB2.assign(nnue::OutputBuckets, 0.0f);
}

float FloatNet::evaluate(const Position& pos) const {
    int fw[SQUARE_NB + nnue::HandInputs], fb[SQUARE_NB + nnue::HandInputs];
    int n = 0;
    const int bw = nnue::king_bucket(pos, kings, WHITE), bb = nnue::king_bucket(pos, kings, BLACK);
    const Bitboard marked = promoted ? pos.promoted() : 0;
    for (Bitboard b = pos.pieces(); b; ++n) {
        const Square s = pop_lsb(b);
        const Piece pc = nnue::input_piece(pos.piece_on(s), marked & square_bb(s));
        fw[n] = nnue::feature_index(WHITE, bw, pc, s);
        fb[n] = nnue::feature_index(BLACK, bb, pc, s);
    }
    if (hand)
        for (Color c : {WHITE, BLACK})
            for (PieceType pt = PAWN; pt <= KING; ++pt)
                for (int k = 0; k < std::min(pos.in_hand(c, pt), nnue::HandSlots); ++k, ++n) {
                    fw[n] = nnue::hand_feature_index(WHITE, kings.buckets, make_piece(c, pt), k);
                    fb[n] = nnue::hand_feature_index(BLACK, kings.buckets, make_piece(c, pt), k);
                }
    const bool white = pos.side_to_move() == WHITE;
    return evaluate_features(*this, white ? fw : fb, white ? fb : fw, n, nnue::piece_count(pos));
}

float FloatNet::evaluate(const PackedPosition& p) const {
    int fw[MaxPieces], fb[MaxPieces];
    const int n = features_for(*this, p, fw, fb);
    const bool white = p.side_to_move() == WHITE;
    return evaluate_features(*this, white ? fw : fb, white ? fb : fw, n, p.piece_count());
}

void FloatNet::clip() {
    for (float& w : ftWeights) w = std::clamp(w, -FtLimit, FtLimit);
    for (float& w : ftBias) w = std::clamp(w, -FtLimit, FtLimit);
    for (float& w : outWeights) w = std::clamp(w, -OutLimit, OutLimit);
    const auto limit = [](std::vector<float>& v, float bound) {
        for (float& w : v) w = std::clamp(w, -bound, bound);
    };
    limit(headW1, HeadW1Limit), limit(headB1, HeadB1Limit);
    limit(headW2, HeadW2Limit), limit(headB2, HeadB2Limit);
}

void FloatNet::spread(const nnue::KingLayout& layout) {
    assert(kings.buckets == 1 && layout.buckets >= 1 && layout.buckets <= nnue::MaxKingBuckets);
    const size_t perBucket = size_t(InputSize) * H; // weights in one copy
    // The hand's rows, if any, move to after the copies.
    const std::vector<float> handRows(ftWeights.begin() + std::ptrdiff_t(perBucket),
                                      ftWeights.end());
    ftWeights.resize(perBucket * size_t(layout.buckets));
    ftWeights.insert(ftWeights.end(), handRows.begin(), handRows.end());
    for (int b = 1; b < layout.buckets; ++b)
        std::copy_n(ftWeights.begin(), perBucket,
                    ftWeights.begin() + std::ptrdiff_t(perBucket * size_t(b)));
    kings = layout;
}

} // namespace train
} // namespace khun::tools
