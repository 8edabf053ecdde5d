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
    });
}

// ---------------------------------------------------------------------------------------
// FEN

namespace {

// Reads a whole non-negative number; nullopt on anything else or on absurd sizes.
std::optional<int> parse_count(const std::string& s, int max) {
    if (s.empty() || s.size() > 9) return std::nullopt;
    int v = 0;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        v = v * 10 + (c - '0');
    }
    if (v > max) return std::nullopt;
    return v;
}

} // namespace

namespace {

// Which own piece a first-move right in field 3 may belong to. Cambodian keeps a right on
// any own piece, as Fairy-Stockfish does; a sutra right is kept only where a sutra can use it.
bool right_applies(const Variant& v, PieceType pt) {
    if (v.cambodianMoves) return true;
    return (pt == KING && v.sutKhun) || (pt == MET && v.sutMet) || (pt == KNIGHT && v.sutMa);
}

} // namespace

std::optional<std::string> Position::set(const std::string& fen, const Variant& v, StateInfo* si) {
    std::istringstream ss(fen);
    std::vector<std::string> f;
    for (std::string t; ss >> t && f.size() < 10;) f.push_back(t);
    if (f.empty()) return "empty FEN";
    size_t i = 1;
    auto next = [&](const char* dflt) { return i < f.size() ? f[i++] : std::string(dflt); };
    const std::string board_s = f[0], side_s = next("w"), castle_s = next("-"), f4 = next("-");
    // Karouk: the checks each side still needs ("1+1"), between fields 4 and 5.
    std::string checks_s;
    if (v.firstCheckWins && i < f.size() && f[i].find('+') != std::string::npos) checks_s = f[i++];
    const std::string f5 = next("0"), f6 = next("1");
    if (i < f.size())
        return std::string("FEN has more than ") + (v.firstCheckWins ? "7" : "6") + " fields";

    // Parse into a scratch copy so that *this stays untouched on error.
    Piece nb[SQUARE_NB] = {};
    int rank = 7, file = 0;
    for (size_t j = 0; j < board_s.size(); ++j) {
        char c = board_s[j];
        if (c == '/') {
            if (file != 8)
                return "rank " + std::to_string(rank + 1) + " has " + std::to_string(file) +
                       " squares, not 8";
            if (--rank < 0) return "more than 8 ranks";
            file = 0;
        } else if (c == '~') {
            // Fairy-Stockfish marks a promoted piece (pychess.org's FENs carry it); without
            // drops a promoted met is a met in every respect, so the mark changes nothing.
            if (j == 0 || !std::isalpha(static_cast<unsigned char>(board_s[j - 1])))
                return "'~' (a promoted piece) must follow a piece letter";
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8) return "rank " + std::to_string(rank + 1) + " is longer than 8 squares";
        } else {
            size_t idx = std::isalpha(static_cast<unsigned char>(c))
                             ? v.pieceChars.find(char(std::toupper(static_cast<unsigned char>(c))))
                             : std::string::npos;
            if (idx == std::string::npos || idx == 0)
                return std::string("unknown piece letter '") + c + "' in " + v.name;
            if (file >= 8) return "rank " + std::to_string(rank + 1) + " is longer than 8 squares";
            Color col = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
            nb[make_square(File(file), Rank(rank))] = make_piece(col, PieceType(idx));
            ++file;
        }
    }
    if (rank != 0) return "FEN has " + std::to_string(8 - rank) + " ranks, not 8";
    if (file != 8) return "rank 1 has " + std::to_string(file) + " squares, not 8";

    Color stm;
    if (side_s == "w")
        stm = WHITE;
    else if (side_s == "b")
        stm = BLACK;
    else
        return "side to move must be 'w' or 'b', not '" + side_s + "'";

    // Field 3: first-move rights as files, upper case for White's first rank, lower case
    // for Black's eighth. A letter whose square holds no piece that can use it is dropped.
    Bitboard rights = 0;
    if (castle_s != "-") {
        if (!v.has_rights())
            return "castling field must be '-' in " + v.name + ", not '" + castle_s + "'";
        for (char c : castle_s) {
            const bool white = c >= 'A' && c <= 'H', black = c >= 'a' && c <= 'h';
            if (!white && !black)
                return "first-move rights must be files such as 'DEde', or '-', not '" + castle_s +
                       "'";
            const Color col = white ? WHITE : BLACK;
            const Square s = make_square(File(c - (white ? 'A' : 'a')), white ? RANK_1 : RANK_8);
            if (nb[s] && color_of(nb[s]) == col && right_applies(v, type_of(nb[s])))
                rights |= square_bb(s);
        }
    }

    uint8_t checks[COLOR_NB] = {1, 1};
    if (!checks_s.empty()) {
        if (checks_s.size() != 3 || checks_s[1] != '+' || !std::isdigit(uint8_t(checks_s[0])) ||
            !std::isdigit(uint8_t(checks_s[2])))
            return "check counters must look like '1+1', not '" + checks_s + "'";
        checks[WHITE] = uint8_t(checks_s[0] - '0');
        checks[BLACK] = uint8_t(checks_s[2] - '0');
    }

    int limit = 0, ply = 0, r50 = 0;
    if (f4 != "-") {
        auto l = parse_count(f4, 1000);
        if (!l) return "counting limit must be '-' or a number of plies, not '" + f4 + "'";
        limit = *l;
    }
    auto p5 = parse_count(f5, 100000);
    if (!p5) return "halfmove/counting ply must be a number, not '" + f5 + "'";
    auto p6 = parse_count(f6, 100000);
    if (!p6) return "fullmove number must be a number, not '" + f6 + "'";
    // Fairy-Stockfish: with a running count field 5 is the counting ply.
    if (limit) {
        ply = *p5;
        if (ply > 1000) return "counting ply " + f5 + " is out of range";
    } else
        r50 = *p5;

    // Whole-position checks.
    int kings[COLOR_NB] = {}, total[COLOR_NB] = {};
    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        Piece pc = nb[s];
        if (!pc) continue;
        ++total[color_of(pc)];
        if (type_of(pc) == KING) ++kings[color_of(pc)];
        if (type_of(pc) == PAWN && relative_rank(color_of(pc), s) >= v.promotionRank)
            return "pawn on " + square_name(s) + " stands on its promotion zone";
    }
    for (Color c : {WHITE, BLACK}) {
        const char* name = c == WHITE ? "White" : "Black";
        if (kings[c] != 1)
            return std::string(name) + " has " + std::to_string(kings[c]) + " kings, not 1";
        if (total[c] > 16) return std::string(name) + " has more than 16 pieces";
    }

    // Build on a scratch position, so that *this stays untouched if the last check fails.
    Position tmp;
    tmp.var = &v;
    for (Square s = SQ_A1; s <= SQ_H8; ++s)
        if (nb[s]) tmp.put_piece(nb[s], s);
    if (tmp.attackers_to(tmp.king_square(~stm), tmp.pieces()) & tmp.pieces(stm))
        return std::string(stm == WHITE ? "White" : "Black") +
               " is to move and could capture the enemy king";

    std::memcpy(board, tmp.board, sizeof board);
    std::memcpy(byType, tmp.byType, sizeof byType);
    std::memcpy(byColor, tmp.byColor, sizeof byColor);
    var = &v;
    generalGen = v.general_movegen() ? ~Bitboard(0) : 0;
    generalMake = v.firstCheckWins ? ~Bitboard(0) : 0;
    sideToMove = stm;
    gamePly = std::max(2 * (*p6 - 1), 0) + (stm == BLACK);
    *si = StateInfo{};
    st = si;
    st->rule50 = r50;
    st->countLimit = limit;
    st->countPly = ply;
    st->rights = rights;
    if (v.firstCheckWins)
        st->checksLeft[WHITE] = checks[WHITE], st->checksLeft[BLACK] = checks[BLACK];
    st->key = compute_key();
    st->checkers = attackers_to(king_square(stm), pieces()) & pieces(~stm);
    st->move = Move::none();
    // The checks above refuse whatever else would break what do_move relies on.
    assert(is_ok());
    return std::nullopt;
}

