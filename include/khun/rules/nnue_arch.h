// The shape of Khun's network and the two small records a position keeps for it: what a
// move changed on the board (DirtyPieces) and the first layer's sums (Accumulator).
// Position stores both in its StateInfo chain, so that the sums of a position are its
// parent's plus the few pieces the move moved (docs/nnue.md).
#pragma once

#include "khun/rules/types.h"

#include <cassert>
#include <cstddef>
#include <cstdint>

namespace khun {
namespace nnue {

// Inputs: one per (own or their piece, kind PAWN..KING, square), each side seeing the
// board from its own side: Black's squares are turned half a turn (sq ^ 63), the
// symmetry of Makruk's start position (kings on d1 and e8).
constexpr int PieceKinds = KING;                      // PAWN..KING
constexpr int InputSize = 2 * PieceKinds * SQUARE_NB; // 896, in each king bucket below
// The hidden layer: one accumulator of this many int16 per side.
constexpr int HiddenSize = 256;
// Quantisation: the first layer's weights and sums are scaled by QA (a sum of 1.0 is
// QA), the output weights by QB; the activation is clamp(x, 0, 1)^2 (squared clipped
// ReLU); the output is a score in centipawn-like units after a factor of OutputScale.
constexpr int QA = 255;
constexpr int QB = 64;
constexpr int OutputScale = 400;
// Output buckets: one output layer per range of the number of pieces on the board (both
// sides, kings included), so that the weight of each hidden unit can change as the game
// thins out, at no cost to the accumulators. Bucket (pieces - 2) / 4: the start's 32
// pieces are bucket 7, two bare kings bucket 0.
constexpr int OutputBuckets = 8;
[[nodiscard]] constexpr int output_bucket(int pieces) {
    assert(pieces >= 2); // the two kings at least: bucket 0 starts there
    const int b = (pieces - 2) / 4;
    return b < OutputBuckets ? b : OutputBuckets - 1;
}
// Where bucket b's output weights start: each bucket holds the side to move's HiddenSize
// weights, then the other side's.
[[nodiscard]] constexpr size_t output_offset(int bucket) { return size_t(bucket) * 2 * HiddenSize; }

// The head, a second hidden layer a net may have beside the output layer: per output
// bucket, the same 2 * HiddenSize activations -> HeadSize units h, clamp(h, 0, 1) -> one
// number added to the output. A head whose last weights are 0 adds nothing, so a net
// without one is grown into one by training (docs/nnue.md, "A head").
constexpr int HeadSize = 16;
// Its integer inference: the activation clamp(x, 0, QA)^2 >> HeadActShift (1.0 is
// QA^2 / 2^HeadActShift, about 508), the first weights x QH, so that a unit's 1.0 is
// HeadOne; the last weights x QH2, their bias x QH2.
constexpr int HeadActShift = 7;
constexpr int QH = 2048;
static_assert(QH % (1 << HeadActShift) == 0, "HeadOne is a whole number");
constexpr int32_t HeadOne = QA * QA * (QH >> HeadActShift); // 1,040,400
constexpr int QH2 = 1 << 14;
// Bounds (the trainer clips to them, a net file outside them is refused): within them no
// unit's int32 sum can overflow, 2 * HiddenSize * 508 * 4096 + bias < 2^31.
constexpr int HeadW1Max = 2 * QH;
constexpr int32_t HeadB1Max = 8 * HeadOne;
constexpr int32_t HeadW2Max = 8 * QH2;
constexpr int32_t HeadB2Max = 8 * QH2;
static_assert(int64_t(2 * HiddenSize) * ((QA * QA) >> HeadActShift) * HeadW1Max + HeadB1Max <
                  (int64_t(1) << 31),
              "a head unit's sum fits int32");
// Where the weight from activation `input` (0..2 * HiddenSize: the side to move's units,
// then the other side's) to head unit j of bucket b lies: inputs in pairs, each pair's
// HeadSize * 2 weights together, the order a 16-bit multiply-add reads them in (nnue.cpp).
[[nodiscard]] constexpr size_t head_w1_index(int bucket, int input, int j) {
    assert(input >= 0 && input < 2 * HiddenSize && j >= 0 && j < HeadSize);
    return ((size_t(bucket) * HiddenSize + size_t(input / 2)) * HeadSize + size_t(j)) * 2 +
           size_t(input % 2);
}
constexpr size_t HeadW1Size = size_t(OutputBuckets) * 2 * HiddenSize * HeadSize;

// King buckets: a net may keep several copies of the first layer's weights and use, for
// each side, the copy chosen by where that side's own king stands (seen from its side), so
// that what a piece is worth can depend on where the king is. The layout is the net's (its
// file says which copy each square uses); a net of one bucket is the plain 896 inputs.
constexpr int MaxKingBuckets = 4;
struct KingLayout {
    int buckets = 1;
    uint8_t of[SQUARE_NB] = {}; // the bucket of each square of the own king, from its side
    // SQ_NONE, no king on the board yet (sittuyin's setup), is bucket 0.
    [[nodiscard]] constexpr int bucket(Color perspective, Square ksq) const {
        if (ksq == SQ_NONE) return 0;
        assert(is_ok(ksq));
        return of[perspective == WHITE ? int(ksq) : int(ksq) ^ 63];
    }
};

// The input of piece pc on s for `perspective`, whose own king is in king bucket `bucket`:
// a row of the first layer's weights.
[[nodiscard]] constexpr int feature_index(Color perspective, int bucket, Piece pc, Square s) {
    // No piece, or a kind past KING, would read another feature's weights.
    assert(type_of(pc) >= PAWN && type_of(pc) <= KING && is_ok(s));
    assert(bucket >= 0 && bucket < MaxKingBuckets);
    const int own = color_of(pc) == perspective ? 0 : 1;
    const int sq = perspective == WHITE ? int(s) : int(s) ^ 63;
    return bucket * InputSize + (own * PieceKinds + (int(type_of(pc)) - 1)) * SQUARE_NB + sq;
}

// Pieces in hand (the drop games: sittuyin's setup, makrukhouse's pockets), for a net that
// has inputs for them (docs/nnue.md, "Pieces in hand"): per side (own, their) and kind, the
// k-th input (k < HandSlots) is on while the hand holds more than k pieces of that kind, so
// a drop or a capture into the hand changes one input. Their rows follow the board's rows
// of every king bucket and are the same whatever bucket the king is in: in sittuyin's
// setup, where the hands are full, the king may not be on the board yet.
constexpr int HandSlots = 16; // a side never holds more of a kind: makrukhouse's 16 pawns
constexpr int HandInputs = 2 * PieceKinds * HandSlots; // 224
[[nodiscard]] constexpr int hand_feature_index(Color perspective, int kingBuckets, Piece pc,
                                               int slot) {
    assert(type_of(pc) >= PAWN && type_of(pc) <= KING && slot >= 0 && slot < HandSlots);
    assert(kingBuckets >= 1 && kingBuckets <= MaxKingBuckets);
    const int own = color_of(pc) == perspective ? 0 : 1;
    return kingBuckets * InputSize + (own * PieceKinds + (int(type_of(pc)) - 1)) * HandSlots + slot;
}

// Makrukhouse's promoted mets, for a net that tells them from mets (docs/nnue.md,
// "Promoted mets"): a promoted met goes back to the hand as a pawn, so it is worth less
// than a met to the side that holds it and gives the other less when taken. It reads the
// rows of the ai-wok, a kind no game whose captures go to the hand has (variant.cpp
// checks), so the inputs cost neither rows nor time.
constexpr PieceType PromotedMetKind = AIWOK;
// The piece a net with promoted inputs sees for pc, promoted or not.
[[nodiscard]] constexpr Piece input_piece(Piece pc, bool promoted) {
    assert(!promoted || type_of(pc) == MET);
    return promoted ? make_piece(color_of(pc), PromotedMetKind) : pc;
}

// Up to three pieces change with a move: the mover (from -> to), a captured piece (-> none),
// and a promotion (the pawn's arrival is a removal, the new piece an addition). A sutra
// move moves two pieces. SQ_NONE as `from` adds a piece, as `to` removes it. A move of a
// drop game also changes at most one hand input: a drop empties the slot its piece held, a
// capture into the hand fills the next one.
struct DirtyPieces {
    int count = -1;
    Piece piece[3];
    Square from[3];
    Square to[3];
    Piece handPiece = NO_PIECE; // the hand's change, if any: this piece in `handSlot`
    int handSlot = 0;
    bool toHand = false; // the slot filled (a capture) or emptied (a drop)
    void clear() {
        count = 0;
        handPiece = NO_PIECE;
    }
    void add(Piece pc, Square f, Square t) {
        assert(count >= 0 && count < 3); // cleared by do_move; three changes at most
        piece[count] = pc;
        from[count] = f;
        to[count] = t;
        ++count;
    }
    // Piece pc's hand went from holding `slot` + 1 to `slot` pieces (or back, `filled`).
    void hand(Piece pc, int slot, bool filled) {
        assert(handPiece == NO_PIECE && slot >= 0); // one hand change a move
        handPiece = pc;
        handSlot = slot;
        toHand = filled;
    }
};

// The first layer's output for both sides (indexed by perspective), and whether each is
// up to date for the position it belongs to.
struct alignas(64) Accumulator {
    int16_t values[COLOR_NB][HiddenSize];
    bool computed[COLOR_NB] = {false, false};
};

} // namespace nnue
} // namespace khun
