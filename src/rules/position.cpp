#include "khun/rules/position.h"

#include "khun/rules/movegen.h"
#include "khun/rules/prng.h"

#include <cassert>
#include <cctype>
#include <cstring>
#include <mutex>
#include <sstream>

namespace khun {

namespace zobrist {
Key psq[PIECE_NB][SQUARE_NB];
Key side;
Key countLeft[1024];
Key hand[PIECE_NB][MAX_HAND + 1];
} // namespace zobrist

const char* outcome_name(Outcome o) {
    switch (o) {
    case Outcome::None: return "none";
    case Outcome::Checkmate: return "checkmate";
    case Outcome::Stalemate: return "stalemate";
    case Outcome::CountingDraw: return "counting rule";
    case Outcome::Repetition: return "threefold repetition";
    case Outcome::Checked: return "check (karouk: the first check wins)";
    case Outcome::MoveRule: return "fifty-move rule";
    }
    return "?";
}

void Position::init() {
    static std::once_flag once;
    std::call_once(once, [] {
        attacks::init();
        // A fixed seed: the keys (and `d`'s Key line) are the same every run.
        Prng rng(1070372);
        auto next = [&rng] { return rng.next(); };
        // The keys are drawn in the order of the original 3-bit piece encoding (colour
        // << 3 | kind), then the rows of the spare kinds: every existing key, and so every
        // TT index and the bench signature, stays what it was.
        constexpr int OldKinds = 8;
        for (int c = 0; c < COLOR_NB; ++c)
            for (int pt = 0; pt < OldKinds; ++pt)
                for (Key& k : zobrist::psq[make_piece(Color(c), PieceType(pt))]) k = next();
        zobrist::side = next();
        for (Key& k : zobrist::countLeft) k = next();
        for (int c = 0; c < COLOR_NB; ++c)
            for (int pt = OldKinds; pt < 1 << PIECE_TYPE_BITS; ++pt)
                for (Key& k : zobrist::psq[make_piece(Color(c), PieceType(pt))]) k = next();
        // Drawn last, and none for an empty hand: the keys of the games without drops
        // stay what they were.
        for (int pc = 0; pc < PIECE_NB; ++pc)
            for (int n = 1; n <= zobrist::MAX_HAND; ++n) zobrist::hand[pc][n] = next();
    });
}

void Position::copy_from(const Position& o, StateInfo* si) {
    std::memcpy(board, o.board, sizeof board);
    std::memcpy(byType, o.byType, sizeof byType);
    std::memcpy(byColor, o.byColor, sizeof byColor);
    std::memcpy(hand, o.hand, sizeof hand);
    handCount[WHITE] = o.handCount[WHITE], handCount[BLACK] = o.handCount[BLACK];
    sideToMove = o.sideToMove;
    gamePly = o.gamePly;
    var = o.var;
    generalGen = o.generalGen;
    generalMake = o.generalMake;
    *si = *o.st;
    // A fresh record: its sums are computed anew (they may be another net's).
    si->dirty.count = -1;
    si->accumulator.computed[WHITE] = si->accumulator.computed[BLACK] = false;
    st = si;
    // The copy's chain holds the same keys: si's is o.st's, and the states before are o's.
    std::memcpy(seen, o.seen, sizeof seen);
    assert(consistent());
}

// The unused no-piece rows of the piece-square keys stand for the first-move rights
// (White's row, by square) and karouk's check counters (Black's row, by colour and count).
inline Key rights_key(Square s) { return zobrist::psq[make_piece(WHITE, NO_PIECE_TYPE)][s]; }
inline Key checks_key(Color c, int n) {
    assert(n >= 0 && n < 16); // beyond, two counts would share a key
    return zobrist::psq[make_piece(BLACK, NO_PIECE_TYPE)][c * 16 + (n & 15)];
}

Key Position::compute_key() const {
    Key k = sideToMove == BLACK ? zobrist::side : 0;
    for (Square s = SQ_A1; s <= SQ_H8; ++s)
        if (board[s]) k ^= zobrist::psq[board[s]][s];
    for (Bitboard b = st->rights; b;) k ^= rights_key(pop_lsb(b));
    for (Color c : {WHITE, BLACK})
        for (PieceType pt = PAWN; pt <= KING; ++pt)
            k ^= zobrist::hand[make_piece(c, pt)][hand[c][pt]];
    if (var->firstCheckWins)
        k ^= checks_key(WHITE, st->checksLeft[WHITE]) ^ checks_key(BLACK, st->checksLeft[BLACK]);
    return k;
}

Bitboard Position::attackers_to(Square s, Bitboard occupied) const {
    Bitboard a = (attacks::pawn(BLACK, s) & pieces(WHITE, PAWN)) |
                 (attacks::pawn(WHITE, s) & pieces(BLACK, PAWN)) |
                 (attacks::khon(BLACK, s) & pieces(WHITE, KHON)) |
                 (attacks::khon(WHITE, s) & pieces(BLACK, KHON)) |
                 (attacks::knight(s) & byType[KNIGHT]) | (attacks::met(s) & byType[MET]) |
                 (attacks::king(s) & byType[KING]) | (attacks::rook(s, occupied) & byType[ROOK]);
    if (byType[AIWOK]) a |= attacks::aiwok(s, occupied) & byType[AIWOK];
    return a;
}

Bitboard Position::pinned(Color us) const {
    const Square ksq = king_square(us);
    Bitboard snipers =
        attacks::rook(ksq, byColor[~us]) & pieces(~us) & (byType[ROOK] | byType[AIWOK]);
    Bitboard result = 0;
    const Bitboard occ = pieces();
    while (snipers) {
        Bitboard b = between_bb(ksq, pop_lsb(snipers)) & occ;
        if (b && !more_than_one(b)) result |= b & byColor[us];
    }
    return result;
}

// ---------------------------------------------------------------------------------------
// Moves

bool Position::is_legal(Move m) const {
    if (!m) return false;
    if (m.is_drop()) {
        if (!var->drops || m.drop_type() < PAWN || m.drop_type() > KING ||
            !hand[sideToMove][m.drop_type()])
            return false;
    } else {
        Piece pc = board[m.from()];
        if (!pc || color_of(pc) != sideToMove) return false;
    }
    return MoveList(*this).contains(m);
}

bool Position::gives_check(Move m) const {
    assert(m.is_drop() || (board[m.from()] && color_of(board[m.from()]) == sideToMove));
    // Sutra moves and drops (one test: the two last kinds) out of line.
    static_assert(DROP == SUT_MOVE + 1);
    if (m.kind() >= SUT_MOVE) return gives_check_special(m);
    const Color us = sideToMove;
    const Bitboard theirKing = pieces(~us, KING);
    if (!theirKing) return false; // sittuyin: a king still in hand
    const Square from = m.from(), to = m.to();
    const PieceType pt = m.is_promotion() ? promotion_type(m, *var) : type_of(board[from]);
    const Bitboard occ = (pieces() ^ square_bb(from)) | square_bb(to);
    if (attacks::of(pt, us, to, occ) & theirKing) return true;
    const Square ksq = lsb(theirKing);
    // Discovered check: a rook of ours behind the moved piece on the king's line. Only a
    // piece that leaves the king's rank or file can uncover one (the cheap test first).
    if (file_of(from) != file_of(ksq) && rank_of(from) != rank_of(ksq)) return false;
    Bitboard rooks = pieces(us, ROOK) | pieces(us, AIWOK);
    rooks &= ~square_bb(from);
    return rooks && (attacks::rook(ksq, occ) & rooks) != 0;
}

// A drop only adds a piece: its own attack is the only check it can give. A sutra move:
// the pawn on `to` steps ahead, the piece from `from` takes its place.
bool Position::gives_check_special(Move m) const {
    const Color us = sideToMove;
    if (m.is_drop())
        return attacks::of(m.drop_type(), us, m.to(), pieces() | square_bb(m.to())) &
               pieces(~us, KING);
    const Square from = m.from(), to = m.to(), pawnTo = to + pawn_push(us);
    const Square ksq = king_square(~us);
    const Bitboard occ = (pieces() ^ square_bb(from)) | square_bb(pawnTo);
    return (attacks::pawn(us, pawnTo) & square_bb(ksq)) ||
           (attacks::of(type_of(board[from]), us, to, occ) & square_bb(ksq)) ||
           (attacks::rook(ksq, occ) & (pieces(us, ROOK) | pieces(us, AIWOK)) & ~square_bb(from));
}

// docs/rules.md#counting, in moves: 0 (no count), the board's honour limit or the
// pieces' honour limit, by the variant's counting rule (Fairy-Stockfish's count_limit).
int Position::counting_limit_for(Color c) const {
    const Color o = ~c;
    // The pieces' honour limits, by the stronger side's material.
    auto honour = [&](int shorter) {
        const int rooks = count(o, ROOK), khons = count(o, KHON);
        return (rooks > 1              ? 8
                : rooks                ? 16
                : khons > 1            ? 22
                : count(o, KNIGHT) > 1 ? 32
                : khons                ? 44
                                       : 64) -
               shorter;
    };
    switch (var->counting) {
    case CountingRule::Makruk:
        if (byType[PAWN] || !more_than_one(byColor[o])) return 0;
        return more_than_one(byColor[c]) ? 64 : honour(0);
    case CountingRule::Cambodian:
        // Board's honour starts with pawns on the board once the side is down to three
        // pieces; every limit is one move shorter than makruk's.
        if (count(c) > 3 || !more_than_one(byColor[o])) return 0;
        if (more_than_one(byColor[c])) return 63;
        return byType[PAWN] ? 0 : honour(1);
    case CountingRule::Asean:
        // Only a bare king counts, against a rook, khon or knight.
        if (byType[PAWN] || more_than_one(byColor[c])) return 0;
        return count(o, ROOK) ? 16 : count(o, KHON) ? 44 : count(o, KNIGHT) ? 64 : 0;
    case CountingRule::None: return 0;
    }
    return 0;
}

// The count update of docs/rules.md#when-a-count-starts, run after the side to move has
// switched.
void Position::update_counting(Piece captured, bool promotion) {
    const Color stm = sideToMove, mover = ~stm;
    if (captured && type_of(captured) == PAWN && !more_than_one(byColor[mover]) && !byType[PAWN] &&
        var->counting != CountingRule::Asean) {
        if (int l = counting_limit_for(mover)) {
            st->countLimit = 2 * l;
            st->countPly = 2 * popcount(pieces()) - 1;
        }
    }
    if (!st->countLimit || ((captured || promotion) && !more_than_one(byColor[stm]))) {
        if (int l = counting_limit_for(stm)) {
            st->countLimit = 2 * l;
            st->countPly = more_than_one(byColor[stm]) || var->counting == CountingRule::Asean
                               ? 0
                               : 2 * popcount(pieces());
        }
    }
}

Key Position::search_key_after(Move m) const {
    Key k = st->key ^ zobrist::side;
    // A drop or a sutra move keeps only the side and the count: an estimate.
    if (!m.is_drop() && m.kind() != SUT_MOVE) {
        const Square from = m.from(), to = m.to();
        const Piece pc = board[from];
        // Sittuyin's promotion in place (from == to) moves nothing and captures nothing.
        if (from != to) {
            k ^= zobrist::psq[pc][from] ^ zobrist::psq[pc][to];
            if (board[to]) k ^= zobrist::psq[board[to]][to];
        }
        if (m.is_promotion())
            k ^= zobrist::psq[pc][to] ^
                 zobrist::psq[make_piece(sideToMove, promotion_type(m, *var))][to];
    }
    return with_count(k, st->countLimit - st->countPly - 1);
}

// The one make-move. `General` adds what only rights on the board (cambodian first
// moves, sutras) and karouk's check counters need; plain makruk takes the General =
// false instance, which compiles to the lean path without those branches.
template <bool General>
inline __attribute__((always_inline)) void Position::do_move_impl(Move m, StateInfo& newSt) {
    // Copy the carried-over fields, then bump the clocks.
    newSt.rule50 = st->rule50 + 1;
    newSt.pliesFromNull = st->pliesFromNull + 1;
    newSt.countLimit = st->countLimit;
    newSt.countPly = st->countPly + (st->countLimit != 0);
    newSt.previous = st;
    newSt.move = m;
    newSt.dirty.clear();
    newSt.accumulator.computed[WHITE] = newSt.accumulator.computed[BLACK] = false;
    if (General) {
        newSt.rights = st->rights;
        newSt.checksLeft[WHITE] = st->checksLeft[WHITE];
        newSt.checksLeft[BLACK] = st->checksLeft[BLACK];
        newSt.promoted = st->promoted;
    } else
        newSt.rights = newSt.promoted = 0;
    st = &newSt;

    const Color us = sideToMove, them = ~us;
    const Square from = m.from(), to = m.to();
    const bool drop = General && m.is_drop();
    const Piece pc = drop ? make_piece(us, m.drop_type()) : board[from];
    Piece captured = NO_PIECE;
    Key k = st->previous->key ^ zobrist::side;
    const bool sut = General && m.kind() == SUT_MOVE;

    if (drop) {
        // From the hand onto an empty square; irreversible, as in Fairy-Stockfish.
        take_from_hand(pc, k);
        put_piece(pc, to);
        k ^= zobrist::psq[pc][to];
        st->dirty.add(pc, SQ_NONE, to);
        st->dirty.hand(pc, in_hand(us, type_of(pc)), false);
        st->rule50 = 0;
    } else {
        if (sut) {
            // The pawn steps ahead first, then the piece takes the square it left.
            const Square pawnTo = to + pawn_push(us);
            const Piece pawn = board[to];
            move_piece(to, pawnTo);
            st->dirty.add(pawn, to, pawnTo);
            k ^= zobrist::psq[pawn][to] ^ zobrist::psq[pawn][pawnTo];
            st->rule50 = 0;
        } else if ((!General || from != to) && (captured = board[to])) {
            remove_piece(to);
            st->dirty.add(captured, to, SQ_NONE);
            k ^= zobrist::psq[captured][to];
            st->rule50 = 0;
            if (General && var->capturesToHand) {
                // A met that was a pawn goes back to the hand as a pawn.
                const bool wasPawn = st->promoted & square_bb(to);
                const Piece held = make_piece(us, wasPawn ? PAWN : type_of(captured));
                st->dirty.hand(held, in_hand(us, type_of(held)), true);
                add_to_hand(held, k);
                st->promoted &= ~square_bb(to);
            }
        }
        // Sittuyin promotes a pawn where it stands (from == to) as well.
        if (!General || from != to) {
            move_piece(from, to);
            k ^= zobrist::psq[pc][from] ^ zobrist::psq[pc][to];
            if (General && (st->promoted & square_bb(from)))
                st->promoted ^= square_bb(from) | square_bb(to);
        }
        if (type_of(pc) == PAWN) {
            st->rule50 = 0;
            if (m.is_promotion()) {
                Piece promoted = make_piece(us, promotion_type(m, *var));
                remove_piece(to);
                put_piece(promoted, to);
                k ^= zobrist::psq[pc][to] ^ zobrist::psq[promoted][to];
                if (General && var->capturesToHand) st->promoted |= square_bb(to);
            }
        }
        if (m.is_promotion()) { // for the network: the pawn leaves, the new piece appears
            st->dirty.add(pc, from, SQ_NONE);
            st->dirty.add(board[to], SQ_NONE, to);
        } else
            st->dirty.add(pc, from, to);
    }

    if (General) {
        // Rights: lost by the piece that moves and by one captured on its square.
        Bitboard r = st->rights & ~(square_bb(from) | square_bb(to));
        if (drop) r = st->rights; // a drop's `from` is no square
        // Cambodian: an enemy rook arriving on the king's rank or file takes the king's
        // leap away (Fairy-Stockfish tests the rook's lines on an empty board).
        const Bitboard theirKing = pieces(them, KING);
        if (var->cambodianMoves && type_of(pc) == ROOK && (r & theirKing) &&
            (attacks::rook(to, 0) & theirKing))
            r &= ~theirKing;
        // Sutras: Sut Met and Sut Ma belong to a side's first move; only the king's right
        // outlives it.
        if (var->sutras()) r &= ~((us == WHITE ? Rank1BB : Rank8BB) & ~pieces(us, KING));
        for (Bitboard b = r ^ st->rights; b;) k ^= rights_key(pop_lsb(b));
        st->rights = r;
    }

    st->captured = captured;
    sideToMove = them;
    ++gamePly;
    // With pawns on the board only Cambodian's board's honour can start a count.
    const CountingRule counting = var->counting;
    if (counting != CountingRule::None && (!byType[PAWN] || counting == CountingRule::Cambodian))
        update_counting(captured, m.is_promotion());

    if (General && !has_king(them))
        st->checkers = 0; // sittuyin: a king still in hand cannot be checked
    else {
        const Square ksq = king_square(them);
        if (sut)
            st->checkers = attackers_to(ksq, pieces()) & pieces(us);
        else {
            // Only a rook slides, so a check comes from the moved piece or along a rook's
            // line.
            const Piece moved = board[to];
            st->checkers = attacks::rook(ksq, pieces()) & (pieces(us, ROOK) | pieces(us, AIWOK));
            if (type_of(moved) != ROOK &&
                (attacks::of(type_of(moved), us, to, pieces()) & square_bb(ksq)))
                st->checkers |= square_bb(to);
        }
    }
    // Karouk: each check uses up one of the checker's counters; at zero it has won.
    if (General && var->firstCheckWins && st->checkers && st->checksLeft[us]) {
        k ^= checks_key(us, st->checksLeft[us]) ^ checks_key(us, st->checksLeft[us] - 1);
        --st->checksLeft[us];
    }
    st->key = k;
}

// The general path out of line, so that do_move's code is the lean path alone.
__attribute__((noinline)) void Position::do_move_general(Move m, StateInfo& newSt) {
    do_move_impl<true>(m, newSt);
}

void Position::do_move(Move m, StateInfo& newSt) {
    assert(m && &newSt != st);
    if (m.is_drop()) {
        assert(var->drops && hand[sideToMove][m.drop_type()] > 0 && !board[m.to()]);
    } else {
        // Only sittuyin's promotion may stay on its square.
        assert(m.from() != m.to() || (var->sittuyinPromotion && m.is_promotion()));
        assert(board[m.from()] && color_of(board[m.from()]) == sideToMove);
        // Not onto a piece of ours, but for a sutra move, which lands on its own pawn.
        assert(m.kind() == SUT_MOVE
                   ? board[m.to()] == make_piece(sideToMove, PAWN)
                   : m.from() == m.to() || !board[m.to()] || color_of(board[m.to()]) != sideToMove);
        assert(type_of(board[m.to()]) != KING);
        assert(!m.is_promotion() || type_of(board[m.from()]) == PAWN);
    }
#ifndef NDEBUG
    // Test oracles make pseudo-legal moves to learn which are legal, so a move the legal
    // generator does not list is let through only if it leaves the mover's king attacked.
    const bool listed = generates(*this, m);
#endif
    if (__builtin_expect((st->rights | generalMake) != 0, 0))
        do_move_general(m, newSt);
    else
        do_move_impl<false>(m, newSt);
    ++seen[seen_slot(st->key)];
    assert(listed ||
           (has_king(~sideToMove) && attackers_to(king_square(~sideToMove), sideToMove, pieces())));
    assert(consistent());
}

void Position::undo_move(Move m) {
    // Only the last move made can be taken back, and only once.
    assert(st->previous && m == st->move);
    assert(board[m.to()] && color_of(board[m.to()]) != sideToMove);
    sideToMove = ~sideToMove;
    const Color us = sideToMove;
    const Square from = m.from(), to = m.to();
    Key unused = 0; // the keys come back with the previous state
    // A captured piece comes back, and in makrukhouse leaves the captor's hand.
    auto uncapture = [&] {
        if (!st->captured) return;
        put_piece(st->captured, to);
        if (generalMake && var->capturesToHand) {
            const bool wasPawn = st->previous->promoted & square_bb(to);
            take_from_hand(make_piece(us, wasPawn ? PAWN : type_of(st->captured)), unused);
        }
    };
    if (m.kind() == NORMAL) {
        move_piece(to, from);
        uncapture();
    } else if (m.kind() == SUT_MOVE) {
        move_piece(to, from);
        move_piece(to + pawn_push(us), to);
    } else if (m.is_drop()) {
        const Piece pc = board[to];
        remove_piece(to);
        add_to_hand(pc, unused);
    } else {
        // A promotion: the pawn comes back. Sittuyin's in place (from == to) stays where it
        // is and never captures.
        remove_piece(to);
        put_piece(make_piece(us, PAWN), to);
        assert(from != to || !st->captured);
        if (from != to) {
            move_piece(to, from);
            uncapture();
        }
    }
    --seen[seen_slot(st->key)];
    st = st->previous;
    --gamePly;
    assert(consistent());
}

void Position::do_null_move(StateInfo& newSt) {
    // Passing in check would leave the king to be taken.
    assert(!st->checkers);
    newSt = *st; // the accumulator too: a null move changes no piece
    newSt.previous = st;
    newSt.move = Move::null();
    newSt.dirty.clear();
    newSt.captured = NO_PIECE;
    newSt.key = st->key ^ zobrist::side;
    newSt.rule50 = st->rule50 + 1;
    newSt.pliesFromNull = 0;
    newSt.countPly = st->countPly + (st->countLimit != 0);
    newSt.checkers = 0;
    st = &newSt;
    ++seen[seen_slot(st->key)];
    sideToMove = ~sideToMove;
    ++gamePly;
    assert(consistent());
}

void Position::undo_null_move() {
    assert(st->previous && st->move == Move::null());
    --seen[seen_slot(st->key)];
    st = st->previous;
    sideToMove = ~sideToMove;
    --gamePly;
    assert(consistent());
}

// ---------------------------------------------------------------------------------------
// Game end

bool Position::is_repetition(int ply) const {
    // With captures going to hand a capture or a drop can be undone: look back to the
    // last null move, as Fairy-Stockfish does.
    const int end =
        var->capturesToHand ? st->pliesFromNull : std::min(st->rule50, st->pliesFromNull);
    if (end < 4) return false;
    // Only itself in its slot: no earlier state has its key. (A debug build walks anyway
    // and checks that.)
    const bool maybe = seen[seen_slot(st->key)] >= 2;
#ifdef NDEBUG
    if (!maybe) return false;
#endif
    const StateInfo* stp = st->previous->previous;
    int cnt = 0;
    for (int i = 4; i <= end; i += 2) {
        stp = stp->previous->previous;
        assert(stp->key != st->key || maybe);
        // A repeat strictly after the root is enough inside the search; before it, the
        // position must have occurred twice already (threefold).
        if (stp->key == st->key && ++cnt + 1 >= (ply > i ? 2 : 3)) return true;
    }
    return false;
}

// Sittuyin: a king and one pawn, not in check, that can only promote is stalemated
// (Fairy-Stockfish, after the Burmese rules' 3.9 c.7): promotion is a choice, not a must.
bool Position::lone_pawn_must_promote() const {
    if (st->checkers || popcount(byColor[sideToMove]) != 2 || count(sideToMove, PAWN) != 1)
        return false;
    for (Move m : MoveList(*this))
        if (!m.is_promotion()) return false;
    return true;
}

bool Position::is_draw(int ply) const {
    if (is_repetition(ply)) return true;
    if (promotion_stalemate()) return true;
    // The count (or asean's fifty-move rule) ends the game unless the side to move is
    // checkmated.
    const bool expired = counting_expired() || (var->moveRule && st->rule50 >= 2 * var->moveRule);
    return expired && (!st->checkers || count_legal(*this) > 0);
}

Outcome Position::outcome(int ply) const {
    if (lost_by_check()) return Outcome::Checked;
    if (count_legal(*this) == 0) return st->checkers ? Outcome::Checkmate : Outcome::Stalemate;
    if (promotion_stalemate()) return Outcome::Stalemate;
    if (counting_expired()) return Outcome::CountingDraw;
    if (var->moveRule && st->rule50 >= 2 * var->moveRule) return Outcome::MoveRule;
    if (is_repetition(ply)) return Outcome::Repetition;
    return Outcome::None;
}

// ---------------------------------------------------------------------------------------
// Display and checks

std::string Position::pretty() const {
    std::ostringstream os;
    os << "\n +---+---+---+---+---+---+---+---+\n";
    for (int r = RANK_8; r >= RANK_1; --r) {
        for (int f = FILE_A; f <= FILE_H; ++f) {
            Piece pc = board[make_square(File(f), Rank(r))];
            char c = ' ';
            if (pc) {
                c = var->pieceChars[type_of(pc)];
                if (color_of(pc) == BLACK) c = char(std::tolower(static_cast<unsigned char>(c)));
            }
            os << " | " << c;
        }
        os << " | " << (r + 1) << "\n +---+---+---+---+---+---+---+---+\n";
    }
    os << "   a   b   c   d   e   f   g   h\n\nFen: " << fen() << "\nKey: ";
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(st->key));
    os << buf << "\n";
    // A game over by the rules says so, the draws included that the protocols leave to
    // the GUI to claim (the count, the fifty-move rule, threefold repetition): a referee
    // holding the game reads its end here.
    if (const Outcome o = outcome(); o != Outcome::None) {
        const char* result = khun::is_draw(o) ? "1/2-1/2" : sideToMove == WHITE ? "0-1" : "1-0";
        os << "Outcome: " << result << " {" << outcome_name(o) << "}\n";
    }
    os << "Checkers: ";
    for (Bitboard b = st->checkers; b;) os << square_name(pop_lsb(b)) << ' ';
    os << "\n";
    return os.str();
}

