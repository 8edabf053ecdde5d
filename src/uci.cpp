#include "khun/uci.h"

#include "khun/bench.h"
#include "khun/evaluate.h"
#include "khun/movegen.h"
#include "khun/perft.h"
#include "khun/protocol.h"

#include <algorithm>
#include <iostream>
#include <sstream>

namespace khun {

using protocol::number;

void Uci::send(const std::string& text) {
    const std::string safe = protocol::printable(text);
    std::lock_guard<std::mutex> lock(outMutex);
    out << safe << std::endl;
}

void Uci::error(const std::string& msg) { send("info string error: " + msg); }

void Uci::loop(std::istream& in) {
    protocol::read_lines(in, [this](const std::string& line) { return command(line); });
    engine.finish(); // end of input is a quit: the bestmove of a search goes out first
}

bool Uci::command(const std::string& line) {
    std::istringstream is(line);
    std::string token;
    if (!(is >> token)) return true;

    if (token == "quit") return engine.finish(), false;
    if (token == "uci") {
        std::ostringstream os;
        os << "id name Khun " << KHUN_VERSION << "\nid author the Khun developers";
        for (const EngineOption& o : engine.options()) {
            os << "\noption name " << o.name << " type " << protocol::option_type_name(o.type);
            if (o.type != EngineOption::Type::Button)
                os << " default " << (o.defaultValue.empty() ? "<empty>" : o.defaultValue);
            if (o.type == EngineOption::Type::Spin) os << " min " << o.min << " max " << o.max;
            for (const std::string& v : o.vars) os << " var " << v;
        }
        os << "\nuciok";
        send(os.str());
    } else if (token == "isready")
        send("readyok");
    else if (token == "debug" || token == "register") {
        // Standard UCI commands with nothing to do here.
    } else if (token == "ucinewgame")
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
    else if (token == "d") {
        if (engine.searching()) return error("'d' is not available during a search"), true;
        std::string s = engine.position().pretty();
        if (!s.empty() && s.back() == '\n') s.pop_back();
        send(s);
    } else if (token == "eval") {
        if (engine.searching()) return error("'eval' is not available during a search"), true;
        std::string s = eval::trace(engine.position());
        if (!s.empty() && s.back() == '\n') s.pop_back();
        send(s);
    } else if (token == "bench") {
        if (engine.searching()) return error("'bench' is not available during a search"), true;
        cmd_bench(is);
    } else
        error("unknown command '" + line.substr(0, 80) + "'");
    return true;
}

void Uci::cmd_setoption(std::istringstream& is) {
    std::string token, name, value;
    is >> token;
    if (token != "name") return error("setoption needs 'name <option> [value <value>]'");
    while (is >> token && token != "value") name += (name.empty() ? "" : " ") + token;
    while (is >> token) value += (value.empty() ? "" : " ") + token;
    if (name.empty()) return error("setoption needs an option name");
    OptionResult r = engine.set_option(name, value);
    if (r.error) error(*r.error);
    if (r.note) send("info string " + *r.note);
}

void Uci::cmd_position(std::istringstream& is) {
    std::string token, fen;
    if (!(is >> token)) return error("position needs 'startpos' or 'fen <fen>'");
    if (token == "startpos") {
        if (!(is >> token)) token.clear();
    } else if (token == "fen") {
        token.clear();
        std::string t;
        while (is >> t && t != "moves") fen += (fen.empty() ? "" : " ") + t;
        if (t == "moves") token = t;
        if (fen.empty()) return error("position fen needs a FEN; position unchanged");
    } else
        return error("position needs 'startpos' or 'fen', not '" + token + "'; position unchanged");
    if (!token.empty() && token != "moves")
        return error("expected 'moves' after the position, got '" + token +
                     "'; position unchanged");
    std::vector<std::string> moves;
    while (is >> token) moves.push_back(token);
    if (auto err = engine.set_position(fen, moves)) error(*err + "; position unchanged");
}

void Uci::cmd_go(std::istringstream& is) {
    search::Limits limits;
    limits.start = now();
    std::string token;
    auto read = [&](const char* what, long long lo, long long hi, long long& dst) {
        std::string v;
        if (!(is >> v)) return error(std::string("go ") + what + " needs a value"), false;
        auto n = number(v, lo, hi);
        if (!n) return error(std::string("go ") + what + " needs a number, not '" + v + "'"), false;
        // Out of range: say so, and use the nearest value that makes sense.
        auto exact = number(v, -(1LL << 62), 1LL << 62);
        if (exact && *exact != *n)
            send("info string go " + std::string(what) + " " + v + " is out of range; using " +
                 std::to_string(*n));
        dst = *n;
        return true;
    };
    long long n = 0;
    while (is >> token) {
        if (token == "searchmoves") {
            std::streampos p;
            while (true) {
                p = is.tellg();
                if (!(is >> token)) break;
                Move m = parse_uci_move(engine.position(), token);
                if (!m) {
                    // Not a move: either the next keyword, or garbage.
                    static const char* keys[] = {"wtime",     "btime",    "winc",   "binc",
                                                 "movestogo", "depth",    "nodes",  "mate",
                                                 "movetime",  "infinite", "ponder", "perft"};
                    if (std::find_if(std::begin(keys), std::end(keys),
                                     [&](const char* k) { return token == k; }) != std::end(keys)) {
                        is.seekg(p);
                        break;
                    }
                    error("searchmoves: '" + token + "' is not a legal move here; ignored");
                    continue;
                }
                limits.searchmoves.push_back(m);
            }
        } else if (token == "ponder")
            limits.ponder = true;
        else if (token == "infinite")
            limits.infinite = true;
        else if (token == "wtime" || token == "btime" || token == "winc" || token == "binc") {
            if (!read(token.c_str(), -(1LL << 40), 1LL << 40, n)) return;
            Color c = token[0] == 'w' ? WHITE : BLACK;
            if (token[1] == 't')
                limits.time[c] = std::max<long long>(n, 1);
            else
                limits.inc[c] = std::max<long long>(n, 0);
        } else if (token == "movestogo") {
            if (!read("movestogo", 0, 10000, n)) return;
            limits.movestogo = int(n);
        } else if (token == "depth") {
            if (!read("depth", 1, MAX_PLY - 10, n)) return;
            limits.depth = int(n);
        } else if (token == "nodes") {
            if (!read("nodes", 1, 1LL << 50, n)) return;
            limits.nodes = uint64_t(n);
        } else if (token == "mate") {
            if (!read("mate", 1, 100, n)) return;
            limits.mate = int(n);
        } else if (token == "movetime") {
            if (!read("movetime", 1, 1LL << 40, n)) return;
            limits.movetime = n;
        } else if (token == "perft") {
            if (!read("perft", 1, 30, n)) return;
            if (engine.searching()) return error("perft is not available during a search");
            std::string report = perft_report(engine.position(), int(n));
            report.pop_back();
            send(report);
            return;
        } else
            return error("go: unknown parameter '" + token + "'; not searching");
    }

    search::Listener l;
    const Position* pos = &engine.position();
    l.info = [this, pos](const search::Info& i) {
        std::ostringstream os;
        if (i.pv.empty()) {
            os << "info depth 0 score " << search::uci_score(i.score);
            send(os.str());
            return;
        }
        os << "info depth " << i.depth << " seldepth " << i.seldepth << " multipv " << i.multipv
           << " score " << search::uci_score(i.score);
        if (i.bound == BOUND_LOWER) os << " lowerbound";
        if (i.bound == BOUND_UPPER) os << " upperbound";
        os << " nodes " << i.nodes << " nps " << i.nps << " hashfull " << i.hashfull << " tbhits "
           << i.tbhits << " time " << i.time << " pv";
        for (Move m : i.pv) os << ' ' << to_uci(m, *pos);
        send(os.str());
    };
    l.currmove = [this, pos](int depth, Move m, int number) {
        send("info depth " + std::to_string(depth) + " currmove " + to_uci(m, *pos) +
             " currmovenumber " + std::to_string(number));
    };
    l.bestmove = [this, pos](Move best, Move ponder) {
        std::string s = "bestmove " + (best ? to_uci(best, *pos) : std::string("(none)"));
        if (ponder) s += " ponder " + to_uci(ponder, *pos);
        send(s);
    };
    engine.go(limits, l);
}

void Uci::cmd_bench(std::istringstream& is) {
    std::string a, b, c;
    is >> a >> b >> c;
    auto hash = number(a.empty() ? "16" : a, 1, 1 << 16);
    auto threads = number(b.empty() ? "1" : b, 1, 512);
    auto depth = number(c.empty() ? "13" : c, 1, 64);
    if (!hash || !threads || !depth) return error("bench [hash MB] [threads] [depth]");
    std::ostringstream os;
    run_bench(engine, os, int(*hash), int(*threads), int(*depth));
    std::string s = os.str();
    s.pop_back();
    send(s);
}

} // namespace khun
