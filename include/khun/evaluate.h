// Static evaluation: how good a position is for the side to move, in centipawns.
#pragma once

#include "khun/position.h"

#include <string>

namespace khun {

namespace eval {

// Middlegame and endgame piece values, indexed by PieceType.
extern const int PieceValueMg[PIECE_TYPE_NB];
extern const int PieceValueEg[PIECE_TYPE_NB];

// The value SEE and move ordering use for a piece kind.
inline int see_value(PieceType pt) { return PieceValueMg[pt]; }

// From the side to move's point of view.
Value evaluate(const Position& pos);

// A readable breakdown for the `eval` command.
std::string trace(const Position& pos);

// True when neither side can ever mate with what is on the board (no pawns left and
// no side with mating material), so the search may call the position a draw.
bool dead_draw(const Position& pos);

} // namespace eval

} // namespace khun