bool Position::is_ok(std::string* why) const {
    if (!consistent(why)) return false;
    if (has_king(~sideToMove) &&
        (attackers_to(king_square(~sideToMove), pieces()) & byColor[sideToMove])) {
        if (why) *why = "side not to move in check";
        return false;
    }
    return true;
}

bool Position::consistent(std::string* why) const {
    auto fail = [&](const char* w) {
        if (why) *why = w;
        return false;
    };
    if (sideToMove != WHITE && sideToMove != BLACK) return fail("side to move");
    for (Color c : {WHITE, BLACK}) {
        // Sittuyin: a king may still be in hand.
        if (popcount(pieces(c, KING)) + hand[c][KING] != 1 || (!has_king(c) && !var->mustDrop))
            return fail("king count");
        int inHand = 0;
        for (PieceType pt = PAWN; pt <= KING; ++pt) inHand += hand[c][pt];
        if (inHand != handCount[c] || hand[c][NO_PIECE_TYPE]) return fail("hand count");
        if (inHand && !var->drops) return fail("pieces in hand in a game without drops");
        if (!var->capturesToHand && popcount(byColor[c]) + inHand > 16)
            return fail("more than 16 pieces a side");
    }
    if (byColor[WHITE] & byColor[BLACK]) return fail("colour overlap");
    if (popcount(pieces()) + handCount[WHITE] + handCount[BLACK] > 32)
        return fail("more than 32 pieces");
    if (byType[NO_PIECE_TYPE]) return fail("pieces without a kind");
    // Makrukhouse drops pawns into the zone, but never onto the last rank.
    const Rank zone = var->pawnDropsEverywhere ? RANK_8 : var->promotionRank;
    if ((pieces(WHITE, PAWN) & promotion_zone(WHITE, zone)) ||
        (pieces(BLACK, PAWN) & promotion_zone(BLACK, zone)))
        return fail("unpromoted pawn in its promotion zone");
    if (st->promoted & ~(var->capturesToHand ? pieces(var->promotedTo) : 0))
        return fail("promoted mark without its promoted piece");
    if (st->countLimit && (st->countLimit < 0 || st->countPly < 0)) return fail("negative count");
    if (st->rule50 < 0 || st->pliesFromNull < 0 || gamePly < 0) return fail("negative clock");
    if (st->dirty.count < -1 || st->dirty.count > 3) return fail("network's change record");
    // The copies of the variant's flags that movegen and do_move test instead of `var`.
    if (generalGen != (var->general_movegen() ? ~Bitboard(0) : 0) ||
        generalMake != (var->general_make() ? ~Bitboard(0) : 0))
        return fail("cached variant flags");
    if (var->firstCheckWins && (st->checksLeft[WHITE] > 15 || st->checksLeft[BLACK] > 15))
        return fail("check counters");
    Bitboard all = 0;
    for (PieceType pt = PAWN; pt <= KING; ++pt) {
        if (all & byType[pt]) return fail("type overlap");
        all |= byType[pt];
    }
    if (all != pieces()) return fail("type/colour mismatch");
    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        Piece pc = board[s];
        if (pc ? !(pieces(color_of(pc), type_of(pc)) & square_bb(s))
               : (pieces() & square_bb(s)) != 0)
            return fail("mailbox mismatch");
    }
    if (st->rights && !var->has_rights()) return fail("rights in a game without them");
    if (st->rights & ~(Rank1BB | Rank8BB)) return fail("rights off the back ranks");
    if ((st->rights & Rank1BB & ~byColor[WHITE]) || (st->rights & Rank8BB & ~byColor[BLACK]))
        return fail("right without its piece");
    if (st->key != compute_key()) return fail("key");
    if (!seen[seen_slot(st->key)]) return fail("repetition filter");
    if (st->checkers != (has_king(sideToMove) ? attackers_to(king_square(sideToMove), pieces()) &
                                                    byColor[~sideToMove]
                                              : 0))
        return fail("checkers");
    return true;
}