void Position::copy_from(const Position& o, StateInfo* si) {
    std::memcpy(board, o.board, sizeof board);
    std::memcpy(byType, o.byType, sizeof byType);
    std::memcpy(byColor, o.byColor, sizeof byColor);
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
    assert(consistent());
}

std::string board_fen(const Piece board[SQUARE_NB], const Variant& v) {
    std::string s;
    for (int r = RANK_8; r >= RANK_1; --r) {
        int empty = 0;
        for (int f = FILE_A; f <= FILE_H; ++f) {
            Piece pc = board[make_square(File(f), Rank(r))];
            if (!pc) {
                ++empty;
                continue;
            }
            if (empty) s += char('0' + empty), empty = 0;
            char c = v.pieceChars[type_of(pc)];
            s += color_of(pc) == WHITE ? c : char(std::tolower(static_cast<unsigned char>(c)));
        }
        if (empty) s += char('0' + empty);
        if (r > RANK_1) s += '/';
    }
    return s;
}

std::string Position::fen() const {
    std::string s = board_fen(board, *var);
    s += sideToMove == WHITE ? " w " : " b ";
    // Field 3: White's rights by file, then Black's, as Fairy-Stockfish writes gates.
    std::string rights;
    for (Bitboard b = st->rights & Rank1BB; b;) rights += char('A' + file_of(pop_lsb(b)));
    for (Bitboard b = st->rights & Rank8BB; b;) rights += char('a' + file_of(pop_lsb(b)));
    s += rights.empty() ? "-" : rights;
    s += st->countLimit ? " " + std::to_string(st->countLimit) : std::string(" -");
    if (var->firstCheckWins)
        s += " " + std::to_string(st->checksLeft[WHITE]) + "+" +
             std::to_string(st->checksLeft[BLACK]);
    s += " " + std::to_string(st->countLimit ? st->countPly : st->rule50);
    s += " " + std::to_string(1 + (gamePly - (sideToMove == BLACK)) / 2);
    return s;
}

