// The alpha-beta search: iterative deepening with aspiration windows, principal
// variation search, quiescence, and the pruning that makes it deep. It never prints;
// it reports through a Listener that the protocol dialect formats.
#pragma once

#include "khun/movepick.h"
#include "khun/position.h"
#include "khun/timeman.h"
#include "khun/tt.h"

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace khun {

namespace search {

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

    bool use_time(Color us) const { return time[us] > 0 || inc[us] > 0; }
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
};

struct RootMove {
    explicit RootMove(Move m) : pv{m} {}
    bool operator<(const RootMove& o) const {
        return score != o.score ? score > o.score : prevScore > o.prevScore;
    }
    Value score = -VALUE_INFINITE;
    Value prevScore = -VALUE_INFINITE;
    Value displayScore = -VALUE_INFINITE;
    Bound bound = BOUND_EXACT;
    int selDepth = 0;
    std::vector<Move> pv;
};

class Worker;

// Owns the threads of one search and what they share: the TT, the stop flag, limits.
class Searcher {
  public:
    explicit Searcher(TranspositionTable& tt);
    ~Searcher();

    // Starts searching `pos` (whose state chain must outlive the search) in the
    // background. `listener` receives info lines and exactly one bestmove.
    void start(const Position& pos, const Limits& limits, const Options& opts, Listener listener);
    void stop() { stopFlag = true; }
    void ponderhit();
    void wait(); // until bestmove has been reported
    bool searching() const { return running; }
    void clear(); // forget history (ucinewgame)
    uint64_t nodes() const;
    uint64_t tb_hits() const;

    // Used by workers.
    std::atomic<bool> stopFlag{false};
    std::atomic<bool> pondering{false};
    TranspositionTable& tt;
    Limits limits;
    Options options;
    Listener listener;
    TimeManager tm;
    std::vector<std::unique_ptr<Worker>> workers;

  private:
    void run_main();
    std::thread* mainThread = nullptr;
    std::atomic<bool> running{false};
};

} // namespace search

} // namespace khun
