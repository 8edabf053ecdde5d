#include "khun/search/timeman.h"

#include "khun/search/search_params.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace khun::search {

void TimeManager::init(TimePoint startTime, TimePoint time, TimePoint inc, int movestogo,
                       TimePoint movetime, int overhead, int ply) {
    using namespace search::params;
    start = startTime;
    lastBest = Move::none();
    stableIterations = 0;
    lastScore = -VALUE_INFINITE;
    if (movetime > 0) {
        optimum = maximum = std::max<TimePoint>(1, movetime - overhead);
        return;
    }
    assert(ply >= 0 && overhead >= 0); // sqrt(ply + 3) and the margins below need them
    // Never plan to use what the GUI and the pipes need to deliver the move.
    const TimePoint usable = std::max<TimePoint>(1, time - overhead);
    if (movestogo > 0) {
        const int mtg = std::min(movestogo, MovesToGoCap);
        optimum = usable / mtg + inc * MovesToGoIncTenths / 10;
        maximum =
            std::min<TimePoint>(optimum * MaxOverOptimum, usable * (movestogo == 1 ? 7 : 5) / 10);
    } else {
        // Sudden death, as Stockfish plans it: a share of the time left over a 50-move
        // horizon (increments included) that grows with the game ply, so the opening and
        // middlegame, where Makruk games are decided, get more than the long endings.
        constexpr int mtg = SuddenDeathHorizon;
        const double timeLeft =
            std::max<double>(1, double(time) + double(inc) * (mtg - 1) - overhead * (2.0 + mtg));
        const double optScale = std::min(OptScaleBase + std::sqrt(ply + 3.0) * OptScalePerPly,
                                         OptScaleMax * double(time) / timeLeft);
        const double maxScale = std::min(MaxScaleMax, MaxScaleBase + ply / MaxScalePlyDivisor);
        optimum = TimePoint(optScale * timeLeft);
        maximum = TimePoint(maxScale * double(optimum));
    }
    // Short of time the increment is all there is: spend under a third of it, so that the
    // clock builds back a reserve for a machine that answers late. (Spending 60% of it,
    // a 1+0.01 game on a loaded two-core machine ran the clock down to ~30 ms, and one
    // late answer lost on time.)
    if (usable < LowTimeMs || (inc > 0 && usable < LowTimeIncrements * inc)) {
        optimum = std::min(optimum, usable / LowTimeClockDivisor + inc * LowTimeIncTenths / 10);
        maximum = std::min(maximum, optimum * 2);
    }
    optimum = std::max<TimePoint>(1, std::min(optimum, usable / 4));
    maximum = std::max<TimePoint>(1, std::max(optimum, std::min(maximum, usable / 2)));
    // check_time() stops at the hard limit, iteration_done() from the soft one on.
    assert(1 <= optimum && optimum <= maximum);
}

bool TimeManager::iteration_done(Move best, Value score) {
    using namespace search::params;
    stableIterations = best == lastBest ? stableIterations + 1 : 0;
    lastBest = best;
    double factor = stableIterations >= StableIterationsLong    ? StableFactorLong
                    : stableIterations >= StableIterationsShort ? StableFactorShort
                                                                : UnstableFactor;
    if (lastScore != -VALUE_INFINITE && score < lastScore - ScoreDropMargin)
        factor *= ScoreDropFactor;
    lastScore = score;
    return elapsed() > optimum * factor;
}

} // namespace khun::search
