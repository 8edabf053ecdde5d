// The tuning pipeline (see TUNING.md): self-play data generation and a Texel-style fit
// of the evaluation weights to game results.
#pragma once

#include <string>
#include <vector>

namespace khun {

// `khun datagen [games N] [nodes N] [threads N] [seed N] [out FILE]`: plays self-play
// games at a fixed node count from the start position plus a few random plies and
// writes one "FEN ; result ; score" line per quiet position: the game's result (1, 0.5
// or 0) and the search score in centipawns, both from White's side.
int datagen_main(const std::vector<std::string>& args);

// `khun tune FILE [epochs N] [out FILE] [rate R] [lambda L] [reg R]`: fits the weights of
// eval_params.h to FILE and writes a new src/eval_weights.cpp. The target blends the game
// result (weight lambda) with the recorded search score; reg pulls weights towards their
// current values, and weights of rarely seen features stay as they are.
int tune_main(const std::vector<std::string>& args);

} // namespace khun
