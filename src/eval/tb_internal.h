// What the table generator (tb_gen.cpp) and the probing and caching code (tb.cpp) share:
// the materials, the table layout and the lone king's moves. Not a public header.
#pragma once

#include "khun/eval/tb.h"

#include <cstdint>
#include <string>
#include <vector>

namespace khun::eval::tb::detail {

// One table: White has its king and n (1 or 2) pieces, Black a bare king.
struct Material {
    int id = 0;
    int n = 1;
    PieceType type[2] = {NO_PIECE_TYPE, NO_PIECE_TYPE}; // in naming order (S, N, M, R)
    bool same = false;                                  // two pieces of one kind
    std::string name;
    size_t size = 0;       // entries, one byte each
    int sub[2] = {-1, -1}; // the table left when piece i is taken (-1: bare kings)
};

// The 14 tables: KSK KNK KMK KRK, then the pairs in naming order.
const std::vector<Material>& all_materials();
// The table of a king and these pieces (b = NO_PIECE_TYPE for one), or -1.
int material_id(PieceType a, PieceType b);
// Position of a kind in the naming order S, N, M, R; -1 for others.
int kind_rank(PieceType pt);

// Layout: White's king folded onto files a-d (a file mirror is a symmetry of every
// piece, the khon included; a rank mirror is not), then the bare king, then the pieces;
// two like pieces as an unordered pair. One byte: White to move mates in that many
// moves, 0 for a draw or an illegal placement.
size_t index(const Material& m, Square wk, Square bk, Square a, Square b);
void decode(const Material& m, size_t idx, Square& wk, Square& bk, Square& a, Square& b);

// White's pieces attack, and where they come from when a move is taken back: the khon
// steps forward, so it comes from behind.
inline Bitboard attacks_of(PieceType pt, Square s, Bitboard occ) {
    switch (pt) {
    case KHON: return attacks::khon(WHITE, s);
    case KNIGHT: return attacks::knight(s);
    case MET: return attacks::met(s);
    default: return attacks::rook(s, occ);
    }
}
inline Bitboard origins_of(PieceType pt, Square s, Bitboard occ) {
    return pt == KHON ? attacks::khon(BLACK, s) : attacks_of(pt, s, occ);
}

// The lone king's legal moves, Black to move: steps to empty squares, and which of
// White's pieces it may take.
struct BareMoves {
    Bitboard quiet = 0;
    bool capture[2] = {false, false};
    bool inCheck = false;
};
BareMoves bare_moves(const Material& m, Square wk, Square bk, const Square* p);

// Whether White attacks the lone king (a placement illegal with White to move).
bool bare_king_attacked(const Material& m, Square wk, Square bk, const Square* p);

// The table of `m`, White to move, given the tables left after a capture of piece 0 and
// piece 1 (nullptr: the capture leaves bare kings).
std::vector<uint8_t> generate_table(const Material& m, const uint8_t* sub0, const uint8_t* sub1);

// Legal positions, won share and longest mate of a finished table (seconds left 0).
GenStats table_stats(const Material& m, const std::vector<uint8_t>& dtm);

} // namespace khun::eval::tb::detail