// ---------------------------------------------------------------------------------------
// Placement

inline void Position::put_piece(Piece pc, Square s) {
    assert(!board[s]); // the bits of a piece overwritten would stay behind
    board[s] = pc;
    byType[type_of(pc)] |= square_bb(s);
    byColor[color_of(pc)] |= square_bb(s);
}

inline void Position::remove_piece(Square s) {
    assert(board[s]); // XOR would put a phantom piece on the square instead
    Piece pc = board[s];
    byType[type_of(pc)] ^= square_bb(s);
    byColor[color_of(pc)] ^= square_bb(s);
    board[s] = NO_PIECE;
}

inline void Position::move_piece(Square from, Square to) {
    assert(board[from] && !board[to]); // a capture removes its victim first
    Piece pc = board[from];
    Bitboard fromTo = square_bb(from) | square_bb(to);
    byType[type_of(pc)] ^= fromTo;
    byColor[color_of(pc)] ^= fromTo;
    board[from] = NO_PIECE;
    board[to] = pc;
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
    Piece pc = board[m.from()];
    if (!pc || color_of(pc) != sideToMove) return false;
    return MoveList(*this).contains(m);
}

bool Position::gives_check(Move m) const {
    assert(board[m.from()] && color_of(board[m.from()]) == sideToMove);
    if (m.kind() == SUT_MOVE) return gives_check_sut(m);
    const Color us = sideToMove;
    const Square from = m.from(), to = m.to();
    const Square ksq = king_square(~us);
    const PieceType pt = m.is_promotion() ? promotion_type(m, *var) : type_of(board[from]);
    const Bitboard occ = (pieces() ^ square_bb(from)) | square_bb(to);
    if (attacks::of(pt, us, to, occ) & square_bb(ksq)) return true;
    // Discovered check: a rook of ours behind the moved piece on the king's line. Only a
    // piece that leaves the king's rank or file can uncover one (the cheap test first).
    if (file_of(from) != file_of(ksq) && rank_of(from) != rank_of(ksq)) return false;
    Bitboard rooks = pieces(us, ROOK) | pieces(us, AIWOK);
    rooks &= ~square_bb(from);
    return rooks && (attacks::rook(ksq, occ) & rooks) != 0;
}

