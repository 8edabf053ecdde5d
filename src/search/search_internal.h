// What the search's two translation units share: the search stack, small helpers and the
// Worker, one search thread. search.cpp holds the node search (iterative deepening, search,
// quiescence); searcher.cpp the orchestration (threads, stop and ponder, the result and
// the reports). Not a public header: only the search layer includes it.
#pragma once

#include "khun/rules/movegen.h"
#include "khun/search/search.h"
#include "khun/search/search_params.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cstdlib>

namespace khun::search {
using namespace params;

struct Stack {
    Move* pv;
    PieceToHistory* contHist;
    int ply;
    Move currentMove;
    Piece movedPiece;
    Move excluded;
    Move killers[2];
    Value staticEval;
    int moveCount;
    bool inCheck;
};

constexpr int StackOffset = 4;

[[nodiscard]] inline bool is_mate_score(Value v) {
    return std::abs(v) >= VALUE_MATE_IN_MAX_PLY && std::abs(v) < VALUE_INFINITE;
}

// This node's PV: its best move followed by the child's PV.
inline void update_pv(Move* pv, Move m, const Move* childPv) {
    assert(m && m != Move::null()); // a PV is played as it stands: real moves only
    *pv++ = m;
    for (; childPv && *childPv; ++childPv) *pv++ = *childPv;
    *pv = Move::none();
}

// A position's entries in the correction tables: by both sides' pawns, and by each side's
// other pieces. Made once per node, for the correction and for what the node then teaches.
struct CorrectionIndex {
    int pawn;
    int nonPawn[COLOR_NB];
};

[[nodiscard]] inline CorrectionIndex correction_index(const Position& pos) {
    CorrectionIndex ix;
    ix.pawn = int(pawn_structure_hash(pos.pieces(WHITE, PAWN), pos.pieces(BLACK, PAWN)) >>
                  (64 - CorrectionBits));
    for (Color c : {WHITE, BLACK}) {
        uint64_t h = 0;
        for (PieceType t = KNIGHT; t <= KING; t = PieceType(t + 1))
            h = (h ^ pos.pieces(c, t)) * 0x9E3779B97F4A7C15ull;
        ix.nonPawn[c] = int(h >> (64 - CorrectionBits));
    }
    return ix;
}

[[nodiscard]] inline int stat_bonus(int depth) {
    return std::min(StatBonusQuad * depth * depth + StatBonusLinear * depth, StatBonusMax);
}

// One search thread. Its root position is a copy whose state chain continues the game's.
class Worker {
  public:
    Worker(Searcher& s, int id) : searcher(s), id(id) { history.clear(); }

    void setup(const Position& root) {
        pos.copy_from(root, &rootState);
        net = searcher.options.network.get();
        // The root's sums now: its static evaluation may come from the table and never
        // compute them, and then every node below whose walk back ends at the root would
        // compute its own afresh (in datagen's short searches, two calls in five).
        if (net) nnue::accumulator(pos, *net);
        const Options& o = searcher.options;
        const Value ct = o.analyseMode || searcher.limits.infinite ? 0 : Value(o.contempt);
        drawScore[root.side_to_move()] = VALUE_DRAW - ct;
        drawScore[~root.side_to_move()] = VALUE_DRAW + ct;
        nodes = 0;
        tbHits = 0;
        // The limit's checks count from this search's first node: a count left over from
        // the last search would move where a `go nodes` search stops.
        callsCnt = 0;
        completedDepth = 0;
        lastReported = Move::none();
        selDepth = 0;
        rootMoves.clear();
        for (Move m : MoveList(pos))
            if (searcher.limits.searchmoves.empty() ||
                std::find(searcher.limits.searchmoves.begin(), searcher.limits.searchmoves.end(),
                          m) != searcher.limits.searchmoves.end())
                rootMoves.emplace_back(m);
    }
    void iterative_deepening();

    // A repetition, a count run out, a dead position or a stalemate, for the side to move:
    // the contempt (Options::contempt) from the root side's point of view, blurred by a
    // unit so that the search does not walk into a repetition it cannot tell apart.
    [[nodiscard]] Value draw_value() const {
        return drawScore[pos.side_to_move()] - 1 + int(nodes.load(std::memory_order_relaxed) & 2);
    }

