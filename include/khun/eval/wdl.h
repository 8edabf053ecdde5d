// Win/draw/loss estimates for a search score, for `UCI_ShowWDL`: a model fitted to the
// results of Khun's own games by score and material (as Stockfish fits its own), plus
// the counting rules, which can turn any advantage into a draw.
#pragma once

#include "khun/rules/position.h"
#include "khun/rules/types.h"

namespace khun::eval::wdl {

// Per mille, from the side to move's point of view; win + draw + loss == 1000.
struct WDL {
    int win, draw, loss;
};

// Plies a running count leaves; NoCount when none runs.
constexpr int NoCount = -1;

// Whose scores the model reads: the hand-written evaluation's and each built-in net's map
// to results differently (docs/wdl.md), each with a fit of its own. Net is makruk's net
// (and any net file's); AseanNet, MakpongNet and SittuyinNet are those games' own nets.
enum class Model { Classical, Net, AseanNet, MakpongNet, SittuyinNet };
constexpr Model Models[] = {Model::Classical, Model::Net, Model::AseanNet, Model::MakpongNet,
                            Model::SittuyinNet};

// Material on the board and in the hands, both sides together, in bia units: bia 1, met 2, khon 3,
// ma 3, ruea 5, ai-wok 8 (kings 0). The makruk start position has 64. The model's a and b are
// polynomials in this count, as Stockfish's are in its own pawn-unit count.
[[nodiscard]] int material(const Position& pos);

// The model: a mate score is decisive; otherwise win = 1 / (1 + exp((a - v) / b)) and
// loss = 1 / (1 + exp((a + v) / b)) with a and b cubic in the (clamped) material; with a
// count running, both are scaled by the plies it leaves over the evaluation's horizon of
// 40, so a count about to run out shows a draw.
[[nodiscard]] WDL from_score(Value v, int material, int countPliesLeft = NoCount,
                             Model m = Model::Classical);

// The same for a position: its material and its count, if one runs.
[[nodiscard]] WDL from_position(const Position& pos, Value v, Model m = Model::Classical);

// The model's parameters at a material count (for tools and tests): the score with a
// 50% chance to win, and the logistic's scale.
struct Params {
    double a, b;
};
[[nodiscard]] Params params(int material, Model m = Model::Classical);

} // namespace khun::eval::wdl
