// The persistent thread pool the search runs on, and the transposition table it clears in
// parallel.
#include "khun/search/thread.h"
#include "khun/search/tt.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

using namespace khun;
using namespace khun::search;

TEST_CASE("A job thread runs its jobs in order, each once", "[thread]") {
    JobThread t;
    std::vector<int> seen; // only the job thread writes, wait() publishes
    for (int i = 0; i < 100; ++i) t.run([&seen, i] { seen.push_back(i); });
    t.wait();
    REQUIRE(seen.size() == 100);
    for (int i = 0; i < 100; ++i) CHECK(seen[size_t(i)] == i);
}

TEST_CASE("The pool keeps its threads between jobs", "[thread]") {
    ThreadPool pool(3);
    std::vector<std::thread::id> first(3), second(3);
    pool.for_each([&first](size_t i) { first[i] = std::this_thread::get_id(); });
    pool.for_each([&second](size_t i) { second[i] = std::this_thread::get_id(); });
    CHECK(first == second);
    CHECK(std::set<std::thread::id>(first.begin(), first.end()).size() == 3);
    CHECK(std::find(first.begin(), first.end(), std::this_thread::get_id()) == first.end());
}

TEST_CASE("The pool grows and shrinks", "[thread]") {
    ThreadPool pool;
    CHECK(pool.size() == 0);
    for (size_t n : {4u, 1u, 2u, 0u, 3u}) {
        pool.resize(n);
        REQUIRE(pool.size() == n);
        std::atomic<int> ran{0};
        pool.for_each([&ran](size_t) { ran.fetch_add(1); });
        CHECK(ran == int(n));
    }
}

TEST_CASE("A job may outlast run(): wait() waits for it", "[thread]") {
    ThreadPool pool(2);
    std::atomic<bool> done{false};
    pool.run(1, [&done] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        done = true;
    });
    pool.wait(1);
    CHECK(done);
}

TEST_CASE("The hash table forgets everything on clear and resize", "[thread][tt]") {
    TranspositionTable tt;
    for (size_t mb : {1u, 200u, 3u}) { // 200 MiB: cleared on several threads
        REQUIRE(tt.resize(mb));
        CHECK(tt.size_mb() == mb);
        CHECK(tt.hashfull() == 0);
        const Key key = 0x9E3779B97F4A7C15ULL * (mb + 1);
        tt.store(key, 42, BOUND_EXACT, 7, Move::none(), 11);
        TTData d{};
        REQUIRE(tt.probe(key, d));
        CHECK(d.value == 42);
        CHECK(d.eval == 11);
        CHECK(d.depth == 7);
        CHECK(d.bound == BOUND_EXACT);
        tt.clear();
        CHECK_FALSE(tt.probe(key, d));
    }
}
