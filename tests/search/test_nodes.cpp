// A search to a node limit is a function of its position, its tables and the limit, not of
// the searches the engine ran before: after ucinewgame, the same `go nodes` in the same
// position searches the same nodes and gives the same move. tools/book.py relies on it: its
// jobs hand candidates to engines in an order that timing decides.
#include "khun/eval/tb.h"
#include "khun/protocol/engine.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace {

using khun::protocol::Engine;

const std::string X = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";
const std::string Y = "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26";

Engine::Thought think(Engine& e, const std::string& fen, uint64_t nodes) {
    e.new_game();
    REQUIRE(!e.set_position(fen, {}));
    khun::search::Limits l;
    l.nodes = nodes;
    return e.think(l);
}

} // namespace

TEST_CASE("nodes: a node-limited search does not depend on the searches before it",
          "[engine][nodes]") {
    Engine fresh;
    const Engine::Thought first = think(fresh, X, 20000);
    REQUIRE(first.best != khun::Move::none());
    // The limit is checked every limit/1024+1 nodes, so the search stops a little past it.
    CHECK(first.nodes >= 20000);
    CHECK(first.nodes < 20000 + 100);
    // Earlier searches of other lengths leave the engine at other points of that interval.
    for (uint64_t before : {5003u, 7777u, 12345u, 30001u}) {
        INFO("after a search of " << before << " nodes");
        Engine e;
        think(e, Y, before);
        const Engine::Thought again = think(e, X, 20000);
        CHECK(again.nodes == first.nodes);
        CHECK(again.best == first.best);
        CHECK(again.score == first.score);
    }
}

// Nor on the bare-king tables earlier searches left in memory: the search probes only the
// ones its root may lead to, loaded before it starts. Here White takes Black's last three
// men within the search's reach and comes to K+R+S against a bare king, a table the root
// does not call for (Black has too many men): in memory or not, the search is the same.
TEST_CASE("nodes: a search no clock stops does not depend on the tables in memory",
          "[engine][nodes][tb]") {
    const std::string fen = "k7/8/8/8/p1p1p3/8/8/R2SK3 w - - 0 1";
    khun::eval::tb::unload_all();
    Engine without;
    const uint64_t before = without.search_nodes(fen, 9, {});
    REQUIRE(khun::eval::tb::load("KRSK"));
    Engine with;
    const uint64_t after = with.search_nodes(fen, 9, {});
    khun::eval::tb::unload_all();
    CHECK(before > 0);
    CHECK(before == after);
}
