// 64-bit square sets and the few bit tricks the engine needs.
#pragma once

#include "khun/rules/types.h"

#include <cassert>
#include <cstdint>
#include <string>

#if defined(KHUN_USE_PEXT)
#include <immintrin.h>
#endif

namespace khun {

using Bitboard = uint64_t;

constexpr Bitboard FileABB = 0x0101010101010101ULL;
constexpr Bitboard FileHBB = FileABB << 7;
constexpr Bitboard Rank1BB = 0xFFULL;
constexpr Bitboard Rank8BB = Rank1BB << 56;

[[nodiscard]] constexpr Bitboard square_bb(Square s) {
    assert(is_ok(s)); // a shift by 64 or more is undefined, not an empty set
    return Bitboard(1) << s;
}
[[nodiscard]] constexpr Bitboard file_bb(File f) { return FileABB << f; }
[[nodiscard]] constexpr Bitboard rank_bb(Rank r) { return Rank1BB << (8 * r); }
[[nodiscard]] constexpr Bitboard file_bb(Square s) { return file_bb(file_of(s)); }
[[nodiscard]] constexpr Bitboard rank_bb(Square s) { return rank_bb(rank_of(s)); }

template <Direction D>
[[nodiscard]] constexpr Bitboard shift(Bitboard b) {
    return D == NORTH   ? b << 8
           : D == SOUTH ? b >> 8
           : D == EAST  ? (b & ~FileHBB) << 1
           : D == WEST  ? (b & ~FileABB) >> 1
                        : 0;
}

// Squares the pawns of colour C attack.
template <Color C>
[[nodiscard]] constexpr Bitboard pawn_attacks_bb(Bitboard pawns) {
    return C == WHITE ? ((pawns & ~FileABB) << 7) | ((pawns & ~FileHBB) << 9)
                      : ((pawns & ~FileABB) >> 9) | ((pawns & ~FileHBB) >> 7);
}

// A hash of a pawn structure (both sides' pawns), for tables indexed by its top bits.
[[nodiscard]] constexpr uint64_t pawn_structure_hash(Bitboard white, Bitboard black) {
    return white * 0x9E3779B97F4A7C15ull ^ black * 0xC2B2AE3D27D4EB4Full;
}

// The ranks from c's (relative) rank r up to its last rank; none for RANK_NB (sittuyin,
// whose pawns promote otherwise).
[[nodiscard]] constexpr Bitboard promotion_zone(Color c, Rank r) {
    if (r >= RANK_NB) return 0;
    return c == WHITE ? ~Bitboard(0) << (8 * r) : ~Bitboard(0) >> (8 * r);
}

// Sittuyin: the squares on which c's pawns may promote (its eight diagonal squares).
[[nodiscard]] constexpr Bitboard sittuyin_promotion_squares(Color c) {
    // a8 b7 c6 d5 e5 f6 g7 h8, and their mirror a1 b2 c3 d4 e4 f3 g2 h1.
    constexpr Bitboard White = (1ULL << 56) | (1ULL << 49) | (1ULL << 42) | (1ULL << 35) |
                               (1ULL << 36) | (1ULL << 45) | (1ULL << 54) | (1ULL << 63);
    constexpr Bitboard Black = (1ULL << 0) | (1ULL << 9) | (1ULL << 18) | (1ULL << 27) |
                               (1ULL << 28) | (1ULL << 21) | (1ULL << 14) | (1ULL << 7);
    return c == WHITE ? White : Black;
}

[[nodiscard]] inline int popcount(Bitboard b) { return __builtin_popcountll(b); }
[[nodiscard]] inline Square lsb(Bitboard b) {
    assert(b); // __builtin_ctzll(0) is undefined
    return Square(__builtin_ctzll(b));
}
inline Square pop_lsb(Bitboard& b) {
    Square s = lsb(b);
    b &= b - 1;
    return s;
}
[[nodiscard]] constexpr bool more_than_one(Bitboard b) { return (b & (b - 1)) != 0; }

[[nodiscard]] inline Bitboard pext(Bitboard b, Bitboard mask) {
#if defined(KHUN_USE_PEXT)
    return _pext_u64(b, mask);
#else
    (void)b;
    (void)mask;
    return 0;
#endif
}

// For `d`: an 8x8 picture of a set, rank 8 on top.
std::string pretty(Bitboard b);

} // namespace khun
