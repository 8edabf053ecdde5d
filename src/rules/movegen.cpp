#include "khun/rules/movegen.h"

#include <algorithm>
#include <cassert>
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
    // Pawns moved set-wise: each target came from target - delta.
    void add_pawns(Bitboard to, int delta, MoveKind kind) {
        while (to) {
            Square s = pop_lsb(to);
            *cur++ = Move(s - delta, s, kind);
        }
    }
    void add_one(Move m) { *cur++ = m; }
};

struct CountSink {
    int n = 0;
    void add(Square, Bitboard to) { n += popcount(to); }
    void add_pawns(Bitboard to, int, MoveKind) { n += popcount(to); }
    void add_one(Move) { ++n; }
};

// Squares the enemy attacks once our king has left ksq: where the king may not go.
template <Color Us, bool General>
__attribute__((always_inline)) inline Bitboard king_danger(const Position& pos, Square ksq) {
    constexpr Color Them = ~Us;
    const Bitboard occ = pos.pieces() ^ square_bb(ksq);
    const Bitboard pawns = pos.pieces(Them, PAWN);
    Bitboard danger = pawn_attacks_bb<Them>(pawns);
    // Sittuyin's setup phase may have the enemy king still in hand.
    if (!General || pos.has_king(Them)) danger |= attacks::king(pos.king_square(Them));
    for (Bitboard p = pos.pieces(Them, KNIGHT); p;) danger |= attacks::knight(pop_lsb(p));
    for (Bitboard p = pos.pieces(Them, MET); p;) danger |= attacks::met(pop_lsb(p));
    for (Bitboard p = pos.pieces(Them, KHON); p;) danger |= attacks::khon(Them, pop_lsb(p));
    for (Bitboard p = pos.pieces(Them, ROOK); p;) danger |= attacks::rook(pop_lsb(p), occ);
    for (Bitboard p = pos.pieces(Them, AIWOK); p;) danger |= attacks::aiwok(pop_lsb(p), occ);
    return danger;
}

// Whether our king is safe once the occupancy has become `occ` by a move that captures
// nothing and leaves the king where it is: the general legality test for the rare
// first-move specials.
template <Color Us>
bool king_safe_after(const Position& pos, Bitboard occ) {
    return !pos.has_king(Us) || !(pos.attackers_to(pos.king_square(Us), occ) & pos.pieces(~Us));
}

// The drop games: where a piece of kind pt may be dropped, before the occupancy, checks
// and the king's safety are taken into account (Fairy-Stockfish's drop_region).
template <Color Us>
Bitboard drop_squares(const Variant& var, PieceType pt) {
    constexpr Bitboard First = Us == WHITE ? Rank1BB : Rank8BB;
    // Own ranks 1..dropRanks.
    Bitboard b = var.dropRanks >= 8 ? ~Bitboard(0)
                 : Us == WHITE      ? ~Bitboard(0) >> (64 - 8 * var.dropRanks)
                                    : ~Bitboard(0) << (64 - 8 * var.dropRanks);
    if (pt == ROOK && var.rookDropsBackRank) b &= First;
    if (pt == PAWN) {
        // Makrukhouse: anywhere a pawn can still move. Elsewhere not on the first rank nor
        // where a pawn promotes (sittuyin: its diagonal squares).
        if (var.pawnDropsEverywhere)
            b &= ~(Us == WHITE ? Rank8BB : Rank1BB);
        else
            b &= ~First & ~(var.sittuyinPromotion ? sittuyin_promotion_squares(Us)
                                                  : promotion_zone(Us, var.promotionRank));
    }
    return b;
}

