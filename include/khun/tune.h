// The tuning pipeline (see TUNING.md): self-play data generation and a Texel-style fit
// of the evaluation weights to game results.
#pragma once

#include <string>
#include <vector>

namespace khun {

// `khun datagen [games N] [nodes N] [threads N] [seed N] [out FILE]`: plays self-play
// games at a fixed node count from the start position plus a few random plies and
// writes one "FEN ; result" line (1, 0.5 or 0, from White's side) per quiet position.
int datagen_main(const std::vector<std::string>& args);

// `khun tune FILE [epochs N] [out FILE]`: fits the weights of eval_params.h to the
// results in FILE and writes a new src/eval_weights.cpp.
int tune_main(const std::vector<std::string>& args);

} // namespace khun
