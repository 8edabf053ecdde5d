// The bench positions: each one a legal position that the bench really searches. A FEN
// the engine refuses was skipped without a word and counted nothing (position 30 did).
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
