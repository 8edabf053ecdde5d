// The UCI conversation with the real binary: handshake, the sequence pychess sends, the
// options, every `go` limit, stop/ponderhit/quit/EOF, and bad input that must not hurt.
#include "engine_session.h"

#include <iostream>
#include <map>
#include <set>

using namespace enginetest;

namespace {

const std::string MiddleFen = "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26";

size_t count_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
    return size_t(std::count_if(lines.begin(), lines.end(),
                                [&](const std::string& l) { return starts_with(l, prefix); }));
}

// Checks a finished search: a bestmove that is legal in `fen` + `moves`, and a principal
// variation in its last info line that can be played.
void check_search(EngineSession& e, const EngineSession::Search& s, const std::string& fen,
                  const std::vector<std::string>& moves = {}) {
    ENGINE_REQUIRE(e, s.done);
    INFO("FEN " << fen << " moves " << moves.size() << " bestmove '" << s.best << "'");
    ENGINE_CHECK(e, is_legal_move(fen, s.best, moves));
    ENGINE_CHECK(e, s.last.valid);
    ENGINE_CHECK(e, first_illegal(fen, moves, s.last.pv) == "");
    if (!s.ponder.empty()) {
        std::vector<std::string> after = moves;
        after.push_back(s.best);
        ENGINE_CHECK(e, is_legal_move(fen, s.ponder, after));
    }
}

void timing(const std::string& what, double ms) {
    std::cout << "[engine timing] " << what << ": " << long(ms) << " ms" << std::endl;
}

} // namespace

TEST_CASE("engine: uci handshake lists id, options and uciok, isready answers readyok",
          "[engine]") {
    EngineSession e;
    e.send("uci");
    auto ok = e.expect_line("uciok");
    ENGINE_REQUIRE(e, ok);
    const auto reply = e.texts(0, *ok);
    ENGINE_REQUIRE(e, !reply.empty());
    ENGINE_CHECK(e, starts_with(reply[0], "id name Khun "));
    ENGINE_CHECK(e, count_prefix(reply, "id name ") == 1);
    ENGINE_CHECK(e, count_prefix(reply, "id author ") == 1);
    // Nothing but id and option lines (and blank lines, which GUIs ignore) before uciok.
    for (const std::string& l : reply) {
        INFO("line '" << l << "'");
        ENGINE_CHECK(e, (l.empty() || starts_with(l, "id ") || starts_with(l, "option name ")));
    }

    auto option = [&](const std::string& name) {
        for (const std::string& l : reply)
            if (starts_with(l, "option name " + name + " type ")) return l;
        return std::string();
    };
    // A spin option: "option name N type spin default D min A max B" with A <= D <= B.
    auto check_spin = [&](const std::string& name, long long def, long long min) {
        const std::string l = option(name);
        INFO("option " << name << ": '" << l << "'");
        auto w = words(l.substr(std::min(l.size(), ("option name " + name).size())));
        ENGINE_REQUIRE(e, w.size() == 8);
        ENGINE_CHECK(e, w[0] == "type");
        ENGINE_CHECK(e, w[1] == "spin");
        ENGINE_CHECK(e, w[2] == "default");
        ENGINE_CHECK(e, w[3] == std::to_string(def));
        ENGINE_CHECK(e, w[4] == "min");
        ENGINE_CHECK(e, w[5] == std::to_string(min));
        ENGINE_CHECK(e, w[6] == "max");
        ENGINE_CHECK(e, std::stoll(w[7]) >= def);
    };
    check_spin("Threads", 1, 1);
    check_spin("Hash", 16, 1);
    check_spin("MultiPV", 1, 1);
    check_spin("Move Overhead", 10, 0);
    ENGINE_CHECK(e, option("Clear Hash") == "option name Clear Hash type button");
    ENGINE_CHECK(e, option("Ponder") == "option name Ponder type check default false");
    // The combo lists makruk (the default) and may list the related games too.
    const auto variant = words(option("UCI_Variant"));
    ENGINE_REQUIRE(e, variant.size() >= 9);
    ENGINE_CHECK(e, std::vector<std::string>(variant.begin(), variant.begin() + 7) ==
                        words("option name UCI_Variant type combo default makruk"));
    ENGINE_CHECK(e, variant.size() % 2 == 1);
    for (size_t i = 7; i < variant.size(); i += 2) ENGINE_CHECK(e, variant[i] == "var");
    ENGINE_CHECK(e, std::count(variant.begin(), variant.end(), "makruk") == 2);
    ENGINE_CHECK(e, count_prefix(reply, "option name Threads ") == 1);

    const bool ready = e.sync();
    ENGINE_CHECK(e, ready);
    // readyok is the only reply to isready.
    ENGINE_CHECK(e, e.lines.size() == *ok + 2);
    e.send("quit");
    ENGINE_CHECK(e, e.wait_exit(5000) == 0);
}

