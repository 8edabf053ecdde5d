// Play levels (skill.h): the options with Fairy-Stockfish's names and ranges, the
// session pychess.org sends for its levels, full strength unchanged at Skill Level 20,
// weaker levels that vary yet play plausible moves, and a won bare-king ending that a
// weak level still mates within the count.
#include "engine_session.h"

#include "khun/protocol/engine.h"
#include "khun/rules/movegen.h"
#include "khun/search/skill.h"

#include <set>

using namespace enginetest;

namespace {

const std::string Start = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";

std::string best_of(khun::protocol::Engine& e, int depth) {
    khun::search::Limits l;
    l.depth = depth;
    const khun::Move m = e.think(l).best;
    return khun::to_uci(m, e.position());
}

} // namespace

TEST_CASE("skill: uci lists the play-level options as Fairy-Stockfish does", "[engine][skill]") {
    EngineSession e;
    e.send("uci");
    auto ok = e.expect_line("uciok");
    ENGINE_REQUIRE(e, ok);
    const auto reply = e.texts(0, *ok);
    auto has = [&](const std::string& line) {
        return std::find(reply.begin(), reply.end(), line) != reply.end();
    };
    ENGINE_CHECK(e, has("option name Skill Level type spin default 20 min -20 max 20"));
    ENGINE_CHECK(e, has("option name UCI_LimitStrength type check default false"));
    ENGINE_CHECK(e, has("option name UCI_Elo type spin default 1350 min 500 max 2850"));
    ENGINE_CHECK(e, has("option name UCI_AnalyseMode type check default false"));
    for (const char* cmd :
         {"setoption name Skill Level value -20", "setoption name Skill Level value 20",
          "setoption name UCI_LimitStrength value true", "setoption name UCI_Elo value 500",
          "setoption name UCI_Elo value 2850", "setoption name UCI_LimitStrength value false",
          "setoption name UCI_AnalyseMode value true"}) {
        INFO(cmd);
        auto r = e.reply(cmd);
        ENGINE_REQUIRE(e, r);
        ENGINE_CHECK(e, r->empty());
    }
}

TEST_CASE("skill: pychess.org's levels give a legal bestmove and no error", "[engine][skill]") {
    auto e = started_engine();
    // pychess's levels 0-8: Skill Level, a depth cap and a move time.
    const int levels[] = {-4, 0, 3, 6, 10, 14, 16, 18, 20};
    const int depths[] = {1, 1, 2, 3, 5, 8, 13, 22, 22};
    const int times[] = {50, 50, 100, 100, 150, 200, 300, 500, 500};
    const std::vector<std::string> moves = {"e3e4", "e6e5"};
    for (int i = 0; i < 9; ++i) {
        INFO("level " << levels[i]);
        for (const std::string& cmd :
             {std::string("ucinewgame"),
              "setoption name Skill Level value " + std::to_string(levels[i]),
              std::string("setoption name UCI_AnalyseMode value true"),
              std::string("position startpos moves e3e4 e6e5")}) {
            auto r = e->reply(cmd);
            ENGINE_REQUIRE(*e, r);
            ENGINE_CHECK(*e, r->empty());
        }
        auto s = e->search("go depth " + std::to_string(depths[i]) + " movetime " +
                           std::to_string(times[i]));
        ENGINE_REQUIRE(*e, s.done);
        ENGINE_CHECK(*e, is_legal_move(Start, s.best, moves));
        ENGINE_CHECK(*e, first_illegal(Start, moves, s.last.pv) == "");
        // Only the user's MultiPV (1) is shown, not the lines searched behind the scenes.
        for (const InfoLine& l : s.infos) ENGINE_CHECK(*e, l.multipv == 1);
    }
    // An Elo instead of a level.
    for (const char* cmd : {"setoption name UCI_LimitStrength value true",
                            "setoption name UCI_Elo value 800", "position startpos"}) {
        auto r = e->reply(cmd);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
    }
    auto s = e->search("go movetime 100");
    ENGINE_REQUIRE(*e, s.done);
    ENGINE_CHECK(*e, is_legal_move(Start, s.best));
}

TEST_CASE("skill: Skill Level 20 is the full-strength search, node for node", "[skill]") {
    khun::protocol::Engine full, level20;
    REQUIRE(!level20.set_option("Skill Level", "20").error);
    khun::Move b1 = khun::Move::none(), b2 = khun::Move::none();
    khun::search::Listener l1, l2;
    l1.bestmove = [&](khun::Move m, khun::Move) { b1 = m; };
    l2.bestmove = [&](khun::Move m, khun::Move) { b2 = m; };
    const std::string fen = "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26";
    const uint64_t n1 = full.search_nodes(fen, 8, l1);
    const uint64_t n2 = level20.search_nodes(fen, 8, l2);
    CHECK(n1 == n2);
    CHECK(b1 == b2);
    CHECK(b1 != khun::Move::none());
}

