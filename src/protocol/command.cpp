#include "khun/protocol/command.h"

#include "khun/eval/evaluate.h"
#include "khun/eval/wdl.h"
#include "khun/rules/movegen.h"
#include "khun/rules/perft.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace khun::protocol {

std::string uci_score(Value v) {
    if (std::abs(v) >= VALUE_MATE_IN_MAX_PLY)
        return "mate " + std::to_string(v > 0 ? (VALUE_MATE - v + 1) / 2 : -(VALUE_MATE + v) / 2);
    return "cp " + std::to_string(v);
}

namespace {

// `text` without its last line break (the writer adds one).
std::string chomp(std::string text) {
    if (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

// Whether the handshake lists option `o`: not a hidden one, and UCI_ShowWDL only in a
// dialect that prints the WDL.
bool listed(const Notation& n, const EngineOption& o) {
    return !o.hidden && (n.wdl || o.name != "UCI_ShowWDL");
}

// " wdl W D L" for `score` in the root position `root` (the side to move's view, as the
// score is). A position with no move to search (depth 0) is over: its result is known.
std::string wdl_text(const Position& root, Value score, bool over, eval::wdl::Model model) {
    eval::wdl::WDL w = eval::wdl::from_position(root, score, model);
    if (over && std::abs(score) < VALUE_MATE_IN_MAX_PLY)
        w = score > 0   ? eval::wdl::WDL{1000, 0, 0}
            : score < 0 ? eval::wdl::WDL{0, 0, 1000}
                        : eval::wdl::WDL{0, 1000, 0};
    return " wdl " + std::to_string(w.win) + " " + std::to_string(w.draw) + " " +
           std::to_string(w.loss);
}

} // namespace

void Session::loop(std::istream& in) {
    read_lines(in, [this](const std::string& line) { return command(line); });
    engine.finish(); // end of input is a quit: the bestmove of a search goes out first
}

bool Session::idle(const std::string& what) {
    if (!engine.searching()) return true;
    error(what + " is not available during a search");
    return false;
}

std::string Session::board() const { return chomp(engine.position().pretty()); }

bool Session::command(const std::string& line) {
    std::istringstream is(line);
    std::string token;
    if (!(is >> token)) return true;

    if (token == "quit") return engine.finish(), false;
    if (token == notation.hello)
        hello();
    else if (token == "isready")
        send("readyok");
    else if (token == notation.newGame)
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
        if (idle("'d'")) send(board());
    } else if (token == "eval") {
        if (idle("'eval'"))
            send(chomp(eval::trace(engine.position(), engine.net(), engine.net_name())));
    } else if (!dialect_command(token, is))
        error("unknown command '" + line.substr(0, 80) + "'");
    return true;
}

void Session::hello() {
    std::ostringstream os;
    os << "id name Khun " << KHUN_VERSION << "\nid author the Khun developers" << notation.afterId;
    for (const EngineOption& o : engine.options()) {
        if (!listed(notation, o)) continue;
        os << "\noption name " << notation.option_name(o.name) << " type "
           << option_type_name(o.type);
        if (o.type != EngineOption::Type::Button)
            os << " default " << (o.defaultValue.empty() ? "<empty>" : o.defaultValue);
        if (o.type == EngineOption::Type::Spin) os << " min " << o.min << " max " << o.max;
        for (const std::string& v : o.vars) os << " var " << v;
    }
    os << "\n" << notation.ok;
    send(os.str());
}

void Session::cmd_setoption(std::istringstream& is) {
    std::string token, name, value;
    is >> token;
    if (token != "name") return error("setoption needs 'name <option> [value <value>]'");
    while (is >> token && token != "value") name += (name.empty() ? "" : " ") + token;
    while (is >> token) value += (value.empty() ? "" : " ") + token;
    if (name.empty()) return error("setoption needs an option name");
    // The dialect's names (USI_Hash, Move_Overhead) and the engine's own are both accepted.
    for (const EngineOption& o : engine.options())
        if (lower(notation.option_name(o.name)) == lower(name)) {
            name = o.name;
            break;
        }
    OptionResult r = engine.set_option(name, value);
    if (r.error) error(*r.error);
    if (r.note) send("info string " + *r.note);
}

void Session::cmd_position(std::istringstream& is) {
    const bool sfen = notation.sfen_to_fen != nullptr;
    const std::string forms = sfen ? "'startpos', 'sfen' or 'fen'" : "'startpos' or 'fen'";
    std::string token, fen;
    if (!(is >> token))
        return error(sfen ? "position needs 'startpos', 'sfen <sfen>' or 'fen <fen>'"
                          : "position needs 'startpos' or 'fen <fen>'");
    if (token == "startpos") {
        if (!(is >> token)) token.clear();
    } else if (token == "fen" || (sfen && token == "sfen")) {
        const std::string kind = token;
        std::string t;
        token.clear();
        while (is >> t && t != "moves") fen += (fen.empty() ? "" : " ") + t;
        if (t == "moves") token = t;
        if (fen.empty())
            return error("position " + kind + (sfen ? " needs a position" : " needs a FEN") +
                         "; position unchanged");
        if (kind == "sfen") {
            std::string err;
            auto f = notation.sfen_to_fen(fen, err);
            if (!f) return error("invalid SFEN: " + err + "; position unchanged");
            fen = *f;
        }
    } else
        return error("position needs " + forms + ", not '" + token + "'; position unchanged");
    if (!token.empty() && token != "moves")
        return error("expected 'moves' after the position, got '" + token +
                     "'; position unchanged");
    std::vector<std::string> moves;
    while (is >> token) moves.push_back(notation.move_in(token));
    if (auto e = engine.set_position(fen, moves)) {
        // Name the move as the GUI wrote it.
        std::string msg = *e;
        for (const std::string& m : moves)
            if (msg.find("'" + m + "'") != std::string::npos) {
                msg.replace(msg.find("'" + m + "'"), m.size() + 2,
                            "'" + notation.move_out(m) + "'");
                break;
            }
        error(msg + "; position unchanged");
    }
}

bool Session::go_number(std::istringstream& is, const std::string& what, long long lo, long long hi,
                        long long& dst) {
    std::string v;
    if (!(is >> v)) return error("go " + what + " needs a value"), false;
    auto n = number(v, lo, hi);
    if (!n) return error("go " + what + " needs a number, not '" + v + "'"), false;
    // Out of range: say so, and use the nearest value that makes sense.
    if (clamped(v, *n))
        send("info string go " + what + " " + v + " is out of range; using " + std::to_string(*n));
    dst = *n;
    return true;
}

void Session::perft(int depth) {
    if (!idle("perft")) return;
    std::string report;
    uint64_t total = 0;
    for (auto& [move, count] : perft_divide(engine.position(), depth)) {
        report += notation.move_out(move) + ": " + std::to_string(count) + "\n";
        total += count;
    }
    send(report + "\nNodes searched: " + std::to_string(total));
}

void Session::cmd_go(std::istringstream& is) {
    static const char* const Keywords[] = {"wtime",     "btime",    "winc",   "binc",
                                           "movestogo", "depth",    "nodes",  "mate",
                                           "movetime",  "infinite", "ponder", "perft"};
    search::Limits limits;
    limits.start = search::now();
    std::string token;
    long long n = 0, byoyomi = 0;
    while (is >> token) {
        if (token == "searchmoves" && notation.searchmoves) {
            std::streampos p;
            while (true) {
                p = is.tellg();
                if (!(is >> token)) break;
                Move m = parse_uci_move(engine.position(), notation.move_in(token));
                if (!m) {
                    // Not a move: either the next keyword, or garbage.
                    if (std::find_if(std::begin(Keywords), std::end(Keywords), [&](const char* k) {
                            return token == k;
                        }) != std::end(Keywords)) {
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
            if (!go_number(is, token, -(1LL << 40), 1LL << 40, n)) return;
            const Color c = token[0] == notation.whiteLetter ? WHITE : BLACK;
            if (token[1] == 't')
                limits.time[c] = std::max<long long>(n, 1);
            else
                limits.inc[c] = std::max<long long>(n, 0);
        } else if (token == "byoyomi" && notation.byoyomi) {
            if (!go_number(is, token, 0, 1LL << 40, byoyomi)) return;
        } else if (token == "movestogo") {
            if (!go_number(is, token, 0, 10000, n)) return;
            limits.movestogo = int(n);
        } else if (token == "depth") {
            if (!go_number(is, token, 1, MAX_PLY - 10, n)) return;
            limits.depth = int(n);
        } else if (token == "nodes") {
            if (!go_number(is, token, 1, 1LL << 50, n)) return;
            limits.nodes = uint64_t(n);
        } else if (token == "mate") {
            if (!go_number(is, token, 1, 100, n)) return;
            limits.mate = int(n);
        } else if (token == "movetime") {
            if (!go_number(is, token, 1, 1LL << 40, n)) return;
            limits.movetime = n;
        } else if (token == "perft") {
            if (go_number(is, token, 1, 30, n)) perft(int(n));
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
    engine.go(limits, reporter());
}

search::Listener Session::reporter() {
    search::Listener l;
    // The root: the position at `go`, which stays put while the search runs.
    const Position* pos = &engine.position();
    auto move = [this, pos](Move m) { return notation.move_out(to_uci(m, *pos)); };
    const bool showWdl = notation.wdl && engine.settings().showWdl;
    const eval::wdl::Model model = engine.wdl_model();
    l.info = [this, move, pos, showWdl, model](const search::Info& i) {
        if (i.pv.empty())
            return send("info depth 0 score " + notation.score(i.score) +
                        (showWdl ? wdl_text(*pos, i.score, true, model) : ""));
        std::ostringstream os;
        os << "info depth " << i.depth << " seldepth " << i.seldepth << " multipv " << i.multipv
           << " score " << notation.score(i.score);
        if (i.bound == search::BOUND_LOWER) os << " lowerbound";
        if (i.bound == search::BOUND_UPPER) os << " upperbound";
        // Where Stockfish puts it: after the score and its bound.
        if (showWdl) os << wdl_text(*pos, i.score, false, model);
        os << " nodes " << i.nodes << " nps " << i.nps << " hashfull " << i.hashfull;
        if (notation.tbhits) os << " tbhits " << i.tbhits;
        os << " time " << i.time << " pv";
        for (Move m : i.pv) os << ' ' << move(m);
        send(os.str());
    };
    l.currmove = [this, move](int depth, Move m, int number) {
        send("info depth " + std::to_string(depth) + " currmove " + move(m) + " currmovenumber " +
             std::to_string(number));
    };
    l.bestmove = [this, move](Move best, Move ponder) {
        std::string s = "bestmove " + (best ? move(best) : std::string(notation.noMove));
        if (best && ponder) s += " ponder " + move(ponder);
        send(s);
    };
    return l;
}

} // namespace khun::protocol
