// Bad input against the real binary, in each dialect: malformed FENs of every kind,
// illegal and garbled moves, unknown commands and options, out-of-range and non-numeric
// values, 100 000-character lines, binary junk (NUL bytes, invalid UTF-8), end of input.
// After each one the engine must have answered with an error or a note, in printable
// ASCII only, kept its position and options, and still play a legal move from there.
#include "engine_session.h"

#include "khun/protocol/text.h"
#include "khun/protocol/usi.h"

using namespace enginetest;

namespace {

const std::string Big(100000, 'x');

// Binary junk: NUL bytes, control characters, invalid UTF-8, a lone CR.
const std::vector<std::string> Junk = {
    std::string("\0\0\0", 3),
    std::string("go\0depth 3", 10),
    std::string("\x01\x02\x1b[31m\x7f", 8),
    "\xff\xfe\xfd\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x90\x28\xbc",
    "position startpos moves \xc3\xa9\xc3\xa9 e3e4",
    "setoption name \xff\xff value \xfe",
    "\r",
    std::string(3000, '\x80'),
};

// Malformed FENs of every kind the parser must refuse (docs/rules.md "FEN").
const std::vector<std::string> BadFens = {
    "",
    "garbage",
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8 w - - 0 1",                // 7 ranks
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR/8 w - - 0 1",     // 9 ranks
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNRR w - - 0 1",      // rank too long
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSN w - - 0 1",        // rank too short
    "rnsmksnr/9/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",       // digit 9
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKQSNR w - - 0 1",       // chess letter
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKKSNR w - - 0 1",       // two white kings
    "rnsmmsnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",       // no black king
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x - - 0 1",       // side
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1 extra", // a seventh field
    "4k3/8/4P3/8/8/8/8/4K3 w - - 0 1",                             // pawn on its 6th rank
    "4k3/8/8/8/8/8/8/4K2R w - 0 0 1 x",
    "4k2R/8/8/8/8/8/8/4K3 w - - 0 1",                    // can take the king
    "4k3/8/8/8/8/8/8/4K2R w - abc 0 1",                  // count limit
    "4k3/8/8/8/8/8/8/4K2R w - -16 3 1",                  // negative count
    "4k3/8/8/8/8/8/8/4K2R w - 99999999999999999999 3 1", // huge count
    "4k3/8/8/8/8/8/8/4K2R w - 16 -3 1",
    "4k3/8/8/8/8/8/8/4K2R w - 16 x 1",
    "4k3/8/8/8/8/8/8/4K2R w - - 0 -1",
    "4k3/8/8/8/8/8/8/4K2R w - - 0 99999999999999999999999",
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1", // cambodian rights in makruk
    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - 1+1 0 1",  // karouk counters
    "//////// w - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    std::string("4k3/8/8/8/\0/8/8/4K3 w - - 0 1", 29),
    std::string(100000, 'p'),
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1 " + Big,
};

// Values a GUI (or a person) may send that are out of range or not numbers at all.
const std::vector<std::string> BadGo = {
    "go depth abc",      "go depth -5",
    "go depth 0",        "go depth -2147483649",
    "go depth " + Big,   "go nodes -1",
    "go nodes many",     "go nodes 99999999999999999999999",
    "go movetime",       "go movetime -100",
    "go movetime 1e3",   "go wtime -99999999999 btime -1",
    "go wtime x",        "go winc -50 binc -50 wtime 100 btime 100",
    "go movestogo -3",   "go movestogo 99999999999",
    "go mate 0",         "go mate -4",
    "go perft",          "go perft -1",
    "go perft 0",        "go depth 3 sideways",
    "go searchmoves zz", "go " + Big,
};

const std::vector<std::string> BadOptions = {
    "setoption name Hash value abc",
    "setoption name Hash value",
    "setoption name Hash value 1.5",
    "setoption name Hash value 99999999999999999999",
    "setoption name Hash value " + Big,
    "setoption name Threads value 0",
    "setoption name Threads value -3",
    "setoption name Threads value x",
    "setoption name MultiPV value 2x",
    "setoption name Ponder value maybe",
    "setoption name UCI_Variant value chess",
    "setoption name Frobnicate value 3",
    "setoption name " + Big + " value 3",
    "setoption name",
    "setoption",
    "setoption value 3",
};

bool is_printable(const std::string& l) {
    return std::all_of(l.begin(), l.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u < 0x7f;
    });
}

size_t count_prefix(const std::vector<std::string>& lines, const std::string& prefix) {
    return size_t(std::count_if(lines.begin(), lines.end(),
                                [&](const std::string& l) { return starts_with(l, prefix); }));
}