TEST_CASE("engine: the pychess sequence, d shows the FEN as Fairy-Stockfish writes it",
          "[engine]") {
    EngineSession e;
    e.send("uci");
    auto ok = e.expect_line("uciok");
    ENGINE_REQUIRE(e, ok);
    auto r = e.reply("setoption name UCI_Chess960 value false");
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());
    r = e.reply("setoption name UCI_Variant value makruk");
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());
    r = e.reply("ucinewgame");
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());

    // The start position and every position the transition data ends in (Fairy-Stockfish's
    // own FENs, some with a count running), each with an empty move list as pychess sends.
    std::vector<std::string> fens = {StartFen, "8/8/8/8/2nM4/1k6/1mm5/K7 w - 128 49 91"};
    for (const std::string& row : data_lines("rules/transitions-makruk.txt")) {
        auto f = split(row, ';');
        REQUIRE(f.size() == 3);
        fens.push_back(f[2]);
    }
    for (const std::string& fen : fens) {
        INFO("position fen " << fen << " moves");
        auto rr = e.reply("position fen " + fen + " moves");
        ENGINE_REQUIRE(e, rr);
        ENGINE_CHECK(e, rr->empty());
        const std::string shown = e.shown_fen();
        ENGINE_CHECK(e, shown == fen);
        const bool ready = e.sync();
        ENGINE_CHECK(e, ready);
    }

    // Options other engines have: at most an info string, and the engine goes on.
    for (const char* cmd :
         {"setoption name EvalFile value x.nnue", "setoption name Use NNUE value true",
          "setoption name Skill Level value 5", "setoption name UCI_AnalyseMode value false"}) {
        INFO(cmd);
        auto rr = e.reply(cmd);
        ENGINE_REQUIRE(e, rr);
        ENGINE_CHECK(e, rr->size() <= 1);
        for (const std::string& l : *rr) ENGINE_CHECK(e, starts_with(l, "info string"));
    }
    const std::string fen = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";
    auto rr = e.reply("position fen " + fen + " moves e3e4 e6e5");
    ENGINE_REQUIRE(e, rr);
    ENGINE_CHECK(e, rr->empty());
    auto s = e.search("go depth 3");
    check_search(e, s, fen, {"e3e4", "e6e5"});
    e.send("quit");
    ENGINE_CHECK(e, e.wait_exit(5000) == 0);
}

