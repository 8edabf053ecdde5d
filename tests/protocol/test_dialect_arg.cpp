// `khun uci`, `khun usi`, `khun xboard`: a GUI set up with the protocol's name as the
// engine's argument gets that dialect from the first line it sends, its handshake answered
// once, and a move from a search; anything after the name is refused.
#include "test_variants_pipe.h"

#include <algorithm>
#include <regex>

using pipetest::Child;
using pipetest::starts_with;

namespace {

// How many of the engine's lines so far are exactly `l`.
size_t count(Child& e, const std::string& l) {
    return size_t(std::count(e.lines.begin(), e.lines.end(), l));
}

} // namespace

TEST_CASE("khun xboard: CECP from the start, without `xboard` on stdin", "[xboard][protocol]") {
    Child e({"xboard"});
    // Protocol 2 straight away: a UCI session would answer protover with an error.
    e.send("protover 2");
    PIPE_REQUIRE(e, e.until_prefix("feature done=1"));
    e.send("new");
    e.send("variant makruk");
    e.send("force");
    e.send("usermove e3e4");
    e.send("go");
    auto r = e.until([](const std::string& l) { return starts_with(l, "move "); }, 30000);
    PIPE_REQUIRE(e, r);
    static const std::regex move("^move [a-h][1-8][a-h][1-8][a-z]?$");
    PIPE_CHECK(e, std::regex_match(r->back(), move));
    // The GUI's usual `xboard` arriving later changes nothing.
    e.send("xboard");
    e.send("ping 3");
    PIPE_CHECK(e, e.until([](const std::string& l) { return l == "pong 3"; }));
    for (const std::string& l : e.lines) PIPE_CHECK(e, l.find("error") == std::string::npos);
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}

TEST_CASE("khun uci and khun usi: the handshake answered once, as it comes",
          "[uci][usi][protocol]") {
    for (const char* dialect : {"uci", "usi"}) {
        Child e({dialect});
        const std::string ok = std::string(dialect) + "ok";
        e.send(dialect);
        e.send("isready");
        PIPE_REQUIRE(e, e.until([](const std::string& l) { return l == "readyok"; }));
        PIPE_CHECK(e, count(e, ok) == 1);
        e.send(std::string(dialect) == "uci" ? "position startpos moves e3e4"
                                             : "position startpos moves 4f4e");
        e.send("go depth 4");
        auto r = e.until([](const std::string& l) { return starts_with(l, "bestmove "); });
        PIPE_REQUIRE(e, r);
        // A UCI move or a USI move, as the dialect writes them.
        static const std::regex uci("^bestmove [a-h][1-8][a-h][1-8][a-z]?( ponder .*)?$"),
            usi("^bestmove [1-8][a-h][1-8][a-h][a-z]?( ponder .*)?$");
        PIPE_CHECK(e, std::regex_match(r->back(), std::string(dialect) == "uci" ? uci : usi));
        e.send("quit");
        PIPE_CHECK(e, e.wait_exit() == 0);
    }
}

TEST_CASE("khun xboard with more words: refused, exit status 2", "[protocol]") {
    Child e({"xboard", "extra"});
    PIPE_CHECK(e, e.wait_exit() == 2);
    PIPE_CHECK(e, !e.line(1000)); // the reason goes to stderr: nothing on the protocol's stream
}
