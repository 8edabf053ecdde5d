// Perft: the number of legal move sequences of a given length, the rules layer's test.
#pragma once

#include "khun/rules/position.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace khun {

// Leaf nodes at `depth` from pos. Bulk-counts the last ply (no make/unmake there).
uint64_t perft(Position& pos, int depth);

// Per root move counts, in generation order, as `go perft` prints them.
std::vector<std::pair<std::string, uint64_t>> perft_divide(Position& pos, int depth);

// The Stockfish-style report: "move: count" lines, a blank line, "Nodes searched: N".
std::string perft_report(Position& pos, int depth);

} // namespace khun
