// The typed settings the engine reads follow the option text through every kind of
// change: accepted, clamped, refused by the type check, refused by the option's effect.
#include "khun/protocol/engine.h"

#include <catch2/catch.hpp>

using namespace khun::protocol;

TEST_CASE("options: the engine's typed settings follow setoption", "[options]") {
    Engine e;
    const Engine::Settings& s = e.settings();
    // The defaults, as the option list declares them.
    CHECK(s.search.threads == 1);
    CHECK(s.search.multiPV == 1);
    CHECK(s.search.moveOverhead == 10);
    CHECK(s.search.skillLevel == 20);
    CHECK(s.search.elo == 1350);
    CHECK(s.hashMb == 16);
    CHECK(!s.search.limitStrength);
    CHECK(!s.showWdl);
    CHECK(s.useNnue == (e.option("Use NNUE") == "true"));

    REQUIRE(!e.set_option("MultiPV", "3").error);
    CHECK(s.search.multiPV == 3);
    REQUIRE(!e.set_option("skill level", "-7").error); // names in any case
    CHECK(s.search.skillLevel == -7);
    REQUIRE(!e.set_option("UCI_LimitStrength", "TRUE").error);
    CHECK(s.search.limitStrength);
    REQUIRE(!e.set_option("UCI_ShowWDL", "true").error);
    CHECK(s.showWdl);

    // Clamped: the note, and the clamped number in both forms.
    auto r = e.set_option("UCI_Elo", "99999");
    CHECK(r.note);
    CHECK(s.search.elo == 2850);
    CHECK(e.option("UCI_Elo") == "2850");

    // Refused by the type check: both forms keep the old value.
    CHECK(e.set_option("Move Overhead", "soon").error);
    CHECK(s.search.moveOverhead == 10);
    CHECK(e.set_option("UCI_ShowWDL", "maybe").error);
    CHECK(s.showWdl);

    // Refused by the option's effect (the table cannot be that big): the number goes
    // back with the text.
    r = e.set_option("Hash", std::to_string(1 << 20));
    if (r.error) {
        CHECK(s.hashMb == 16);
        CHECK(e.option("Hash") == "16");
    } else {
        CHECK(s.hashMb == 1 << 20);
        REQUIRE(!e.set_option("Hash", "16").error);
    }

    // The house rules change the game through the typed flags.
    REQUIRE(!e.set_option("SutKhun", "true").error);
    CHECK(s.sutKhun);
    CHECK(e.variant().sutKhun);
    REQUIRE(!e.set_option("SutKhun", "false").error);
    CHECK(!s.sutKhun);
    CHECK(!e.variant().sutKhun);
}

TEST_CASE("options: the net plays by default, the levels with the hand-written evaluation",
          "[options]") {
    using khun::eval::wdl::Model;
    Engine e;
    CHECK(e.option("Use NNUE") == "true");
    REQUIRE(e.net() != nullptr);
    CHECK(e.wdl_model() == Model::Net);
    CHECK(e.net() == khun::nnue::embedded(khun::GameNet::Makruk).get());
    // Every game has a built-in net (karouk's and ai-wok's read their scores with makruk's
    // net fit); with `Use NNUE` off it searches with the hand-written evaluation and reads
    // its scores with that evaluation's WDL model.
    for (auto [game, net] :
         {std::pair{"karouk", khun::GameNet::Karouk}, {"ai-wok", khun::GameNet::Aiwok}}) {
        INFO(game);
        REQUIRE(!e.set_option("UCI_Variant", game).error);
        CHECK(e.net() == khun::nnue::embedded(net).get());
        CHECK(e.net_name() == khun::nnue::embedded_name(net));
        CHECK(!e.net()->hasHand);
        CHECK(e.wdl_model() == Model::Net);
        REQUIRE(!e.set_option("Use NNUE", "false").error);
        CHECK(e.net() == nullptr);
        CHECK(e.net_name().empty());
        CHECK(e.wdl_model() == Model::Classical);
        REQUIRE(!e.set_option("Use NNUE", "true").error);
    }
    // Cambodian is makruk with first-move leaps: the makruk net plays it. Asean and makpong
    // have nets of their own.
    REQUIRE(!e.set_option("UCI_Variant", "cambodian").error);
    CHECK(e.net() == khun::nnue::embedded(khun::GameNet::Makruk).get());
    CHECK(e.wdl_model() == Model::Net);
    REQUIRE(!e.set_option("UCI_Variant", "asean").error);
    CHECK(e.net() == khun::nnue::embedded(khun::GameNet::Asean).get());
    CHECK(e.net_name() == khun::nnue::embedded_name(khun::GameNet::Asean));
    CHECK(e.wdl_model() == Model::AseanNet);
    REQUIRE(!e.set_option("UCI_Variant", "makpong").error);
    CHECK(e.net() == khun::nnue::embedded(khun::GameNet::Makpong).get());
    CHECK(e.net_name() == khun::nnue::embedded_name(khun::GameNet::Makpong));
    CHECK(e.wdl_model() == Model::MakpongNet);
    // Sittuyin's net has inputs for the pieces in hand: it plays the setup too.
    REQUIRE(!e.set_option("UCI_Variant", "sittuyin").error);
    CHECK(e.net() == khun::nnue::embedded(khun::GameNet::Sittuyin).get());
    CHECK(e.net()->hasHand);
    CHECK(e.net_name() == khun::nnue::embedded_name(khun::GameNet::Sittuyin));
    CHECK(e.wdl_model() == Model::SittuyinNet);
    REQUIRE(!e.set_option("UCI_Variant", "makrukhouse").error);
    CHECK(e.net() == khun::nnue::embedded(khun::GameNet::Makrukhouse).get());
    CHECK(e.net()->hasHand);
    REQUIRE(!e.set_option("UCI_Variant", "makruk").error);
    CHECK(e.wdl_model() == Model::Net);
    // A play level keeps the evaluation its UCI_Elo map was fitted with.
    REQUIRE(!e.set_option("Skill Level", "10").error);
    CHECK(e.net() == nullptr);
    CHECK(e.wdl_model() == Model::Classical);
    REQUIRE(!e.set_option("Skill Level", "20").error);
    CHECK(e.net() != nullptr);
    REQUIRE(!e.set_option("UCI_LimitStrength", "true").error);
    REQUIRE(!e.set_option("UCI_Elo", "1500").error);
    CHECK(e.net() == nullptr);
    REQUIRE(!e.set_option("UCI_Elo", "2850").error); // the top of the range is a level too
    CHECK(e.net() == nullptr);
    REQUIRE(!e.set_option("UCI_LimitStrength", "false").error);
    REQUIRE(!e.set_option("Use NNUE", "false").error);
    CHECK(e.net() == nullptr);
    CHECK(e.wdl_model() == Model::Classical);
}
