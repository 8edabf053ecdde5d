// Basic value types shared by every layer: colours, pieces, squares, moves, scores.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>

namespace khun {

enum Color : int { WHITE, BLACK, COLOR_NB = 2 };

[[nodiscard]] constexpr Color operator~(Color c) { return Color(c ^ 1); }

// The Makruk family's piece kinds. MET covers promoted pawns too: a promoted bia is a
// met in every respect, so no separate kind is needed. AIWOK only exists in ai-wok.
// PIECE_TYPE_NB sizes the evaluation's parameter tables (eval_params.h), so a new kind
// goes after KING and raises it, together with new weights.
enum PieceType : int {
    NO_PIECE_TYPE,
    PAWN,
    KNIGHT,
    KHON,
    MET,
    ROOK,
    AIWOK,
    KING,
    PIECE_TYPE_NB = 8
};

// A piece is its colour above a 4-bit kind. Today's kinds fit in 3 bits exactly; the
// fourth leaves room for more kinds without re-encoding pieces or the tables they index.
constexpr int PIECE_TYPE_BITS = 4;
static_assert(PIECE_TYPE_NB <= (1 << PIECE_TYPE_BITS), "piece kinds overflow the encoding");

enum Piece : int {
    NO_PIECE,
    W_PAWN = PAWN,
    W_KNIGHT,
    W_KHON,
    W_MET,
    W_ROOK,
    W_AIWOK,
    W_KING,
    B_PAWN = PAWN + (1 << PIECE_TYPE_BITS),
    B_KNIGHT,
    B_KHON,
    B_MET,
    B_ROOK,
    B_AIWOK,
    B_KING,
    PIECE_NB = 2 << PIECE_TYPE_BITS
};

[[nodiscard]] constexpr Piece make_piece(Color c, PieceType pt) {
    return Piece((c << PIECE_TYPE_BITS) | pt);
}
[[nodiscard]] constexpr PieceType type_of(Piece p) {
    return PieceType(p & ((1 << PIECE_TYPE_BITS) - 1));
}
[[nodiscard]] constexpr Color color_of(Piece p) { return Color(p >> PIECE_TYPE_BITS); }

enum Square : int {
    // clang-format off
    SQ_A1, SQ_B1, SQ_C1, SQ_D1, SQ_E1, SQ_F1, SQ_G1, SQ_H1,
    SQ_A2, SQ_B2, SQ_C2, SQ_D2, SQ_E2, SQ_F2, SQ_G2, SQ_H2,
    SQ_A3, SQ_B3, SQ_C3, SQ_D3, SQ_E3, SQ_F3, SQ_G3, SQ_H3,
    SQ_A4, SQ_B4, SQ_C4, SQ_D4, SQ_E4, SQ_F4, SQ_G4, SQ_H4,
    SQ_A5, SQ_B5, SQ_C5, SQ_D5, SQ_E5, SQ_F5, SQ_G5, SQ_H5,
    SQ_A6, SQ_B6, SQ_C6, SQ_D6, SQ_E6, SQ_F6, SQ_G6, SQ_H6,
    SQ_A7, SQ_B7, SQ_C7, SQ_D7, SQ_E7, SQ_F7, SQ_G7, SQ_H7,
    SQ_A8, SQ_B8, SQ_C8, SQ_D8, SQ_E8, SQ_F8, SQ_G8, SQ_H8,
    // clang-format on
    SQ_NONE,
    SQUARE_NB = 64
};

enum File : int { FILE_A, FILE_B, FILE_C, FILE_D, FILE_E, FILE_F, FILE_G, FILE_H, FILE_NB };
enum Rank : int { RANK_1, RANK_2, RANK_3, RANK_4, RANK_5, RANK_6, RANK_7, RANK_8, RANK_NB };

enum Direction : int { NORTH = 8, EAST = 1, SOUTH = -8, WEST = -1 };

[[nodiscard]] constexpr Square make_square(File f, Rank r) {
    // Off the board the bits of a file spill into the rank: another, wrong square.
    assert(f >= FILE_A && f <= FILE_H && r >= RANK_1 && r <= RANK_8);
    return Square((r << 3) | f);
}
[[nodiscard]] constexpr File file_of(Square s) { return File(s & 7); }
[[nodiscard]] constexpr Rank rank_of(Square s) { return Rank(s >> 3); }
// The square turned over left to right (file a <-> h, the rank kept): a symmetry of every
// game of the family, whose rules have no file of their own.
[[nodiscard]] constexpr Square flip_file(Square s) { return Square(s ^ 7); }
[[nodiscard]] constexpr bool is_ok(Square s) { return s >= SQ_A1 && s <= SQ_H8; }
[[nodiscard]] constexpr Square operator+(Square s, int d) { return Square(int(s) + d); }
[[nodiscard]] constexpr Square operator-(Square s, int d) { return Square(int(s) - d); }
constexpr Square& operator++(Square& s) { return s = Square(int(s) + 1); }
constexpr File& operator++(File& f) { return f = File(int(f) + 1); }
constexpr Rank& operator++(Rank& r) { return r = Rank(int(r) + 1); }
constexpr Rank& operator--(Rank& r) { return r = Rank(int(r) - 1); }
constexpr PieceType& operator++(PieceType& p) { return p = PieceType(int(p) + 1); }

// The rank as seen from c's side: White's 3rd rank is Black's 6th.
[[nodiscard]] constexpr Rank relative_rank(Color c, Rank r) { return Rank(r ^ (c * 7)); }
[[nodiscard]] constexpr Rank relative_rank(Color c, Square s) {
    return relative_rank(c, rank_of(s));
}
[[nodiscard]] constexpr int pawn_push(Color c) { return c == WHITE ? NORTH : SOUTH; }

// "e4": the square's name in every notation the engine writes but USI's.
[[nodiscard]] inline std::string square_name(Square s) {
    return std::string{char('a' + file_of(s)), char('1' + rank_of(s))};
}

// A move is 16 bits: from (6), to (6), and a kind (4). Every kind keeps from and to, so
// a move prints as a plain from-to string plus, for a promotion, the piece letter.
enum MoveKind : int {
    NORMAL,
    PROMOTION,  // pawn becomes the promotion piece (met, or per variant)
    PROMO_ROOK, // asean: other promotion choices
    PROMO_KNIGHT,
    PROMO_KHON,
    SUT_MOVE, // sutras: the pawn ahead advances and the piece follows
    DROP,     // the drop games: a piece from the hand onto `to`; `from` holds its kind
    // Kinds 7..15 are free: a promotion to a new piece kind takes the next one.
};

class Move {
  public:
    constexpr Move() = default;
    constexpr Move(Square from, Square to, MoveKind k = NORMAL)
        : data(uint16_t(from | (to << 6) | (k << 12))) {
        // Six bits a square: SQ_NONE or worse would be stored as some other square.
        assert(is_ok(from) && is_ok(to));
    }
    // A drop keeps the piece's kind where a board move keeps its square: the kinds are
    // 1..7, which no real from-square of a drop could be confused with (kind DROP).
    [[nodiscard]] static constexpr Move drop(PieceType pt, Square to) {
        assert(pt >= PAWN && pt <= KING);
        return Move(Square(pt), to, DROP);
    }
    [[nodiscard]] static constexpr Move none() { return Move(); }
    [[nodiscard]] static constexpr Move null() { return Move(uint16_t(65)); }

