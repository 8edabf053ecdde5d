// `bench`: a fixed-depth search over fixed positions. With one thread its node count is
// the build's signature: any change to the search or evaluation shows in it.
#pragma once

#include "khun/protocol/engine.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace khun::protocol {

[[nodiscard]] const std::vector<std::string>& bench_positions();

// What `bench` searches with when not told (UCI's `bench`, `khun bench` and its help).
struct BenchDefaults {
    static constexpr int HashMb = 16, Threads = 1, Depth = 13;
};

// Runs the bench and prints the progress lines and totals to `out`; returns nodes.
uint64_t run_bench(Engine& engine, std::ostream& out, int hashMb, int threads, int depth);

} // namespace khun::protocol
