// The related games over UCI with the real binary: UCI_Variant switches the game and its
// start position, the engine plays legal moves in each, and a karouk game runs to its end.
#include "khun/rules/movegen.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"
#include "test_variants_pipe.h"

#include <algorithm>

using namespace khun;
using pipetest::Child;
using pipetest::starts_with;
using pipetest::words;

namespace {

void handshake(Child& e) {
    e.send("uci");
    PIPE_REQUIRE(e, e.until_prefix("uciok"));
}

std::string fen_of(Child& e) { return d_field(e, "Fen: ", "Checkers:"); }

// Plays `plies` moves of engine self-play from the start position of the engine's
// current game, checking each against the rules; returns the game.
std::unique_ptr<Game> self_play(Child& e, const Variant& v, int plies, const std::string& go) {
    std::string err;
    auto g = Game::make(v.startFen, {}, v, err);
    REQUIRE(g);
    std::string moves;
    for (int ply = 0; ply < plies && g->pos.outcome() == Outcome::None; ++ply) {
        e.send("position startpos" + (moves.empty() ? "" : " moves" + moves));
        e.send(go);
        auto best = e.until_prefix("bestmove");
        PIPE_REQUIRE(e, best);
        const std::string m = words(best->back())[1];
        Move mv = parse_uci_move(g->pos, m);
        INFO(v.name << " after" << moves);
        PIPE_REQUIRE(e, mv);
        g->play(mv);
        moves += " " + m;
    }
    e.send("position startpos" + (moves.empty() ? "" : " moves" + moves));
    PIPE_CHECK(e, fen_of(e) == g->pos.fen());
    return g;
}

} // namespace

TEST_CASE("uci: every game is selected by UCI_Variant and played legally", "[variants][uci]") {
    Position::init();
    Child e;
    handshake(e);
    for (const std::string& name : variant_names()) {
        const Variant& v = *find_variant(name);
        e.send("setoption name UCI_Variant value " + name);
        e.send("ucinewgame");
        // The start position follows the game.
        std::string err;
        PIPE_CHECK(e, fen_of(e) == Game::make(v.startFen, {}, v, err)->pos.fen());
        self_play(e, v, 16, "go depth 3");
    }
    // The sutras over UCI: on, the first moves include them.
    e.send("setoption name UCI_Variant value makruk");
    e.send("setoption name SutMet value true");
    e.send("position startpos moves e1e3");
    PIPE_CHECK(e, fen_of(e) == "rnsmksnr/8/pppppppp/8/4P3/PPPPMPPP/8/RNSK1SNR b d - 0 1");
    e.send("go perft 1");
    auto p = e.until_prefix("Nodes searched");
    PIPE_REQUIRE(e, p);
    PIPE_CHECK(e, p->back() == "Nodes searched: 24");
    e.send("setoption name SutMet value false");
    e.send("position startpos moves e1e3");
    auto bad = e.until_prefix("info string error");
    PIPE_CHECK(e, bad);
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}

TEST_CASE("uci: a karouk game from the start played to its end", "[variants][uci][game]") {
    Position::init();
    Child e;
    handshake(e);
    e.send("setoption name UCI_Variant value karouk");
    e.send("ucinewgame");
    const Variant& v = *find_variant("karouk");
    auto g = self_play(e, v, 400, "go depth 4");
    INFO("final " << g->pos.fen());
    PIPE_CHECK(e, g->pos.outcome() == Outcome::Checked);
    // The checked side has no move: the engine says so and scores it lost.
    e.send("go depth 3");
    auto best = e.until_prefix("bestmove");
    PIPE_REQUIRE(e, best);
    PIPE_CHECK(e, best->back() == "bestmove (none)");
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}
