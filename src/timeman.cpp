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
    optimum = usable / mtg + inc * 3 / 4;
    maximum = std::min<TimePoint>(optimum * 5, usable * (movestogo == 1 ? 8 : 6) / 10);
    // With little time left the increment is all there is: stay well inside it.
    optimum = std::max<TimePoint>(1, std::min(optimum, usable / 4 + inc / 2));
    maximum = std::max<TimePoint>(optimum, std::min(maximum, usable * 3 / 4));
    maximum = std::max<TimePoint>(1, maximum);
}

} // namespace khun
