#include "khun/movegen.h"

#include <cctype>

namespace khun {

namespace {

// Where generated moves go: into a list, or only counted. The generator is written once
// against this interface, so perft's bulk count can never disagree with the move list.
struct ListSink {
    Move* cur;
    void add(Square from, Bitboard to) {
        while (to) *cur++ = Move(from, pop_lsb(to));
    }
    void add_promotions(Square from, Bitboard to) {
        while (to) *cur++ = Move(from, pop_lsb(to), PROMOTION);
    }
    // Pawns moved set-wise: each target came from target - delta.
    void add_pawns(Bitboard to, int delta, MoveKind kind) {
        while (to) {
            Square s = pop_lsb(to);
            *cur++ = Move(s - delta, s, kind);
        }
    }
};

struct CountSink {
    int n = 0;
    void add(Square, Bitboard to) { n += popcount(to); }
    void add_promotions(Square, Bitboard to) { n += popcount(to); }
    void add_pawns(Bitboard to, int, MoveKind) { n += popcount(to); }
};

template <Color Us, GenType T, class Sink>
void generate_all(const Position& pos, Sink& out) {
    constexpr Color Them = ~Us;
    constexpr int Up = pawn_push(Us);
    constexpr int UpLeft = Up + WEST, UpRight = Up + EAST;

    const Bitboard occupied = pos.pieces();
    const Bitboard ours = pos.pieces(Us), theirs = pos.pieces(Them);
    const Square ksq = pos.king_square(Us);
    const Bitboard checkers = pos.checkers();

    const Bitboard kinds = T == CAPTURES ? theirs : T == QUIETS ? ~occupied : ~ours;

    // King: every target that no enemy piece attacks once the king has left its square.
    if (Bitboard b = attacks::king(ksq) & kinds) {
        const Bitboard occ = occupied ^ square_bb(ksq);
        const Bitboard pawns = pos.pieces(Them, PAWN);
        Bitboard danger = Them == WHITE ? ((pawns & ~FileABB) << 7) | ((pawns & ~FileHBB) << 9)
                                        : ((pawns & ~FileABB) >> 9) | ((pawns & ~FileHBB) >> 7);
        danger |= attacks::king(pos.king_square(Them));
        for (Bitboard p = pos.pieces(Them, KNIGHT); p;) danger |= attacks::knight(pop_lsb(p));
        for (Bitboard p = pos.pieces(Them, MET); p;) danger |= attacks::met(pop_lsb(p));
        for (Bitboard p = pos.pieces(Them, KHON); p;) danger |= attacks::khon(Them, pop_lsb(p));
        for (Bitboard p = pos.pieces(Them, ROOK); p;) danger |= attacks::rook(pop_lsb(p), occ);
        for (Bitboard p = pos.pieces(Them, AIWOK); p;) danger |= attacks::aiwok(pop_lsb(p), occ);
        out.add(ksq, b & ~danger);
    }
    if (more_than_one(checkers)) return;

    // In single check every other move must capture the checker or block its ray.
    const Bitboard checkMask = checkers ? between_bb(ksq, lsb(checkers)) | checkers : ~Bitboard(0);
    const Bitboard target = kinds & checkMask;
    const Bitboard pinned = pos.pinned(Us);

    // Pawns. Pins are orthogonal, so a pinned pawn never captures and pushes only when
    // pinned along its own file (the king's file).
    {
        const Bitboard promoZone = promotion_zone(Us, pos.variant().promotionRank);
        const Bitboard pawns = pos.pieces(Us, PAWN);
        const Bitboard pushers = pawns & (~pinned | file_bb(ksq));
        const Bitboard capturers = pawns & ~pinned;
        Bitboard push = (Up == NORTH ? pushers << 8 : pushers >> 8) & ~occupied & checkMask;
        Bitboard left = (Up == NORTH ? (capturers & ~FileABB) << 7 : (capturers & ~FileABB) >> 9) &
                        theirs & checkMask;
        Bitboard right = (Up == NORTH ? (capturers & ~FileHBB) << 9 : (capturers & ~FileHBB) >> 7) &
                         theirs & checkMask;
        if (T != QUIETS) {
            out.add_pawns(push & promoZone, Up, PROMOTION);
            out.add_pawns(left & promoZone, UpLeft, PROMOTION);
            out.add_pawns(right & promoZone, UpRight, PROMOTION);
            out.add_pawns(left & ~promoZone, UpLeft, NORMAL);
            out.add_pawns(right & ~promoZone, UpRight, NORMAL);
        }
        if (T != CAPTURES) out.add_pawns(push & ~promoZone, Up, NORMAL);
    }

    // Steppers and leapers: a pinned one cannot move at all (its steps leave the line),
    // except a khon pinned on its file, whose forward step stays on it.
    for (Bitboard b = pos.pieces(Us, KNIGHT) & ~pinned; b;) {
        Square s = pop_lsb(b);
        out.add(s, attacks::knight(s) & target);
    }
    for (Bitboard b = pos.pieces(Us, MET) & ~pinned; b;) {
        Square s = pop_lsb(b);
        out.add(s, attacks::met(s) & target);
    }
    for (Bitboard b = pos.pieces(Us, KHON); b;) {
        Square s = pop_lsb(b);
        Bitboard t = attacks::khon(Us, s) & target;
        if (pinned & square_bb(s)) t &= line_bb(ksq, s);
        out.add(s, t);
    }
    for (Bitboard b = pos.pieces(Us, ROOK); b;) {
        Square s = pop_lsb(b);
        Bitboard t = attacks::rook(s, occupied) & target;
        if (pinned & square_bb(s)) t &= line_bb(ksq, s);
        out.add(s, t);
    }
    for (Bitboard b = pos.pieces(Us, AIWOK); b;) {
        Square s = pop_lsb(b);
        Bitboard t = attacks::aiwok(s, occupied) & target;
        if (pinned & square_bb(s)) t &= line_bb(ksq, s);
        out.add(s, t);
    }
}

template <GenType T, class Sink>
void dispatch(const Position& pos, Sink& sink) {
    if (pos.side_to_move() == WHITE)
        generate_all<WHITE, T>(pos, sink);
    else
        generate_all<BLACK, T>(pos, sink);
}

} // namespace

template <GenType T>
Move* generate(const Position& pos, Move* list) {
    ListSink sink{list};
    dispatch<T == EVASIONS ? LEGAL : T>(pos, sink);
    return sink.cur;
}

template Move* generate<CAPTURES>(const Position&, Move*);
template Move* generate<QUIETS>(const Position&, Move*);
template Move* generate<EVASIONS>(const Position&, Move*);
template Move* generate<LEGAL>(const Position&, Move*);

int count_legal(const Position& pos) {
    CountSink sink;
    dispatch<LEGAL>(pos, sink);
    return sink.n;
}

std::string to_uci(Move m, const Position& pos) {
    if (m == Move::none()) return "(none)";
    if (m == Move::null()) return "0000";
    auto sq = [](Square s) { return std::string{char('a' + file_of(s)), char('1' + rank_of(s))}; };
    std::string s = sq(m.from()) + sq(m.to());
    if (m.is_promotion()) {
        PieceType pt = m.kind() == PROMO_ROOK     ? ROOK
                       : m.kind() == PROMO_KNIGHT ? KNIGHT
                       : m.kind() == PROMO_KHON   ? KHON
                                                  : pos.variant().promotedTo;
        s += char(std::tolower(pos.variant().pieceChars[pt]));
    }
    return s;
}

Move parse_uci_move(const Position& pos, const std::string& text) {
    if (text.size() < 4 || text.size() > 5) return Move::none();
    for (Move m : MoveList(pos)) {
        std::string u = to_uci(m, pos);
        if (u == text) return m;
        // "e5e6" for "e5e6m": accepted when the promotion is the only one from there.
        if (text.size() == 4 && m.is_promotion() && u.compare(0, 4, text) == 0 &&
            pos.variant().promotedTo == MET)
            return m;
    }
    return Move::none();
}

} // namespace khun
