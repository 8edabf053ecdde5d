// UCI_ShowWDL through the real binary: listed as Fairy-Stockfish lists it, silent when
// off, and when on a `wdl W D L` after every score that sums to 1000 and follows the
// counting rules at the root. Also: UCI_Chess960 is accepted but no longer offered.
#include "engine_session.h"
#include "khun/eval/wdl.h"

#include <algorithm>
#include <array>

using namespace enginetest;

namespace {

// The three numbers after "wdl" in an info line, or nothing.
std::optional<std::array<long long, 3>> wdl_of(const std::string& line) {
    auto w = words(line);
    for (size_t i = 0; i + 3 < w.size(); ++i)
        if (w[i] == "wdl") {
            try {
                return std::array<long long, 3>{std::stoll(w[i + 1]), std::stoll(w[i + 2]),
                                                std::stoll(w[i + 3])};
            } catch (...) {
                return std::nullopt;
            }
        }
    return std::nullopt;
}

// The last info line with a score before the bestmove.
std::string last_scored(const EngineSession::Search& s) {
    for (auto it = s.output.rbegin(); it != s.output.rend(); ++it)
        if (parse_info(*it).valid) return *it;
    return "";
}

std::vector<std::string> handshake(EngineSession& e) {
    e.send("uci");
    auto ok = e.expect_line("uciok");
    if (!ok) return {};
    return e.texts(0, *ok);
}

// The info lines with a score of a search of `fen`.
EngineSession::Search search_fen(EngineSession& e, const std::string& fen, const std::string& go) {
    auto r = e.reply("position fen " + fen);
    if (!r || !r->empty()) return {};
    return e.search(go);
}

} // namespace

TEST_CASE("wdl uci: UCI_ShowWDL is listed, UCI_Chess960 is accepted but not listed",
          "[engine][wdl]") {
    EngineSession e;
    const auto reply = handshake(e);
    ENGINE_REQUIRE(e, !reply.empty());
    ENGINE_CHECK(e, std::count(reply.begin(), reply.end(),
                               "option name UCI_ShowWDL type check default false") == 1);
    for (const std::string& l : reply) {
        INFO(l);
        ENGINE_CHECK(e, l.find("Chess960") == std::string::npos);
    }
    // Cute Chess sends it anyway: false is silent, true only notes that it means nothing.
    auto r = e.reply("setoption name UCI_Chess960 value false");
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());
    r = e.reply("setoption name UCI_Chess960 value true");
    ENGINE_REQUIRE(e, r);
    ENGINE_REQUIRE(e, r->size() == 1);
    ENGINE_CHECK(e, starts_with((*r)[0], "info string UCI_Chess960 has no meaning"));
    r = e.reply("setoption name UCI_ShowWDL value true");
    ENGINE_REQUIRE(e, r);
    ENGINE_CHECK(e, r->empty());
}

TEST_CASE("wdl uci: none when off, after every score and its bound when on, summing to 1000",
          "[engine][wdl]") {
    EngineSession e;
    ENGINE_REQUIRE(e, !handshake(e).empty());
    const std::string fen = "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26";

    auto off = search_fen(e, fen, "go depth 6");
    ENGINE_REQUIRE(e, off.done);
    ENGINE_CHECK(e, !off.infos.empty());
    for (const std::string& l : off.output) {
        INFO(l);
        ENGINE_CHECK(e, l.find(" wdl ") == std::string::npos);
    }

    auto r = e.reply("setoption name UCI_ShowWDL value true");
    ENGINE_REQUIRE(e, r);
    // MultiPV 2 and an aspiration window give bound lines and several PVs to check too.
    r = e.reply("setoption name MultiPV value 2");
    ENGINE_REQUIRE(e, r);
    auto on = search_fen(e, fen, "go depth 8");
    ENGINE_REQUIRE(e, on.done);
    size_t scored = 0;
    for (const std::string& l : on.output) {
        if (!parse_info(l).valid) continue;
        ++scored;
        INFO(l);
        auto wdl = wdl_of(l);
        ENGINE_REQUIRE(e, wdl);
        ENGINE_CHECK(e, (*wdl)[0] >= 0);
        ENGINE_CHECK(e, (*wdl)[1] >= 0);
        ENGINE_CHECK(e, (*wdl)[2] >= 0);
        ENGINE_CHECK(e, (*wdl)[0] + (*wdl)[1] + (*wdl)[2] == 1000);
        // Right after "score cp N" or "score mate N" and the bound, if any.
        auto w = words(l);
        auto s = std::find(w.begin(), w.end(), "score");
        ENGINE_REQUIRE(e, w.end() - s > 3);
        const size_t at = size_t(s - w.begin()) + 3;
        const bool bound = w[at] == "lowerbound" || w[at] == "upperbound";
        ENGINE_CHECK(e, w[at + (bound ? 1 : 0)] == "wdl");
    }
    ENGINE_CHECK(e, scored >= 8);
}