// Drops of every kind in hand onto `target`, a king only where it is not attacked. Returns
// whether any was found (sittuyin's setup phase needs to know).
template <Color Us, class Sink>
bool generate_drops(const Position& pos, Bitboard target, Sink& out) {
    const Variant& var = pos.variant();
    bool any = false;
    for (PieceType pt = PAWN; pt <= KING; ++pt) {
        if (!pos.in_hand(Us, pt)) continue;
        Bitboard b = target & drop_squares<Us>(var, pt);
        if (pt == KING)
            for (Bitboard k = b; k;) {
                const Square s = pop_lsb(k);
                if (pos.attackers_to(s, pos.pieces() | square_bb(s)) & pos.pieces(~Us))
                    b ^= square_bb(s);
            }
        for (Bitboard d = b; d;) out.add_one(Move::drop(pt, pop_lsb(d)));
        any |= b != 0;
    }
    return any;
}

// The whole generator. `General` adds what only the related games and the sutras need
// (first-move rights, makpong, karouk's end, promotion choice); makruk positions without
// rights take the General = false instance, which is exactly the plain makruk generator.
template <Color Us, GenType T, bool General, class Sink>
void generate_all(const Position& pos, Sink& out) {
    constexpr Color Them = ~Us;
    constexpr int Up = pawn_push(Us);
    constexpr int UpLeft = Up + WEST, UpRight = Up + EAST;

    const Variant& var = pos.variant();
    // Karouk: a side checked after the opponent's last needed check has lost.
    if (General && pos.lost_by_check()) return;

    const Bitboard occupied = pos.pieces();
    const Bitboard ours = pos.pieces(Us), theirs = pos.pieces(Them);
    // Sittuyin: a side whose king is still in hand has no king to keep safe (and is never
    // in check); its board moves come only once it has no drop left.
    const bool kingless = General && !pos.has_king(Us);
    const Square ksq = kingless ? SQ_NONE : pos.king_square(Us);
    const Bitboard checkers = pos.checkers();

    // The drop games. Drops are quiet; in check they must block the one checker's ray.
    if (General && var.drops && pos.hand_count(Us) && !more_than_one(checkers)) {
        const Bitboard dropTarget =
            ~occupied & (checkers ? between_bb(ksq, lsb(checkers)) : ~Bitboard(0));
        if (var.mustDrop) {
            // Sittuyin's setup: while a drop is legal, no piece moves.
            if (T == CAPTURES) {
                CountSink probe;
                if (generate_drops<Us>(pos, dropTarget, probe)) return;
            } else if (generate_drops<Us>(pos, dropTarget, out))
                return;
        } else if (T != CAPTURES)
            generate_drops<Us>(pos, dropTarget, out);
    }

    const Bitboard kinds = T == CAPTURES ? theirs : T == QUIETS ? ~occupied : ~ours;

    // King: every target that no enemy piece attacks once the king has left its square.
    if (Bitboard b = kingless ? 0 : attacks::king(ksq) & kinds) {
        // Makpong: a king in check may only capture its one checker.
        if (General && var.makpong && checkers) b &= more_than_one(checkers) ? 0 : checkers;
        if (b) out.add(ksq, b & ~king_danger<Us, General>(pos, ksq));
    }
    // First-move king leap (cambodian: not out of check; Sut Khun: any time) to an empty
    // square a knight's move away on the next rank.
    if (General && T != CAPTURES && !kingless && (pos.rights() & square_bb(ksq)) &&
        (var.cambodianMoves ? !checkers : var.sutKhun)) {
        const Bitboard b = attacks::knight(ksq) & rank_bb(rank_of(ksq + Up)) & ~occupied;
        if (b) out.add(ksq, b & ~king_danger<Us, General>(pos, ksq));
    }
    if (more_than_one(checkers)) return;

    // In single check every other move must capture the checker or block its ray.
    const Bitboard checkMask = checkers ? between_bb(ksq, lsb(checkers)) | checkers : ~Bitboard(0);
    const Bitboard target = kinds & checkMask;
    const Bitboard pinned = kingless ? 0 : pos.pinned(Us);
    const Bitboard promoZone = promotion_zone(Us, var.promotionRank);

    // Pawns. Pins are orthogonal, so a pinned pawn never captures and pushes only when
    // pinned along its own file (the king's file).
    {
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
            // Asean: the same promotions to rook, knight and khon.
            if (General && var.promotionChoice)
                for (MoveKind k : {PROMO_ROOK, PROMO_KNIGHT, PROMO_KHON}) {
                    out.add_pawns(push & promoZone, Up, k);
                    out.add_pawns(left & promoZone, UpLeft, k);
                    out.add_pawns(right & promoZone, UpRight, k);
                }
            out.add_pawns(left & ~promoZone, UpLeft, NORMAL);
            out.add_pawns(right & ~promoZone, UpRight, NORMAL);
        }
        if (T != CAPTURES) out.add_pawns(push & ~promoZone, Up, NORMAL);
    }

    // Sittuyin: a pawn on its diagonal squares (the last pawn anywhere) may become the
    // side's one general, where it stands or a diagonal step onward onto an empty square,
    // if the general there attacks no enemy piece; nor may the move uncover a check.
    if (General && T != QUIETS && var.sittuyinPromotion && !pos.count(Us, MET)) {
        const Bitboard pawns = pos.pieces(Us, PAWN);
        const Bitboard theirKing = pos.pieces(Them, KING);
        const Bitboard sliders = pos.pieces(Us, ROOK) | pos.pieces(Us, AIWOK);
        for (Bitboard b = more_than_one(pawns) ? pawns & sittuyin_promotion_squares(Us) : pawns;
             b;) {
            const Square from = pop_lsb(b);
            for (Bitboard t = ((attacks::met(from) & ~occupied) | square_bb(from)) & checkMask;
                 t;) {
                const Square to = pop_lsb(t);
                const Bitboard occ = (occupied ^ square_bb(from)) | square_bb(to);
                if ((attacks::met(to) & theirs) || !king_safe_after<Us>(pos, occ) ||
                    (theirKing && (attacks::rook(lsb(theirKing), occ) & sliders)))
                    continue;
                out.add_one(Move(from, to, PROMOTION));
            }
        }
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

    // The other first-move specials, all quiet. Rare enough to test each by its occupancy.
    if (General && T != CAPTURES && (pos.rights() & ours)) {
        const Bitboard ourPawns = pos.pieces(Us, PAWN);
        for (Bitboard b = pos.rights() & pos.pieces(Us, MET); b;) {
            const Square s = pop_lsb(b);
            const Square to = s + 2 * Up;
            // Cambodian: the unmoved met jumps two squares straight ahead to an empty one.
            if (var.cambodianMoves && !(occupied & square_bb(to)) && (checkMask & square_bb(to)) &&
                king_safe_after<Us>(pos, occupied ^ square_bb(s) ^ square_bb(to)))
                out.add_one(Move(s, to));
            // Sut Met: the pawn in front of the met steps ahead and the met follows.
            if (var.sutMet && (ourPawns & square_bb(to)) && !(occupied & square_bb(to + Up)) &&
                !(promoZone & square_bb(to + Up)) &&
                king_safe_after<Us>(pos, occupied ^ square_bb(s) ^ square_bb(to + Up)))
                out.add_one(Move(s, to, SUT_MOVE));
        }
        if (var.sutMa)
            for (Bitboard b = pos.rights() & pos.pieces(Us, KNIGHT); b;) {
                const Square s = pop_lsb(b);
                // Sut Ma: the pawn on a knight's landing square steps ahead, the knight
                // follows.
                for (Bitboard p = attacks::knight(s) & ourPawns; p;) {
                    const Square to = pop_lsb(p);
                    if (!(occupied & square_bb(to + Up)) && !(promoZone & square_bb(to + Up)) &&
                        king_safe_after<Us>(pos, occupied ^ square_bb(s) ^ square_bb(to + Up)))
                        out.add_one(Move(s, to, SUT_MOVE));
                }
            }
    }
}

