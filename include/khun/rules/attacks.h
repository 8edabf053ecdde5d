// How each piece attacks: precomputed tables for the steppers and leapers, and magic or
// PEXT lookups for the rook, the only sliding piece in the Makruk family.
#pragma once

#include "khun/rules/bitboard.h"

#include <cassert>

namespace khun {

namespace attacks {

// Must run once before anything else (Position, movegen) is used. Idempotent.
void init();

struct Magic {
    Bitboard mask;
    Bitboard magic;
    Bitboard* table;
    unsigned shift;

    [[nodiscard]] unsigned index(Bitboard occupied) const {
#if defined(KHUN_USE_PEXT)
        return unsigned(pext(occupied, mask));
#else
        return unsigned(((occupied & mask) * magic) >> shift);
#endif
    }
};

extern Magic RookMagics[SQUARE_NB];
extern Bitboard KingAttacks[SQUARE_NB];
extern Bitboard KnightAttacks[SQUARE_NB];
extern Bitboard MetAttacks[SQUARE_NB];            // one step diagonally (ferz)
extern Bitboard KhonAttacks[COLOR_NB][SQUARE_NB]; // ferz plus one step forward
extern Bitboard PawnAttacks[COLOR_NB][SQUARE_NB]; // diagonal captures forward
extern Bitboard LineBB[SQUARE_NB][SQUARE_NB];     // full rank/file through both, or 0
extern Bitboard BetweenBB[SQUARE_NB][SQUARE_NB];  // squares strictly between on a rank/file

[[nodiscard]] inline Bitboard rook(Square s, Bitboard occupied) {
    assert(is_ok(s));
    const Magic& m = RookMagics[s];
    return m.table[m.index(occupied)];
}
[[nodiscard]] inline Bitboard king(Square s) { return KingAttacks[s]; }
[[nodiscard]] inline Bitboard knight(Square s) { return KnightAttacks[s]; }
[[nodiscard]] inline Bitboard met(Square s) { return MetAttacks[s]; }
[[nodiscard]] inline Bitboard khon(Color c, Square s) { return KhonAttacks[c][s]; }
[[nodiscard]] inline Bitboard pawn(Color c, Square s) { return PawnAttacks[c][s]; }
[[nodiscard]] inline Bitboard aiwok(Square s, Bitboard occupied) {
    return rook(s, occupied) | KnightAttacks[s] | MetAttacks[s];
}

// Squares attacked by a piece of kind pt and colour c standing on s.
[[nodiscard]] inline Bitboard of(PieceType pt, Color c, Square s, Bitboard occupied) {
    assert(is_ok(s));
    // No kind attacks nothing: asking for an empty square's attacks is a caller's slip.
    assert(pt >= PAWN && pt <= KING);
    switch (pt) {
    case PAWN: return PawnAttacks[c][s];
    case KNIGHT: return KnightAttacks[s];
    case KHON: return KhonAttacks[c][s];
    case MET: return MetAttacks[s];
    case ROOK: return rook(s, occupied);
    case AIWOK: return aiwok(s, occupied);
    case KING: return KingAttacks[s];
    default: return 0;
    }
}

} // namespace attacks

[[nodiscard]] inline Bitboard line_bb(Square a, Square b) {
    assert(is_ok(a) && is_ok(b));
    return attacks::LineBB[a][b];
}
[[nodiscard]] inline Bitboard between_bb(Square a, Square b) {
    assert(is_ok(a) && is_ok(b));
    return attacks::BetweenBB[a][b];
}

} // namespace khun
