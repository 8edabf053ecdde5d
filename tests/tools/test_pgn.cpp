// PGN: Cute Chess and pychess.org files of all six games, comments, NAGs, variations,
// several games, damaged games, and writing a game back.
#include "helpers.h"

#include "khun/tools/pgn.h"
#include "khun/tools/san.h"

#include <fstream>

using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;
using namespace testutil;

namespace {

std::vector<PgnGame> read_data(const std::string& name) {
    init();
    std::ifstream in(data_path(name));
    REQUIRE(in.good());
    return read_pgn(in);
}

std::vector<std::string> sans(const PgnGame& g) {
    std::vector<std::string> out;
    for (auto& m : g.moves) out.push_back(m.san);
    return out;
}

void check_replays(std::vector<PgnGame>& games) {
    for (PgnGame& g : games) {
        INFO("game " << g.number << " (" << g.tag("Variant") << ")");
        CHECK(!g.error);
        ReplayedGame r = replay_pgn(g);
        INFO(r.error.value_or(""));
        CHECK(!r.error);
        REQUIRE(r.game);
        CHECK(r.game->moves.size() == g.moves.size());
        CHECK(r.fens.size() == g.moves.size() + 1);
        for (auto& m : g.moves) CHECK(m.move);
    }
}

} // namespace

TEST_CASE("pgn: variant names as the GUIs and servers write them", "[pgn]") {
    init();
    auto name = [](const std::string& tag) {
        const Variant* v = pgn_variant(tag);
        return v ? v->name : std::string("(none)");
    };
    CHECK(name("") == "makruk");
    CHECK(name("makruk") == "makruk");
    CHECK(name("Makruk") == "makruk");
    CHECK(name("MAKRUK") == "makruk");
    CHECK(name("cambodian") == "cambodian");
    CHECK(name("Cambodian") == "cambodian");
    CHECK(name("Ouk Chatrang") == "cambodian");
    CHECK(name("Makpong") == "makpong");
    CHECK(name("karouk") == "karouk");
    CHECK(name("Kar Ouk") == "karouk");
    CHECK(name("kar-ouk") == "karouk");
    CHECK(name("ai-wok") == "ai-wok");
    CHECK(name("Ai-Wok") == "ai-wok");
    CHECK(name("aiwok") == "ai-wok");
    CHECK(name("asean") == "asean");
    CHECK(name("ASEAN") == "asean");
    CHECK(name("chess") == "(none)");
    CHECK(name("sittuyin") == "sittuyin");
    CHECK(name("Sittuyin") == "sittuyin");
    CHECK(name("Makrukhouse") == "makrukhouse");
    CHECK(name("shogi") == "(none)");
}

TEST_CASE("pgn: a Cute Chess file of six games", "[pgn]") {
    auto games = read_data("tools/games-cutechess.pgn");
    REQUIRE(games.size() == 6);
    const char* variants[] = {"makruk", "makruk", "cambodian", "karouk", "ai-wok", "asean"};
    for (size_t i = 0; i < games.size(); ++i) {
        CHECK(games[i].number == int(i) + 1);
        CHECK(games[i].tag("Variant") == variants[i]);
        CHECK(pgn_variant(games[i].tag("variant"))->name == variants[i]);
    }
    check_replays(games);

    const PgnGame& g = games[0];
    CHECK(g.tag("White") == "Khun 0.1.0");
    CHECK(g.tag("Round") == "1");
    CHECK(g.tag("PlyCount") == "60");
    CHECK(g.moves.size() == 60);
    CHECK(g.moves[0].san == "f4");
    CHECK(g.moves[0].comment == "-0.40/6 0.10s");
    CHECK(g.moves[27].san == "cxb3=M+");
    // The comment before the result joins the last move's.
    CHECK(g.moves.back().comment == "-0.17/10 0.40s White wins by adjudication");
    CHECK(g.result == "1-0");

    // Set up from a FEN, the move numbers going on from it.
    const PgnGame& f = games[1];
    CHECK(f.tag("SetUp") == "1");
    CHECK(f.tag("FEN") == "4k3/1p6/8/3r4/8/6P1/8/R3K3 w - - 0 30");
    CHECK(f.moves[0].san == "Rb1");
    CHECK(f.result == "1/2-1/2");

    CHECK(games[3].moves.back().san == "Nc2#");
    CHECK(games[3].result == "0-1");
    CHECK(games[5].moves[0].san == "b8=R+");
}

