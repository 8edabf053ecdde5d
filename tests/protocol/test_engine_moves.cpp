// Legal best moves over many positions: every opening of openings-makruk.epd and every
// start position of transitions-makruk.txt, searched briefly by the real binary.
#include "engine_session.h"

#include <iostream>

using namespace enginetest;

namespace {

// Searches each FEN with `go` and checks the bestmove (and the principal variation) with
// the library.
void check_bestmoves(const std::vector<std::string>& fens, const std::string& go) {
    auto e = started_engine();
    int searched = 0;
    for (const std::string& fen : fens) {
        INFO("position fen " << fen);
        std::string err;
        auto g = library_game(fen, {}, &err);
        INFO("library: " << err);
        REQUIRE(g);
        auto r = e->reply("position fen " + fen);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        auto s = e->search(go, 20000);
        ENGINE_REQUIRE(*e, s.done);
        INFO("bestmove " << s.best);
        if (khun::MoveList(g->pos).size() == 0) {
            ENGINE_CHECK(*e, s.best == "(none)");
            continue;
        }
        ENGINE_CHECK(*e, khun::parse_uci_move(g->pos, s.best) != khun::Move::none());
        ENGINE_CHECK(*e, s.last.valid);
        ENGINE_CHECK(*e, first_illegal(fen, {}, s.last.pv) == "");
        if (!s.ponder.empty()) ENGINE_CHECK(*e, is_legal_move(fen, s.ponder, {s.best}));
        ++searched;
    }
    CHECK(searched > 0);
}

} // namespace

TEST_CASE("engine: legal bestmoves in the opening positions", "[engine]") {
    // EPD: "<board> <side> <castling> <count> hmvc 0; fmvn 5;" -> the first four fields;
    // the missing ones default (docs/rules.md "FEN").
    std::vector<std::string> fens;
    for (const std::string& line : data_lines("tools/openings-makruk.epd")) {
        auto w = words(line);
        REQUIRE(w.size() >= 4);
        fens.push_back(w[0] + " " + w[1] + " " + w[2] + " " + w[3]);
    }
    CHECK(fens.size() >= 100);
    check_bestmoves(fens, "go nodes 3000");
}

TEST_CASE("engine: legal bestmoves in the transition start positions", "[engine]") {
    std::vector<std::string> fens;
    for (const std::string& row : data_lines("rules/transitions-makruk.txt")) {
        auto f = split(row, ';');
        REQUIRE(f.size() == 3);
        fens.push_back(f[0] == "startpos" ? StartFen : f[0]);
    }
    check_bestmoves(fens, "go nodes 3000");
}
