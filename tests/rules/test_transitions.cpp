// Transitions: a start position plus a move list must end in Fairy-Stockfish's FEN,
// counting fields included.
#include "helpers.h"

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

TEST_CASE("transitions: every line ends in the reference FEN via Game::make", "[transitions]") {
    auto recs = records("rules/transitions-makruk.txt", 3);
    CHECK(recs.size() >= 100);
    for (auto& r : recs) {
        INFO("start " << r[0] << "\nmoves " << r[1]);
        auto g = game(r[0], r[1]);
        CHECK(g->pos.fen() == r[2]);
        std::string why;
        CHECK(g->pos.is_ok(&why));
        INFO(why);
        CHECK(g->states.size() == words(r[1]).size() + 1);
    }
}

TEST_CASE("transitions: every line ends in the reference FEN via Engine", "[transitions]") {
    Engine engine;
    for (auto& r : records("rules/transitions-makruk.txt", 3)) {
        INFO("start " << r[0] << "\nmoves " << r[1]);
        auto err = engine.set_position(r[0] == "startpos" ? "" : r[0], words(r[1]));
        CHECK_FALSE(err);
        CHECK(engine.position().fen() == r[2]);
    }
}

TEST_CASE("transitions: positions on the way are consistent and survive undo", "[transitions]") {
    for (auto& r : records("rules/transitions-makruk.txt", 3)) {
        INFO("start " << r[0] << "\nmoves " << r[1]);
        auto g = game(r[0]);
        std::vector<std::string> fens{g->pos.fen()};
        std::vector<Key> keys{g->pos.key()};
        for (const std::string& mv : words(r[1])) {
            play(*g, mv);
            std::string why;
            INFO("after " << mv << ": " << g->pos.fen());
            REQUIRE(g->pos.is_ok(&why));
            // The incremental key equals the key of the same FEN set from scratch.
            auto fresh = game(g->pos.fen());
            CHECK(fresh->pos.key() == g->pos.key());
            fens.push_back(g->pos.fen());
            keys.push_back(g->pos.key());
        }
        CHECK(fens.back() == r[2]);
        // Taking every move back walks the same positions in reverse.
        for (size_t i = fens.size() - 1; i > 0; --i) {
            g->pos.undo_move(g->pos.last_move());
            g->states.pop_back();
            CHECK(g->pos.fen() == fens[i - 1]);
            CHECK(g->pos.key() == keys[i - 1]);
        }
    }
}
