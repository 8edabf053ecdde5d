#include "search_internal.h"

#include "khun/eval/evaluate.h"
#include "khun/eval/tb.h"
#include "khun/search/skill.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace khun::search {
namespace {

// Late move reductions, indexed by depth and move number. Past LmrMoves moves (only the
// drop games list more) the reduction stays that of the last column; a wider table would
// only cost every command's start-up its logarithms.
constexpr int LmrMoves = 256;
int Reductions[MAX_PLY][LmrMoves];

void init_reductions() {
    const double base = LmrBase / 100.0, divisor = LmrDivisor / 100.0;
    for (int d = 1; d < MAX_PLY; ++d)
        for (int m = 1; m < LmrMoves; ++m)
            Reductions[d][m] = int(base + std::log(double(d)) * std::log(double(m)) / divisor);
}

const bool reductionsReady = (init_reductions(), true);

} // namespace

std::vector<Tunable>& tunables() {
    static std::vector<Tunable> all;
    return all;
}

void tunables_changed() { init_reductions(); }

// The exact value of a bare-king ending from the tables, under the running count;
// VALUE_NONE when the tables do not answer (not covered, or not loaded yet).
[[nodiscard]] static Value tb_value(const Position& pos, int ply, eval::tb::TableSet tables) {
    // Pawnless first: the common case costs one test. The tables hold makruk's rules.
    if (pos.pieces(PAWN) || !pos.variant().bareKingTables) return VALUE_NONE;
    auto p = eval::tb::probe(pos, false, tables);
    if (!p) return VALUE_NONE;
    switch (eval::tb::counted(*p, pos)) {
    case eval::tb::Probe::Win: return mate_in(ply + 2 * p->moves - 1);
    case eval::tb::Probe::Loss: return mated_in(ply + 2 * p->moves);
    default:
        // A mate the count does not leave time for is still a draw, but one the other
        // side may yet spoil: the strong side keeps its pieces and the shortest mate.
        if (p->result == eval::tb::Probe::Win) return 20 - std::min(p->moves, 40) / 4;
        if (p->result == eval::tb::Probe::Loss) return -20 + std::min(p->moves, 40) / 4;
        return VALUE_DRAW;
    }
}

// ---------------------------------------------------------------------------------------