TEST_CASE("pgn: a pychess.org file: capitalised names, clocks, NAGs, variations", "[pgn]") {
    auto games = read_data("tools/games-pychess.pgn");
    REQUIRE(games.size() == 7);
    const char* variants[] = {"makruk", "makpong", "cambodian", "karouk",
                              "ai-wok", "asean",   "asean"};
    for (size_t i = 0; i < games.size(); ++i)
        CHECK(pgn_variant(games[i].tag("Variant"))->name == variants[i]);
    check_replays(games);

    // The same game as Cute Chess's first: the variation and the comments change nothing.
    auto cute = read_data("tools/games-cutechess.pgn");
    const PgnGame& g = games[0];
    CHECK(sans(g) == sans(cute[0]));
    CHECK(g.tag("Site") == "https://www.pychess.org/aBcD1234");
    CHECK(g.moves[0].comment == "[%clk 0:03:00]");
    CHECK(g.moves[2].nags == std::vector<int>{1});
    // The variation after 2... c5 is skipped, the comment after it kept.
    CHECK(g.moves[3].san == "c5");
    CHECK(g.moves[3].comment == "[%clk 0:02:57]");
    CHECK(g.moves[5].san == "Nc6");
    CHECK(g.moves[5].nags == std::vector<int>{6});
    // A ';' comment runs to the end of its line and is dropped.
    CHECK(g.moves[5].comment == "the knight goes astray [%clk 0:02:57]");
    CHECK(g.result == "*");
    CHECK(games[1].result == "0-1");
    CHECK(games[1].moves.back().san == "Nxb3#");
}

TEST_CASE("pgn: written games read back the same", "[pgn]") {
    for (const char* file : {"tools/games-cutechess.pgn", "tools/games-pychess.pgn"}) {
        auto games = read_data(file);
        std::ostringstream os;
        for (auto& g : games) write_pgn(os, g);
        const std::string text = os.str();
        auto again = read_pgn_string(text);
        INFO(file << "\n" << text);
        REQUIRE(again.size() == games.size());
        for (size_t i = 0; i < games.size(); ++i) {
            CHECK(!again[i].error);
            CHECK(sans(again[i]) == sans(games[i]));
            CHECK(again[i].result == games[i].result);
            CHECK(again[i].tag("Variant") == games[i].tag("Variant"));
            CHECK(again[i].tag("FEN") == games[i].tag("FEN"));
            for (size_t k = 0; k < games[i].moves.size(); ++k) {
                CHECK(again[i].moves[k].comment == games[i].moves[k].comment);
                CHECK(again[i].moves[k].nags == games[i].moves[k].nags);
            }
        }
        // Lines stay within 80 columns (a long comment word aside).
        std::istringstream lines(text);
        for (std::string line; std::getline(lines, line);)
            if (line.find(' ') != std::string::npos && line[0] != '[') CHECK(line.size() <= 80);
    }
    // Move numbers go on from the FEN's, Black's first move with its "...".
    PgnGame g;
    g.set_tag("Variant", "makruk");
    g.set_tag("FEN", "4k3/8/8/3r4/8/6P1/8/R3K3 b - - 0 12");
    g.moves.push_back({"Kd7", {}, "", Move::none()});
    g.moves.push_back({"Rb1", {2}, "", Move::none()});
    g.moves.push_back({"Rd2", {}, "", Move::none()});
    std::ostringstream os;
    write_pgn(os, g);
    CHECK(os.str().find("\n12... Kd7 13. Rb1? Rd2 *\n") != std::string::npos);
    auto back = read_pgn_string(os.str());
    REQUIRE(back.size() == 1);
    ReplayedGame r = replay_pgn(back[0]);
    CHECK(!r.error);
}

