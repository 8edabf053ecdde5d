#include "khun/protocol/xboard.h"

#include "khun/protocol/command.h"
#include "khun/rules/movegen.h"
#include "khun/rules/perft.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace khun::protocol {

namespace {

// CECP scores: centipawns, or 100000 + moves for a mate (negative when mated).
std::string xboard_score(Value v) {
    if (v >= VALUE_MATE_IN_MAX_PLY) return std::to_string(100000 + (VALUE_MATE - v + 1) / 2);
    if (v <= -VALUE_MATE_IN_MAX_PLY) return std::to_string(-100000 - (VALUE_MATE + v) / 2);
    return std::to_string(v);
}

// CECP's notation, in the shape the other dialects give theirs: coordinate moves as UCI
// writes them, its own score units, option names as they are. Its handshake, clock and
// thinking lines are its own, so the Session fields stay unset.
const protocol::Notation CecpNotation = [] {
    protocol::Notation n{};
    n.hello = "xboard";
    n.move_out = n.move_in = n.option_name = protocol::as_is;
    n.score = xboard_score;
    n.noMove = "resign";
    return n;
}();

bool looks_like_move(const std::string& s) {
    return s.size() >= 4 && s.size() <= 5 && s[0] >= 'a' && s[0] <= 'h' && s[1] >= '1' &&
           s[1] <= '8' && s[2] >= 'a' && s[2] <= 'h' && s[3] >= '1' && s[3] <= '8';
}

// A game XBoard does not know by name is described to it with `setup` (piece letters,
// board, start position) and Betza `piece` lines, as Fairy-Stockfish does.
std::vector<std::string> setup_lines(const Variant& v) {
    if (v.cecpSetup.empty()) return {};
    // The pockets: one per piece kind of the game (six), as Fairy-Stockfish counts them.
    const std::string pockets = v.drops ? "6" : "0";
    std::vector<std::string> out = {"setup (" + v.cecpSetup + ") 8x8+" + pockets + "_" +
                                    v.cecpTemplate + " " + v.startFen};
    out.insert(out.end(), v.cecpPieces.begin(), v.cecpPieces.end());
    return out;
}

// The options CECP sets with commands of its own (memory, cores, variant, ...) or has
// no use for; the others go out as `feature option`.
bool own_command(const std::string& option) {
    for (const char* name : {"Threads", "Hash", "UCI_Variant", "Ponder", "MultiPV", "UCI_ShowWDL"})
        if (option == name) return true;
    return false;
}

} // namespace

void XBoard::loop(std::istream& in) {
    protocol::read_lines(in, [this](const std::string& line) { return command(line); });
    finish_search(true);
}

void XBoard::features() {
    std::string vars;
    for (const std::string& v : variant_names()) vars += (vars.empty() ? "" : ",") + v;
    send(std::string("feature ping=1 setboard=1 usermove=1 time=1 draw=0 sigint=0 sigterm=0 "
                     "reuse=1 analyze=1 colors=0 name=0 nps=0 pause=0 exclude=0 debug=1 "
                     "memory=1 smp=1 myname=\"Khun ") +
         KHUN_VERSION + "\" variants=\"" + vars + "\"");
    // The options CECP has no command of its own for.
    for (const EngineOption& o : engine.options()) {
        if (o.hidden || own_command(o.name)) continue;
        std::string f = "feature option=\"" + o.name + " -";
        switch (o.type) {
        case EngineOption::Type::Spin:
            f += "spin " + o.value + " " + std::to_string(o.min) + " " + std::to_string(o.max);
            break;
        case EngineOption::Type::Check:
            f += std::string("check ") + (o.value == "true" ? "1" : "0");
            break;
        case EngineOption::Type::Button: f += "button"; break;
        case EngineOption::Type::Combo: {
            f += "combo";
            for (size_t i = 0; i < o.vars.size(); ++i)
                f += (i ? " /// " : " ") + std::string(o.vars[i] == o.value ? "*" : "") + o.vars[i];
            break;
        }
        case EngineOption::Type::String: f += "string " + o.value; break;
        }
        send(f + "\"");
    }
    send("feature done=1");
}