std::string shown(const std::string& cmd) {
    std::string s = cmd.size() > 80
                        ? cmd.substr(0, 80) + "... (" + std::to_string(cmd.size()) + " chars)"
                        : cmd;
    for (char& c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    return s;
}

// One bad command in UCI or USI (both answer isready with readyok). Every line of the
// reply is printable ASCII of a sane length. A `go` is either refused with an error or
// taken as a search (its out-of-range values clamped, with or without a note): then it
// must end on stop with a legal move, checked by `legal`. Anything else must be answered
// with an error or a note.
void send_bad(EngineSession& e, const std::string& cmd,
              const std::function<bool(const std::string&)>& legal) {
    INFO("command: " << shown(cmd));
    const size_t from = e.lines.size();
    auto r = e.reply(cmd, 20000);
    ENGINE_REQUIRE(e, r);
    const size_t errors = count_prefix(*r, "info string error");
    const size_t notes = count_prefix(*r, "info string") - errors;
    if (starts_with(cmd, "go")) {
        // Whatever was taken as a search ends on stop with one legal move; a refused go
        // starts none (one with a bad searchmoves token searches without it).
        const bool searched = errors == 0 || cmd.find("searchmoves") != std::string::npos;
        e.send("stop");
        if (searched && cmd.find("perft") == std::string::npos)
            ENGINE_CHECK(e, e.wait_for(is_bestmove, 20000, from));
        ENGINE_REQUIRE(e, e.sync(20000));
        size_t bestmoves = 0;
        for (const std::string& l : e.texts(from))
            if (is_bestmove(l)) {
                ++bestmoves;
                INFO(l);
                ENGINE_CHECK(e, legal(bestmove_of(l)));
            }
        if (cmd.find("perft") == std::string::npos)
            ENGINE_CHECK(e, bestmoves == (searched ? 1u : 0u));
    }
    if (!trim(cmd).empty() && (!starts_with(cmd, "go") || cmd.find("perft") != std::string::npos))
        ENGINE_CHECK(e, errors + notes >= 1);
    for (const std::string& l : e.texts(from)) {
        INFO("line: " << shown(l));
        ENGINE_CHECK(e, is_printable(l));
        ENGINE_CHECK(e, l.size() <= 4200);
    }
}

} // namespace

TEST_CASE("robustness: UCI bad input keeps the position and the options, then a legal move",
          "[robustness]") {
    auto e = started_engine();
    const std::vector<std::string> moves = {"c3c4", "f6f5"};
    // Options that must survive the bad input: two lines per depth, a 2 MB hash.
    for (const char* cmd : {"setoption name MultiPV value 2", "setoption name Hash value 2",
                            "position startpos moves c3c4 f6f5"}) {
        auto r = e->reply(cmd);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
    }
    const std::string before = e->shown_fen();
    ENGINE_REQUIRE(*e, before == "rnsmksnr/8/ppppp1pp/5p2/2P5/PP1PPPPP/8/RNSKMSNR w - - 0 2");

    std::vector<std::string> bad = Junk;
    for (const std::string& f : BadFens) {
        bad.push_back("position fen " + f);
        bad.push_back("position fen " + f + " moves e3e4");
    }
    for (const char* m : {"e3e4 e3e4", "e3e5", "e3e4m", "z9z9", "e3", "e3e4e5e6", "0000", "a1a1",
                          "d1d1", "e3e4 e6e5 d3d4 e5d4 d1e2 zz", "E3E4"})
        bad.push_back(std::string("position startpos moves ") + m);
    bad.push_back("position startpos moves " + Big);
    bad.push_back("position startpos mvoes e3e4");
    bad.push_back("position sideways");
    bad.push_back("position");
    bad.insert(bad.end(), BadGo.begin(), BadGo.end());
    bad.insert(bad.end(), BadOptions.begin(), BadOptions.end());
    for (const char* c : {"frobnicate the engine", "POSITION startpos", "isready now please"})
        bad.push_back(c);
    bad.push_back(Big);

    for (const std::string& cmd : bad) {
        if (cmd == "isready now please") continue; // answered with readyok: not an error
        send_bad(*e, cmd, [&](const std::string& m) { return is_legal_move(StartFen, m, moves); });
        INFO("after: " << shown(cmd));
        ENGINE_CHECK(*e, e->shown_fen() == before);
    }
    // Threads 0 and -3 were clamped to 1, the bad Hash values ignored: Hash and MultiPV
    // are what they were, and the engine plays from the position it had.
    auto s = e->search("go depth 4");
    ENGINE_REQUIRE(*e, s.done);
    ENGINE_CHECK(*e, is_legal_move(StartFen, s.best, moves));
    ENGINE_CHECK(*e, std::any_of(s.infos.begin(), s.infos.end(),
                                 [](const InfoLine& i) { return i.multipv == 2; }));
    ENGINE_CHECK(*e, std::none_of(s.infos.begin(), s.infos.end(),
                                  [](const InfoLine& i) { return i.multipv > 2; }));
    ENGINE_CHECK(*e, s.last.pv.size() >= 1);
    e->send("quit");
    ENGINE_CHECK(*e, e->wait_exit(5000) == 0);
}