// A sutra move: the pawn on `to` steps ahead, the piece from `from` takes its place.
bool Position::gives_check_sut(Move m) const {
    const Color us = sideToMove;
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
    newSt.dirty.count = 0;
    newSt.accumulator.computed[WHITE] = newSt.accumulator.computed[BLACK] = false;
    if (General) {
        newSt.rights = st->rights;
        newSt.checksLeft[WHITE] = st->checksLeft[WHITE];
        newSt.checksLeft[BLACK] = st->checksLeft[BLACK];
    } else
        newSt.rights = 0;
    st = &newSt;

    const Color us = sideToMove, them = ~us;
    const Square from = m.from(), to = m.to();
    const Piece pc = board[from];
    Piece captured = NO_PIECE;
    Key k = st->previous->key ^ zobrist::side;
    const bool sut = General && m.kind() == SUT_MOVE;

    if (sut) {
        // The pawn steps ahead first, then the piece takes the square it left.
        const Square pawnTo = to + pawn_push(us);
        const Piece pawn = board[to];
        move_piece(to, pawnTo);
        st->dirty.add(pawn, to, pawnTo);
        k ^= zobrist::psq[pawn][to] ^ zobrist::psq[pawn][pawnTo];
        st->rule50 = 0;
    } else if ((captured = board[to])) {
        remove_piece(to);
        st->dirty.add(captured, to, SQ_NONE);
        k ^= zobrist::psq[captured][to];
        st->rule50 = 0;
    }
    move_piece(from, to);
    k ^= zobrist::psq[pc][from] ^ zobrist::psq[pc][to];
    if (type_of(pc) == PAWN) {
        st->rule50 = 0;
        if (m.is_promotion()) {
            Piece promoted = make_piece(us, promotion_type(m, *var));
            remove_piece(to);
            put_piece(promoted, to);
            k ^= zobrist::psq[pc][to] ^ zobrist::psq[promoted][to];
        }
    }
    if (m.is_promotion()) { // for the network: the pawn leaves, the new piece appears
        st->dirty.add(pc, from, SQ_NONE);
        st->dirty.add(board[to], SQ_NONE, to);
    } else
        st->dirty.add(pc, from, to);

    if (General) {
        // Rights: lost by the piece that moves and by one captured on its square.
        Bitboard r = st->rights & ~(square_bb(from) | square_bb(to));
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

    const Square ksq = king_square(them);
    if (sut)
        st->checkers = attackers_to(ksq, pieces()) & pieces(us);
    else {
        // Only a rook slides, so a check comes from the moved piece or along a rook's line.
        const Piece moved = board[to];
        st->checkers = attacks::rook(ksq, pieces()) & (pieces(us, ROOK) | pieces(us, AIWOK));
        if (type_of(moved) != ROOK &&
            (attacks::of(type_of(moved), us, to, pieces()) & square_bb(ksq)))
            st->checkers |= square_bb(to);
    }
    // Karouk: each check uses up one of the checker's counters; at zero it has won.
    if (General && var->firstCheckWins && st->checkers && st->checksLeft[us]) {
        k ^= checks_key(us, st->checksLeft[us]) ^ checks_key(us, st->checksLeft[us] - 1);
        --st->checksLeft[us];
    }
    st->key = k;
}

void Position::do_move(Move m, StateInfo& newSt) {
    assert(m && m.from() != m.to() && &newSt != st);
    assert(board[m.from()] && color_of(board[m.from()]) == sideToMove);
    // Not onto a piece of ours, but for a sutra move, which lands on its own pawn.
    assert(m.kind() == SUT_MOVE ? board[m.to()] == make_piece(sideToMove, PAWN)
                                : !board[m.to()] || color_of(board[m.to()]) != sideToMove);
    assert(type_of(board[m.to()]) != KING);
    assert(!m.is_promotion() || type_of(board[m.from()]) == PAWN);
#ifndef NDEBUG
    // Test oracles make pseudo-legal moves to learn which are legal, so a move the legal
    // generator does not list is let through only if it leaves the mover's king attacked.
    const bool listed = generates(*this, m);
#endif
    if (__builtin_expect((st->rights | generalMake) != 0, 0))
        do_move_impl<true>(m, newSt);
    else
        do_move_impl<false>(m, newSt);
    assert(listed || attackers_to(king_square(~sideToMove), sideToMove, pieces()));
    assert(consistent());
}

void Position::undo_move(Move m) {
    // Only the last move made can be taken back, and only once.
    assert(st->previous && m == st->move);
    assert(!board[m.from()] && board[m.to()] && color_of(board[m.to()]) != sideToMove);
    sideToMove = ~sideToMove;
    const Color us = sideToMove;
    const Square from = m.from(), to = m.to();
    if (m.kind() != NORMAL) {
        if (m.kind() == SUT_MOVE) {
            move_piece(to, from);
            move_piece(to + pawn_push(us), to);
            st = st->previous;
            --gamePly;
            assert(consistent());
            return;
        }
        remove_piece(to);
        put_piece(make_piece(us, PAWN), to);
    }
    move_piece(to, from);
    if (st->captured) put_piece(st->captured, to);
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
    newSt.dirty.count = 0;
    newSt.captured = NO_PIECE;
    newSt.key = st->key ^ zobrist::side;
    newSt.rule50 = st->rule50 + 1;
    newSt.pliesFromNull = 0;
    newSt.countPly = st->countPly + (st->countLimit != 0);
    newSt.checkers = 0;
    st = &newSt;
    sideToMove = ~sideToMove;
    ++gamePly;
    assert(consistent());
}

void Position::undo_null_move() {
    assert(st->previous && st->move == Move::null());
    st = st->previous;
    sideToMove = ~sideToMove;
    --gamePly;
    assert(consistent());
}

// ---------------------------------------------------------------------------------------
// Game end

bool Position::is_repetition(int ply) const {
    const int end = std::min(st->rule50, st->pliesFromNull);
    if (end < 4) return false;
    const StateInfo* stp = st->previous->previous;
    int cnt = 0;
    for (int i = 4; i <= end; i += 2) {
        stp = stp->previous->previous;
        // A repeat strictly after the root is enough inside the search; before it, the
        // position must have occurred twice already (threefold).
        if (stp->key == st->key && ++cnt + 1 >= (ply > i ? 2 : 3)) return true;
    }
    return false;
}

bool Position::is_draw(int ply) const {
    if (is_repetition(ply)) return true;
    // The count (or asean's fifty-move rule) ends the game unless the side to move is
    // checkmated.
    const bool expired = counting_expired() || (var->moveRule && st->rule50 >= 2 * var->moveRule);
    return expired && (!st->checkers || count_legal(*this) > 0);
}

Outcome Position::outcome(int ply) const {
    if (lost_by_check()) return Outcome::Checked;
    if (count_legal(*this) == 0) return st->checkers ? Outcome::Checkmate : Outcome::Stalemate;
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
    os << buf << "\nCheckers: ";
    for (Bitboard b = st->checkers; b;) os << square_name(pop_lsb(b)) << ' ';
    os << "\n";
    return os.str();
}

bool Position::is_ok(std::string* why) const {
    if (!consistent(why)) return false;
    if (attackers_to(king_square(~sideToMove), pieces()) & byColor[sideToMove]) {
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
    if (popcount(pieces(WHITE, KING)) != 1 || popcount(pieces(BLACK, KING)) != 1)
        return fail("king count");
    if (byColor[WHITE] & byColor[BLACK]) return fail("colour overlap");
    if (popcount(byColor[WHITE]) > 16 || popcount(byColor[BLACK]) > 16)
        return fail("more than 16 pieces a side");
    if (byType[NO_PIECE_TYPE]) return fail("pieces without a kind");
    if ((pieces(WHITE, PAWN) & promotion_zone(WHITE, var->promotionRank)) ||
        (pieces(BLACK, PAWN) & promotion_zone(BLACK, var->promotionRank)))
        return fail("unpromoted pawn in its promotion zone");
    if (st->countLimit && (st->countLimit < 0 || st->countPly < 0)) return fail("negative count");
    if (st->rule50 < 0 || st->pliesFromNull < 0 || gamePly < 0) return fail("negative clock");
    if (st->dirty.count < -1 || st->dirty.count > 3) return fail("network's change record");
    // The copies of the variant's flags that movegen and do_move test instead of `var`.
    if (generalGen != (var->general_movegen() ? ~Bitboard(0) : 0) ||
        generalMake != (var->firstCheckWins ? ~Bitboard(0) : 0))
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
    if (st->checkers != (attackers_to(king_square(sideToMove), pieces()) & byColor[~sideToMove]))
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