template <GenType T, class Sink>
void dispatch(const Position& pos, Sink& sink) {
    if (__builtin_expect(pos.general_movegen(), 0)) {
        if (pos.side_to_move() == WHITE)
            generate_all<WHITE, T, true>(pos, sink);
        else
            generate_all<BLACK, T, true>(pos, sink);
    } else if (pos.side_to_move() == WHITE)
        generate_all<WHITE, T, false>(pos, sink);
    else
        generate_all<BLACK, T, false>(pos, sink);
}

#ifndef NDEBUG
// Debug builds check every list they hand out: each move is listed once, moves a piece
// of the side to move, belongs to the asked kind, leaves its own king safe and agrees
// with gives_check.
template <GenType T>
bool moves_ok(const Position& pos, const Move* begin, const Move* end) {
    const Color us = pos.side_to_move();
    for (const Move* m = begin; m != end; ++m) {
        // A move listed twice would be searched twice, and counted twice by perft.
        if (std::find(m + 1, end, *m) != end) return false;
        const Piece pc = pos.moved_piece(*m);
        if (!pc || color_of(pc) != us) return false;
        const bool noisy = pos.is_capture(*m) || m->is_promotion();
        if ((T == CAPTURES && !noisy) || (T == QUIETS && noisy)) return false;
        Position after;
        StateInfo copy, next;
        after.copy_from(pos, &copy);
        after.do_move(*m, next);
        if (after.has_king(us) && after.attackers_to(after.king_square(us), ~us, after.pieces()))
            return false;
        if (pos.gives_check(*m) != after.in_check()) return false;
    }
    return true;
}
#endif

} // namespace