TEST_CASE("robustness: USI bad input keeps the position, then a legal move", "[robustness]") {
    EngineSession e;
    e.send("usi");
    ENGINE_REQUIRE(e, e.expect_line("usiok"));
    auto sfen = [&] {
        e.cursor = e.lines.size();
        e.send("d");
        auto r = e.expect_prefix("Sfen: ");
        return r ? e.lines[*r].text.substr(6) : std::string();
    };
    auto r = e.reply("position startpos moves 6f6e 3c3d"); // c3c4 f6f5
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());
    const std::string before = sfen();
    ENGINE_REQUIRE(e, before == "rnsmksnr/8/ppppp1pp/5p2/2P5/PP1PPPPP/8/RNSKMSNR b - 3");

    std::vector<std::string> bad = Junk;
    for (const std::string& f :
         {std::string("garbage"), std::string("4k3/8/8/8/8/8/8/4K2R x - 1"),
          std::string("4k3/8/8/8/8/8/8/4K2R b P 1"), std::string("4k3/8/8/8/8/8/8/4K2R b - -5"),
          std::string("4k3/8/8/8/8/8/8/4K2R b - 1 2"), Big})
        bad.push_back("position sfen " + f);
    for (size_t i = 0; i < BadFens.size(); i += 3) bad.push_back("position fen " + BadFens[i]);
    for (const char* m : {"4f4e 4f4e", "e3e5", "9z9z", "4f", "4f4e4d4c", "resign"})
        bad.push_back(std::string("position startpos moves ") + m);
    bad.push_back("position startpos moves " + Big);
    for (const std::string& g : BadGo)
        if (g.find("mate") == std::string::npos && g.find("searchmoves") == std::string::npos)
            bad.push_back(g);
    bad.push_back("go byoyomi -5");
    bad.push_back("go byoyomi x");
    for (std::string o : BadOptions) {
        const size_t h = o.find("Hash");
        if (h != std::string::npos) o.replace(h, 4, "USI_Hash");
        if (o.find("MultiPV") == std::string::npos && o.find("Ponder") == std::string::npos)
            bad.push_back(o);
    }
    bad.push_back("frobnicate");
    bad.push_back(Big);

    for (const std::string& cmd : bad) {
        send_bad(e, cmd, [&](const std::string& m) {
            return is_legal_move(StartFen, khun::protocol::usi_to_uci(m), {"c3c4", "f6f5"});
        });
        INFO("after: " << shown(cmd));
        ENGINE_CHECK(e, sfen() == before);
    }
    auto s = e.search("go depth 4");
    ENGINE_REQUIRE(e, s.done);
    ENGINE_CHECK(e, is_legal_move(StartFen, khun::protocol::usi_to_uci(s.best), {"c3c4", "f6f5"}));
    e.send("quit");
    ENGINE_CHECK(e, e.wait_exit(5000) == 0);
}