void XBoard::finish_search(bool abort) {
    {
        std::lock_guard<std::mutex> lock(mutex);
        aborted = abort;
    }
    engine.stop();
    engine.wait();
    Move m;
    {
        std::lock_guard<std::mutex> lock(mutex);
        aborted = false;
        searching = Search::None;
        m = pending;
        pending = Move::none();
    }
    // The GUI has seen this move: it is part of the game whatever comes next.
    if (m) engine.play(m);
}

void XBoard::settle() {
    bool idle;
    {
        std::lock_guard<std::mutex> lock(mutex);
        idle = searching == Search::None;
    }
    if (idle) finish_search(false);
}

search::Limits XBoard::game_limits() const {
    search::Limits l;
    l.start = search::now();
    const Color us = engine.position().side_to_move();
    if (depthLimit) l.depth = depthLimit;
    if (moveTimeMs)
        l.movetime = moveTimeMs;
    else if (haveLevel || ownClockMs >= 0) {
        // Clocks from `time`/`otim`, or the session's base time until they arrive.
        l.time[us] = std::max<long long>(ownClockMs >= 0 ? ownClockMs : baseMs, 1);
        l.time[~us] = std::max<long long>(oppClockMs >= 0 ? oppClockMs : baseMs, 1);
        l.inc[us] = l.inc[~us] = incMs;
        if (movesPerSession)
            l.movestogo = movesPerSession - (engine.position().game_ply() / 2) % movesPerSession;
    } else if (!depthLimit)
        l.movetime = 2000; // no time control given: a couple of seconds a move
    return l;
}

// A line of thinking output: depth, score, time in centiseconds, nodes, the PV.
void XBoard::thinking(const search::Info& i, const Position& pos) {
    if (i.pv.empty()) return;
    std::string s = std::to_string(i.depth) + " " + CecpNotation.score(i.score) + " " +
                    std::to_string(i.time / 10) + " " + std::to_string(i.nodes);
    for (Move m : i.pv) s += " " + CecpNotation.move_out(to_uci(m, pos));
    send(s);
}

void XBoard::think() {
    const Position& pos = engine.position();
    // A finished game (no legal move) gets its result instead of a move. Draws by the
    // count or by repetition are left to the GUI: a wrong claim forfeits in Cute Chess.
    const bool lostByCheck = pos.lost_by_check();
    if (lostByCheck || count_legal(pos) == 0) {
        const bool whiteLost = pos.side_to_move() == WHITE;
        if (lostByCheck)
            send(whiteLost ? "0-1 {Black checks first}" : "1-0 {White checks first}");
        else if (pos.in_check())
            send(whiteLost ? "0-1 {Black mates}" : "1-0 {White mates}");
        else
            send("1/2-1/2 {Stalemate}");
        return;
    }
    search::Listener l;
    const Position* p = &pos;
    l.info = [this, p](const search::Info& i) {
        if (post) thinking(i, *p);
    };
    l.bestmove = [this, p](Move best, Move) {
        std::lock_guard<std::mutex> lock(mutex);
        if (searching == Search::Game && !aborted && best) {
            pending = best;
            send("move " + CecpNotation.move_out(to_uci(best, *p)));
        }
        searching = Search::None;
    };
    {
        std::lock_guard<std::mutex> lock(mutex);
        searching = Search::Game;
    }
    engine.go(game_limits(), l);
}

void XBoard::analyze() {
    const Position& pos = engine.position();
    if (pos.lost_by_check() || count_legal(pos) == 0) return;
    search::Limits lim;
    lim.start = search::now();
    lim.infinite = true;
    search::Listener l;
    const Position* p = &pos;
    l.info = [this, p](const search::Info& i) { thinking(i, *p); };
    l.bestmove = [this](Move, Move) {
        std::lock_guard<std::mutex> lock(mutex);
        searching = Search::None;
    };
    {
        std::lock_guard<std::mutex> lock(mutex);
        searching = Search::Analysis;
    }
    engine.go(lim, l);
}