    [[nodiscard]] constexpr Square from() const { return Square(data & 63); }
    [[nodiscard]] constexpr Square to() const { return Square((data >> 6) & 63); }
    [[nodiscard]] constexpr MoveKind kind() const { return MoveKind(data >> 12); }
    [[nodiscard]] constexpr bool is_promotion() const {
        return kind() >= PROMOTION && kind() <= PROMO_KHON;
    }
    [[nodiscard]] constexpr bool is_drop() const { return kind() == DROP; }
    [[nodiscard]] constexpr PieceType drop_type() const {
        assert(is_drop());
        return PieceType(data & 63);
    }
    [[nodiscard]] constexpr uint16_t raw() const { return data; }
    constexpr explicit operator bool() const { return data != 0 && data != 65; }
    [[nodiscard]] constexpr bool operator==(Move m) const { return data == m.data; }
    [[nodiscard]] constexpr bool operator!=(Move m) const { return data != m.data; }
    [[nodiscard]] static constexpr Move from_raw(uint16_t d) { return Move(d); }

  private:
    constexpr explicit Move(uint16_t d) : data(d) {}
    uint16_t data = 0;
};

using Key = uint64_t;

// Scores in centipawn-like units; mate scores count plies from the root.
using Value = int;
constexpr Value VALUE_ZERO = 0;
constexpr Value VALUE_DRAW = 0;
constexpr Value VALUE_MATE = 32000;
constexpr Value VALUE_INFINITE = 32001;
constexpr Value VALUE_NONE = 32002;
constexpr int MAX_PLY = 246;
constexpr Value VALUE_MATE_IN_MAX_PLY = VALUE_MATE - MAX_PLY;
constexpr Value VALUE_MATED_IN_MAX_PLY = -VALUE_MATE_IN_MAX_PLY;

[[nodiscard]] constexpr Value mate_in(int ply) { return VALUE_MATE - ply; }
[[nodiscard]] constexpr Value mated_in(int ply) { return -VALUE_MATE + ply; }

} // namespace khun
