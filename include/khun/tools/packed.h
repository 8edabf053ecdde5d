// The training record: one position with its search score and its game's result in 32
// bytes, the format `khun datagen` writes and `khun train` and `khun tune` read.
//
// Layout (little-endian, no padding):
//   occupancy  u64   the occupied squares (bit 0 = a1)
//   pieces     u8[16] one nibble a piece in the order of the occupied squares, low nibble
//                    first: bit 3 = Black, bits 0-2 = the kind (PAWN 1 .. KING 7); in the
//                    drop games the pieces in hand follow, White's then Black's (board and
//                    hands never hold more than 32), and a zero nibble ends them; where
//                    captures go to the hand (makrukhouse) a promoted met on the board is
//                    kind PromotedMetCode, the ai-wok's, which such a game lacks
//   score      i16   the search score in centipawns, from White's side
//   result     u8    the game's result from White's side: 0 loss, 1 draw, 2 win
//   flags      u8    bit 0: Black to move
//   countLimit u8    the running count's limit in plies (0: none)
//   countPly   u8    the count's ply
//   variant    u8    the game's index in the variant table (variant.h)
//   fullmove   u8    the move number, capped at 255
// A position with more than 32 pieces cannot be stored (the family never has one).
#pragma once

#include "khun/rules/position.h"

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>

namespace khun::tools {

// The kind a promoted met is stored as in a game whose captures go to the hand: it goes
// back to the hand as a pawn, so a trainer must tell it from a met (docs/nnue.md,
// "Promoted mets"). The ai-wok's code: no such game has the ai-wok (variant.cpp checks).
constexpr int PromotedMetCode = AIWOK;

struct PackedPosition {
    uint64_t occupancy;
    uint8_t pieces[16];
    int16_t score;
    uint8_t result;
    uint8_t flags;
    uint8_t countLimit;
    uint8_t countPly;
    uint8_t variant;
    uint8_t fullmove;

    // `whiteScore` and `whiteResult` (0, 0.5 or 1) from White's side.
    [[nodiscard]] static PackedPosition pack(const Position& pos, int whiteScore,
                                             double whiteResult);
    // Why the record is damaged, or nothing: an unknown game, a piece kind its game lacks,
    // more than 32 pieces, not one king each, a result above 2, stray bits in the unused
    // piece nibbles.
    [[nodiscard]] std::optional<std::string> damage() const;
    // The position as a FEN of its game (no first-move rights; the count as stored), or
    // nothing when the record is damaged.
    [[nodiscard]] std::optional<std::string> fen() const;
    [[nodiscard]] const Variant* game() const;
    [[nodiscard]] Color side_to_move() const { return Color(flags & 1); }
    [[nodiscard]] double white_result() const { return result / 2.0; }
    // Calls f(piece, square) for each piece on the board, or f(piece, square, promoted) for
    // a caller that tells makrukhouse's promoted mets (a MET, promoted true) from the rest.
    template <typename F>
    void for_each_piece(F&& f) const {
        const Variant* g = game();
        const bool marks = g && g->capturesToHand;
        int i = 0;
        for (uint64_t b = occupancy; b; b &= b - 1, ++i) {
            const int nibble = (pieces[i / 2] >> (4 * (i % 2))) & 15;
            const bool promoted = marks && (nibble & 7) == PromotedMetCode;
            const Piece pc =
                Piece(((nibble >> 3) << PIECE_TYPE_BITS) | (promoted ? int(MET) : nibble & 7));
            const Square s = Square(__builtin_ctzll(b));
            if constexpr (std::is_invocable_v<F, Piece, Square, bool>)
                f(pc, s, promoted);
            else
                f(pc, s);
        }
    }
    // Calls f(piece, k) for each piece in a drop game's hands, k counting the pieces of its
    // kind and colour before it (0 for the first).
    template <typename F>
    void for_each_in_hand(F&& f) const {
        int held[16] = {};
        for (int i = __builtin_popcountll(occupancy); i < 32; ++i) {
            const int nibble = (pieces[i / 2] >> (4 * (i % 2))) & 15;
            if (!nibble) break;
            f(Piece(((nibble >> 3) << PIECE_TYPE_BITS) | (nibble & 7)), held[nibble]++);
        }
    }
    // The pieces on the board and in the hands: what picks the net's output bucket
    // (nnue::piece_count).
    [[nodiscard]] int piece_count() const {
        int n = __builtin_popcountll(occupancy);
        for_each_in_hand([&](Piece, int) { ++n; });
        return n;
    }
};
static_assert(sizeof(PackedPosition) == 32, "the record is 32 bytes on disk");

} // namespace khun::tools