void Worker::iterative_deepening() {
    Stack stack[MAX_PLY + StackOffset + 2] = {};
    Stack* ss = stack + StackOffset;
    Move pv[MAX_PLY + 1];
    assert(!rootMoves.empty()); // run_main searches no game that is over
    for (int i = 0; i <= MAX_PLY + 1; ++i) {
        (stack + i)->ply = i - StackOffset;
        (stack + i)->contHist = &history.continuation[NO_PIECE][0];
    }
    ss->pv = pv;

    // A weaker level searches more root moves than the user sees (report() shows the
    // user's MultiPV only).
    const int multiPV = std::min<int>(searcher.searchMultiPV, int(rootMoves.size()));
    const Limits& limits = searcher.limits;
    int maxDepth = limits.depth > 0 ? std::min(limits.depth, MAX_PLY - 10) : MAX_PLY - 10;
    uint64_t lastIterationNodes = ~uint64_t(0), nodesBefore = 0;

    for (rootDepth = 1; rootDepth <= maxDepth && !searcher.stopFlag; ++rootDepth) {
        // Helpers skip some depths so that the threads spread over the tree.
        if (!main() && rootDepth > 1 && ((rootDepth + id) % 3 == 0)) continue;

        for (RootMove& rm : rootMoves) rm.prevScore = rm.score;
        for (pvIdx = 0; pvIdx < multiPV && !searcher.stopFlag; ++pvIdx) {
            selDepth = 0;
            Value prev = rootMoves[pvIdx].prevScore;
            Value delta = AspirationDelta, alpha = -VALUE_INFINITE, beta = VALUE_INFINITE;
            if (rootDepth >= AspirationMinDepth && prev > -VALUE_INFINITE && !is_mate_score(prev)) {
                alpha = std::max(prev - delta, -VALUE_INFINITE);
                beta = std::min(prev + delta, VALUE_INFINITE);
            }
            while (true) {
                Value v = search<true>(ss, alpha, beta, rootDepth, false);
                std::stable_sort(rootMoves.begin() + pvIdx, rootMoves.end());
                if (searcher.stopFlag) break;
                if (main() && (v <= alpha || v >= beta) && searcher.tm.elapsed() > VerboseAfterMs)
                    report(rootDepth, alpha, beta);
                if (v <= alpha) {
                    beta = (alpha + beta) / 2;
                    alpha = std::max(v - delta, -VALUE_INFINITE);
                } else if (v >= beta) {
                    beta = std::min(v + delta, VALUE_INFINITE);
                } else
                    break;
                delta += delta / 2 + AspirationGrowth;
                if (delta > AspirationMaxDelta) alpha = -VALUE_INFINITE, beta = VALUE_INFINITE;
            }
            std::stable_sort(rootMoves.begin(), rootMoves.begin() + pvIdx + 1);
            if (main() &&
                (!searcher.stopFlag || (rootDepth == 1 && rootMoves[0].score != -VALUE_INFINITE)) &&
                (pvIdx + 1 == multiPV || searcher.tm.elapsed() > VerboseAfterMs))
                report(rootDepth, -VALUE_INFINITE, VALUE_INFINITE);
        }
        if (!searcher.stopFlag) completedDepth = rootDepth;
        if (!main()) continue;

        // A weaker level chooses its move from this depth's root moves.
        Skill& skill = *searcher.skill;
        if (skill.enabled() && skill.time_to_pick(rootDepth) && completedDepth == rootDepth)
            skill.pick_best(rootMoves, multiPV);

        const Value score = rootMoves[0].score;
        // A mate proven with room to spare, or a tree that no longer grows (the tables
        // answer every line): deeper iterations only repeat themselves.
        const uint64_t n = nodes.load(std::memory_order_relaxed);
        const uint64_t iterationNodes = n - nodesBefore;
        if ((is_mate_score(score) && rootDepth > 2 * (VALUE_MATE - std::abs(score)) + 8) ||
            (rootDepth > 8 && iterationNodes == lastIterationNodes))
            if ((limits.use_time(pos.side_to_move()) || limits.movetime) && !limits.infinite &&
                !searcher.pondering)
                searcher.stopFlag = true;
        lastIterationNodes = iterationNodes;
        nodesBefore = n;
        // go mate N: stop once a mate that short is proven.
        if (limits.mate && score >= VALUE_MATE_IN_MAX_PLY && VALUE_MATE - score <= 2 * limits.mate)
            searcher.stopFlag = true;

        // Soft time limit: stop early when the best move has been stable.
        if (limits.use_time(pos.side_to_move()) && !searcher.pondering && !limits.infinite &&
            !limits.movetime) {
            if (searcher.tm.iteration_done(rootMoves[0].pv[0], score) || rootMoves.size() == 1)
                searcher.stopFlag = true;
        }
    }
}

void Worker::check_time() {
    if (--callsCnt > 0) return;
    const Limits& limits = searcher.limits;
    callsCnt = limits.nodes ? int(std::min<uint64_t>(TimeCheckNodes, limits.nodes / 1024 + 1))
                            : TimeCheckNodes;
    if (rootDepth <= 1 && completedDepth == 0) return; // always finish depth 1
    if (searcher.pondering) return;
    const TimePoint elapsed = searcher.tm.elapsed();
    if ((limits.use_time(pos.side_to_move()) && !limits.infinite &&
         elapsed > searcher.tm.maximum) ||
        (limits.movetime && elapsed >= searcher.tm.maximum) ||
        (limits.nodes && searcher.nodes() >= limits.nodes))
        searcher.stopFlag = true;
}