TEST_CASE("engine: setoption errors, clamps and MultiPV", "[engine]") {
    auto e = started_engine();

    SECTION("a non-numeric Hash is an error and changes nothing") {
        auto r = e->reply("setoption name Hash value abc");
        ENGINE_REQUIRE(*e, r);
        ENGINE_REQUIRE(*e, r->size() == 1);
        ENGINE_CHECK(*e, starts_with((*r)[0], "info string error"));
        ENGINE_CHECK(*e, (*r)[0].find("Hash") != std::string::npos);
        // Other bad values of each type.
        for (const char* cmd :
             {"setoption name Ponder value maybe", "setoption name UCI_Variant value chess",
              "setoption name MultiPV value 2x", "setoption name Hash", "setoption",
              "setoption value 3"}) {
            INFO(cmd);
            auto rr = e->reply(cmd);
            ENGINE_REQUIRE(*e, rr);
            ENGINE_CHECK(*e, count_prefix(*rr, "info string error") == 1);
        }
        // MultiPV is still 1 (its bad value was ignored): one line per depth.
        auto s = e->search("go depth 4");
        check_search(*e, s, StartFen);
        for (auto& i : s.infos) ENGINE_CHECK(*e, i.multipv == 1);
        // A good Hash value is taken silently.
        auto rr = e->reply("setoption name Hash value 1");
        ENGINE_REQUIRE(*e, rr);
        ENGINE_CHECK(*e, rr->empty());
        s = e->search("go depth 4");
        check_search(*e, s, StartFen);
    }

    SECTION("Threads 0 is clamped with a note and the engine works") {
        auto r = e->reply("setoption name Threads value 0");
        ENGINE_REQUIRE(*e, r);
        ENGINE_REQUIRE(*e, r->size() == 1);
        ENGINE_CHECK(*e, starts_with((*r)[0], "info string"));
        ENGINE_CHECK(*e, (*r)[0].find("clamp") != std::string::npos);
        auto s = e->search("go depth 5");
        check_search(*e, s, StartFen);
        ENGINE_CHECK(*e, s.last.depth == 5);
        // Two threads work too.
        r = e->reply("setoption name Threads value 2");
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        r = e->reply("position fen " + MiddleFen);
        ENGINE_REQUIRE(*e, r);
        s = e->search("go depth 7");
        check_search(*e, s, MiddleFen);
    }

    SECTION("MultiPV 3 reports lines 1 to 3 at depth 6") {
        auto r = e->reply("setoption name MultiPV value 3");
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        auto s = e->search("go depth 6");
        check_search(*e, s, StartFen);
        std::map<int, InfoLine> atDepth6;
        for (auto& i : s.infos)
            if (i.depth == 6 && !i.bound) atDepth6[i.multipv] = i;
        ENGINE_REQUIRE(*e, atDepth6.size() == 3);
        std::set<std::string> firstMoves;
        for (int k = 1; k <= 3; ++k) {
            INFO("multipv " << k);
            ENGINE_REQUIRE(*e, atDepth6.count(k) == 1);
            const InfoLine& i = atDepth6[k];
            ENGINE_REQUIRE(*e, !i.pv.empty());
            ENGINE_CHECK(*e, first_illegal(StartFen, {}, i.pv) == "");
            firstMoves.insert(i.pv[0]);
            if (k > 1 && i.scoreType == "cp" && atDepth6[k - 1].scoreType == "cp")
                ENGINE_CHECK(*e, i.score <= atDepth6[k - 1].score);
        }
        ENGINE_CHECK(*e, firstMoves.size() == 3);
        ENGINE_CHECK(*e, s.best == atDepth6[1].pv[0]);
        for (auto& i : s.infos) ENGINE_CHECK(*e, (i.multipv >= 1 && i.multipv <= 3));
    }
}

TEST_CASE("engine: go depth 5 ends at depth 5 with a legal bestmove", "[engine]") {
    auto e = started_engine();
    for (const std::string& fen : {StartFen, MiddleFen}) {
        INFO(fen);
        auto r = e->reply("position fen " + fen);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        auto s = e->search("go depth 5");
        check_search(*e, s, fen);
        ENGINE_CHECK(*e, s.last.depth == 5);
        for (auto& i : s.infos) ENGINE_CHECK(*e, (i.depth >= 1 && i.depth <= 5));
        ENGINE_REQUIRE(*e, !s.last.pv.empty());
        ENGINE_CHECK(*e, s.best == s.last.pv[0]);
    }
}

TEST_CASE("engine: go nodes 20000 stops near the node limit", "[engine]") {
    auto e = started_engine();
    for (const std::string& fen : {StartFen, MiddleFen}) {
        INFO(fen);
        auto r = e->reply("position fen " + fen);
        ENGINE_REQUIRE(*e, r);
        auto s = e->search("go nodes 20000");
        check_search(*e, s, fen);
        ENGINE_CHECK(*e, s.last.nodes > 0);
        ENGINE_CHECK(*e, s.last.nodes < 60000);
    }
}

TEST_CASE("engine: go movetime 300 answers after about 300 ms", "[engine]") {
    auto e = started_engine();
    auto r = e->reply("position fen " + MiddleFen);
    ENGINE_REQUIRE(*e, r);
    auto s = e->search("go movetime 300", 10000);
    check_search(*e, s, MiddleFen);
    timing("go movetime 300 -> bestmove", s.ms);
    ENGINE_CHECK(*e, s.ms >= 250);
    ENGINE_CHECK(*e, s.ms <= 1500);
}