// ---------------------------------------------------------------------------------------
// Game

std::unique_ptr<Game> Game::make(const std::string& fen, const std::vector<std::string>& moves,
                                 const Variant& v, std::string& error) {
    auto g = std::make_unique<Game>();
    g->states.emplace_back();
    if (auto err = g->pos.set(fen, v, &g->states.back())) {
        error = "invalid FEN: " + *err;
        return nullptr;
    }
    for (const std::string& text : moves) {
        Move m = parse_uci_move(g->pos, text);
        if (!m) {
            error = "illegal move '" + text + "' in position " + g->pos.fen();
            return nullptr;
        }
        g->play(m);
    }
    return g;
}

void Game::forget_accumulators() {
    for (StateInfo& si : states)
        si.accumulator.computed[WHITE] = si.accumulator.computed[BLACK] = false;
}

void Game::play(Move m) {
    // Callers parse moves against the legal list (parse_uci_move, SAN): anything else is
    // their bug, and would leave a game no one could replay.
    assert(pos.is_legal(m));
    states.emplace_back();
    pos.do_move(m, states.back());
    moves.push_back(m);
}

bool Game::undo() {
    if (moves.empty()) return false;
    pos.undo_move(moves.back());
    moves.pop_back();
    states.pop_back();
    return true;
}

} // namespace khun
