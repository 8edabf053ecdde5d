#include "khun/timeman.h"

#include <algorithm>

namespace khun {

void TimeManager::init(TimePoint startTime, TimePoint time, TimePoint inc, int movestogo,
                       TimePoint movetime, int overhead) {
    start = startTime;
    if (movetime > 0) {
        optimum = maximum = std::max<TimePoint>(1, movetime - overhead);
        return;
    }
    // Never plan to use what the GUI and the pipes need to deliver the move.
    const TimePoint usable = std::max<TimePoint>(1, time - overhead);
    const int mtg = movestogo > 0 ? std::min(movestogo, 40) : 32;
    optimum = usable / mtg + inc * 7 / 10;
    maximum = std::min<TimePoint>(optimum * 5, usable * (movestogo == 1 ? 7 : 5) / 10);
    // Short of time the increment is all there is: spend under a third of it, so that the
    // clock builds back a reserve for a machine that answers late. (Spending 60% of it,
    // a 1+0.01 game on a loaded two-core machine ran the clock down to ~30 ms, and one
    // late answer lost on time.)
    if (usable < 300 || (inc > 0 && usable < 20 * inc)) {
        optimum = std::min(optimum, usable / 50 + inc * 3 / 10);
        maximum = std::min(maximum, optimum * 2);
    }
    optimum = std::max<TimePoint>(1, std::min(optimum, usable / 4));
    maximum = std::max<TimePoint>(1, std::max(optimum, std::min(maximum, usable / 2)));
}

} // namespace khun
