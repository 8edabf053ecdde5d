#include "khun/usi.h"

#include "khun/evaluate.h"
#include "khun/movegen.h"
#include "khun/perft.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace khun {

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
    if (m.size() < 4 || m.size() > 5 || !is_usi_square(m, 0) || !is_usi_square(m, 2)) return m;
    std::string r = m;
    for (size_t i : {size_t(0), size_t(2)}) {
        r[i] = char('a' + ('8' - m[i]));
        r[i + 1] = char('1' + ('h' - m[i + 1]));
    }
    return r;
}

std::string uci_to_usi(const std::string& m) {
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
    return fen.substr(0, fen.find(' ')) + (pos.side_to_move() == WHITE ? " b - " : " w - ") +
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
    if (hand != "-") {
        error = "the Makruk family has no pieces in hand, the SFEN hand must be '-'";
        return std::nullopt;
    }
    auto n = protocol::number(ply, 0, 100000);
    if (!n || *n < 1) {
        error = "SFEN move count must be a number from 1, not '" + ply + "'";
        return std::nullopt;
    }
    const bool white = side == "b";
    // The SFEN counts plies from 1; a FEN counts White's moves from 1.
    const long long fullmove = 1 + std::max<long long>(*n - 1 - (white ? 0 : 1), 0) / 2;
    return board + (white ? " w" : " b") + " - - 0 " + std::to_string(fullmove);
}

void Usi::loop(std::istream& in) {
    protocol::read_lines(in, [this](const std::string& line) { return command(line); });
    engine.finish(); // end of input is a quit: the bestmove of a search goes out first
}

bool Usi::command(const std::string& line) {
    std::istringstream is(line);
    std::string token;
    if (!(is >> token)) return true;

    if (token == "quit") return engine.finish(), false;
    if (token == "usi")
        cmd_usi();
    else if (token == "isready")
        writer.send("readyok");
    else if (token == "usinewgame")
        engine.new_game();
    else if (token == "setoption")
        cmd_setoption(is);
    else if (token == "position")
        cmd_position(is);
    else if (token == "go")
        cmd_go(is);
    else if (token == "stop")
        engine.stop();
    else if (token == "ponderhit")
        engine.ponderhit();
    else if (token == "gameover")
        engine.stop();
    else if (token == "d") {
        if (engine.searching()) return error("'d' is not available during a search"), true;
        std::string s = engine.position().pretty();
        writer.send(s + "Sfen: " + to_sfen(engine.position()));
    } else if (token == "eval") {
        if (engine.searching()) return error("'eval' is not available during a search"), true;
        std::string s = eval::trace(engine.position());
        if (!s.empty() && s.back() == '\n') s.pop_back();
        writer.send(s);
    } else
        error("unknown command '" + line.substr(0, 80) + "'");
    return true;
}

void Usi::cmd_usi() {
    std::ostringstream os;
    os << "id name Khun " << KHUN_VERSION << "\nid author the Khun developers\n";
    for (const EngineOption& o : engine.options()) {
        os << "\noption name " << usi_option_name(o.name) << " type "
           << protocol::option_type_name(o.type);
        if (o.type != EngineOption::Type::Button)
            os << " default " << (o.defaultValue.empty() ? "<empty>" : o.defaultValue);
        if (o.type == EngineOption::Type::Spin) os << " min " << o.min << " max " << o.max;
        for (const std::string& v : o.vars) os << " var " << v;
    }
    os << "\nusiok";
    writer.send(os.str());
}

void Usi::cmd_setoption(std::istringstream& is) {
    std::string token, name, value;
    is >> token;
    if (token != "name") return error("setoption needs 'name <option> [value <value>]'");
    while (is >> token && token != "value") name += (name.empty() ? "" : " ") + token;
    while (is >> token) value += (value.empty() ? "" : " ") + token;
    if (name.empty()) return error("setoption needs an option name");
    // USI names (USI_Hash, Move_Overhead) and the engine's own are both accepted.
    for (const EngineOption& o : engine.options())
        if (protocol::lower(usi_option_name(o.name)) == protocol::lower(name)) {
            name = o.name;
            break;
        }
    OptionResult r = engine.set_option(name, value);
    if (r.error) error(*r.error);
    if (r.note) writer.send("info string " + *r.note);
}

void Usi::cmd_position(std::istringstream& is) {
    std::string token, fen, err;
    if (!(is >> token)) return error("position needs 'startpos', 'sfen <sfen>' or 'fen <fen>'");
    if (token == "startpos") {
        if (!(is >> token)) token.clear();
    } else if (token == "sfen" || token == "fen") {
        const bool sfen = token == "sfen";
        std::string text, t;
        token.clear();
        while (is >> t && t != "moves") text += (text.empty() ? "" : " ") + t;
        if (t == "moves") token = t;
        if (text.empty())
            return error("position " + std::string(sfen ? "sfen" : "fen") +
                         " needs a position; position unchanged");
        if (sfen) {
            auto f = sfen_to_fen(text, err);
            if (!f) return error("invalid SFEN: " + err + "; position unchanged");
            fen = *f;
        } else
            fen = text;
    } else
        return error("position needs 'startpos', 'sfen' or 'fen', not '" + token +
                     "'; position unchanged");
    if (!token.empty() && token != "moves")
        return error("expected 'moves' after the position, got '" + token +
                     "'; position unchanged");
    std::vector<std::string> moves;
    while (is >> token) moves.push_back(usi_to_uci(token));
    if (auto e = engine.set_position(fen, moves)) {
        // Name the move as the GUI wrote it.
        std::string msg = *e;
        for (const std::string& m : moves)
            if (msg.find("'" + m + "'") != std::string::npos) {
                msg.replace(msg.find("'" + m + "'"), m.size() + 2, "'" + uci_to_usi(m) + "'");
                break;
            }
        error(msg + "; position unchanged");
    }
}