// The entry checks search and quiescence share: the clock, a lost or drawn position, the
// ply limit, the tables, mate distance pruning (not in quiescence, which searches no
// mates), and the TT (`depth` is what its entry must reach to cut; quiescence's entries
// are -1). Returns the node's value when one of them settles it, else VALUE_NONE with
// the TT's view of the node in `e`.
template <bool PvNode, bool Qs>
Value Worker::enter_node(Stack* ss, Value& alpha, Value& beta, int depth, NodeEntry& e) {
    assert(-VALUE_INFINITE <= alpha && alpha < beta && beta <= VALUE_INFINITE);
    assert(PvNode || alpha + 1 == beta);
    assert(0 <= ss->ply && ss->ply < MAX_PLY);
    assert(ss->ply == (ss - 1)->ply + 1); // the stack is indexed by ply
    const bool rootNode = !Qs && PvNode && ss->ply == 0;
    if (main()) check_time();
    if (PvNode && selDepth < ss->ply + 1) selDepth = ss->ply + 1;
    ss->inCheck = pos.in_check();

    if (!rootNode) {
        if (pos.lost_by_check()) return mated_in(ss->ply); // karouk: checked is lost
        if (searcher.stopFlag.load(std::memory_order_relaxed) || pos.is_draw(ss->ply) ||
            eval::dead_draw(pos))
            return draw_value();
        if (ss->ply >= MAX_PLY - 4) return ss->inCheck ? VALUE_DRAW : eval::evaluate(pos, net);
        // Karouk: standing pat ignores a check that would win at once.
        if (Qs && pos.variant().firstCheckWins && !ss->inCheck && has_checking_move(pos))
            return mate_in(ss->ply + 1);
        if (Value v = tb_value(pos, ss->ply, searcher.options.tables); v != VALUE_NONE) {
            tbHits.fetch_add(1, std::memory_order_relaxed);
            return v;
        }
        if (!Qs) {
            // Mate distance pruning: no line here can beat a mate already found nearer.
            alpha = std::max(mated_in(ss->ply), alpha);
            beta = std::min(mate_in(ss->ply + 1), beta);
            if (alpha >= beta) return alpha;
        }
    }

    e.key = pos.search_key();
    e.tte = TTData{};
    e.ttHit = !ss->excluded && searcher.tt.probe(e.key, e.tte);
    e.ttValue = e.ttHit ? value_from_tt(e.tte.value, ss->ply) : VALUE_NONE;
    if (!PvNode && e.ttHit && e.tte.depth >= depth && e.ttValue != VALUE_NONE &&
        (e.tte.bound & (e.ttValue >= beta ? BOUND_LOWER : BOUND_UPPER)))
        return e.ttValue;
    return VALUE_NONE;
}