// After the position changed: analysis follows it; a game search starts when the engine
// is to move.
void XBoard::after_change() {
    if (analyzing)
        analyze();
    else if (!force && engine.position().side_to_move() == engineColor)
        think();
}

void XBoard::set_variant(const std::string& name) {
    const Variant* v = find_variant(name);
    if (!v) {
        send("Error (unsupported variant): " + name);
        return;
    }
    engine.set_variant(*v);
    for (const std::string& s : setup_lines(engine.variant())) send(s);
}

void XBoard::user_move(const std::string& text) {
    finish_search(true);
    Move m = parse_uci_move(engine.position(), CecpNotation.move_in(text));
    if (!m) {
        // Cute Chess sends a dummy move in force mode to hand Black the move before a
        // setboard, and takes "Illegal move" as a claim against it: in force mode an
        // unplayable move is reported as an error instead.
        if (force && !analyzing)
            send("Error (illegal move in force mode): " + text);
        else
            send("Illegal move: " + text);
        return;
    }
    engine.play(m);
    after_change();
}

std::optional<long long> XBoard::number(const std::string& what, const std::string& v, long long lo,
                                        long long hi) {
    auto n = protocol::number(v, lo, hi);
    // Out of range: say so (CECP comments start with '#') and use the nearest value.
    if (n && protocol::clamped(v, *n))
        send("# " + what + " " + v + " is out of range; using " + std::to_string(*n));
    return n;
}

void XBoard::level(std::istringstream& is) {
    std::string mps, base, inc;
    if (!(is >> mps >> base >> inc)) {
        send("Error (level needs MPS BASE INC): level");
        return;
    }
    auto m = number("level MPS", mps, 0, 100000);
    // BASE is minutes or minutes:seconds; INC seconds, possibly with a fraction.
    const size_t colon = base.find(':');
    auto minutes = number("level BASE", base.substr(0, colon), 0, 1000000);
    std::optional<long long> secs = 0;
    if (colon != std::string::npos)
        secs = number("level BASE seconds", base.substr(colon + 1), 0, 59);
    auto incMsParsed = protocol::seconds_to_ms(inc);
    if (incMsParsed && !inc.empty() && inc[0] == '-')
        send("# level INC " + inc + " is out of range; using 0");
    if (!m || !minutes || !secs || !incMsParsed) {
        send("Error (bad level): level " + mps + " " + base + " " + inc);
        return;
    }
    movesPerSession = int(*m);
    baseMs = (*minutes * 60 + *secs) * 1000;
    incMs = *incMsParsed;
    moveTimeMs = 0;
    haveLevel = true;
    ownClockMs = oppClockMs = -1;
}

