// Game end: checkmate, stalemate and repetition, for the game and inside a search.
#include "helpers.h"

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

TEST_CASE("game end: checkmate", "[gameend]") {
    auto g = game("k7/8/1K6/8/8/8/8/7R w - - 0 1");
    CHECK(g->pos.outcome() == Outcome::None);
    play(*g, "h1h8");
    CHECK(g->pos.in_check());
    CHECK(count_legal(g->pos) == 0);
    CHECK(g->pos.outcome() == Outcome::Checkmate);
    CHECK_FALSE(is_draw(Outcome::Checkmate));
    CHECK_FALSE(g->pos.is_draw(0));

    // A mate with pawns on the board, reached from a FEN and a move list.
    auto m = game("3k4/3p4/2pK4/8/8/8/8/7R w - - 0 1", "h1h8");
    CHECK(m->pos.outcome() == Outcome::Checkmate);
}

TEST_CASE("game end: stalemate is a draw", "[gameend]") {
    auto g = game("k7/2K5/1M6/8/8/8/8/8 b - - 0 1");
    CHECK_FALSE(g->pos.in_check());
    CHECK(count_legal(g->pos) == 0);
    CHECK(g->pos.outcome() == Outcome::Stalemate);
    CHECK(is_draw(Outcome::Stalemate));

    // Reached by a move: the met steps to b6 and takes the last flight square.
    auto h = game("k7/2K5/8/2M5/8/8/8/8 w - - 0 1", "c5b6");
    CHECK(h->pos.outcome() == Outcome::Stalemate);
}

TEST_CASE("game end: outcome names and draw classes", "[gameend]") {
    CHECK(std::string(outcome_name(Outcome::Checkmate)) == "checkmate");
    CHECK(std::string(outcome_name(Outcome::Stalemate)) == "stalemate");
    CHECK_FALSE(is_draw(Outcome::None));
    CHECK(is_draw(Outcome::CountingDraw));
    CHECK(is_draw(Outcome::Repetition));
}