template <bool PvNode>
Value Worker::search(Stack* ss, Value alpha, Value beta, int depth, bool cutNode) {
    const bool rootNode = PvNode && ss->ply == 0;
    if (depth <= 0) return qsearch<PvNode>(ss, alpha, beta);
    assert(depth < MAX_PLY + 64);
    assert(!PvNode || ss->pv);

    Move pv[MAX_PLY + 1];
    const Color us = pos.side_to_move();
    ss->moveCount = 0;
    (ss + 2)->killers[0] = (ss + 2)->killers[1] = Move::none();
    (ss + 1)->excluded = Move::none();

    NodeEntry e;
    if (Value v = enter_node<PvNode, false>(ss, alpha, beta, depth, e); v != VALUE_NONE) return v;
    const Key key = e.key;
    const TTData& tte = e.tte;
    const bool ttHit = e.ttHit;
    const Value ttValue = e.ttValue;
    Move ttMove = rootNode ? rootMoves[pvIdx].pv[0] : ttHit ? tte.move : Move::none();

    // Static evaluation.
    Value eval, rawEval = VALUE_NONE;
    CorrectionIndex cix{}; // only out of check, where the node is corrected and teaches
    if (ss->inCheck) {
        ss->staticEval = eval = VALUE_NONE;
    } else {
        rawEval = ttHit && tte.eval != VALUE_NONE ? tte.eval : eval::evaluate(pos, net);
        cix = correction_index(pos);
        ss->staticEval = eval = corrected(rawEval, us, cix);
        if (ttHit && ttValue != VALUE_NONE &&
            (tte.bound & (ttValue > eval ? BOUND_LOWER : BOUND_UPPER)))
            eval = ttValue;
    }
    const bool improving =
        !ss->inCheck && (ss - 2)->staticEval != VALUE_NONE && ss->staticEval > (ss - 2)->staticEval;

    // A side with only pawns and king (or less) may be in zugzwang: no null move there.
    const bool hasPieces = (pos.pieces(us) & ~pos.pieces(PAWN, KING)) != 0;

    if (!PvNode && !ss->inCheck && !ss->excluded) {
        // Reverse futility pruning.
        if (depth < RfpMaxDepth &&
            eval - (RfpMargin - RfpImprovingMargin * improving) * depth >= beta &&
            eval < VALUE_MATE_IN_MAX_PLY && !is_mate_score(beta))
            return eval;

        // Null move pruning, with verification at high depth (Makruk endings are full of
        // zugzwang).
        if (eval >= beta && ss->staticEval >= beta - NmpEvalMargin * depth && hasPieces &&
            (ss - 1)->currentMove != Move::null() && depth >= NmpMinDepth && !pos.count_limit() &&
            beta > VALUE_MATED_IN_MAX_PLY) {
            int R = NmpBase + depth / NmpDepthDivisor +
                    std::min((eval - beta) / NmpEvalDivisor, NmpEvalMax);
            ss->currentMove = Move::null();
            ss->movedPiece = NO_PIECE;
            ss->contHist = &history.continuation[NO_PIECE][0];
            pos.do_null_move(states[ss->ply]);
            Value v = -search<false>(ss + 1, -beta, -beta + 1, depth - R, !cutNode);
            pos.undo_null_move();
            if (v >= beta && v < VALUE_MATE_IN_MAX_PLY) {
                if (depth < NmpVerifyDepth) return v;
                Value w = search<false>(ss, beta - 1, beta, depth - R, false);
                if (w >= beta) return v;
            }
        }
    }

    // Internal iterative reduction: no TT move in a PV or cut node, search shallower.
    if ((PvNode || cutNode) && depth >= IirMinDepth && !ttMove) depth -= 1;

    const Move counter = (ss - 1)->currentMove && (ss - 1)->movedPiece
                             ? history.counter[(ss - 1)->movedPiece][(ss - 1)->currentMove.to()]
                             : Move::none();
    const PieceToHistory* contHist[2] = {(ss - 1)->contHist, (ss - 2)->contHist};
    MovePicker mp(pos, ttMove, history, ss->killers, counter, contHist);
    prefetch_children(mp);

    Value bestValue = -VALUE_INFINITE;
    Move bestMove = Move::none();
    Move quietsTried[64], capturesTried[32];
    int quietCount = 0, captureCount = 0;
    int moveCount = 0;
    const Value originalAlpha = alpha;

    for (Move m; (m = mp.next());) {
        if (m == ss->excluded) continue;
        if (rootNode &&
            std::find_if(rootMoves.begin() + pvIdx, rootMoves.end(),
                         [m](const RootMove& rm) { return rm.pv[0] == m; }) == rootMoves.end())
            continue;
        ++moveCount;
        ss->moveCount = moveCount;
        if (rootNode && main() && searcher.listener.currmove &&
            searcher.tm.elapsed() > VerboseAfterMs)
            searcher.listener.currmove(depth, m, moveCount + pvIdx);

        const bool capture = pos.is_capture(m);
        const bool quiet = !capture && !m.is_promotion();
        const bool givesCheck = pos.gives_check(m);

        // Pruning at shallow depth once a non-losing line exists.
        if (!rootNode && bestValue > VALUE_MATED_IN_MAX_PLY && hasPieces) {
            if (quiet && !givesCheck) {
                // Late move pruning.
                if (moveCount > LmpBase + depth * depth / (improving ? 1 : 2)) {
                    mp.skip_quiets(pos);
                    continue;
                }
                // Continuation-history pruning: a move that was bad after these two
                // earlier moves, at a depth that would be reduced far anyway.
                const Piece pc = pos.moved_piece(m);
                const int ch = (*contHist[0])[pc][m.to()] + (*contHist[1])[pc][m.to()];
                int lmrDepth =
                    depth - 1 -
                    Reductions[std::min(depth, MAX_PLY - 1)][std::min(moveCount, LmrMoves - 1)];
                if (lmrDepth < ContHistMaxDepth && ch < ContHistMargin * depth) continue;
                // Futility and SEE pruning at the depth LMR would search the move to,
                // deeper for moves with a good history.
                lmrDepth =
                    std::max(lmrDepth + (ch + 2 * history.get(us, m)) / PruneHistoryDivisor, 0);
                if (!ss->inCheck && lmrDepth < FutilityMaxDepth &&
                    ss->staticEval + FutilityBase + FutilityMargin * lmrDepth <= alpha)
                    continue;
                if (!see_ge(pos, m, QuietSeeMargin * lmrDepth * lmrDepth)) continue;
            } else if (depth < CaptureSeeMaxDepth && !see_ge(pos, m, CaptureSeeMargin * depth))
                continue;
        }

        // Singular extension: the TT move is searched deeper when every other move falls
        // well short of its value; when others reach beta too, the node cuts at once.
        int extension = 0;
        if (!rootNode && m == ttMove && !ss->excluded && depth >= SingularMinDepth && ttHit &&
            ttValue != VALUE_NONE && !is_mate_score(ttValue) && (tte.bound & BOUND_LOWER) &&
            tte.depth >= depth - SingularTTDepthSlack) {
            const Value singularBeta = ttValue - SingularMargin * depth;
            ss->excluded = m;
            const Value v =
                search<false>(ss, singularBeta - 1, singularBeta, (depth - 1) / 2, cutNode);
            ss->excluded = Move::none();
            ss->moveCount = moveCount;
            if (v < singularBeta)
                extension =
                    !PvNode && v < singularBeta - DoubleExtensionMargin && ss->ply < rootDepth ? 2
                                                                                               : 1;
            else if (singularBeta >= beta)
                return singularBeta; // multi-cut
            else if (ttValue >= beta)
                extension = -1;
        } else if (givesCheck && depth < CheckExtensionMaxDepth && see_ge(pos, m, 0))
            extension = 1; // check extension, for checks that do not lose material
        int newDepth = depth - 1 + extension;

        ss->currentMove = m;
        ss->movedPiece = pos.moved_piece(m);
        ss->contHist = &history.continuation[ss->movedPiece][m.to()];
        const int quietHist = quiet ? history.get(us, m) + (*contHist[0])[ss->movedPiece][m.to()] +
                                          (*contHist[1])[ss->movedPiece][m.to()]
                                    : 0;
        make_move(m, states[ss->ply]);

        Value value;
        // Late move reductions.
        if (depth >= 2 && moveCount > 1 + rootNode && (quiet || cutNode)) {
            int r = Reductions[std::min(depth, MAX_PLY - 1)][std::min(moveCount, LmrMoves - 1)];
            r += !PvNode + cutNode - improving;
            if (quiet)
                r -= std::clamp(quietHist / LmrHistoryDivisor, -LmrHistoryMaxPlies,
                                LmrHistoryMaxPlies);
            if (m == ss->killers[0] || m == ss->killers[1] || m == counter) r -= 1;
            if (ss->inCheck || givesCheck) r -= 1;
            assert(newDepth >= 1); // std::clamp needs lo <= hi
            int d = std::clamp(newDepth - std::max(r, 0), 1, newDepth);
            value = -search<false>(ss + 1, -(alpha + 1), -alpha, d, true);
            if (value > alpha && d < newDepth)
                value = -search<false>(ss + 1, -(alpha + 1), -alpha, newDepth, !cutNode);
        } else if (!PvNode || moveCount > 1)
            value = -search<false>(ss + 1, -(alpha + 1), -alpha, newDepth, !cutNode);
        else
            value = alpha + 1; // force the full window below
        // Any move that beats alpha in a PV node gets a full-window search, so that the
        // PV copied below is always this move's own.
        if (PvNode && (moveCount == 1 || value > alpha)) {
            (ss + 1)->pv = pv;
            (ss + 1)->pv[0] = Move::none();
            value = -search<true>(ss + 1, -beta, -alpha, newDepth, false);
        }
        pos.undo_move(m);
        assert(-VALUE_INFINITE < value && value < VALUE_INFINITE);

        if (searcher.stopFlag.load(std::memory_order_relaxed)) return VALUE_ZERO;

        if (rootNode) {
            RootMove& rm = *std::find_if(rootMoves.begin(), rootMoves.end(),
                                         [m](const RootMove& r) { return r.pv[0] == m; });
            if (moveCount == 1 || value > alpha) {
                rm.score = value;
                rm.selDepth = selDepth;
                rm.pv.resize(1);
                for (Move* p = (ss + 1)->pv; p && *p; ++p) rm.pv.push_back(*p);
            } else
                rm.score = -VALUE_INFINITE; // keep the order of the previous iteration
        }

        if (value > bestValue) {
            bestValue = value;
            if (value > alpha) {
                bestMove = m;
                if (PvNode && !rootNode) update_pv(ss->pv, m, (ss + 1)->pv);
                if (value >= beta) break;
                alpha = value;
            }
        }
        if (m != bestMove) {
            if (quiet && quietCount < 64) quietsTried[quietCount++] = m;
            if (capture && captureCount < 32) capturesTried[captureCount++] = m;
        }
    }

    if (!moveCount) {
        if (ss->excluded) return alpha;
        return ss->inCheck ? mated_in(ss->ply) : draw_value();
    }

    // Reward the move that cut, punish the ones tried before it.
    if (bestMove && bestValue >= beta) {
        const int bonus = stat_bonus(depth);
        auto quiet_update = [&](Move m, int b) {
            const Piece pc = pos.moved_piece(m);
            history.update(us, m, b);
            history_update<ContHistLimit>((*(ss - 1)->contHist)[pc][m.to()], b);
            history_update<ContHistLimit>((*(ss - 2)->contHist)[pc][m.to()], b);
        };
        auto capture_update = [&](Move m, int b) {
            history_update<CaptureHistLimit>(
                history.capture[pos.moved_piece(m)][m.to()][type_of(pos.piece_on(m.to()))], b);
        };
        if (!pos.is_capture(bestMove) && !bestMove.is_promotion()) {
            quiet_update(bestMove, bonus);
            for (int i = 0; i < quietCount; ++i) quiet_update(quietsTried[i], -bonus);
            if (ss->killers[0] != bestMove) {
                ss->killers[1] = ss->killers[0];
                ss->killers[0] = bestMove;
            }
            if ((ss - 1)->currentMove && (ss - 1)->movedPiece)
                history.counter[(ss - 1)->movedPiece][(ss - 1)->currentMove.to()] = bestMove;
        } else if (pos.is_capture(bestMove))
            capture_update(bestMove, bonus);
        for (int i = 0; i < captureCount; ++i) capture_update(capturesTried[i], -bonus);
    }

    // Teach the correction history how far the static evaluation missed.
    if (!ss->inCheck && !ss->excluded && pos.pieces(PAWN) &&
        !(bestMove && pos.is_capture(bestMove)) &&
        !(bestValue >= beta && bestValue <= ss->staticEval) &&
        !(!bestMove && bestValue >= ss->staticEval) && !is_mate_score(bestValue)) {
        const int bonus = std::clamp((bestValue - ss->staticEval) * depth / CorrectionDepthDivisor,
                                     -CorrectionMaxBonus, CorrectionMaxBonus);
        learn_correction(us, cix, bonus);
    }

    if (!ss->excluded && !(rootNode && pvIdx))
        searcher.tt.store(key, value_to_tt(bestValue, ss->ply),
                          bestValue >= beta                     ? BOUND_LOWER
                          : PvNode && bestValue > originalAlpha ? BOUND_EXACT
                                                                : BOUND_UPPER,
                          depth, bestMove, rawEval);
    assert(-VALUE_INFINITE < bestValue && bestValue < VALUE_INFINITE);
    return bestValue;
}

