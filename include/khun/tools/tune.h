// The tuning pipeline (see docs/tuning.md): self-play data generation and a Texel-style fit
// of the evaluation weights to game results.
#pragma once

#include <string>
#include <vector>

namespace khun::tools {

// `khun datagen [--games N] [--nodes N] [--threads N] [--random N] [--openings FILE]
// [--variant V] [--net default|none|FILE] [--seed N] [--out FILE]`: plays self-play games
// at a fixed node count from the start position or the openings file's positions plus a
// few random plies (8 from the start, 2 after an opening, or N), on every core unless
// told, and appends one 32-byte record (packed.h) per quiet position to FILE: the search
// score and the game's result. `--net` picks the evaluation the games are played with
// (default: the engine's). `args` are the words after "datagen"; returns the exit code
// (2 for bad arguments).
int datagen_main(const std::vector<std::string>& args);

// `khun unpack FILE...`: the records as text, one "FEN ; result ; score" line each (White's
// view), for the fitting scripts in tools/ and for reading by eye.
int unpack_main(const std::vector<std::string>& args);

// `khun tune FILE [--epochs N] [--out FILE] [--rate R] [--lambda L] [--reg R]`: fits the
// weights of eval_params.h to FILE's makruk records and writes a new src/eval/eval_weights.cpp.
// The target blends the game result (weight lambda) with the recorded search score; reg
// pulls weights towards their current values, and weights of rarely seen features stay as
// they are.
int tune_main(const std::vector<std::string>& args);

} // namespace khun::tools