void Usi::cmd_go(std::istringstream& is) {
    search::Limits limits;
    limits.start = now();
    std::string token;
    auto read = [&](const std::string& what, long long lo, long long hi, long long& dst) {
        std::string v;
        if (!(is >> v)) return error("go " + what + " needs a value"), false;
        auto n = protocol::number(v, lo, hi);
        if (!n) return error("go " + what + " needs a number, not '" + v + "'"), false;
        // Out of range: say so, and use the nearest value that makes sense (as UCI does).
        auto exact = protocol::number(v, -(1LL << 62), 1LL << 62);
        if (exact && *exact != *n)
            writer.send("info string go " + what + " " + v + " is out of range; using " +
                        std::to_string(*n));
        dst = *n;
        return true;
    };
    long long n = 0, byoyomi = 0;
    while (is >> token) {
        if (token == "ponder")
            limits.ponder = true;
        else if (token == "infinite")
            limits.infinite = true;
        else if (token == "btime" || token == "wtime" || token == "binc" || token == "winc") {
            if (!read(token, -(1LL << 40), 1LL << 40, n)) return;
            // USI's black (sente) moves first: Khun's White.
            const Color c = token[0] == 'b' ? WHITE : BLACK;
            if (token[1] == 't')
                limits.time[c] = std::max<long long>(n, 1);
            else
                limits.inc[c] = std::max<long long>(n, 0);
        } else if (token == "byoyomi") {
            if (!read(token, 0, 1LL << 40, byoyomi)) return;
        } else if (token == "movestogo") {
            if (!read(token, 0, 10000, n)) return;
            limits.movestogo = int(n);
        } else if (token == "depth") {
            if (!read(token, 1, MAX_PLY - 10, n)) return;
            limits.depth = int(n);
        } else if (token == "nodes") {
            if (!read(token, 1, 1LL << 50, n)) return;
            limits.nodes = uint64_t(n);
        } else if (token == "mate") {
            if (!read(token, 1, 100, n)) return;
            limits.mate = int(n);
        } else if (token == "movetime") {
            if (!read(token, 1, 1LL << 40, n)) return;
            limits.movetime = n;
        } else if (token == "perft") {
            if (!read(token, 1, 30, n)) return;
            if (engine.searching()) return error("perft is not available during a search");
            std::string report;
            uint64_t total = 0;
            for (auto& [move, count] : perft_divide(engine.position(), int(n))) {
                report += uci_to_usi(move) + ": " + std::to_string(count) + "\n";
                total += count;
            }
            writer.send(report + "\nNodes searched: " + std::to_string(total));
            return;
        } else
            return error("go: unknown parameter '" + token + "'; not searching");
    }
    // Byoyomi as Fairy-Stockfish reads it: a per-move allowance on top of the main time.
    if (byoyomi > 0)
        for (Color c : {WHITE, BLACK}) {
            limits.inc[c] = byoyomi;
            limits.time[c] += byoyomi;
        }

    search::Listener l;
    const Position* pos = &engine.position();
    l.info = [this, pos](const search::Info& i) {
        std::ostringstream os;
        if (i.pv.empty()) {
            writer.send("info depth 0 score " + usi_score(i.score));
            return;
        }
        os << "info depth " << i.depth << " seldepth " << i.seldepth << " multipv " << i.multipv
           << " score " << usi_score(i.score);
        if (i.bound == BOUND_LOWER) os << " lowerbound";
        if (i.bound == BOUND_UPPER) os << " upperbound";
        os << " nodes " << i.nodes << " nps " << i.nps << " hashfull " << i.hashfull << " time "
           << i.time << " pv";
        for (Move m : i.pv) os << ' ' << uci_to_usi(to_uci(m, *pos));
        writer.send(os.str());
    };
    l.currmove = [this, pos](int depth, Move m, int number) {
        writer.send("info depth " + std::to_string(depth) + " currmove " +
                    uci_to_usi(to_uci(m, *pos)) + " currmovenumber " + std::to_string(number));
    };
    l.bestmove = [this, pos](Move best, Move ponder) {
        // No legal move: the game is lost (or stalemated); USI's word for it is resign.
        std::string s = "bestmove " + (best ? uci_to_usi(to_uci(best, *pos)) : "resign");
        if (best && ponder) s += " ponder " + uci_to_usi(to_uci(ponder, *pos));
        writer.send(s);
    };
    engine.go(limits, l);
}

} // namespace khun
