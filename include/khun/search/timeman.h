// How long to think: a soft limit (don't start another iteration past it) and a hard
// limit (stop at once), from the clock the GUI sends; and, after each iteration, whether
// the soft limit has come, moved by how settled the search looks.
#pragma once

#include "khun/rules/types.h"

#include <chrono>
#include <cstdint>

namespace khun::search {

using TimePoint = int64_t; // milliseconds

[[nodiscard]] inline TimePoint now() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct TimeManager {
    TimePoint start = 0;
    TimePoint optimum = 0; // soft
    TimePoint maximum = 0; // hard

    // time/inc are the side to move's clock in ms; movestogo 0 means sudden death; ply is
    // the game ply (more of the clock goes to each move as the game goes on).
    void init(TimePoint startTime, TimePoint time, TimePoint inc, int movestogo, TimePoint movetime,
              int overhead, int ply);
    [[nodiscard]] TimePoint elapsed() const { return now() - start; }

    // After an iteration of a search on the clock: true when no other should start. A best
    // move that stays the same over iterations ends the search sooner, a falling score
    // later.
    [[nodiscard]] bool iteration_done(Move best, Value score);

  private:
    Move lastBest = Move::none();
    int stableIterations = 0;
    Value lastScore = -VALUE_INFINITE;
};

} // namespace khun::search
