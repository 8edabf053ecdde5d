// The bench positions: each one a legal position that the bench really searches. A FEN
// the engine refuses was skipped without a word and counted nothing (position 30 did).
#include "khun/eval/tb.h"
#include "khun/protocol/bench.h"
#include "khun/protocol/engine.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"

#include <catch2/catch.hpp>

using namespace khun;
using namespace khun::protocol;

TEST_CASE("bench: every position is a legal makruk position and is searched", "[bench]") {
    Engine e;
    const auto& fens = bench_positions();
    REQUIRE(fens.size() >= 30);
    for (size_t i = 0; i < fens.size(); ++i) {
        INFO("bench position " << i + 1 << ": " << fens[i]);
        Position pos;
        StateInfo si;
        CHECK_FALSE(pos.set(fens[i], *find_variant("makruk"), &si));
        CHECK(e.search_nodes(fens[i], 2, {}) > 0);
    }
}

// Bench, datagen and analyse load the tables a position needs before searching it, so
// that their node counts do not change with the machine's load. A loader started by the
// previous `go` may still be at work then: the next position's tables must be loaded all
// the same. Here the earlier loader (a search under a clock loads in the background) builds
// KRRK (from an empty, memory-only cache, so it takes a while) while the next search needs
// KRSK, which takes as long.
TEST_CASE("bench: a table loader still running does not keep the next position's tables out",
          "[bench][tb]") {
    const std::string savedCache = eval::tb::cache_dir();
    eval::tb::set_cache_dir("");
    eval::tb::unload_all();
    const std::string krsk = "8/8/8/4k3/8/8/4S3/R3K3 w - - 0 1";
    uint64_t racing = 0, settled = 0;
    {
        Engine e;
        REQUIRE_FALSE(e.set_position("8/8/8/4k3/8/8/8/R1R1K3 w - - 0 1", {}));
        search::Limits limits;
        limits.movetime = 20;
        e.go(limits, {}); // starts loading KRRK in the background
        e.wait();
        e.new_game();
        racing = e.search_nodes(krsk, 8, {});
        e.new_game();
        settled = e.search_nodes(krsk, 8, {}); // every table it meets is in memory now
    }
    eval::tb::unload_all(); // the engine (and its loader) is gone: nothing probes
    eval::tb::set_cache_dir(savedCache);
    CHECK(racing > 0);
    CHECK(racing == settled);
}
