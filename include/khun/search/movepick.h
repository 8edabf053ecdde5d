// Move ordering: which legal move to try next. Good moves first make alpha-beta cut
// early; the order is TT move, winning captures and promotions, killers, counter-move,
// quiet moves by history, then losing captures.
#pragma once

#include "khun/rules/movegen.h"
#include "khun/rules/position.h"
#include "khun/search/search_params.h"

#include <cassert>
#include <cstdint>
#include <cstring>

namespace khun::search {

// The value of a piece kind for SEE and move ordering: fixed (search_params.h), so that
// tuning the evaluation does not change the search's pruning.
static_assert(sizeof search::params::SeeValue / sizeof(int) == PIECE_TYPE_NB);
[[nodiscard]] constexpr int see_value(PieceType pt) { return search::params::SeeValue[pt]; }

// Static exchange evaluation: does the capture sequence on m's target square gain at
// least `threshold` for the mover?
[[nodiscard]] bool see_ge(const Position& pos, Move m, int threshold);

// Saturating update of a history entry towards +-Limit.
template <int Limit>
inline void history_update(int16_t& e, int bonus) {
    int b = bonus > Limit ? Limit : bonus < -Limit ? -Limit : bonus;
    e = int16_t(e + b - e * (b < 0 ? -b : b) / Limit);
    // The gravity term keeps an entry within the limit it started within: the scores
    // the picker adds up rely on it.
    assert(e >= -Limit && e <= Limit);
}

// How often a move to `to` by `piece` was good after a given earlier move.
using PieceToHistory = int16_t[PIECE_NB][SQUARE_NB];

// Move statistics shared by one search thread's nodes.
struct History {
    int16_t butterfly[COLOR_NB][SQUARE_NB * SQUARE_NB];
    int16_t capture[PIECE_NB][SQUARE_NB][PIECE_TYPE_NB];
    Move counter[PIECE_NB][SQUARE_NB];
    // Indexed by the earlier move's piece and target square.
    PieceToHistory continuation[PIECE_NB][SQUARE_NB];
    // How far the static evaluation missed the search result, by pawn structure.
    int16_t correction[COLOR_NB][1 << search::params::CorrectionBits];
    // The same by each side's pieces other than pawns: how the pieces stand, which the
    // pawn structure says nothing of.
    int16_t nonPawnCorrection[COLOR_NB][COLOR_NB][1 << search::params::CorrectionBits];

    void clear() {
        std::memset(correction, 0, sizeof correction);
        std::memset(nonPawnCorrection, 0, sizeof nonPawnCorrection);
        std::memset(butterfly, 0, sizeof butterfly);
        std::memset(capture, 0, sizeof capture);
        std::memset(continuation, 0, sizeof continuation);
        for (auto& row : counter)
            for (Move& m : row) m = Move::none();
    }
    [[nodiscard]] int get(Color c, Move m) const { return butterfly[c][m.raw() & 4095]; }
    void update(Color c, Move m, int bonus) {
        history_update<search::params::ButterflyLimit>(butterfly[c][m.raw() & 4095], bonus);
    }
};

class MovePicker {
  public:
    // Main search: all legal moves. `killers` holds two, `counter` may be none.
    MovePicker(const Position& pos, Move ttMove, const History& hist, const Move* killers,
               Move counter, const PieceToHistory* const* contHist);
    // Quiescence: captures and promotions, or every evasion when in check.
    MovePicker(const Position& pos, Move ttMove, const History& hist);

    // The next move, or Move::none() when exhausted.
    [[nodiscard]] Move next();
    // Late move pruning has begun: drop the quiet moves not yet returned, all but the
    // checks, so that next() no longer scans them.
    void skip_quiets(const Position& pos);
    // Calls f on each move next() has not returned yet, in no particular order.
    template <class F>
    void for_each_left(F&& f) const {
        for (const Move* m = cur; m < end; ++m) f(*m);
    }

  private:
    void score(const Position& pos, Move ttMove, const History& hist, const Move* killers,
               Move counter, const PieceToHistory* const* contHist);

    union { // left uninitialised, as in MoveList
        Move moves[MAX_MOVES];
    };
    int scores[MAX_MOVES];
    Move* cur = moves;
    Move* end = moves;
};

} // namespace khun::search
