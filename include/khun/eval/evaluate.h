// Static evaluation: how good a position is for the side to move, in centipawns.
#pragma once

#include "khun/eval/nnue.h"
#include "khun/rules/position.h"

#include <cstdint>
#include <string>

namespace khun::eval {

// Plies of a running count below which a score fades toward the draw the count will end
// in: the evaluation's fade, and the WDL model's (wdl.cpp), read it here.
constexpr int CountingHorizon = 40;

// Where no count runs, a score fades with the plies since the last capture or pawn move
// (a drop counts as either): from ProgressFadeStart plies on it loses 1/ProgressFadeSpan
// of itself a ply, ProgressFadeMax of them at most (half the score, so that a side ahead
// still prefers its position to a trade that resets the clock at a loss). The
// evaluation's fade; the tuner's trace leaves it out, as it leaves out the count.
constexpr int ProgressFadeStart = 16;
constexpr int ProgressFadeSpan = 256;
constexpr int ProgressFadeMax = 128;

// The hand-written evaluation, from the side to move's point of view.
Value evaluate(const Position& pos);
// The network's evaluation where `net` is given and the game is one it was trained for
// (Variant::net), with the counting and drawish-material corrections on top (scale()'s
// `byNet` share); the hand-written one otherwise and in endings against a bare king.
Value evaluate(const Position& pos, const nnue::Network* net);

// A readable summary for the `eval` command (the net's score too when `net` is given,
// and the net's name, `netName`, when one is given: which file made the score).
std::string trace(const Position& pos, const nnue::Network* net = nullptr,
                  const std::string& netName = "");

// True when neither side can ever mate with what is on the board (no pawns left and
// no side with mating material), so the search may call the position a draw.
bool dead_draw(const Position& pos);

// For the tuner: the game phase (0..PhaseMax), the share (of 64) of an advantage that
// survives for `strong`, and the feature counts (White minus Black) of every parameter
// in eval_params.h added into coef[PARAM_NB].
int phase(const Position& pos);
// `byNet`: for the net's score, which has learnt the material's drawishness itself.
int scale(const Position& pos, Color strong, bool byNet = false);
void trace_terms(const Position& pos, int16_t* coef);

} // namespace khun::eval
