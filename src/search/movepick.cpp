#include "khun/search/movepick.h"

#include "khun/eval/evaluate.h"

#include <cassert>

namespace khun::search {

bool see_ge(const Position& pos, Move m, int threshold) {
    assert(pos.moved_piece(m) && color_of(pos.moved_piece(m)) == pos.side_to_move());
    if (m.is_promotion() || m.kind() == SUT_MOVE) return 0 >= threshold;
    const Square to = m.to();
    int swap = see_value(type_of(pos.piece_on(to))) - threshold;
    if (swap < 0) return false;
    swap = see_value(type_of(pos.moved_piece(m))) - swap;
    if (swap <= 0) return true;

    // A drop leaves no square empty behind it.
    const Bitboard fromBB = m.is_drop() ? 0 : square_bb(m.from());
    Bitboard occ = pos.pieces() ^ fromBB ^ square_bb(to);
    Color stm = pos.side_to_move();
    Bitboard attackers = pos.attackers_to(to, occ) & occ;
    bool res = true;
    while (true) {
        stm = ~stm;
        attackers &= occ;
        Bitboard stmAttackers = attackers & pos.pieces(stm);
        if (!stmAttackers) break;
        res = !res;
        // The least valuable attacker goes next.
        PieceType pt = PAWN;
        Bitboard b = 0;
        for (PieceType p : {PAWN, MET, KHON, KNIGHT, ROOK, AIWOK, KING})
            if ((b = stmAttackers & pos.pieces(p))) {
                pt = p;
                break;
            }
        if (pt == KING) return (attackers & ~pos.pieces(stm)) ? !res : res;
        if ((swap = see_value(pt) - swap) < int(res)) break;
        occ ^= square_bb(lsb(b));
        // Only rooks slide: one of them behind the capturer may now see through.
        attackers |= attacks::rook(to, occ) & (pos.pieces(ROOK) | pos.pieces(AIWOK)) & occ;
    }
    return res;
}

MovePicker::MovePicker(const Position& pos, Move ttMove, const History& hist, const Move* killers,
                       Move counter, const PieceToHistory* const* contHist) {
    end = generate<LEGAL>(pos, moves);
    score(pos, ttMove, hist, killers, counter, contHist);
}

MovePicker::MovePicker(const Position& pos, Move ttMove, const History& hist) {
    end = pos.in_check() ? generate<EVASIONS>(pos, moves) : generate<CAPTURES>(pos, moves);
    score(pos, ttMove, hist, nullptr, Move::none(), nullptr);
}

void MovePicker::score(const Position& pos, Move ttMove, const History& hist, const Move* killers,
                       Move counter, const PieceToHistory* const* contHist) {
    const Color us = pos.side_to_move();
    // A killer is stored only when it differs from the first: the same move twice would
    // take a slot another quiet move could use.
    assert(!killers || !killers[0] || killers[0] != killers[1]);
    for (Move* m = moves; m < end; ++m) {
        int& s = scores[m - moves];
        // A sutra move lands on its own pawn's square: not a capture.
        const Piece captured = pos.is_capture(*m) ? pos.piece_on(m->to()) : NO_PIECE;
        if (*m == ttMove)
            s = 1 << 30;
        else if (captured || m->is_promotion()) {
            const Piece pc = pos.moved_piece(*m);
            using namespace search::params;
            int mvv = see_value(type_of(captured)) * MvvWeight +
                      (m->is_promotion() ? PromotionBonus : 0) +
                      hist.capture[pc][m->to()][type_of(captured)] / CaptureHistDivisor;
            s = see_ge(pos, *m, 0) ? (1 << 28) + mvv : -(1 << 20) + mvv;
        } else if (killers && *m == killers[0])
            s = (1 << 27) + 2;
        else if (killers && *m == killers[1])
            s = (1 << 27) + 1;
        else if (*m == counter)
            s = 1 << 27;
        else {
            s = hist.get(us, *m);
            if (contHist) {
                const Piece pc = pos.moved_piece(*m);
                s += (*contHist[0])[pc][m->to()] + (*contHist[1])[pc][m->to()];
            }
        }
    }
}

void MovePicker::skip_quiets(const Position& pos) {
    Move* kept = cur;
    for (Move* m = cur; m < end; ++m)
        if (pos.is_capture(*m) || m->is_promotion() || pos.gives_check(*m)) {
            scores[kept - moves] = scores[m - moves];
            *kept++ = *m;
        }
    end = kept;
}

Move MovePicker::next() {
    if (cur == end) return Move::none();
    // Selection sort one step at a time: most nodes cut after a few moves.
    Move* best = cur;
    for (Move* m = cur + 1; m < end; ++m)
        if (scores[m - moves] > scores[best - moves]) best = m;
    std::swap(*best, *cur);
    std::swap(scores[best - moves], scores[cur - moves]);
    return *cur++;
}

} // namespace khun::search
