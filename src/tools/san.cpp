// SAN writing follows Fairy-Stockfish's move_to_san (what pychess.org exports) so that a
// game written here reads the same there; reading accepts what people and other GUIs
// actually type.
#include "khun/tools/san.h"

#include "khun/rules/movegen.h"

#include <cctype>

namespace khun::tools {

namespace {

char file_char(Square s) { return char('a' + file_of(s)); }
char rank_char(Square s) { return char('1' + rank_of(s)); }

char piece_char(const Variant& v, PieceType pt) { return v.pieceChars[pt]; }

// The piece kind an upper-case letter names in `v`: its FEN letter first, then the
// other family's letter for the met and khon (Q/M, B/S) and Cute Chess's alternatives
// (F, E), when the game does not use that letter for something else.
PieceType piece_from_char(const Variant& v, char c) {
    if (c == ' ' || c == '*') return NO_PIECE_TYPE;
    for (PieceType pt = PAWN; pt <= KING; ++pt)
        if (v.pieceChars[pt] == c) return pt;
    switch (c) {
    case 'Q':
    case 'M':
    case 'F': return MET;
    case 'B':
    case 'S':
    case 'E': return KHON;
    default: return NO_PIECE_TYPE;
    }
}

bool is_file(char c) { return c >= 'a' && c <= 'h'; }
bool is_rank(char c) { return c >= '1' && c <= '8'; }

} // namespace

std::string to_san(Position& pos, Move m) {
    const Variant& v = pos.variant();
    const Square from = m.from(), to = m.to();
    const PieceType pt = type_of(pos.moved_piece(m));
    const bool capture = pos.is_capture(m);
    std::string san;

    if (m.is_drop()) {
        // "R@a1", "P@e4": drops never need more.
        san += piece_char(v, pt);
        san += '@';
    } else if (pt == PAWN) {
        // A pawn capture always names the file it leaves; a pawn push never needs more, but
        // sittuyin's promotion onto another square names the square it leaves ("e5f6=F").
        if (capture) san += file_char(from);
        if (m.is_promotion() && from != to && v.sittuyinPromotion) san += square_name(from);
    } else {
        san += piece_char(v, pt);
        // Other pieces of the kind with a legal move to the same square.
        bool any = false, sameFile = false, sameRank = false;
        for (Move x : MoveList(pos)) {
            if (x.to() != to || x.is_drop() || x.from() == from ||
                type_of(pos.piece_on(x.from())) != pt)
                continue;
            any = true;
            sameFile |= file_of(x.from()) == file_of(from);
            sameRank |= rank_of(x.from()) == rank_of(from);
        }
        if (any) {
            if (!sameFile)
                san += file_char(from);
            else if (!sameRank)
                san += rank_char(from);
            else
                san += square_name(from);
        }
    }
    if (capture) san += 'x';
    san += square_name(to);
    if (m.is_promotion()) {
        san += '=';
        san += piece_char(v, promotion_type(m, v));
    }

    StateInfo st;
    pos.do_move(m, st);
    if (pos.in_check() || pos.lost_by_check()) san += MoveList(pos).size() ? '+' : '#';
    pos.undo_move(m);
    return san;
}

Move parse_san(const Position& pos, const std::string& text, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error) *error = why;
        return Move::none();
    };
    const Variant& v = pos.variant();

    // Suffixes (check, mate, annotation glyphs) and separators carry no information
    // that the board does not.
    std::string t;
    for (char c : text)
        if (!std::isspace(static_cast<unsigned char>(c))) t += c;
    while (!t.empty() && (t.back() == '+' || t.back() == '#' || t.back() == '!' || t.back() == '?'))
        t.pop_back();
    if (t.empty()) return fail("empty move");
    if (t == "--" || t == "0000" || t == "Z0" || t == "@@@@") return fail("null move");

    // UCI text ("e3e4", "e5e6m"); only text of that shape can be one, and trying it costs
    // a legal move list.
    auto file = [](char c) { return c >= 'a' && c <= 'h'; };
    auto rank = [](char c) { return c >= '1' && c <= '8'; };
    if (t.size() >= 4 && file(t[0]) && rank(t[1]) && file(t[2]) && rank(t[3]))
        if (Move m = parse_uci_move(pos, t)) return m;

    // A drop: "R@a1" (a pawn's letter may be left out: "@e4").
    if (const size_t at = t.find('@'); at != std::string::npos) {
        if (at > 1 || at + 3 != t.size() || !file(t[at + 1]) || !rank(t[at + 2]))
            return fail("a drop is a piece letter, '@' and a square, such as R@a1");
        const PieceType dpt =
            at ? piece_from_char(v, char(std::toupper(static_cast<unsigned char>(t[0])))) : PAWN;
        if (dpt == NO_PIECE_TYPE) return fail("unknown piece letter '" + t.substr(0, 1) + "'");
        const Move m = Move::drop(dpt, make_square(File(t[at + 1] - 'a'), Rank(t[at + 2] - '1')));
        if (!MoveList(pos).contains(m)) return fail("illegal move");
        return m;
    }

    size_t i = 0;
    PieceType pt = PAWN;
    const char first = t[0];
    if (std::isupper(static_cast<unsigned char>(first))) {
        pt = piece_from_char(v, first);
        if (pt == NO_PIECE_TYPE)
            return fail("unknown piece letter '" + std::string(1, first) + "'");
        i = 1;
    } else if (std::isalpha(static_cast<unsigned char>(first)) && !is_file(first)) {
        // A lower-case piece letter: nothing else can start with a letter past 'h'.
        pt = piece_from_char(v, char(std::toupper(static_cast<unsigned char>(first))));
        if (pt == NO_PIECE_TYPE)
            return fail("unknown piece letter '" + std::string(1, first) + "'");
        i = 1;
    }

    // The rest: [file][rank][x]square[[=]piece]
    std::string body;
    PieceType promo = NO_PIECE_TYPE;
    bool promoGiven = false;
    for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == 'x' || c == 'X' || c == ':' || c == '-') continue;
        if (c == '=' || c == '(' || c == ')' || c == '/') continue;
        // "e8b": a last lower-case letter after the square is a promotion piece.
        const bool last = i + 1 == t.size() && body.size() >= 2 && is_rank(body.back());
        if ((is_file(c) && !last) || is_rank(c)) {
            if (promoGiven) return fail("text after the promotion piece");
            body += c;
            continue;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) && !promoGiven && body.size() >= 2 &&
            is_rank(body.back())) {
            promo = piece_from_char(v, char(std::toupper(static_cast<unsigned char>(c))));
            if (promo == NO_PIECE_TYPE)
                return fail("unknown promotion piece '" + std::string(1, c) + "'");
            promoGiven = true;
            continue;
        }
        return fail("unexpected '" + std::string(1, c) + "'");
    }
    if (body.size() < 2 || body.size() > 4 || !is_file(body[body.size() - 2]) ||
        !is_rank(body.back()))
        return fail("no destination square");
    const Square to = make_square(File(body[body.size() - 2] - 'a'), Rank(body.back() - '1'));
    int fromFile = -1, fromRank = -1;
    for (size_t k = 0; k + 2 < body.size(); ++k) {
        char c = body[k];
        if (is_file(c) && fromFile < 0 && fromRank < 0)
            fromFile = c - 'a';
        else if (is_rank(c) && fromRank < 0)
            fromRank = c - '1';
        else
            return fail("bad origin");
    }

    Move found = Move::none();
    int matches = 0;
    for (Move m : MoveList(pos)) {
        if (m.to() != to || m.is_drop() || type_of(pos.moved_piece(m)) != pt) continue;
        if (fromFile >= 0 && file_of(m.from()) != fromFile) continue;
        if (fromRank >= 0 && rank_of(m.from()) != fromRank) continue;
        if (m.is_promotion()) {
            // No piece named: the game's usual promotion (the only one outside asean).
            if (promoGiven ? promotion_type(m, v) != promo : m.kind() != PROMOTION) continue;
        } else if (promoGiven) {
            continue;
        }
        found = m;
        ++matches;
    }
    if (matches == 0) return fail("illegal move");
    if (matches > 1) return fail("ambiguous move");
    return found;
}

} // namespace khun::tools
