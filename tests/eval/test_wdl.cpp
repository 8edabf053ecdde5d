// The win/draw/loss model of UCI_ShowWDL: its shape (sums, monotony, symmetry, mates) and
// the counting rules on top of it, on real counted endings searched by the engine.
#include "helpers.h"

#include "khun/eval/wdl.h"

using namespace khun;
using namespace khun::protocol;
using testutil::init;
using testutil::makruk;

namespace {

// Each evaluation's fit must have the model's shape.
using eval::wdl::Models;

std::string show(const eval::wdl::WDL& r) {
    return std::to_string(r.win) + "/" + std::to_string(r.draw) + "/" + std::to_string(r.loss);
}

// The engine's score for a FEN after a short fixed-depth search, and the model's view of it.
struct Searched {
    Value score;
    eval::wdl::WDL wdl;
};

// search_nodes waits for the bare-king tables, so the score does not depend on whether
// they arrived in time.
Searched searched(const std::string& fen, int depth) {
    init();
    Engine engine;
    Value score = VALUE_NONE;
    search::Listener l;
    l.info = [&score](const search::Info& i) {
        if (i.multipv == 1 && i.bound == search::BOUND_EXACT) score = i.score;
    };
    l.bestmove = [](Move, Move) {};
    INFO("FEN " << fen);
    engine.search_nodes(fen, depth, l);
    REQUIRE(score != VALUE_NONE);
    return {score, eval::wdl::from_position(engine.position(), score)};
}

const int Materials[] = {0, 2, 5, 8, 10, 16, 24, 32, 40, 48, 56, 64, 80};

} // namespace

TEST_CASE("wdl: material counts bia units over both sides", "[wdl]") {
    init();
    Position pos;
    StateInfo st;
    REQUIRE_FALSE(pos.set(testutil::StartFen, makruk(), &st));
    CHECK(eval::wdl::material(pos) == 64);
    REQUIRE_FALSE(pos.set("7k/8/8/3R4/4R3/8/8/7K w - 16 13 40", makruk(), &st));
    CHECK(eval::wdl::material(pos) == 10);
    REQUIRE_FALSE(pos.set("8/k7/4M3/K1S5/8/8/8/S7 w - 44 39 40", makruk(), &st));
    CHECK(eval::wdl::material(pos) == 8);
    // Pieces in hand count: sittuyin's setup has the start's material, and so has a
    // makrukhouse position whose captures are in hand.
    REQUIRE_FALSE(pos.set(find_variant("sittuyin")->startFen, *find_variant("sittuyin"), &st));
    CHECK(eval::wdl::material(pos) == 64);
    REQUIRE_FALSE(pos.set("rnsmksnr/8/ppp1pppp/8/8/PPPPP1PP/8/RNSKMSNR[Pp] w - - 0 3",
                          *find_variant("makrukhouse"), &st));
    CHECK(eval::wdl::material(pos) == 64);
}

TEST_CASE("wdl: per mille that sums to 1000", "[wdl]") {
    for (eval::wdl::Model model : Models)
        for (int m : Materials)
            for (int left : {eval::wdl::NoCount, 0, 1, 20, 39, 40, 100})
                for (Value v = -5000; v <= 5000; v += 7) {
                    const eval::wdl::WDL r = eval::wdl::from_score(v, m, left, model);
                    INFO("model " << int(model) << " v " << v << " material " << m << " left "
                                  << left << ": " << show(r));
                    CHECK(r.win + r.draw + r.loss == 1000);
                    CHECK(r.win >= 0);
                    CHECK(r.draw >= 0);
                    CHECK(r.loss >= 0);
                }
}

TEST_CASE("wdl: the win grows and the loss shrinks with the score", "[wdl]") {
    for (eval::wdl::Model model : Models)
        for (int m : Materials)
            for (int left : {eval::wdl::NoCount, 10, 40}) {
                eval::wdl::WDL prev = eval::wdl::from_score(-VALUE_MATE, m, left, model);
                for (Value v = -3000; v <= 3000; ++v) {
                    const eval::wdl::WDL r = eval::wdl::from_score(v, m, left, model);
                    INFO("model " << int(model) << " v " << v << " material " << m << " left "
                                  << left << ": " << show(prev) << " then " << show(r));
                    REQUIRE(r.win >= prev.win);
                    REQUIRE(r.loss <= prev.loss);
                    prev = r;
                }
                CHECK(eval::wdl::from_score(VALUE_MATE - 1, m, left, model).win >= prev.win);
            }
}

