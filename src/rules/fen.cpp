// FEN: reading a position of any game of the family (Position::set) and writing one
// (Position::fen, board_fen), in Fairy-Stockfish's and Cute Chess's forms (docs/rules.md).
#include "khun/rules/position.h"
#include "khun/rules/text.h"

#include <cassert>
#include <cctype>
#include <cstring>

namespace khun {

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
    const std::vector<std::string> f = words(fen, 10);
    if (f.empty()) return "empty FEN";
    size_t i = 1;
    auto next = [&](const char* dflt) { return i < f.size() ? f[i++] : std::string(dflt); };
    std::string board_s = f[0];
    const std::string side_s = next("w"), castle_s = next("-"), f4 = next("-");
    // Karouk: the checks each side still needs ("1+1"), between fields 4 and 5.
    std::string checks_s;
    if (v.firstCheckWins && i < f.size() && f[i].find('+') != std::string::npos) checks_s = f[i++];
    const std::string f5 = next("0"), f6 = next("1");
    if (i < f.size())
        return std::string("FEN has more than ") + (v.firstCheckWins ? "7" : "6") + " fields";

    // The hands, "[...]" after the board (Fairy-Stockfish's form), White's letters upper
    // case; "[]" is accepted in every game, and a drop game's FEN without it has none.
    uint8_t nh[COLOR_NB][PIECE_TYPE_NB] = {};
    int handTotal[COLOR_NB] = {};
    if (const size_t open = board_s.find('['); open != std::string::npos) {
        if (board_s.back() != ']' || board_s.find(']') != board_s.size() - 1)
            return "the pieces in hand must close the board field as \"[...]\", not '" +
                   board_s.substr(open) + "'";
        const std::string h = board_s.substr(open + 1, board_s.size() - open - 2);
        board_s.resize(open);
        if (!h.empty() && h != "-" && !v.drops)
            return v.name + " has no pieces in hand, the holdings must be empty, not '" + h + "'";
        for (char c : h == "-" ? std::string() : h) {
            const size_t idx =
                std::isalpha(static_cast<unsigned char>(c))
                    ? v.pieceChars.find(char(std::toupper(static_cast<unsigned char>(c))))
                    : std::string::npos;
            if (idx == std::string::npos || idx == 0)
                return std::string("unknown piece letter '") + c + "' in the hands";
            const Color col = std::isupper(static_cast<unsigned char>(c)) ? WHITE : BLACK;
            if (nh[col][idx] == zobrist::MAX_HAND) return "too many pieces in hand";
            ++nh[col][idx];
            ++handTotal[col];
        }
    } // no "[...]": empty hands, as Fairy-Stockfish reads it

    // Parse into a scratch copy so that *this stays untouched on error.
    Piece nb[SQUARE_NB] = {};
    Bitboard promotedMarks = 0;
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
            // Makrukhouse: a met that was a pawn goes back to the hand as a pawn.
            const Square marked = make_square(File(file - 1), Rank(rank));
            if (v.capturesToHand && type_of(nb[marked]) == v.promotedTo)
                promotedMarks |= square_bb(marked);
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
        // Makrukhouse drops pawns into the promotion zone, only never where they cannot move.
        if (type_of(pc) == PAWN &&
            (v.pawnDropsEverywhere ? relative_rank(color_of(pc), s) == RANK_8
                                   : relative_rank(color_of(pc), s) >= v.promotionRank))
            return "pawn on " + square_name(s) + " stands on its promotion zone";
    }
    for (Color c : {WHITE, BLACK}) {
        const char* name = c == WHITE ? "White" : "Black";
        // Sittuyin: a king may still be in hand.
        if (kings[c] + nh[c][KING] != 1 || (kings[c] == 0 && !v.mustDrop))
            return std::string(name) + " has " + std::to_string(kings[c]) + " kings, not 1";
        // With captures going to hand a side may hold the other's pieces: 32 in all.
        if (!v.capturesToHand && total[c] + handTotal[c] > 16)
            return std::string(name) + " has more than 16 pieces";
    }
    if (total[WHITE] + total[BLACK] + handTotal[WHITE] + handTotal[BLACK] > 32)
        return "more than 32 pieces";

    // Build on a scratch position, so that *this stays untouched if the last check fails.
    Position tmp;
    tmp.var = &v;
    for (Square s = SQ_A1; s <= SQ_H8; ++s)
        if (nb[s]) tmp.put_piece(nb[s], s);
    if (tmp.has_king(~stm) &&
        (tmp.attackers_to(tmp.king_square(~stm), tmp.pieces()) & tmp.pieces(stm)))
        return std::string(stm == WHITE ? "White" : "Black") +
               " is to move and could capture the enemy king";

    std::memcpy(board, tmp.board, sizeof board);
    std::memcpy(byType, tmp.byType, sizeof byType);
    std::memcpy(byColor, tmp.byColor, sizeof byColor);
    std::memcpy(hand, nh, sizeof hand);
    handCount[WHITE] = handTotal[WHITE], handCount[BLACK] = handTotal[BLACK];
    var = &v;
    generalGen = v.general_movegen() ? ~Bitboard(0) : 0;
    generalMake = v.general_make() ? ~Bitboard(0) : 0;
    sideToMove = stm;
    gamePly = std::max(2 * (*p6 - 1), 0) + (stm == BLACK);
    *si = StateInfo{};
    st = si;
    st->rule50 = r50;
    st->countLimit = limit;
    st->countPly = ply;
    st->rights = rights;
    st->promoted = promotedMarks;
    if (v.firstCheckWins)
        st->checksLeft[WHITE] = checks[WHITE], st->checksLeft[BLACK] = checks[BLACK];
    st->key = compute_key();
    std::memset(seen, 0, sizeof seen); // a chain of one state
    ++seen[seen_slot(st->key)];
    st->checkers = has_king(stm) ? attackers_to(king_square(stm), pieces()) & pieces(~stm) : 0;
    st->move = Move::none();
    // The checks above refuse whatever else would break what do_move relies on.
    assert(is_ok());
    return std::nullopt;
}

std::string board_fen(const Piece board[SQUARE_NB], const Variant& v, Bitboard promoted) {
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
            if (promoted & square_bb(make_square(File(f), Rank(r)))) s += '~';
        }
        if (empty) s += char('0' + empty);
        if (r > RANK_1) s += '/';
    }
    return s;
}

std::string Position::fen() const {
    std::string s = board_fen(board, *var, st->promoted);
    if (var->drops) {
        // Fairy-Stockfish's order: White's hand then Black's, each from the king down
        // through its own order of kinds.
        s += '[';
        for (Color c : {WHITE, BLACK})
            for (PieceType pt : HandOrder) {
                char l = var->pieceChars[pt];
                if (c == BLACK) l = char(std::tolower(static_cast<unsigned char>(l)));
                s.append(hand[c][pt], l);
            }
        s += ']';
    }
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

} // namespace khun
