// The time manager's plan over a whole bullet game: the clock a GUI would show after each
// move when the engine spends its planned time plus the delay of a busy machine.
#include "khun/search/timeman.h"

#include <catch2/catch.hpp>

#include <algorithm>

using khun::search::TimeManager;
using khun::search::TimePoint;

namespace {

struct Run {
    TimePoint lowest = 1 << 30; // lowest clock after move `from`
    TimePoint last = 0;
};

// `moves` moves at base+inc, each taking the planned optimum (or the hard maximum every
// `hardEvery` moves) plus `latency` ms that the engine does not see.
Run play(TimePoint base, TimePoint inc, int moves, TimePoint latency, int from, int hardEvery = 0,
         int overhead = 10) {
    Run r;
    TimePoint clock = base;
    for (int n = 0; n < moves; ++n) {
        TimeManager tm;
        tm.init(0, clock, inc, 0, 0, overhead, 2 * n);
        REQUIRE(tm.optimum >= 1);
        REQUIRE(tm.maximum >= tm.optimum);
        REQUIRE(tm.maximum < std::max<TimePoint>(clock, 2));
        const bool hard = hardEvery && n % hardEvery == hardEvery - 1;
        clock += inc - (hard ? tm.maximum : tm.optimum) - latency;
        if (n >= from) r.lowest = std::min(r.lowest, clock);
    }
    r.last = clock;
    return r;
}

} // namespace

TEST_CASE("timeman: at 1+0.01 the clock keeps a reserve through a long game", "[timeman]") {
    // 200 moves each: a 400-ply game. A loaded machine answers 5 ms late every move.
    for (TimePoint latency : {1, 3, 5}) {
        INFO("latency " << latency << " ms");
        const Run r = play(1000, 10, 200, latency, 60);
        CHECK(r.lowest >= 150);
        // Now and then a move runs to the hard limit: still a reserve.
        const Run h = play(1000, 10, 200, latency, 60, 7);
        CHECK(h.lowest >= 100);
    }
}

TEST_CASE("timeman: sudden death and a movetime never plan past the clock", "[timeman]") {
    const Run r = play(1000, 0, 120, 1, 0);
    CHECK(r.last > 0);
    TimeManager tm;
    tm.init(0, 1000, 0, 0, 300, 10, 0);
    CHECK(tm.optimum == 290);
    CHECK(tm.maximum == 290);
    // A clock below the overhead still gets a move, as fast as possible.
    tm.init(0, 5, 0, 0, 0, 10, 0);
    CHECK(tm.optimum == 1);
    CHECK(tm.maximum == 1);
}

TEST_CASE("timeman: at 10+0.1 the opening and middlegame get the time, the ending the increment",
          "[timeman]") {
    // A 300-ply game, each move taking the planned optimum plus 5 ms the engine does not see.
    TimePoint clock = 10000, early = 0, late = 0, lowest = clock;
    for (int n = 0; n < 150; ++n) {
        TimeManager tm;
        tm.init(0, clock, 100, 0, 0, 10, 2 * n);
        REQUIRE(tm.maximum >= tm.optimum);
        REQUIRE(tm.maximum < clock);
        if (n < 20) early += tm.optimum;
        if (n >= 50) late += tm.optimum;
        clock += 100 - tm.optimum - 5;
        lowest = std::min(lowest, clock);
    }
    // Most of the base time goes into the first 20 moves (Makruk games are decided there),
    // then the engine lives on the increment without running the clock down.
    CHECK(early >= 5000);
    CHECK(early / 20 >= 3 * (late / 100));
    CHECK(late / 100 >= 60);
    CHECK(lowest >= 300);
}