template <GenType T>
Move* generate(const Position& pos, Move* list) {
    // Evasions are generated as the legal moves of a position in check.
    constexpr GenType G = T == EVASIONS ? LEGAL : T;
    // A caller asking for evasions out of check has lost track of the position.
    assert(T != EVASIONS || pos.in_check());
    ListSink sink{list};
    dispatch<G>(pos, sink);
    assert(sink.cur - list <= MAX_MOVES);
    assert(moves_ok<G>(pos, list, sink.cur));
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

bool generates(const Position& pos, Move m) {
    Move list[MAX_MOVES];
    ListSink sink{list};
    dispatch<LEGAL>(pos, sink);
    return std::find(list, sink.cur, m) != sink.cur;
}

bool has_checking_move(const Position& pos) {
    for (Move m : MoveList(pos))
        if (pos.gives_check(m)) return true;
    return false;
}

std::string to_uci(Move m, const Position& pos) {
    if (m == Move::none()) return "(none)";
    if (m == Move::null()) return "0000";
    // A drop: the piece's letter, upper case for both sides, '@', the square ("R@a1").
    if (m.is_drop()) return pos.variant().pieceChars[m.drop_type()] + ("@" + square_name(m.to()));
    std::string s = square_name(m.from()) + square_name(m.to());
    if (m.is_promotion()) {
        const char c = pos.variant().pieceChars[promotion_type(m, pos.variant())];
        s += char(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

Move parse_uci_move(const Position& pos, const std::string& text) {
    if (text.size() < 4 || text.size() > 5) return Move::none();
    std::string t = text;
    // Some GUIs write the promotion letter in upper case, or a drop's in lower case.
    if (t.size() == 5) t[4] = char(std::tolower(static_cast<unsigned char>(t[4])));
    if (t.size() == 4 && t[1] == '@') t[0] = char(std::toupper(static_cast<unsigned char>(t[0])));
    for (Move m : MoveList(pos)) {
        std::string u = to_uci(m, pos);
        if (u == t) return m;
        // "e5e6" for "e5e6m": accepted when the promotion piece is the only choice.
        if (t.size() == 4 && m.is_promotion() && u.compare(0, 4, t) == 0 &&
            !pos.variant().promotionChoice)
            return m;
    }
    return Move::none();
}

} // namespace khun
