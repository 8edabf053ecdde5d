// Standard algebraic notation for the games of the Makruk family, as Fairy-Stockfish
// (pychess.org) and Cute Chess write it: the piece's FEN letter (none for a pawn), the
// origin's file, rank or square where another piece of the kind could go to the same
// square, 'x' for a capture, '=' and the piece for a promotion, '+' or '#'.
#pragma once

#include "khun/rules/position.h"

#include <string>

namespace khun::tools {

// The SAN of the legal move `m` in `pos`. The position is used to play the move for the
// check suffix and is restored before returning.
std::string to_san(Position& pos, Move m);

// The legal move that `text` names in `pos`, or Move::none() with `error` (when given)
// set to why. Reading is tolerant: the check, mate and annotation suffixes (+ # ! ?) and
// the capture sign are optional, '=' before a promotion piece is optional, a promotion
// without a piece is the game's default one, '-' and ':' are ignored, chess letters are
// accepted for the met (Q) and khon (B) in the Thai-lettered games and the other way round
// in asean, and UCI text ("e3e4") is accepted too.
Move parse_san(const Position& pos, const std::string& text, std::string* error = nullptr);

} // namespace khun::tools
