// Contempt through the real binary: a draw costs the side to move at the root what the
// option says, from either colour, in play only; in analysis (UCI_AnalyseMode, go
// infinite) a draw scores 0. And the search acts on it: a repetition is taken when a
// draw is worth more than playing on, and avoided when it is worth less.
#include "engine_session.h"

using namespace enginetest;

namespace {

// Bare kings: every reply is a dead draw, so the root's score is the draw's, blurred
// by the search's one unit either way.
std::string bare_kings(char side) {
    return std::string("8/8/8/4k3/8/8/8/4K3 ") + side + " - - 0 1";
}

long long draw_score(EngineSession& e, const std::string& go) {
    auto s = e.search(go, 15000);
    ENGINE_REQUIRE(e, s.done);
    ENGINE_REQUIRE(e, s.last.valid);
    ENGINE_CHECK(e, s.last.scoreType == "cp");
    return s.last.score;
}

} // namespace

TEST_CASE("contempt: a draw costs the root side the option's centipawns, in play only",
          "[contempt]") {
    auto e = started_engine();
    for (char side : {'w', 'b'}) {
        INFO("side to move " << side);
        ENGINE_REQUIRE(*e, e->reply("position fen " + bare_kings(side)));
        for (int c : {0, 30, -40}) {
            INFO("Contempt " << c);
            ENGINE_REQUIRE(*e, e->reply("setoption name Contempt value " + std::to_string(c)));
            ENGINE_REQUIRE(*e, e->reply("setoption name UCI_AnalyseMode value false"));
            const long long play = draw_score(*e, "go depth 4");
            CHECK(play >= -c - 1);
            CHECK(play <= -c + 1);
            // In analysis the same draw is a draw.
            ENGINE_REQUIRE(*e, e->reply("setoption name UCI_AnalyseMode value true"));
            const long long analysed = draw_score(*e, "go depth 4");
            CHECK(analysed >= -1);
            CHECK(analysed <= 1);
        }
        ENGINE_REQUIRE(*e, e->reply("setoption name UCI_AnalyseMode value false"));
        ENGINE_REQUIRE(*e, e->reply("setoption name Contempt value 30"));
        e->cursor = e->lines.size();
        const size_t from = e->mark();
        e->send("go infinite");
        ENGINE_CHECK(*e, e->silent_for(is_bestmove, 300));
        e->send("stop");
        auto r = e->expect(is_bestmove, 5000);
        ENGINE_REQUIRE(*e, r);
        const InfoLine last = e->last_info(from, *r);
        ENGINE_REQUIRE(*e, last.valid);
        CHECK(last.score >= -1);
        CHECK(last.score <= 1);
    }
}

TEST_CASE("contempt: the search takes a repetition when a draw is worth more, not otherwise",
          "[contempt]") {
    auto e = started_engine();
    // Black to move: d7b8 brings the start position back a third time, a draw.
    const std::string pos = "position startpos moves b1d2 b8d7 d2b1 d7b8 b1d2 b8d7 d2b1";
    ENGINE_REQUIRE(*e, e->reply(pos));
    ENGINE_REQUIRE(*e, e->reply("setoption name Contempt value -100"));
    auto s = e->search("go depth 8");
    ENGINE_REQUIRE(*e, s.done);
    CHECK(s.best == "d7b8");
    CHECK(s.last.score >= 99);

    ENGINE_REQUIRE(*e, e->reply("ucinewgame"));
    ENGINE_REQUIRE(*e, e->reply(pos));
    ENGINE_REQUIRE(*e, e->reply("setoption name Contempt value 100"));
    s = e->search("go depth 8");
    ENGINE_REQUIRE(*e, s.done);
    CHECK(s.best != "d7b8");
    CHECK(s.last.score > -99);
}
