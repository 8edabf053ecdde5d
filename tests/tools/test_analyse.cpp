// The annotator at a tiny depth: every move gets an evaluation, the output reads back as
// the same game, a blunder is marked, counts are noted, and a bad game is reported by
// its number and move while the others are still written.
#include "helpers.h"

#include "khun/tools/analyse.h"
#include "khun/tools/pgn.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;
using namespace testutil;

namespace {

AnalyseOptions tiny(int depth = 3) {
    AnalyseOptions o;
    o.depth = depth;
    o.hashMb = 8;
    o.progress = false;
    return o;
}

std::vector<std::string> sans(const PgnGame& g) {
    std::vector<std::string> out;
    for (auto& m : g.moves) out.push_back(m.san);
    return out;
}

// "+0.35/3 wdl 305/616/79" (White's win/draw/loss per mille) or "0.00/0 stalemate",
// optionally " best Nd2 +0.10" and a count note.
const std::regex
    Evaluation(R"(^(0\.00|[+-]\d+\.\d\d|[+-]M\d+)/\d+ (wdl \d+/\d+/\d+|[a-z][a-z ]+)([ ;].*)?$)");

const std::regex WdlPart(R"(wdl (\d+)/(\d+)/(\d+))");

const char* Blunder = R"([Event "blunder"]
[Variant "makruk"]
[FEN "4k3/8/7p/3r4/8/7P/8/R3K3 w - - 0 1"]
[SetUp "1"]

1. Ra5 Rxa5 2. Kf2 Kf7 *
)";

} // namespace

TEST_CASE("analyse: win chance, judgements and scores", "[analyse]") {
    // The expected result W + D/2 of the WDL model, at the start's material (64).
    CHECK(win_chance(0, 64) == Approx(0.5));
    CHECK(win_chance(100, 64) > 0.5);
    CHECK(win_chance(-100, 64) == Approx(1 - win_chance(100, 64)));
    CHECK(win_chance(300, 64) > win_chance(100, 64));
    CHECK(win_chance(mate_in(5), 64) == 1.0);
    CHECK(win_chance(mated_in(5), 64) == 0.0);
    CHECK(win_chance(eval::wdl::WDL{412, 560, 28}) == Approx(0.692));
    // A count about to run out leaves any score short of mate a draw.
    CHECK(win_chance(800, 16, 0) == Approx(0.5));
    CHECK(win_chance(800, 16, 40) > 0.7);
    CHECK(judge_move(0.0) == 0);
    CHECK(judge_move(0.04) == 0);
    CHECK(judge_move(0.06) == 6);
    CHECK(judge_move(0.12) == 2);
    CHECK(judge_move(0.5) == 4);
    CHECK(format_score(35) == "+0.35");
    CHECK(format_score(-120) == "-1.20");
    CHECK(format_score(0) == "0.00");
    CHECK(format_score(mate_in(5)) == "+M3");
    CHECK(format_score(mated_in(4)) == "-M2");
}

TEST_CASE("analyse: a sample file at depth 3", "[analyse]") {
    init();
    std::ifstream in(data_path("tools/games-pychess.pgn"));
    REQUIRE(in.good());
    std::stringstream text;
    text << in.rdbuf() << Blunder;
    auto original = read_pgn_string(text.str());
    REQUIRE(original.size() == 8);

    std::istringstream input(text.str());
    std::ostringstream out, err;
    CHECK(analyse_pgn(input, out, err, tiny()) == 0);
    CHECK(err.str().empty());
    auto games = read_pgn_string(out.str());
    INFO(out.str());
    REQUIRE(games.size() == original.size());
    for (size_t i = 0; i < games.size(); ++i) {
        INFO("game " << i + 1);
        CHECK(!games[i].error);
        CHECK(sans(games[i]) == sans(original[i]));
        CHECK(games[i].tag("Variant") == original[i].tag("Variant"));
        CHECK(games[i].tag("Annotator").rfind("Khun", 0) == 0);
        CHECK(!replay_pgn(games[i]).error);
        for (auto& m : games[i].moves) {
            INFO("move " << m.san << " comment {" << m.comment << "}");
            CHECK(std::regex_match(m.comment, Evaluation));
            std::smatch w;
            if (std::regex_search(m.comment, w, WdlPart))
                CHECK(std::stoi(w[1]) + std::stoi(w[2]) + std::stoi(w[3]) == 1000);
        }
    }
    // The game that ends in mate says so.
    CHECK(games[1].moves.back().comment.find("checkmate") != std::string::npos);

    // 1. Ra5?? hangs the rook; Black's recapture is the best move.
    const PgnGame& b = games.back();
    REQUIRE(b.moves.size() == 4);
    REQUIRE(!b.moves[0].nags.empty());
    CHECK((b.moves[0].nags[0] == 2 || b.moves[0].nags[0] == 4));
    CHECK(b.moves[0].comment.find(" best ") != std::string::npos);
    CHECK(b.moves[0].comment[0] == '-');
    // The WDL is White's too: after the blunder White loses more often than it wins.
    std::smatch w;
    REQUIRE(std::regex_search(b.moves[0].comment, w, WdlPart));
    CHECK(std::stoi(w[3]) > std::stoi(w[1]));
    CHECK(b.moves[1].nags.empty());
    CHECK(b.moves[1].comment.find(" best ") == std::string::npos);
    CHECK(out.str().find("1. Ra5?") != std::string::npos);
}

