#include "khun/position.h"

#include "khun/movegen.h"

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
    }
    return "?";
}

void Position::init() {
    static std::once_flag once;
    std::call_once(once, [] {
        attacks::init();
        // xorshift64*: fixed seed, so keys (and `d`'s Key line) are the same every run.
        uint64_t s = 1070372;
        auto next = [&s] {
            s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
            return s * 2685821657736338717ULL;
        };
        for (auto& row : zobrist::psq)
            for (Key& k : row) k = next();
        zobrist::side = next();
        for (Key& k : zobrist::countLeft) k = next();
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

std::string square_name(Square s) {
    return std::string{char('a' + file_of(s)), char('1' + rank_of(s))};
}

} // namespace

std::optional<std::string> Position::set(const std::string& fen, const Variant& v, StateInfo* si) {
    std::istringstream ss(fen);
    std::string board_s, side_s, castle_s = "-", f4 = "-", f5 = "0", f6 = "1";
    if (!(ss >> board_s)) return "empty FEN";
    if (!(ss >> side_s)) side_s = "w";
    ss >> castle_s >> f4 >> f5 >> f6;
    std::string extra;
    if (ss >> extra) return "FEN has more than 6 fields";

    // Parse into a scratch copy so that *this stays untouched on error.
    Piece nb[SQUARE_NB] = {};
    int rank = 7, file = 0;
    for (size_t i = 0; i < board_s.size(); ++i) {
        char c = board_s[i];
        if (c == '/') {
            if (file != 8)
                return "rank " + std::to_string(rank + 1) + " has " + std::to_string(file) +
                       " squares, not 8";
            if (--rank < 0) return "more than 8 ranks";
            file = 0;
        } else if (c >= '1' && c <= '8') {
            file += c - '0';
            if (file > 8) return "rank " + std::to_string(rank + 1) + " is longer than 8 squares";
        } else {
            size_t idx = v.pieceChars.find(char(std::toupper(static_cast<unsigned char>(c))));
            if (idx == std::string::npos || idx == 0 || c == ' ')
                return std::string("unknown piece letter '") + c + "'";
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

    if (castle_s != "-")
        return "castling field must be '-' in " + v.name + ", not '" + castle_s + "'";

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
    sideToMove = stm;
    gamePly = std::max(2 * (*p6 - 1), 0) + (stm == BLACK);
    *si = StateInfo{};
    st = si;
    st->rule50 = r50;
    st->countLimit = limit;
    st->countPly = ply;
    st->key = compute_key();
    st->checkers = attackers_to(king_square(stm), pieces()) & pieces(~stm);
    st->move = Move::none();
    return std::nullopt;
}

void Position::copy_from(const Position& o, StateInfo* si) {
    std::memcpy(board, o.board, sizeof board);
    std::memcpy(byType, o.byType, sizeof byType);
    std::memcpy(byColor, o.byColor, sizeof byColor);
    sideToMove = o.sideToMove;
    gamePly = o.gamePly;
    var = o.var;
    *si = *o.st;
    st = si;
}

std::string Position::fen() const {
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
            char c = var->pieceChars[type_of(pc)];
            s += color_of(pc) == WHITE ? c : char(std::tolower(static_cast<unsigned char>(c)));
        }
        if (empty) s += char('0' + empty);
        if (r > RANK_1) s += '/';
    }
    s += sideToMove == WHITE ? " w - " : " b - ";
    if (st->countLimit)
        s += std::to_string(st->countLimit) + " " + std::to_string(st->countPly);
    else
        s += "- " + std::to_string(st->rule50);
    s += " " + std::to_string(1 + (gamePly - (sideToMove == BLACK)) / 2);
    return s;
}

// ---------------------------------------------------------------------------------------
// Placement

inline void Position::put_piece(Piece pc, Square s) {
    board[s] = pc;
    byType[type_of(pc)] |= square_bb(s);
    byColor[color_of(pc)] |= square_bb(s);
}

inline void Position::remove_piece(Square s) {
    Piece pc = board[s];
    byType[type_of(pc)] ^= square_bb(s);
    byColor[color_of(pc)] ^= square_bb(s);
    board[s] = NO_PIECE;
}

inline void Position::move_piece(Square from, Square to) {
    Piece pc = board[from];
    Bitboard fromTo = square_bb(from) | square_bb(to);
    byType[type_of(pc)] ^= fromTo;
    byColor[color_of(pc)] ^= fromTo;
    board[from] = NO_PIECE;
    board[to] = pc;
}

Key Position::compute_key() const {
    Key k = sideToMove == BLACK ? zobrist::side : 0;
    for (Square s = SQ_A1; s <= SQ_H8; ++s)
        if (board[s]) k ^= zobrist::psq[board[s]][s];
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
    const Color us = sideToMove;
    const Square from = m.from(), to = m.to();
    const Square ksq = king_square(~us);
    PieceType pt = m.is_promotion() ? var->promotedTo : type_of(board[from]);
    if (m.kind() == PROMO_ROOK) pt = ROOK;
    if (m.kind() == PROMO_KNIGHT) pt = KNIGHT;
    if (m.kind() == PROMO_KHON) pt = KHON;
    const Bitboard occ = (pieces() ^ square_bb(from)) | square_bb(to);
    if (attacks::of(pt, us, to, occ) & square_bb(ksq)) return true;
    // Discovered check: a rook of ours behind the moved piece on the king's line.
    Bitboard rooks = pieces(us, ROOK) | pieces(us, AIWOK);
    rooks &= ~square_bb(from);
    return (attacks::rook(ksq, occ) & rooks) != 0;
}

// RULES.md countLimit(side): 0, 64 (board's honour) or the pieces' honour limit.
int Position::counting_limit_for(Color c) const {
    if (byType[PAWN] || !more_than_one(byColor[~c])) return 0;
    if (more_than_one(byColor[c])) return 64;
    const Color o = ~c;
    int rooks = count(o, ROOK), khons = count(o, KHON), knights = count(o, KNIGHT);
    if (rooks > 1) return 8;
    if (rooks == 1) return 16;
    if (khons > 1) return 22;
    if (knights > 1) return 32;
    if (khons == 1) return 44;
    return 64;
}

// The counting update of RULES.md, run after the side to move has switched.
void Position::update_counting(Piece captured, bool promotion) {
    const Color stm = sideToMove, mover = ~stm;
    if (captured && type_of(captured) == PAWN && !more_than_one(byColor[mover]) && !byType[PAWN]) {
        if (int l = counting_limit_for(mover)) {
            st->countLimit = 2 * l;
            st->countPly = 2 * popcount(pieces()) - 1;
        }
    }
    if (!st->countLimit || ((captured || promotion) && !more_than_one(byColor[stm]))) {
        if (int l = counting_limit_for(stm)) {
            st->countLimit = 2 * l;
            st->countPly = more_than_one(byColor[stm]) ? 0 : 2 * popcount(pieces());
        }
    }
}

void Position::do_move(Move m, StateInfo& newSt) {
    // Copy the carried-over fields, then bump the clocks.
    newSt.rule50 = st->rule50 + 1;
    newSt.pliesFromNull = st->pliesFromNull + 1;
    newSt.countLimit = st->countLimit;
    newSt.countPly = st->countPly + (st->countLimit != 0);
    newSt.previous = st;
    newSt.move = m;
    st = &newSt;

    const Color us = sideToMove, them = ~us;
    const Square from = m.from(), to = m.to();
    const Piece pc = board[from];
    const Piece captured = board[to];
    Key k = st->previous->key ^ zobrist::side;

    if (captured) {
        remove_piece(to);
        k ^= zobrist::psq[captured][to];
        st->rule50 = 0;
    }
    move_piece(from, to);
    k ^= zobrist::psq[pc][from] ^ zobrist::psq[pc][to];
    if (type_of(pc) == PAWN) {
        st->rule50 = 0;
        if (m.is_promotion()) {
            PieceType pt = m.kind() == PROMO_ROOK     ? ROOK
                           : m.kind() == PROMO_KNIGHT ? KNIGHT
                           : m.kind() == PROMO_KHON   ? KHON
                                                      : var->promotedTo;
            Piece promoted = make_piece(us, pt);
            remove_piece(to);
            put_piece(promoted, to);
            k ^= zobrist::psq[pc][to] ^ zobrist::psq[promoted][to];
        }
    }
    st->captured = captured;
    st->key = k;
    sideToMove = them;
    ++gamePly;
    if (var->counting != CountingRule::None) update_counting(captured, m.is_promotion());
    // Only a rook slides, so a check comes from the moved piece or along a rook's line.
    const Square ksq = king_square(them);
    const Piece moved = board[to];
    st->checkers = attacks::rook(ksq, pieces()) & (pieces(us, ROOK) | pieces(us, AIWOK));
    if (type_of(moved) != ROOK && (attacks::of(type_of(moved), us, to, pieces()) & square_bb(ksq)))
        st->checkers |= square_bb(to);
}

void Position::undo_move(Move m) {
    sideToMove = ~sideToMove;
    const Color us = sideToMove;
    const Square from = m.from(), to = m.to();
    if (m.is_promotion()) {
        remove_piece(to);
        put_piece(make_piece(us, PAWN), to);
    }
    move_piece(to, from);
    if (st->captured) put_piece(st->captured, to);
    st = st->previous;
    --gamePly;
}

void Position::do_null_move(StateInfo& newSt) {
    newSt = *st;
    newSt.previous = st;
    newSt.move = Move::null();
    newSt.captured = NO_PIECE;
    newSt.key = st->key ^ zobrist::side;
    newSt.rule50 = st->rule50 + 1;
    newSt.pliesFromNull = 0;
    newSt.countPly = st->countPly + (st->countLimit != 0);
    newSt.checkers = 0;
    st = &newSt;
    sideToMove = ~sideToMove;
    ++gamePly;
}

void Position::undo_null_move() {
    st = st->previous;
    sideToMove = ~sideToMove;
    --gamePly;
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
    // The count ends the game unless the side to move is checkmated.
    return counting_expired() && (!st->checkers || count_legal(*this) > 0);
}

Outcome Position::outcome(int ply) const {
    if (count_legal(*this) == 0) return st->checkers ? Outcome::Checkmate : Outcome::Stalemate;
    if (counting_expired()) return Outcome::CountingDraw;
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
    auto fail = [&](const char* w) {
        if (why) *why = w;
        return false;
    };
    if (popcount(pieces(WHITE, KING)) != 1 || popcount(pieces(BLACK, KING)) != 1)
        return fail("king count");
    if (byColor[WHITE] & byColor[BLACK]) return fail("colour overlap");
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
    if (st->key != compute_key()) return fail("key");
    if (st->checkers != (attackers_to(king_square(sideToMove), pieces()) & byColor[~sideToMove]))
        return fail("checkers");
    if (attackers_to(king_square(~sideToMove), pieces()) & byColor[sideToMove])
        return fail("side not to move in check");
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
    states.emplace_back();
    pos.do_move(m, states.back());
}

} // namespace khun