TEST_CASE("game end: threefold repetition by knight shuffles", "[gameend]") {
    auto g = game("startpos");
    const Key start = g->pos.key();
    const char* shuffle[] = {"b1d2", "b8d7", "d2b1", "d7b8"};
    int ply = 0;
    for (int round = 0; round < 2; ++round)
        for (const char* m : shuffle) {
            play(*g, m);
            ++ply;
            INFO("after ply " << ply << ": " << m);
            if (ply < 8) {
                CHECK(g->pos.outcome() == Outcome::None);
                CHECK_FALSE(g->pos.is_draw(0));
                CHECK_FALSE(g->pos.is_repetition(0));
            }
        }
    // The start position has now occurred three times.
    CHECK(g->pos.key() == start);
    CHECK(g->pos.fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 8 5");
    CHECK(g->pos.outcome() == Outcome::Repetition);
    CHECK(g->pos.is_repetition(0));
    CHECK(g->pos.is_draw(0));

    // The same through the engine's position command path.
    Engine engine;
    REQUIRE_FALSE(
        engine.set_position("", {"b1d2", "b8d7", "d2b1", "d7b8", "b1d2", "b8d7", "d2b1", "d7b8"}));
    CHECK(engine.position().outcome() == Outcome::Repetition);
    REQUIRE_FALSE(engine.set_position("", {"b1d2", "b8d7", "d2b1", "d7b8"}));
    CHECK(engine.position().outcome() == Outcome::None);
}

// The `d` board names a finished game's result and rule, the draws the protocols leave to
// the GUI to claim included: tools/referee.py ends its games by that line.
TEST_CASE("game end: the board display names the result and the rule", "[gameend]") {
    auto outcome_line = [](const Position& pos) {
        for (const std::string& l : split(pos.pretty(), '\n'))
            if (l.rfind("Outcome: ", 0) == 0) return l;
        return std::string();
    };
    auto g = game("startpos");
    CHECK(outcome_line(g->pos).empty());
    for (int round = 0; round < 2; ++round)
        for (const char* m : {"b1d2", "b8d7", "d2b1", "d7b8"}) play(*g, m);
    CHECK(outcome_line(g->pos) == "Outcome: 1/2-1/2 {threefold repetition}");

    CHECK(outcome_line(game("k7/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8")->pos) ==
          "Outcome: 1-0 {checkmate}");
    CHECK(outcome_line(game("7k/8/8/8/8/8/6r1/K5r1 w - - 0 1")->pos) == "Outcome: 0-1 {checkmate}");

    // Sittuyin: bare kings after a count (limit 32 plies) ran past its end, and the fifty-move
    // rule; the same kings with the count still running play on.
    const Variant& sittuyin = *find_variant("sittuyin");
    std::string err;
    auto kings = [&](const std::string& counters) {
        auto k = Game::make("8/8/8/8/8/8/k1K5/8[] w - " + counters, {}, sittuyin, err);
        INFO(counters << ": " << err);
        REQUIRE(k);
        return outcome_line(k->pos);
    };
    CHECK(kings("32 90 206") == "Outcome: 1/2-1/2 {counting rule}");
    CHECK(kings("- 100 206") == "Outcome: 1/2-1/2 {fifty-move rule}");
    CHECK(kings("32 20 206").empty());
}

TEST_CASE("game end: repetitions after a pawn move count from there", "[gameend]") {
    // The start position occurs twice, then a pawn moves: the new position needs three
    // occurrences of its own.
    auto g = game("startpos", "b1d2 b8d7 d2b1 d7b8 a3a4 b8d7 b1d2 d7b8 d2b1");
    CHECK(g->pos.rule50() == 4);
    CHECK(g->pos.outcome() == Outcome::None); // second occurrence since a3a4
    for (const char* m : {"b8d7", "b1d2", "d7b8"}) {
        play(*g, m);
        CHECK(g->pos.outcome() == Outcome::None);
    }
    play(*g, "d2b1");
    CHECK(g->pos.outcome() == Outcome::Repetition);
}

TEST_CASE("game end: a FEN's halfmove clock does not invent history", "[gameend]") {
    // The clock says 50 plies without capture, but the game knows only what it played.
    auto g = game("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 50 1", "b1d2 b8d7 d2b1 d7b8");
    CHECK(g->pos.rule50() == 54);
    CHECK(g->pos.outcome() == Outcome::None);
    for (const char* m : {"b1d2", "b8d7", "d2b1", "d7b8"}) play(*g, m);
    CHECK(g->pos.outcome() == Outcome::Repetition);
}

TEST_CASE("game end: inside a search one repeat after the root is a draw", "[gameend]") {
    // Root: the position after b1d2. Then four search plies return to it, and a fifth
    // repeats the position seen at search ply 1.
    auto g = game("startpos", "b1d2");
    std::deque<StateInfo> st;
    const char* line[] = {"b8d7", "d2b1", "d7b8", "b1d2", "b8d7"};
    int ply = 0;
    for (const char* u : line) {
        Move m = parse_uci_move(g->pos, u);
        REQUIRE(m);
        st.emplace_back();
        g->pos.do_move(m, st.back());
        ++ply;
        if (ply < 5) {
            INFO("search ply " << ply);
            CHECK_FALSE(g->pos.is_draw(ply));
            CHECK_FALSE(g->pos.is_draw(0));
        }
    }
    // The position after b8d7 occurred at search ply 1 and again at ply 5.
    CHECK(g->pos.is_draw(ply));
    CHECK(g->pos.is_repetition(ply));
    CHECK(g->pos.outcome(ply) == Outcome::Repetition);
    // For the game it is only the second occurrence.
    CHECK_FALSE(g->pos.is_draw(0));
    CHECK(g->pos.outcome(0) == Outcome::None);
}

TEST_CASE("game end: a null move cuts the repetition search", "[gameend]") {
    auto g = game("startpos", "b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1");
    StateInfo n1, m1;
    g->pos.do_null_move(n1);
    CHECK(g->pos.side_to_move() == WHITE);
    CHECK_FALSE(g->pos.is_repetition(0));
    g->pos.undo_null_move();
    // Without the null move, d7b8 makes the third occurrence of the start position.
    Move m = parse_uci_move(g->pos, "d7b8");
    g->pos.do_move(m, m1);
    CHECK(g->pos.is_repetition(0));
}