TEST_CASE("wdl uci: a bare-king mate within the count is won, one past it is a draw",
          "[engine][wdl]") {
    EngineSession e;
    ENGINE_REQUIRE(e, !handshake(e).empty());
    auto r = e.reply("setoption name UCI_ShowWDL value true");
    ENGINE_REQUIRE(e, r);

    // tests/test_wdl.cpp's rows of counting-makruk.txt: at ply 13 of 16 the mate in two
    // fits the count, at ply 15 it does not.
    auto won = search_fen(e, "7k/8/8/3R4/4R3/8/8/7K w - 16 13 40", "go depth 8");
    ENGINE_REQUIRE(e, won.done);
    {
        INFO(won.last.scoreType << " " << won.last.score);
        ENGINE_CHECK(e, won.last.scoreType == "mate");
        auto wdl = wdl_of(last_scored(won));
        ENGINE_REQUIRE(e, wdl);
        ENGINE_CHECK(e, (*wdl == std::array<long long, 3>{1000, 0, 0}));
    }

    auto drawn = search_fen(e, "7k/8/8/3R4/4R3/8/8/7K w - 16 15 40", "go depth 8");
    ENGINE_REQUIRE(e, drawn.done);
    {
        const std::string last = last_scored(drawn);
        INFO(last);
        auto wdl = wdl_of(last);
        ENGINE_REQUIRE(e, wdl);
        ENGINE_CHECK(e, (*wdl)[1] >= 900);
    }
}

TEST_CASE("wdl uci: a position with no move is scored by its result", "[engine][wdl]") {
    EngineSession e;
    ENGINE_REQUIRE(e, !handshake(e).empty());
    auto r = e.reply("setoption name UCI_ShowWDL value true");
    ENGINE_REQUIRE(e, r);
    // Black is mated (two rueas on the 7th and 8th ranks).
    auto mated = search_fen(e, "R6k/1R6/8/8/8/8/8/K7 b - - 0 1", "go depth 5");
    ENGINE_REQUIRE(e, mated.done);
    ENGINE_REQUIRE(e, !mated.output.empty());
    INFO(mated.output[0]);
    ENGINE_CHECK(e, starts_with(mated.output[0], "info depth 0 score "));
    ENGINE_CHECK(e, wdl_of(mated.output[0]) == (std::array<long long, 3>{0, 0, 1000}));
}

TEST_CASE("wdl uci: the net's scores are read with the net's fit, the hand-written "
          "evaluation's with its own",
          "[engine][wdl]") {
    using khun::eval::wdl::Model;
    EngineSession e;
    ENGINE_REQUIRE(e, !handshake(e).empty());
    ENGINE_REQUIRE(e, e.reply("setoption name UCI_ShowWDL value true"));
    // The start position: material 64, no count.
    auto check = [&e](Model model) {
        auto s =
            search_fen(e, "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", "go depth 7");
        ENGINE_REQUIRE(e, s.done);
        const std::string l = last_scored(s);
        INFO(l);
        auto w = words(l);
        auto at = std::find(w.begin(), w.end(), "cp");
        ENGINE_REQUIRE(e, w.end() - at > 1);
        const int cp = std::stoi(*(at + 1));
        auto wdl = wdl_of(l);
        ENGINE_REQUIRE(e, wdl);
        const auto expected = khun::eval::wdl::from_score(cp, 64, khun::eval::wdl::NoCount, model);
        ENGINE_CHECK(e, (*wdl)[0] == expected.win);
        ENGINE_CHECK(e, (*wdl)[1] == expected.draw);
        ENGINE_CHECK(e, (*wdl)[2] == expected.loss);
    };
    check(Model::Net); // the default
    ENGINE_REQUIRE(e, e.reply("setoption name Use NNUE value false"));
    check(Model::Classical);
    ENGINE_REQUIRE(e, e.reply("setoption name Use NNUE value true"));
    ENGINE_REQUIRE(e, e.reply("setoption name Skill Level value 5"));
    check(Model::Classical);
}
