// The alpha-beta search: iterative deepening with aspiration windows, principal
// variation search, quiescence, and the pruning that makes it deep. It never prints;
// it reports through a Listener that the protocol dialect formats.
//
// Three parts, as Seer splits them: a Worker (src/search.cpp) searches one copy of the
// root; the Searcher orchestrates them on a persistent ThreadPool (thread.h), shares the
// TT, limits and stop flag, and picks the move; the TimeManager (timeman.h) says when to
// stop. The constants they use are in search_params.h.
#pragma once

#include "khun/eval/nnue.h"
#include "khun/eval/tb.h"
#include "khun/rules/position.h"
#include "khun/search/movepick.h"
#include "khun/search/thread.h"
#include "khun/search/timeman.h"
#include "khun/search/tt.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace khun::search {

struct Limits {
    TimePoint time[COLOR_NB] = {0, 0};
    TimePoint inc[COLOR_NB] = {0, 0};
    TimePoint movetime = 0;
    int movestogo = 0;
    int depth = 0;
    int mate = 0;
    uint64_t nodes = 0;
    bool infinite = false;
    bool ponder = false;
    std::vector<Move> searchmoves;
    TimePoint start = 0;

    [[nodiscard]] bool use_time(Color us) const { return time[us] > 0 || inc[us] > 0; }
};

struct Info {
    int depth = 0;
    int seldepth = 0;
    int multipv = 1;
    Value score = 0;
    Bound bound = BOUND_EXACT; // BOUND_LOWER/UPPER while an aspiration search failed
    uint64_t nodes = 0;
    uint64_t nps = 0;
    uint64_t tbhits = 0;
    int hashfull = 0;
    TimePoint time = 0;
    std::vector<Move> pv;
};

struct Listener {
    std::function<void(const Info&)> info;
    std::function<void(Move best, Move ponder)> bestmove;
    // `info currmove` style progress: depth, move, its number.
    std::function<void(int, Move, int)> currmove;
};

struct Options {
    int threads = 1;
    int multiPV = 1;
    int moveOverhead = 10;
    // Play levels (skill.h): Skill Level 20 (or UCI_LimitStrength off at level 20) is
    // full strength and changes nothing.
    int skillLevel = 20;
    bool limitStrength = false;
    int elo = 1350;
    uint64_t skillSeed = 0; // 0: seeded from the clock, so that play varies
    // Contempt: what a draw costs the side to move at the root, in centipawns (the other
    // side gains it). Not applied in analysis (`analyseMode` or `go infinite`), whose
    // scores must say what a position is worth to both sides alike.
    int contempt = 0;
    bool analyseMode = false;
    // The net to evaluate with (games it was trained for); none: the hand-written one.
    std::shared_ptr<const nnue::Network> network;
    // The bare-king tables the search may probe (those in memory answer): all of them
    // under a clock; for a search no clock stops, the ones its root may lead to
    // (Engine::go), so that it does not depend on the tables earlier games loaded.
    eval::tb::TableSet tables = eval::tb::AllTables;
};

struct RootMove {
    explicit RootMove(Move m) : pv{m} {}
    [[nodiscard]] bool operator<(const RootMove& o) const {
        return score != o.score ? score > o.score : prevScore > o.prevScore;
    }
    Value score = -VALUE_INFINITE; // -VALUE_INFINITE: not searched (fully) this iteration
    Value prevScore = -VALUE_INFINITE;
    int selDepth = 0;
    std::vector<Move> pv;
};

class Worker;
class Skill;

// The orchestrator: owns the search threads (kept between searches) and what they share:
// the TT, the stop flag, the limits.
class Searcher {
  public:
    explicit Searcher(TranspositionTable& tt);
    ~Searcher();

    // Starts searching `pos` (whose state chain must outlive the search) in the
    // background. `listener` receives info lines and exactly one bestmove.
    void start(const Position& pos, const Limits& limits, const Options& opts, Listener listener);
    void stop();
    void ponderhit();
    void wait(); // until bestmove has been reported
    [[nodiscard]] bool searching() const { return running; }
    void clear(); // forget history (ucinewgame)
    [[nodiscard]] uint64_t nodes() const;
    [[nodiscard]] uint64_t tb_hits() const;

    // Used by workers.
    std::atomic<bool> stopFlag{false};
    std::atomic<bool> pondering{false};
    TranspositionTable& tt;
    Limits limits;
    Options options;
    Listener listener;
    TimeManager tm;
    std::vector<std::unique_ptr<Worker>> workers;
    // This search's level (disabled at full strength) and how many root moves it searches
    // fully: the user's MultiPV, or more behind the scenes for a weaker level.
    std::unique_ptr<Skill> skill;
    int searchMultiPV = 1;

  private:
    // The job of thread 0: runs the main worker and the helpers, then reports the move.
    void run_main();
    // UCI: in ponder or infinite mode the move waits until the GUI asks for it (stop, or
    // ponderhit of a search that has finished).
    void wait_until_released();

    std::mutex releaseMutex;
    std::condition_variable released; // stop() or ponderhit()
    std::atomic<bool> running{false};
    ThreadPool pool; // thread i runs workers[i]; last, so its threads end first
};

} // namespace khun::search
