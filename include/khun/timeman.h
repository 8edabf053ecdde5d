// How long to think: a soft limit (don't start another iteration past it) and a hard
// limit (stop at once), from the clock the GUI sends.
#pragma once

#include <chrono>
#include <cstdint>

namespace khun {

using TimePoint = int64_t; // milliseconds

inline TimePoint now() {
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
    TimePoint elapsed() const { return now() - start; }
};

} // namespace khun