TEST_CASE("analyse: a count that starts is noted with the moves it leaves", "[analyse]") {
    init();
    const std::string text = R"([Variant "makruk"]
[FEN "4k3/8/8/8/3p4/8/8/3RK3 w - - 0 1"]

1. Rxd4 Ke7 *
)";
    std::istringstream input(text);
    std::ostringstream out, err;
    CHECK(analyse_pgn(input, out, err, tiny(2)) == 0);
    auto games = read_pgn_string(out.str());
    REQUIRE(games.size() == 1);
    REQUIRE(games[0].moves.size() == 2);
    const std::string& c = games[0].moves[0].comment;
    INFO(c);
    CHECK(c.find("count starts (pieces' honour, 16-move limit): White has 13 moves") !=
          std::string::npos);
    CHECK(games[0].moves[1].comment.find("count") == std::string::npos);
}

TEST_CASE("analyse: an illegal move in game 2 is reported, games 1 and 3 written", "[analyse]") {
    init();
    const std::string text = R"([Event "one"]
[Variant "makruk"]

1. e4 e5 2. Nd2 *

[Event "two"]
[Variant "makruk"]

1. e4 e5 2. Ke2 Ke7 3. Rxh8 Nd7 *

[Event "three"]
[Variant "makruk"]

1. f4 f5 *
)";
    std::istringstream input(text);
    std::ostringstream out, err;
    CHECK(analyse_pgn(input, out, err, tiny(2)) == 1);
    CHECK(err.str().find("error: game 2, move 3: illegal move 'Rxh8'") != std::string::npos);
    auto games = read_pgn_string(out.str());
    REQUIRE(games.size() == 2);
    CHECK(games[0].tag("Event") == "one");
    CHECK(sans(games[0]) == std::vector<std::string>{"e4", "e5", "Nd2"});
    CHECK(games[1].tag("Event") == "three");
}

TEST_CASE("analyse: the command line", "[analyse]") {
    init();
    char in[] = "/tmp/khun-analyse-in-XXXXXX";
    int fd = mkstemp(in);
    REQUIRE(fd >= 0);
    const std::string text = std::string(Blunder) + "\n[Event \"bad\"]\n\n1. e4 e5 2. Kf3 *\n";
    REQUIRE(write(fd, text.data(), text.size()) == ssize_t(text.size()));
    close(fd);
    const std::string outPath = std::string(in) + ".out", errPath = std::string(in) + ".err";
    const std::string cmd = std::string("'") + KHUN_BINARY + "' analyse '" + in +
                            "' --depth 2 --out '" + outPath + "' 2> '" + errPath + "'";
    const int status = std::system(cmd.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 1);
    std::ifstream outFile(outPath), errFile(errPath);
    std::stringstream o, e;
    o << outFile.rdbuf();
    e << errFile.rdbuf();
    CHECK(e.str().find("error: game 2, move 2: illegal move 'Kf3'") != std::string::npos);
    // The progress line: positions done and the time left.
    CHECK(e.str().find("positions") != std::string::npos);
    auto games = read_pgn_string(o.str());
    REQUIRE(games.size() == 1);
    CHECK(games[0].moves.size() == 4);

    const std::string usage = std::string("'") + KHUN_BINARY + "' analyse --depth x 2>/dev/null";
    const int bad = std::system(usage.c_str());
    CHECK(WEXITSTATUS(bad) == 2);
    std::remove(in);
    std::remove(outPath.c_str());
    std::remove(errPath.c_str());
}