TEST_CASE("robustness: CECP bad input keeps the game, then a legal move", "[robustness]") {
    EngineSession e;
    int pings = 0;
    // ping/pong: everything sent before has been handled; the lines in between.
    auto reply = [&](const std::string& cmd) -> std::optional<std::vector<std::string>> {
        e.cursor = e.lines.size();
        const size_t from = e.cursor;
        e.send(cmd);
        const std::string pong = "pong " + std::to_string(++pings);
        e.send("ping " + std::to_string(pings));
        auto r = e.expect_line(pong, 20000);
        if (!r) return std::nullopt;
        return e.texts(from, *r);
    };
    auto fen = [&] {
        auto r = reply("d");
        if (r)
            for (const std::string& l : *r)
                if (starts_with(l, "# Fen: ")) return l.substr(7);
        return std::string();
    };
    e.send("xboard");
    e.send("protover 2");
    ENGINE_REQUIRE(e, e.expect_prefix("feature done=1"));
    for (const char* cmd : {"new", "force", "usermove c3c4", "usermove f6f5"})
        ENGINE_REQUIRE(e, reply(cmd));
    const std::string before = fen();
    ENGINE_REQUIRE(e, before == "rnsmksnr/8/ppppp1pp/5p2/2P5/PP1PPPPP/8/RNSKMSNR w - - 0 2");

    std::vector<std::string> bad = Junk;
    for (size_t i = 0; i < BadFens.size(); ++i) bad.push_back("setboard " + BadFens[i]);
    for (const char* m : {"usermove e3e5",
                          "usermove zz",
                          "usermove",
                          "usermove ",
                          "e3e5",
                          "a1a1",
                          "level",
                          "level x y z",
                          "level 40 -5 0",
                          "level 40 5 -1",
                          "level 40 5:99 0",
                          "st",
                          "st -5",
                          "st abc",
                          "st 0",
                          "sd",
                          "sd -3",
                          "sd 0",
                          "sd abc",
                          "time",
                          "time -100",
                          "time abc",
                          "otim x",
                          "memory abc",
                          "memory",
                          "memory -1",
                          "memory 0",
                          "cores 0",
                          "cores -2",
                          "cores abc",
                          "cores",
                          "variant",
                          "variant chess",
                          "option",
                          "option Frobnicate=3",
                          "option Hash=abc",
                          "option Threads=x",
                          "perft",
                          "perft -1",
                          "perft abc",
                          "frobnicate"})
        bad.push_back(m);
    bad.push_back("usermove " + Big);
    bad.push_back("setboard " + Big);
    bad.push_back(Big);

    for (const std::string& cmd : bad) {
        INFO("command: " << shown(cmd));
        auto r = reply(cmd);
        ENGINE_REQUIRE(e, r);
        // An error in one of CECP's forms (or nothing for a line of blanks).
        const bool blank = trim(cmd).empty() || cmd == std::string("\0\0\0", 3);
        if (!blank)
            ENGINE_CHECK(e, std::any_of(r->begin(), r->end(), [](const std::string& l) {
                             return starts_with(l, "Error") || starts_with(l, "Illegal move") ||
                                    starts_with(l, "tellusererror") || starts_with(l, "# ");
                         }));
        for (const std::string& l : *r) {
            INFO("line: " << shown(l));
            ENGINE_CHECK(e, is_printable(l));
            ENGINE_CHECK(e, l.size() <= 4200);
        }
        ENGINE_CHECK(e, fen() == before);
    }
    // The engine plays a legal move from the position it kept.
    ENGINE_REQUIRE(e, reply("sd 3"));
    e.cursor = e.lines.size();
    e.send("go");
    auto mv = e.expect_prefix("move ", 20000);
    ENGINE_REQUIRE(e, mv);
    ENGINE_CHECK(e, is_legal_move(StartFen, e.lines[*mv].text.substr(5), {"c3c4", "f6f5"}));
    e.send("quit");
    ENGINE_CHECK(e, e.wait_exit(5000) == 0);
}

TEST_CASE("robustness: end of input in USI and CECP exits with code 0", "[robustness]") {
    for (const char* opener : {"usi", "xboard"}) {
        INFO(opener);
        for (bool searching : {false, true}) {
            INFO("searching " << searching);
            EngineSession e;
            e.send(opener);
            if (std::string(opener) == "usi") {
                ENGINE_REQUIRE(e, e.expect_line("usiok"));
                if (searching) e.send("go infinite");
            } else {
                e.send("protover 2");
                ENGINE_REQUIRE(e, e.expect_prefix("feature done=1"));
                if (searching) e.send("analyze");
            }
            e.drain(200);
            e.close_stdin();
            auto code = e.wait_exit(5000);
            ENGINE_REQUIRE(e, code);
            ENGINE_CHECK(e, *code == 0);
        }
    }
}

TEST_CASE("robustness: the engine never echoes raw bytes or huge tokens", "[robustness]") {
    using khun::protocol::printable;
    CHECK(printable("bestmove e3e4") == "bestmove e3e4");
    CHECK(printable("a\nb") == "a\nb");
    CHECK(printable(std::string("x\0y", 3)) == "x\\x00y");
    CHECK(printable("\xff\xc3\x28\r\t") == "\\xff\\xc3(\\x0d\\x09");
    const std::string cut = printable(std::string(10000, 'a') + "\nok");
    CHECK(cut == std::string(4096, 'a') + "...\nok");
}
