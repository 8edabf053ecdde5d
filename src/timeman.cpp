#include "khun/timeman.h"

#include <algorithm>
#include <cmath>

namespace khun {

void TimeManager::init(TimePoint startTime, TimePoint time, TimePoint inc, int movestogo,
                       TimePoint movetime, int overhead, int ply) {
    start = startTime;
    if (movetime > 0) {
        optimum = maximum = std::max<TimePoint>(1, movetime - overhead);
        return;
    }
    // Never plan to use what the GUI and the pipes need to deliver the move.
    const TimePoint usable = std::max<TimePoint>(1, time - overhead);
    if (movestogo > 0) {
        const int mtg = std::min(movestogo, 40);
        optimum = usable / mtg + inc * 7 / 10;
        maximum = std::min<TimePoint>(optimum * 5, usable * (movestogo == 1 ? 7 : 5) / 10);
    } else {
        // Sudden death, as Stockfish plans it: a share of the time left over a 50-move
        // horizon (increments included) that grows with the game ply, so the opening and
        // middlegame, where Makruk games are decided, get more than the long endings.
        constexpr int mtg = 50;
        const double timeLeft =
            std::max<double>(1, double(time) + double(inc) * (mtg - 1) - overhead * (2.0 + mtg));
        const double optScale =
            std::min(0.0084 + std::sqrt(ply + 3.0) * 0.0042, 0.2 * double(time) / timeLeft);
        const double maxScale = std::min(7.0, 4.0 + ply / 12.0);
        optimum = TimePoint(optScale * timeLeft);
        maximum = TimePoint(maxScale * double(optimum));
    }
    // Short of time the increment is all there is: spend under a third of it, so that the
    // clock builds back a reserve for a machine that answers late. (Spending 60% of it,
    // a 1+0.01 game on a loaded two-core machine ran the clock down to ~30 ms, and one
    // late answer lost on time.)
    if (usable < 300 || (inc > 0 && usable < 5 * inc)) {
        optimum = std::min(optimum, usable / 50 + inc * 3 / 10);
        maximum = std::min(maximum, optimum * 2);
    }
    optimum = std::max<TimePoint>(1, std::min(optimum, usable / 4));
    maximum = std::max<TimePoint>(1, std::max(optimum, std::min(maximum, usable / 2)));
}

} // namespace khun