TEST_CASE("pgn: damaged games are cut and reported, the others read", "[pgn]") {
    init();
    const std::string text = R"([Event "one"]
[Variant "makruk"]

1. e4 e5 2. Nd2 1-0

[Event "two"]
[Variant "makruk"]

1. e4 {never closed 2. Nd2

[Event "three"]
[Variant "Makruk"]

1. f4 ) f5 *

[Event "four"]

1.e4 e5 2.Nd2 Nd7 3.Ne2 *
[Event "five"]
[Variant "chess"]

1. e4 *
[Event "six"]
[Variant "makruk"]

1. e4 e5 2. Ke2 Ke7 3. Rxh8 *
)";
    auto games = read_pgn_string(text);
    REQUIRE(games.size() == 6);
    CHECK(!games[0].error);
    CHECK(games[0].result == "1-0");
    CHECK(sans(games[0]) == std::vector<std::string>{"e4", "e5", "Nd2"});
    REQUIRE(games[1].error);
    CHECK(games[1].error->find("unterminated comment") != std::string::npos);
    CHECK(sans(games[1]) == std::vector<std::string>{"e4"});
    REQUIRE(games[2].error);
    CHECK(games[2].error->find("')'") != std::string::npos);
    CHECK(sans(games[2]) == std::vector<std::string>{"f4"});
    // No [Variant]: makruk; move numbers written against the moves.
    CHECK(!games[3].error);
    CHECK(sans(games[3]) == std::vector<std::string>{"e4", "e5", "Nd2", "Nd7", "Ne2"});
    CHECK(!replay_pgn(games[3]).error);

    ReplayedGame bad = replay_pgn(games[1]);
    REQUIRE(bad.error);
    CHECK(bad.error->rfind("move 1...: ", 0) == 0);
    ReplayedGame chess = replay_pgn(games[4]);
    REQUIRE(chess.error);
    CHECK(*chess.error == "unknown variant 'chess'");
    ReplayedGame illegal = replay_pgn(games[5]);
    REQUIRE(illegal.error);
    CHECK(*illegal.error == "move 3: illegal move 'Rxh8'");
    CHECK(illegal.game->moves.size() == 4);
    // Black's moves are numbered with "...".
    auto black = read_pgn_string("1. e4 e5 2. Nd2 Nc4 *");
    REQUIRE(black.size() == 1);
    ReplayedGame rb = replay_pgn(black[0]);
    REQUIRE(rb.error);
    CHECK(*rb.error == "move 2...: illegal move 'Nc4'");
}

TEST_CASE("pgn: damaged text never crashes the reader, the replay or the writer", "[pgn]") {
    init();
    std::ifstream in(data_path("tools/games-pychess.pgn"));
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string base = ss.str();
    const std::string junk = "[]{}()$;%\"\\.-+#=x?!0123456789abcdefghKMSNRPQBA \n\t\x01\xff";
    uint64_t seed = 12345;
    auto next = [&seed] {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        return uint32_t(seed >> 33);
    };
    for (int round = 0; round < 300; ++round) {
        std::string t = base;
        for (int k = 0; k < 8; ++k) {
            const size_t at = next() % (t.size() + 1);
            switch (next() % 3) {
            case 0: t.insert(at, 1, junk[next() % junk.size()]); break;
            case 1:
                if (at < t.size()) t.erase(at, 1 + next() % 20);
                break;
            default: t.insert(at, t.substr(next() % t.size(), next() % 40)); break;
            }
        }
        for (PgnGame& g : read_pgn_string(t)) {
            (void)replay_pgn(g);
            std::ostringstream os;
            write_pgn(os, g);
            CHECK(read_pgn_string(os.str()).size() >= 1);
        }
    }
    // Random SAN-like text against a position with every piece about.
    auto g = game("startpos");
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        for (int n = next() % 9; n-- > 0;) s += junk[next() % junk.size()];
        Move m = parse_san(g->pos, s);
        if (m) CHECK(MoveList(g->pos).contains(m));
    }
}
