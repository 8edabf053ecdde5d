// The search's orchestration: the thread pool's workers, stop and ponderhit, the choice of
// the move to play (Lazy SMP, play levels) and the reports the dialects format.
#include "search_internal.h"

#include "khun/eval/evaluate.h"
#include "khun/eval/tb.h"
#include "khun/search/skill.h"

#include <cassert>
#include <chrono>

namespace khun::search {
// A line scored by the tables ends where the tables answered: follow them on to the mate,
// so that the PV shows it.
static void extend_pv_with_tables(const Position& root, std::vector<Move>& pv,
                                  eval::tb::TableSet tables) {
    if (!root.variant().bareKingTables || pv.empty()) return;
    std::vector<StateInfo> states(MAX_PLY + 2);
    Position p;
    p.copy_from(root, &states[0]);
    size_t n = 0;
    for (; n < pv.size() && n < size_t(MAX_PLY); ++n) {
        assert(p.is_legal(pv[n])); // a PV of moves the search made, from this root
        p.do_move(pv[n], states[n + 1]);
    }
    StateInfo child;
    while (n < size_t(MAX_PLY)) {
        auto here = eval::tb::probe(p, false, tables);
        if (!here || here->result == eval::tb::Probe::Draw) break;
        Move next = Move::none();
        for (Move m : MoveList(p)) {
            p.do_move(m, child);
            auto c = eval::tb::probe(p, false, tables);
            const bool keeps =
                c && (here->result == eval::tb::Probe::Win
                          ? c->result == eval::tb::Probe::Loss && c->moves == here->moves - 1
                          : c->result == eval::tb::Probe::Win && c->moves == here->moves);
            p.undo_move(m);
            if (keeps) {
                next = m;
                break;
            }
        }
        if (!next) break;
        pv.push_back(next);
        p.do_move(next, states[n + 1]);
        ++n;
    }
}

// ---------------------------------------------------------------------------------------

Searcher::Searcher(TranspositionTable& t) : tt(t) {}

Searcher::~Searcher() {
    stop();
    wait();
}

uint64_t Searcher::tb_hits() const {
    uint64_t n = 0;
    for (auto& w : workers) n += w->tbHits.load(std::memory_order_relaxed);
    return n;
}

uint64_t Searcher::nodes() const {
    uint64_t n = 0;
    for (auto& w : workers) n += w->nodes.load(std::memory_order_relaxed);
    return n;
}

void Searcher::clear() {
    for (auto& w : workers) w->history.clear();
}

void Searcher::stop() {
    {
        std::lock_guard<std::mutex> lock(releaseMutex);
        stopFlag = true;
    }
    released.notify_all();
}

void Searcher::ponderhit() {
    {
        std::lock_guard<std::mutex> lock(releaseMutex);
        pondering = false;
    }
    released.notify_all();
}

void Searcher::wait_until_released() {
    std::unique_lock<std::mutex> lock(releaseMutex);
    released.wait(lock, [this] { return stopFlag || !(pondering || limits.infinite); });
}

void Searcher::start(const Position& pos, const Limits& lim, const Options& opts, Listener l) {
    wait();
    limits = lim;
    options = opts;
    listener = std::move(l);
    stopFlag = false;
    pondering = lim.ponder;
    // The level: Skill Level, or UCI_Elo's float level rounded at random, once a search.
    {
        const uint64_t seed =
            opts.skillSeed
                ? opts.skillSeed
                : uint64_t(std::chrono::high_resolution_clock::now().time_since_epoch().count());
        SkillRng rng(seed);
        const double level = skill_float_level(opts);
        skill =
            std::make_unique<Skill>(skill_round_level(level, rng), rng.next(), eval::phase(pos));
    }
    searchMultiPV = skill->multi_pv(opts.multiPV);
    if (const uint64_t cap = skill->node_cap())
        limits.nodes = limits.nodes ? std::min(limits.nodes, cap) : cap;
    const Color us = pos.side_to_move();
    tm.init(lim.start, lim.time[us], lim.inc[us], lim.movestogo, lim.movetime, opts.moveOverhead,
            pos.game_ply());
    const size_t n = size_t(std::max(1, opts.threads));
    if (workers.size() != n) {
        workers.clear();
        for (size_t i = 0; i < n; ++i) workers.push_back(std::make_unique<Worker>(*this, int(i)));
    }
    pool.resize(n);
    assert(pool.size() == workers.size()); // thread i runs workers[i]
    for (auto& w : workers) w->setup(pos);
    tt.new_search();
    running = true;
    pool.run(0, [this] { run_main(); });
}

void Searcher::wait() {
    if (pool.size()) pool.wait(0);
}

void Searcher::run_main() {
    Worker& main = *workers[0];
    if (main.rootMoves.empty()) {
        // Mated or stalemated: say so, then wait for stop in infinite/ponder mode.
        Info info;
        info.depth = 0;
        info.score = main.pos.in_check() || main.pos.lost_by_check() ? -VALUE_MATE : VALUE_DRAW;
        if (listener.info) listener.info(info);
        wait_until_released();
        running = false;
        if (listener.bestmove) listener.bestmove(Move::none(), Move::none());
        return;
    }
    for (size_t i = 1; i < workers.size(); ++i)
        pool.run(i, [this, i] { workers[i]->iterative_deepening(); });
    main.iterative_deepening();
    wait_until_released();
    stopFlag = true;
    for (size_t i = 1; i < workers.size(); ++i) pool.wait(i);

    // Lazy SMP: a helper that finished a deeper iteration may know better.
    // (Not for a weaker level: its move is chosen from the main thread's root moves.)
    Worker* best = &main;
    if (options.multiPV == 1 && limits.depth == 0 && !skill->enabled())
        for (auto& w : workers)
            if (!w->rootMoves.empty() && w->completedDepth > best->completedDepth &&
                w->rootMoves[0].score > best->rootMoves[0].score)
                best = w.get();
    // A weaker level plays the move it picked (again now if the search ended before the
    // pick's depth, or the best move now mates and the picked one does not): to the front,
    // so that bestmove and the PV shown are the move played.
    if (skill->enabled()) {
        if (skill->must_repick(main.rootMoves, searchMultiPV))
            skill->pick_best(main.rootMoves, searchMultiPV);
        auto picked = std::find_if(main.rootMoves.begin(), main.rootMoves.end(),
                                   [this](const RootMove& r) { return r.pv[0] == skill->best; });
        if (picked != main.rootMoves.end()) std::swap(main.rootMoves[0], *picked);
    }
    const RootMove& rm = best->rootMoves[0];
    // The move sent is one of the root's legal moves, whichever worker chose it.
    assert(!rm.pv.empty() && main.pos.is_legal(rm.pv[0]));
    // A search stopped inside an iteration may have changed its mind since the last info
    // line: show the PV of the move actually played.
    // (Not when a stop came before any root move was searched: no score to show.)
    if (best->lastReported != rm.pv[0] && (best->completedDepth > 0 || rm.score != -VALUE_INFINITE))
        best->report(std::max(1, best->completedDepth), -VALUE_INFINITE, VALUE_INFINITE);
    Move ponder = rm.pv.size() > 1 ? rm.pv[1] : Move::none();
    running = false;
    if (listener.bestmove) listener.bestmove(rm.pv[0], ponder);
}

void Worker::report(int depth, Value alpha, Value beta) {
    if (!searcher.listener.info) return;
    const TimePoint elapsed = std::max<TimePoint>(1, searcher.tm.elapsed());
    const uint64_t n = searcher.nodes();
    const int multiPV = std::min<int>(searcher.options.multiPV, int(rootMoves.size()));
    for (int i = 0; i < multiPV; ++i) {
        const bool updated = rootMoves[i].score != -VALUE_INFINITE;
        if (depth == 1 && !updated && i > 0) continue;
        const RootMove& rm = rootMoves[i];
        Info info;
        info.depth = updated ? depth : std::max(1, depth - 1);
        info.seldepth = rm.selDepth;
        info.multipv = i + 1;
        Value v = updated ? rm.score : rm.prevScore;
        if (v == -VALUE_INFINITE) v = VALUE_ZERO;
        info.score = v;
        if (i == pvIdx && updated && !(alpha == -VALUE_INFINITE && beta == VALUE_INFINITE))
            info.bound = v >= beta ? BOUND_LOWER : v <= alpha ? BOUND_UPPER : BOUND_EXACT;
        info.nodes = n;
        info.nps = n * 1000 / uint64_t(elapsed);
        info.hashfull = searcher.tt.hashfull();
        info.tbhits = searcher.tb_hits();
        info.time = elapsed;
        info.pv = rm.pv;
        if (std::abs(v) >= VALUE_MATE_IN_MAX_PLY && !pos.pieces(PAWN))
            extend_pv_with_tables(pos, info.pv, searcher.options.tables);
        if (i == 0) lastReported = rm.pv[0];
        searcher.listener.info(info);
    }
}

} // namespace khun::search