TEST_CASE("engine: go mate 2 finds the mate in 2", "[engine]") {
    auto e = started_engine();
    const std::string fen = "k7/8/8/2K5/8/8/8/7R w - - 0 1"; // Kb6 and Rh8#
    auto r = e->reply("position fen " + fen);
    ENGINE_REQUIRE(*e, r);
    ENGINE_CHECK(*e, r->empty());
    auto s = e->search("go mate 2", 20000);
    check_search(*e, s, fen);
    ENGINE_CHECK(*e, s.last.scoreType == "mate");
    ENGINE_CHECK(*e, s.last.score == 2);
}

TEST_CASE("engine: go wtime 2000 btime 2000 answers well within the clock", "[engine]") {
    auto e = started_engine();
    auto r = e->reply("position fen " + MiddleFen);
    ENGINE_REQUIRE(*e, r);
    auto s = e->search("go wtime 2000 btime 2000 winc 0 binc 0", 10000);
    check_search(*e, s, MiddleFen);
    timing("go wtime 2000 btime 2000 -> bestmove", s.ms);
    ENGINE_CHECK(*e, s.ms < 1500);
    // With an increment and movestogo 1: still a move (its time is only printed).
    s = e->search("go wtime 1000 btime 1000 winc 100 binc 100 movestogo 1", 10000);
    check_search(*e, s, MiddleFen);
    timing("go wtime 1000 winc 100 movestogo 1 -> bestmove", s.ms);
    // A clock that has run out (or below zero, as GUIs send when late) still gets a move.
    s = e->search("go wtime -50 btime 1 winc 0 binc 0", 10000);
    check_search(*e, s, MiddleFen);
}

TEST_CASE("engine: go infinite waits for stop and isready is answered meanwhile", "[engine]") {
    auto e = started_engine();
    auto r = e->reply("position fen " + MiddleFen);
    ENGINE_REQUIRE(*e, r);
    e->cursor = e->lines.size();
    e->send("go infinite");
    ENGINE_CHECK(*e, e->silent_for(is_bestmove, 500));
    // isready during the search.
    const auto t0 = e->send("isready");
    auto ready = e->expect_line("readyok", 5000);
    ENGINE_REQUIRE(*e, ready);
    const double readyMs = ms_between(t0, e->lines[*ready].time);
    timing("isready during go infinite -> readyok", readyMs);
    ENGINE_CHECK(*e, readyMs < 500);
    ENGINE_CHECK(*e, e->silent_for(is_bestmove, 200));
    // stop: the move comes at once.
    const auto t1 = e->send("stop");
    auto best = e->expect(is_bestmove, 5000);
    ENGINE_REQUIRE(*e, best);
    const double stopMs = ms_between(t1, e->lines[*best].time);
    timing("stop during go infinite -> bestmove (spec: 50 ms)", stopMs);
    ENGINE_CHECK(*e, stopMs < 500);
    ENGINE_CHECK(*e, is_legal_move(MiddleFen, bestmove_of(e->lines[*best].text)));
    // Exactly one bestmove, and the engine goes on.
    ENGINE_CHECK(*e, e->silent_for(is_bestmove, 200));
    auto s = e->search("go depth 3");
    check_search(*e, s, MiddleFen);
}

TEST_CASE("engine: go ponder waits for ponderhit or stop", "[engine]") {
    auto e = started_engine();
    auto r = e->reply("position fen " + MiddleFen);
    ENGINE_REQUIRE(*e, r);

    SECTION("ponderhit") {
        e->cursor = e->lines.size();
        e->send("go ponder wtime 2000 btime 2000 winc 0 binc 0");
        // The clock would allow ~300 ms: pondering must go on past that.
        ENGINE_CHECK(*e, e->silent_for(is_bestmove, 1000));
        const auto t0 = e->send("ponderhit");
        auto best = e->expect(is_bestmove, 5000);
        ENGINE_REQUIRE(*e, best);
        const double ms = ms_between(t0, e->lines[*best].time);
        timing("ponderhit -> bestmove", ms);
        ENGINE_CHECK(*e, ms < 2500);
        ENGINE_CHECK(*e, is_legal_move(MiddleFen, bestmove_of(e->lines[*best].text)));
    }
    SECTION("stop") {
        e->cursor = e->lines.size();
        e->send("go ponder wtime 2000 btime 2000 winc 0 binc 0");
        ENGINE_CHECK(*e, e->silent_for(is_bestmove, 700));
        const auto t0 = e->send("stop");
        auto best = e->expect(is_bestmove, 5000);
        ENGINE_REQUIRE(*e, best);
        const double ms = ms_between(t0, e->lines[*best].time);
        timing("stop while pondering -> bestmove", ms);
        ENGINE_CHECK(*e, ms < 500);
        ENGINE_CHECK(*e, is_legal_move(MiddleFen, bestmove_of(e->lines[*best].text)));
    }
    ENGINE_CHECK(*e, e->silent_for(is_bestmove, 200));
    auto s = e->search("go depth 3");
    check_search(*e, s, MiddleFen);
}