template <bool PvNode>
Value Worker::qsearch(Stack* ss, Value alpha, Value beta, int depth) {
    assert(depth <= 0);
    assert(!PvNode || ss->pv);
    Move pv[MAX_PLY + 1];
    if (PvNode) {
        (ss + 1)->pv = pv;
        ss->pv[0] = Move::none();
    }
    NodeEntry e;
    if (Value v = enter_node<PvNode, true>(ss, alpha, beta, -1, e); v != VALUE_NONE) return v;
    const Key key = e.key;
    const TTData& tte = e.tte;
    const bool ttHit = e.ttHit;

    Value bestValue, futilityBase, rawEval = VALUE_NONE;
    if (ss->inCheck) {
        bestValue = futilityBase = -VALUE_INFINITE;
        ss->staticEval = VALUE_NONE;
    } else {
        rawEval = ttHit && tte.eval != VALUE_NONE ? tte.eval : eval::evaluate(pos, net);
        ss->staticEval = bestValue = corrected(rawEval, pos.side_to_move(), correction_index(pos));
        if (bestValue >= beta) return bestValue;
        if (bestValue > alpha) alpha = bestValue;
        futilityBase = bestValue + QsFutilityMargin;
    }

    MovePicker mp(pos, ttHit ? tte.move : Move::none(), history);
    prefetch_children(mp);
    Move bestMove = Move::none();
    int moveCount = 0;
    for (Move m; (m = mp.next());) {
        ++moveCount;
        if (!ss->inCheck && !m.is_promotion()) {
            // Futility: even winning the piece cannot lift us to alpha.
            if (futilityBase + see_value(type_of(pos.piece_on(m.to()))) <= alpha &&
                !pos.gives_check(m))
                continue;
            if (!see_ge(pos, m, 0)) continue;
        }
        // Deep in quiescence only captures of the last mover's piece matter.
        if (depth < QsRecaptureDepth && !ss->inCheck && m.to() != pos.last_move().to() &&
            !m.is_promotion())
            continue;
        ss->currentMove = m;
        ss->movedPiece = pos.moved_piece(m);
        ss->contHist = &history.continuation[ss->movedPiece][m.to()];
        make_move(m, states[ss->ply]);
        Value value = -qsearch<PvNode>(ss + 1, -beta, -alpha, depth - 1);
        pos.undo_move(m);
        if (searcher.stopFlag.load(std::memory_order_relaxed)) return VALUE_ZERO;
        if (value > bestValue) {
            bestValue = value;
            if (value > alpha) {
                bestMove = m;
                if (PvNode) update_pv(ss->pv, m, (ss + 1)->pv);
                if (value >= beta) break;
                alpha = value;
            }
        }
    }
    if (ss->inCheck && bestValue == -VALUE_INFINITE) return mated_in(ss->ply);

    searcher.tt.store(key, value_to_tt(bestValue, ss->ply),
                      bestValue >= beta ? BOUND_LOWER : BOUND_UPPER, -1, bestMove, rawEval);
    assert(-VALUE_INFINITE < bestValue && bestValue < VALUE_INFINITE);
    return bestValue;
}

} // namespace khun::search