    Searcher& searcher;
    const int id;
    Position pos;
    StateInfo rootState;
    const nnue::Network* net = nullptr; // the net this search evaluates with, or none
    Value drawScore[COLOR_NB] = {};     // draw_value() by side to move
    History history;
    std::vector<RootMove> rootMoves;
    std::atomic<uint64_t> nodes{0};
    std::atomic<uint64_t> tbHits{0};
    int completedDepth = 0;
    int selDepth = 0;
    int pvIdx = 0;
    int rootDepth = 0;
    Move lastReported = Move::none();
    void report(int depth, Value alpha, Value beta);

  private:
    template <bool PvNode>
    Value search(Stack* ss, Value alpha, Value beta, int depth, bool cutNode);
    template <bool PvNode>
    Value qsearch(Stack* ss, Value alpha, Value beta, int depth = 0);
    // What search and quiescence do first at every node; see enter_node.
    struct NodeEntry {
        Key key;
        TTData tte;
        bool ttHit;
        Value ttValue; // from the node's point of view, VALUE_NONE without one
    };
    template <bool PvNode, bool Qs>
    [[nodiscard]] Value enter_node(Stack* ss, Value& alpha, Value& beta, int depth, NodeEntry& e);
    void check_time();
    [[nodiscard]] bool main() const { return id == 0; }
    // Starts fetching the TT entry of every child as soon as the node has its moves: a
    // child's probe waits on memory, a DRAM miss that was over a quarter of bench's time
    // when each fetch began only after do_move. Fetched this early, the wait hides behind
    // the work on the moves before it; the fetches for moves that are pruned or never
    // reached cost less than the waits they save (docs/log/tuning.md, "Eighth round").
    void prefetch_children(const MovePicker& mp) const {
        mp.for_each_left([this](Move m) { searcher.tt.prefetch(pos.search_key_after(m)); });
    }
    // Plays m in the search and counts the node (only this thread writes its count: a
    // plain store, not a locked add).
    void make_move(Move m, StateInfo& st) {
        pos.do_move(m, st);
        // do_move lets a move through that leaves its own king attacked (the test oracles
        // make such); the search must make legal ones only.
        // (Sittuyin's setup: a king still in hand cannot be left attacked.)
        assert(!pos.has_king(~pos.side_to_move()) ||
               !pos.attackers_to(pos.king_square(~pos.side_to_move()), pos.side_to_move(),
                                 pos.pieces()));
        nodes.store(nodes.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    }
    // The static evaluation moved by what the correction history learned. Not without
    // pawns: there the hand-made mop-up and count scaling are the evaluation, and every
    // pawnless position would share one entry.
    [[nodiscard]] Value corrected(Value v, Color us, const CorrectionIndex& ix) const {
        if (is_mate_score(v) || !pos.pieces(PAWN)) return v;
        const int cp = history.correction[us][ix.pawn];
        const int cw = history.nonPawnCorrection[us][WHITE][ix.nonPawn[WHITE]];
        const int cb = history.nonPawnCorrection[us][BLACK][ix.nonPawn[BLACK]];
        return std::clamp(v + cp * std::abs(cp) / CorrectionScale +
                              (cw * std::abs(cw) + cb * std::abs(cb)) / NonPawnCorrectionScale,
                          VALUE_MATED_IN_MAX_PLY + 1, VALUE_MATE_IN_MAX_PLY - 1);
    }
    // Every correction table learns the same miss.
    void learn_correction(Color us, const CorrectionIndex& ix, int bonus) {
        history_update<CorrectionLimit>(history.correction[us][ix.pawn], bonus);
        for (Color c : {WHITE, BLACK})
            history_update<CorrectionLimit>(history.nonPawnCorrection[us][c][ix.nonPawn[c]], bonus);
    }

    StateInfo states[MAX_PLY + 10];
    int callsCnt = 0;
};

} // namespace khun::search
