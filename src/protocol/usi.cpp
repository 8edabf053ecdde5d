#include "khun/protocol/usi.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

namespace khun::protocol {

namespace {

// File a..h <-> '8'..'1', rank 1..8 <-> 'h'..'a' (Fairy-Stockfish's USI squares).
bool is_usi_square(const std::string& s, size_t i) {
    return i + 1 < s.size() && s[i] >= '1' && s[i] <= '8' && s[i + 1] >= 'a' && s[i + 1] <= 'h';
}
bool is_uci_square(const std::string& s, size_t i) {
    return i + 1 < s.size() && s[i] >= 'a' && s[i] <= 'h' && s[i + 1] >= '1' && s[i + 1] <= '8';
}

std::string usi_score(Value v) {
    // USI gives mate distances in plies.
    if (std::abs(v) >= VALUE_MATE_IN_MAX_PLY)
        return "mate " + std::to_string(v > 0 ? VALUE_MATE - v : -(VALUE_MATE + v));
    return "cp " + std::to_string(v);
}

} // namespace

std::string usi_to_uci(const std::string& m) {
    // A drop: "R*8h" is "R@a1".
    if (m.size() == 4 && m[1] == '*' && is_usi_square(m, 2))
        return std::string{m[0], '@', char('a' + ('8' - m[2])), char('1' + ('h' - m[3]))};
    if (m.size() < 4 || m.size() > 5 || !is_usi_square(m, 0) || !is_usi_square(m, 2)) return m;
    std::string r = m;
    for (size_t i : {size_t(0), size_t(2)}) {
        r[i] = char('a' + ('8' - m[i]));
        r[i + 1] = char('1' + ('h' - m[i + 1]));
    }
    return r;
}

std::string uci_to_usi(const std::string& m) {
    if (m.size() == 4 && m[1] == '@' && is_uci_square(m, 2))
        return std::string{m[0], '*', char('8' - (m[2] - 'a')), char('h' - (m[3] - '1'))};
    if (m.size() < 4 || m.size() > 5 || !is_uci_square(m, 0) || !is_uci_square(m, 2)) return m;
    std::string r = m;
    for (size_t i : {size_t(0), size_t(2)}) {
        r[i] = char('8' - (m[i] - 'a'));
        r[i + 1] = char('h' - (m[i + 1] - '1'));
    }
    return r;
}

std::string usi_option_name(const std::string& name) {
    std::string n = name;
    if (n == "Hash" || n == "Ponder" || n == "MultiPV")
        n = "USI_" + n;
    else if (n.compare(0, 4, "UCI_") == 0)
        n = "USI_" + n.substr(4);
    std::replace(n.begin(), n.end(), ' ', '_');
    return n;
}

std::string to_sfen(const Position& pos) {
    const std::string fen = pos.fen();
    // The hands as Fairy-Stockfish writes them: a count before a letter held twice or more,
    // White's then Black's, "-" for none.
    std::string hand;
    for (Color c : {WHITE, BLACK})
        for (PieceType pt : HandOrder)
            if (const int n = pos.in_hand(c, pt)) {
                if (n > 1) hand += std::to_string(n);
                const char l = pos.variant().pieceChars[pt];
                hand += c == WHITE ? l : char(std::tolower(static_cast<unsigned char>(l)));
            }
    return fen.substr(0, std::min(fen.find('['), fen.find(' '))) +
           (pos.side_to_move() == WHITE ? " b " : " w ") + (hand.empty() ? "-" : hand) + " " +
           std::to_string(pos.game_ply() + 1);
}

std::optional<std::string> sfen_to_fen(const std::string& sfen, std::string& error) {
    std::istringstream is(sfen);
    std::string board, side, hand = "-", ply = "1", extra;
    if (!(is >> board >> side)) {
        error = "an SFEN needs at least a board and a side to move";
        return std::nullopt;
    }
    is >> hand >> ply;
    if (is >> extra) {
        error = "an SFEN has at most 4 fields";
        return std::nullopt;
    }
    // The side that moves first is "b" (sente) in USI: our White.
    if (side != "b" && side != "w") {
        error = "SFEN side to move must be 'b' or 'w', not '" + side + "'";
        return std::nullopt;
    }
    // The hands: "2RNp" is "[RRNp]"; whether the game has them is the FEN's to judge.
    std::string held;
    if (hand != "-") {
        int n = 0;
        for (char c : hand) {
            if (std::isdigit(static_cast<unsigned char>(c))) {
                n = n * 10 + (c - '0');
                if (n > 32) {
                    error = "SFEN hand count out of range in '" + hand + "'";
                    return std::nullopt;
                }
            } else if (std::isalpha(static_cast<unsigned char>(c))) {
                held.append(n ? n : 1, c);
                n = 0;
            } else {
                error = "SFEN hand must be letters with counts, or '-', not '" + hand + "'";
                return std::nullopt;
            }
        }
        if (n) {
            error = "SFEN hand ends in a count: '" + hand + "'";
            return std::nullopt;
        }
    }
    auto n = protocol::number(ply, 0, 100000);
    if (!n || *n < 1) {
        error = "SFEN move count must be a number from 1, not '" + ply + "'";
        return std::nullopt;
    }
    const bool white = side == "b";
    // The SFEN counts plies from 1; a FEN counts White's moves from 1.
    const long long fullmove = 1 + std::max<long long>(*n - 1 - (white ? 0 : 1), 0) / 2;
    return board + (hand != "-" ? "[" + held + "]" : "") + (white ? " w" : " b") + " - - 0 " +
           std::to_string(fullmove);
}

// UCI's commands with shogi squares, mates in plies, USI_ option names, "b" (sente,
// who moves first) for White's clock, SFEN positions, and no tbhits.
const Notation UsiNotation = [] {
    Notation n{};
    n.hello = "usi";
    n.ok = "usiok";
    n.newGame = "usinewgame";
    n.afterId = "\n";
    n.move_out = uci_to_usi;
    n.move_in = usi_to_uci;
    n.score = usi_score;
    n.option_name = usi_option_name;
    n.whiteLetter = 'b';
    n.noMove = "resign";
    n.tbhits = false;
    n.searchmoves = false;
    n.byoyomi = true;
    n.sfen_to_fen = sfen_to_fen;
    return n;
}();

bool Usi::dialect_command(const std::string& token, std::istringstream&) {
    if (token != "gameover") return false;
    engine.stop();
    return true;
}

std::string Usi::board() const {
    return engine.position().pretty() + "Sfen: " + to_sfen(engine.position());
}

} // namespace khun::protocol
