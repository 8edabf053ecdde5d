// Short mates: the engine must report `score mate N` with the exact N, and a legal move
// that keeps the mate. N is checked against an exhaustive search with the library, which
// honours the real game-end rules (checkmate, stalemate, counting, repetition).
#include "engine_session.h"
#include "helpers.h"

using namespace enginetest;

namespace {

using testutil::attacker_mates;
using testutil::defender_mated;

// The exact mate distance (in moves) up to `max`, 0 when there is none that short.
int mate_distance(const std::string& fen, const std::vector<std::string>& moves, int max) {
    auto g = library_game(fen, moves);
    REQUIRE(g);
    for (int n = 1; n <= max; ++n)
        if (attacker_mates(g->pos, n)) return n;
    return 0;
}

struct MateCase {
    std::string fen;
    int n;
};

// The mate rows of counting-makruk.txt with a distance of at most 3 whose FEN is legal,
// and a few built by hand.
std::vector<MateCase> mate_cases() {
    std::vector<MateCase> out;
    for (const std::string& row : data_lines("rules/counting-makruk.txt")) {
        auto f = split(row, ';');
        REQUIRE(f.size() == 3);
        if (f[1] != "mate" || std::stoi(f[2]) > 3) continue;
        if (!library_game(f[0])) continue; // White to move could take the king: refused
        out.push_back({f[0], std::stoi(f[2])});
    }
    REQUIRE(out.size() >= 6);
    const MateCase built[] = {
        {"7k/8/6K1/8/8/8/8/R7 w - - 0 1", 1},  // Ra8#
        {"8/8/8/8/8/1k6/7r/K7 b - - 0 1", 1},  // Black mates: Rh1#
        {"k7/8/8/2K5/8/8/8/7R w - - 0 1", 2},  // Kb6 Kb8 Rh8#
        {"K7/8/2k5/8/8/8/8/7r b - - 0 1", 2},  // the same for Black: Kb6 Kb8 Rh8#
        {"1k6/8/3K4/8/8/8/8/7R w - - 0 1", 3}, // king and rook against a bare king
        {"2k5/8/3K4/8/8/8/7R/8 w - - 0 1", 2},
    };
    for (const MateCase& c : built) out.push_back(c);
    return out;
}

} // namespace

TEST_CASE("engine: short mates are verified by exhaustive search", "[engine]") {
    for (const MateCase& c : mate_cases()) {
        INFO(c.fen << " ; mate in " << c.n);
        CHECK(mate_distance(c.fen, {}, c.n) == c.n);
    }
}

TEST_CASE("engine: go depth 10 reports the exact mate distance", "[engine]") {
    auto e = started_engine();
    for (const MateCase& c : mate_cases()) {
        INFO(c.fen << " ; mate in " << c.n);
        auto r = e->reply("ucinewgame");
        ENGINE_REQUIRE(*e, r);
        r = e->reply("position fen " + c.fen);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        auto s = e->search("go depth 10", 60000);
        ENGINE_REQUIRE(*e, s.done);
        INFO("bestmove " << s.best);
        ENGINE_CHECK(*e, is_legal_move(c.fen, s.best));
        ENGINE_CHECK(*e, s.last.scoreType == "mate");
        ENGINE_CHECK(*e, s.last.score == c.n);
        ENGINE_CHECK(*e, first_illegal(c.fen, {}, s.last.pv) == "");
        // The move keeps the mate: after it the opponent is mated within n - 1 moves.
        if (is_legal_move(c.fen, s.best)) {
            auto g = library_game(c.fen, {s.best});
            REQUIRE(g);
            ENGINE_CHECK(*e, defender_mated(g->pos, c.n - 1));
        }
        // The principal variation is the mate itself: it ends in checkmate.
        if (first_illegal(c.fen, {}, s.last.pv) == "" && !s.last.pv.empty()) {
            auto g = library_game(c.fen, s.last.pv);
            REQUIRE(g);
            ENGINE_CHECK(*e, g->pos.outcome() == khun::Outcome::Checkmate);
            ENGINE_CHECK(*e, int(s.last.pv.size()) == 2 * c.n - 1);
        }
    }
}