TEST_CASE("engine: go searchmoves restricts the root moves", "[engine]") {
    auto e = started_engine();
    auto r = e->reply("position startpos");
    ENGINE_REQUIRE(*e, r);
    auto s = e->search("go searchmoves a3a4 c3c4 depth 6");
    check_search(*e, s, StartFen);
    ENGINE_CHECK(*e, (s.best == "a3a4" || s.best == "c3c4"));
    for (auto& i : s.infos) {
        ENGINE_REQUIRE(*e, !i.pv.empty());
        ENGINE_CHECK(*e, (i.pv[0] == "a3a4" || i.pv[0] == "c3c4"));
    }
    ENGINE_CHECK(*e, s.last.depth == 6);
    // A single search move is played whatever it costs.
    s = e->search("go depth 4 searchmoves h3h4");
    check_search(*e, s, StartFen);
    ENGINE_CHECK(*e, s.best == "h3h4");
}

TEST_CASE("engine: quit during a search exits at once with code 0", "[engine]") {
    auto e = started_engine();
    auto r = e->reply("position fen " + MiddleFen);
    ENGINE_REQUIRE(*e, r);
    e->cursor = e->lines.size();
    e->send("go infinite");
    e->drain(300);
    const auto t0 = e->send("quit");
    auto code = e->wait_exit(5000);
    ENGINE_REQUIRE(*e, code);
    const double ms = ms_between(t0, e->exitTime);
    timing("quit during go infinite -> exit", ms);
    ENGINE_CHECK(*e, *code == 0);
    ENGINE_CHECK(*e, ms < 1000);
    e->drain(100);
    // The search's move was let out before the exit.
    ENGINE_CHECK(*e, bool(e->wait_for(is_bestmove, 0, 0)));
}

TEST_CASE("engine: end of input exits with code 0", "[engine]") {
    SECTION("idle") {
        auto e = started_engine();
        e->close_stdin();
        auto code = e->wait_exit(5000);
        ENGINE_REQUIRE(*e, code);
        ENGINE_CHECK(*e, *code == 0);
    }
    SECTION("during go infinite") {
        auto e = started_engine();
        e->cursor = e->lines.size();
        e->send("go infinite");
        e->drain(300);
        const auto t0 = Clock::now();
        e->close_stdin();
        auto code = e->wait_exit(5000);
        ENGINE_REQUIRE(*e, code);
        timing("EOF during go infinite -> exit", ms_between(t0, e->exitTime));
        ENGINE_CHECK(*e, *code == 0);
        ENGINE_CHECK(*e, ms_between(t0, e->exitTime) < 1000);
        e->drain(100);
        ENGINE_CHECK(*e, bool(e->wait_for(is_bestmove, 0, 0)));
    }
    SECTION("after a command without a newline") {
        auto e = started_engine();
        // "isready" with no end of line, then EOF: the last line still counts.
        e->cursor = e->lines.size();
        e->send_raw("position startpos moves e3e4\nisready");
        e->close_stdin();
        auto ready = e->expect_line("readyok", 5000);
        ENGINE_CHECK(*e, ready);
        auto code = e->wait_exit(5000);
        ENGINE_REQUIRE(*e, code);
        ENGINE_CHECK(*e, *code == 0);
    }
}