TEST_CASE("skill: Elo maps to Fairy-Stockfish's levels, rounded at random", "[skill]") {
    using namespace khun::search;
    Options o;
    CHECK(skill_float_level(o) == 20.0);
    o.skillLevel = -7;
    CHECK(skill_float_level(o) == -7.0);
    o.limitStrength = true;
    o.elo = 2850; // the fit's ends, about 18.5 and -19.8
    CHECK(skill_float_level(o) > 18);
    o.elo = 500;
    CHECK(skill_float_level(o) < -19);
    // Between 1000 and 2500 Khun's own scale shifts the Elo (search_params.h): up at the
    // low end, down at the high end.
    o.elo = 1000;
    CHECK(std::abs(skill_float_level(o) - -1.75) < 0.1); // Fairy-Stockfish: -2.58
    o.elo = 1350;
    CHECK(std::abs(skill_float_level(o) - 0.35) < 0.1); // Fairy-Stockfish: 0
    o.elo = 2500;
    CHECK(std::abs(skill_float_level(o) - 12.1) < 0.1); // Fairy-Stockfish: 13.3
    o.elo = 2000;
    const double f = skill_float_level(o); // about 6.3
    CHECK(f > 5);
    CHECK(f < 8);
    SkillRng rng(12345);
    double sum = 0;
    for (int i = 0; i < 4000; ++i) {
        const int l = skill_round_level(f, rng);
        CHECK((l == int(std::floor(f)) || l == int(std::floor(f)) + 1));
        sum += l;
    }
    CHECK(std::abs(sum / 4000 - f) < 0.05);
    SkillRng rng2(7);
    double neg = 0;
    for (int i = 0; i < 4000; ++i) neg += skill_round_level(-3.25, rng2);
    CHECK(std::abs(neg / 4000 + 3.25) < 0.05);
}

TEST_CASE("skill: a low level varies its moves, all legal", "[skill]") {
    khun::protocol::Engine e;
    REQUIRE(!e.set_option("Skill Level", "-10").error);
    std::set<std::string> seen;
    for (int i = 0; i < 30; ++i) {
        REQUIRE(!e.set_position("", {}));
        const std::string m = best_of(e, 3);
        INFO("move " << m);
        CHECK(is_legal_move(Start, m));
        seen.insert(m);
    }
    CHECK(seen.size() > 1);
}

TEST_CASE("skill: a middle level takes a hanging ruea", "[skill]") {
    // White's ruea takes Black's on a4; anything else loses White's.
    const std::string fen = "k7/8/5pp1/8/r7/5PP1/8/R6K w - - 0 1";
    khun::protocol::Engine e;
    REQUIRE(!e.set_option("Skill Level", "10").error);
    int took = 0;
    for (int i = 0; i < 20; ++i) {
        REQUIRE(!e.set_position(fen, {}));
        if (best_of(e, 4) == "a1a4") ++took;
    }
    CHECK(took >= 18);
}

TEST_CASE("skill: weak levels still mate a bare king within the count", "[skill]") {
    // Ruea and king against a bare king, mate in 11 with the count at 11 of 32
    // (counting-makruk.txt): a level that drifted would let the count run out.
    const std::string fen = "5K2/8/1k6/8/5R2/8/8/8 w - 32 11 40";
    for (const char* level : {"0", "5"}) {
        INFO("Skill Level " << level);
        khun::protocol::Engine e;
        // Load the tables first, as a game that reaches the ending would have.
        e.search_nodes(fen, 1, {});
        REQUIRE(!e.set_position(fen, {}));
        bool mated = false;
        for (int ply = 0; ply < 120 && !mated; ++ply) {
            const bool attacker = ply % 2 == 0;
            REQUIRE(!e.set_option("Skill Level", attacker ? level : "20").error);
            khun::search::Limits l;
            l.depth = attacker ? 6 : 8;
            const khun::Move m = e.think(l).best;
            REQUIRE(m != khun::Move::none());
            const std::string uci = khun::to_uci(m, e.position());
            e.play(m);
            const khun::Outcome o = e.position().outcome();
            INFO("ply " << ply << " " << uci << " " << khun::outcome_name(o));
            REQUIRE((o == khun::Outcome::None || o == khun::Outcome::Checkmate));
            mated = o == khun::Outcome::Checkmate;
        }
        CHECK(mated);
    }
}