TEST_CASE("wdl: symmetric in the score, even at 0", "[wdl]") {
    for (eval::wdl::Model model : Models)
        for (int m : Materials)
            for (int left : {eval::wdl::NoCount, 5, 40})
                for (Value v = 0; v <= 4500; v += 3) {
                    const eval::wdl::WDL a = eval::wdl::from_score(v, m, left, model),
                                         b = eval::wdl::from_score(-v, m, left, model);
                    INFO("model " << int(model) << " v " << v << " material " << m << ": "
                                  << show(a) << " and " << show(b));
                    CHECK(a.win == b.loss);
                    CHECK(a.loss == b.win);
                    CHECK(a.draw == b.draw);
                }
    for (eval::wdl::Model model : Models)
        for (int m : Materials) {
            const eval::wdl::WDL r = eval::wdl::from_score(0, m, eval::wdl::NoCount, model);
            CHECK(r.win == r.loss);
        }
}

TEST_CASE("wdl: mate scores are decisive, large scores nearly so", "[wdl]") {
    for (int m : Materials)
        for (int left : {eval::wdl::NoCount, 0, 3, 40}) {
            for (int ply : {1, 2, 15, 100, MAX_PLY - 1}) {
                const eval::wdl::WDL w = eval::wdl::from_score(mate_in(ply), m, left);
                const eval::wdl::WDL l = eval::wdl::from_score(mated_in(ply), m, left);
                CHECK(w.win == 1000);
                CHECK(l.loss == 1000);
            }
        }
    // Without a count, a score of several rueas is a win and an equal one mostly a draw
    // (self-play between equals draws most games).
    for (int m : {10, 32, 64}) {
        INFO("material " << m);
        CHECK(eval::wdl::from_score(2000, m).win >= 900);
        CHECK(eval::wdl::from_score(0, m).draw >= 500);
    }
}

TEST_CASE("wdl: a count that runs out turns any advantage short of mate into a draw", "[wdl]") {
    for (int m : {5, 10, 20}) {
        // Without a count a clear edge wins; with one about to end it draws.
        CHECK(eval::wdl::from_score(600, m).win > eval::wdl::from_score(600, m, 10).win);
        CHECK(eval::wdl::from_score(600, m, 2).draw >= 900);
        CHECK(eval::wdl::from_score(600, m, 0).draw == 1000);
        // Far from its end, the count changes nothing.
        const eval::wdl::WDL a = eval::wdl::from_score(300, m),
                             b = eval::wdl::from_score(300, m, 100);
        CHECK((a.win == b.win && a.draw == b.draw && a.loss == b.loss));
    }
}

TEST_CASE("wdl: counted bare-king endings, as the engine scores them", "[wdl]") {
    // Two rueas against a bare king (counting-makruk.txt): at counting ply 13 of 16 the mate
    // in two still fits, two plies later it does not.
    const Searched won = searched("7k/8/8/3R4/4R3/8/8/7K w - 16 13 40", 8);
    INFO("won: score " << won.score << " wdl " << show(won.wdl));
    CHECK(won.score >= VALUE_MATE_IN_MAX_PLY);
    CHECK(won.wdl.win == 1000);

    const Searched drawn = searched("7k/8/8/3R4/4R3/8/8/7K w - 16 15 40", 8);
    INFO("drawn: score " << drawn.score << " wdl " << show(drawn.wdl));
    CHECK(std::abs(drawn.score) <= 30);
    CHECK(drawn.wdl.draw >= 950);

    // A ruea and a khon with room left: a mate; the same count two moves later: a draw.
    const Searched longWin = searched("8/8/8/2K5/8/8/6R1/7k w - 32 21 40", 14);
    INFO("long win: score " << longWin.score << " wdl " << show(longWin.wdl));
    CHECK(longWin.wdl.win == 1000);
    const Searched longDraw = searched("8/8/8/2K5/8/8/6R1/7k w - 32 23 40", 14);
    INFO("long draw: score " << longDraw.score << " wdl " << show(longDraw.wdl));
    CHECK(longDraw.wdl.draw >= 900);
    CHECK(longDraw.wdl.win <= 100);
}

TEST_CASE("wdl: the net's fit gives the same score a larger win chance", "[wdl]") {
    // The net's games end in a result more often than the hand-written evaluation's
    // (docs/wdl.md, "With the net"): at the start, 100 is about 25% to win, not 23%.
    using eval::wdl::Model;
    for (int m : {64, 48, 32})
        for (Value v : {50, 100, 200, 400}) {
            const auto net = eval::wdl::from_score(v, m, eval::wdl::NoCount, Model::Net);
            const auto hand = eval::wdl::from_score(v, m, eval::wdl::NoCount, Model::Classical);
            INFO("v " << v << " material " << m << ": net " << show(net) << ", hand-written "
                      << show(hand));
            CHECK(net.win > hand.win);
        }
    CHECK(show(eval::wdl::from_score(100, 64, eval::wdl::NoCount, Model::Net)) == "249/627/124");
    CHECK(show(eval::wdl::from_score(100, 64)) == "225/661/114");
}