bool XBoard::command(const std::string& line) {
    std::istringstream is(line);
    std::string token;
    if (!(is >> token)) return true;

    // Clock and display commands leave a running search alone; every other command first
    // plays the move a finished search announced.
    if (token == "time" || token == "otim") {
        std::string v;
        is >> v;
        auto n = number(token, v, 0, 1LL << 40);
        if (!n)
            send("Error (" + token + " needs centiseconds): " + line);
        else
            (token == "time" ? ownClockMs : oppClockMs) = *n * 10;
        return true;
    }
    if (token == "ping") {
        std::string n;
        is >> n;
        send("pong " + n);
        return true;
    }
    if (token == "post" || token == "nopost") {
        post = token == "post";
        return true;
    }
    if (token == "xboard" || token == "accepted" || token == "rejected" || token == "random" ||
        token == "computer" || token == "name" || token == "hard" || token == "easy" ||
        token == "." || token == "draw" || token == "ics" || token == "bk" || token == "hint")
        return true;
    if (token == "?") {
        // Move now: the search stops and its move is announced and played.
        bool game;
        {
            std::lock_guard<std::mutex> lock(mutex);
            game = searching == Search::Game;
        }
        if (game) finish_search(false);
        return true;
    }

    settle();
    if (token == "quit") {
        finish_search(true);
        return false;
    }
    if (token == "protover")
        features();
    else if (token == "new") {
        finish_search(true);
        engine.set_variant(default_variant());
        engine.new_game();
        force = false;
        engineColor = BLACK;
        depthLimit = 0;
        ownClockMs = oppClockMs = -1;
        if (analyzing) analyze();
    } else if (token == "variant") {
        finish_search(true);
        std::string name;
        if (!(is >> name))
            send("Error (variant needs a name): variant");
        else
            set_variant(name);
        if (analyzing) analyze();
    } else if (token == "force") {
        finish_search(true);
        force = true;
    } else if (token == "result") {
        finish_search(true);
        force = true;
    } else if (token == "go") {
        finish_search(true);
        force = false;
        engineColor = engine.position().side_to_move();
        think();
    } else if (token == "playother") {
        finish_search(true);
        force = false;
        engineColor = ~engine.position().side_to_move();
    } else if (token == "level") {
        level(is);
    } else if (token == "st") {
        std::string v;
        is >> v;
        auto ms = protocol::seconds_to_ms(v);
        if (!ms || !*ms)
            send("Error (st needs seconds): " + line);
        else
            moveTimeMs = *ms, haveLevel = false;
    } else if (token == "sd") {
        std::string v;
        is >> v;
        auto d = number("sd", v, 1, MAX_PLY - 10);
        if (!d)
            send("Error (sd needs a depth): " + line);
        else
            depthLimit = int(*d);
    } else if (token == "setboard") {
        finish_search(true);
        std::string fen;
        std::getline(is >> std::ws, fen);
        // An empty FEN would mean the start position to the engine: refuse it instead.
        if (fen.find_first_not_of(" \t\r") == std::string::npos) {
            send("tellusererror Illegal position: setboard needs a FEN");
            return true;
        }
        if (auto err = engine.set_position(fen, {})) {
            send("tellusererror Illegal position: " + *err);
            return true;
        }
        after_change();
    } else if (token == "usermove") {
        std::string m;
        if (!(is >> m))
            send("Error (usermove needs a move): usermove");
        else
            user_move(m);
    } else if (token == "undo" || token == "remove") {
        finish_search(true);
        for (int i = token == "undo" ? 1 : 2; i > 0; --i)
            if (!engine.undo()) {
                send("Error (no move to take back): " + token);
                break;
            }
        if (analyzing) analyze();
    } else if (token == "analyze") {
        finish_search(true);
        analyzing = true;
        analyze();
    } else if (token == "exit") {
        finish_search(true);
        analyzing = false;
    } else if (token == "memory" || token == "cores") {
        finish_search(true);
        std::string v;
        is >> v;
        OptionResult r = engine.set_option(token == "memory" ? "Hash" : "Threads", v);
        if (r.error) send("Error (" + *r.error + "): " + line);
        if (r.note) send("# " + *r.note);
    } else if (token == "option") {
        finish_search(true);
        std::string rest;
        std::getline(is >> std::ws, rest);
        const size_t eq = rest.find('=');
        std::string name = rest.substr(0, eq),
                    value = eq == std::string::npos ? "" : rest.substr(eq + 1);
        for (const EngineOption& o : engine.options())
            if (o.name == name && o.type == EngineOption::Type::Check)
                value = value == "1" ? "true" : value == "0" ? "false" : value;
        OptionResult r = engine.set_option(name, value);
        if (r.error) send("Error (" + *r.error + "): " + line);
        if (r.note) send("# " + *r.note);
        if (analyzing) analyze();
    } else if (token == "d") {
        finish_search(true);
        std::string s = engine.position().pretty();
        // CECP comments start with '#'.
        std::istringstream ps(s);
        for (std::string l; std::getline(ps, l);) send("# " + l);
    } else if (token == "perft") {
        finish_search(true);
        std::string v;
        is >> v;
        auto d = number("perft", v, 1, 30);
        if (!d)
            send("Error (perft needs a depth): " + line);
        else {
            std::istringstream ps(perft_report(engine.position(), int(*d)));
            for (std::string l; std::getline(ps, l);) send("# " + l);
        }
    } else if (looks_like_move(token))
        user_move(token);
    else
        send("Error (unknown command): " + token);
    return true;
}

} // namespace khun::protocol