TEST_CASE("engine: bad input is reported and the engine keeps its position", "[engine]") {
    auto e = started_engine();
    const std::vector<std::string> moves = {"c3c4", "f6f5"};
    auto r = e->reply("position startpos moves c3c4 f6f5");
    ENGINE_REQUIRE(*e, r);
    ENGINE_CHECK(*e, r->empty());
    const std::string before = e->shown_fen();
    ENGINE_REQUIRE(*e, before == "rnsmksnr/8/ppppp1pp/5p2/2P5/PP1PPPPP/8/RNSKMSNR w - - 0 2");

    const std::vector<std::string> bad = {
        "go depth abc",
        "go depth -5",
        "go nodes many",
        "go movetime",
        "go wtime 1000 btime x",
        "go depth 3 sideways",
        "position fen garbage",
        "position fen rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x - - 0 1",
        "position startpos moves e3e4 e3e4",
        "position startpos moves e3e4 e6e5 d3d4 e5d4 d1e2 zz",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1 moves e1e3",
        std::string(100000, 'z'),
        "position fen " + std::string(100000, 'p'),
        "go depth " + std::string(50000, '9'),
        "frobnicate the engine",
        "setoption name Hash value -",
    };
    for (const std::string& cmd : bad) {
        INFO("command: " << (cmd.size() > 80 ? cmd.substr(0, 80) + "... (" +
                                                   std::to_string(cmd.size()) + " chars)"
                                             : cmd));
        const size_t from = e->lines.size();
        auto rr = e->reply(cmd, 20000);
        ENGINE_REQUIRE(*e, rr);
        const bool isGo = starts_with(cmd, "go");
        const size_t errors = count_prefix(*rr, "info string error");
        const size_t notes = count_prefix(*rr, "info string") - errors;
        // An error, or a note that a value was adjusted.
        ENGINE_CHECK(*e, errors + notes >= 1);
        if (isGo && errors == 0) {
            // The engine took the command as a search: let it finish before going on.
            auto best = e->wait_for(is_bestmove, 20000, from);
            ENGINE_CHECK(*e, best);
            e->cursor = e->lines.size();
            e->drain(50);
        }
        const std::string shown = e->shown_fen();
        ENGINE_CHECK(*e, shown == before);
        auto s = e->search("go depth 3");
        check_search(*e, s, StartFen, moves);
    }
}

TEST_CASE("engine: go when mated or stalemated gives bestmove (none)", "[engine]") {
    // Verified with the library: legal FENs, and the game is over in them.
    const std::string mated = "R6k/8/6K1/8/8/8/8/8 b - - 0 1";
    const std::string stalemate = "7k/5K2/p5M1/P7/8/8/8/8 b - - 0 1";
    {
        std::string err;
        auto g = library_game(mated, {}, &err);
        INFO(err);
        REQUIRE(g);
        REQUIRE(g->pos.outcome() == khun::Outcome::Checkmate);
        g = library_game(stalemate, {}, &err);
        REQUIRE(g);
        REQUIRE(g->pos.outcome() == khun::Outcome::Stalemate);
        // The same mate reached by a move (Ra8#) from a FEN.
        REQUIRE(library_game("7k/8/6K1/8/8/8/8/R7 w - - 0 1", {"a1a8"}));
    }
    auto e = started_engine();
    struct Case {
        std::string fen;
        std::vector<std::string> moves;
        std::string score;
    };
    const Case cases[] = {{mated, {}, "mate 0"},
                          {stalemate, {}, "cp 0"},
                          {"7k/8/6K1/8/8/8/8/R7 w - - 0 1", {"a1a8"}, "mate 0"}};
    for (const Case& c : cases) {
        INFO(c.fen << " moves " << c.moves.size());
        std::string cmd = "position fen " + c.fen;
        if (!c.moves.empty()) cmd += " moves " + c.moves[0];
        auto r = e->reply(cmd);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        for (const char* go : {"go depth 5", "go movetime 200", "go wtime 1000 btime 1000"}) {
            INFO(go);
            auto s = e->search(go, 10000);
            ENGINE_REQUIRE(*e, s.done);
            ENGINE_CHECK(*e, s.bestLine == "bestmove (none)");
            ENGINE_CHECK(*e, std::find(s.output.begin(), s.output.end(),
                                       "info depth 0 score " + c.score) != s.output.end());
        }
        // In infinite mode the (none) waits for stop like any other move.
        e->cursor = e->lines.size();
        e->send("go infinite");
        ENGINE_CHECK(*e, e->silent_for(is_bestmove, 300));
        e->send("stop");
        auto best = e->expect(is_bestmove, 5000);
        ENGINE_REQUIRE(*e, best);
        ENGINE_CHECK(*e, e->lines[*best].text == "bestmove (none)");
    }
}
