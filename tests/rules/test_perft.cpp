// Perft: node counts against Fairy-Stockfish's reference numbers.
#include "helpers.h"

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

TEST_CASE("perft: every position of perft-makruk.epd", "[perft][sweep]") {
    auto recs = records("rules/perft-makruk.epd", 3);
    CHECK(recs.size() >= 50);
    for (auto& r : recs) {
        auto g = game(r[0]);
        const int depth = std::stoi(r[1]);
        const uint64_t nodes = std::stoull(r[2]);
        INFO("FEN " << r[0] << " depth " << depth);
        CHECK(perft(g->pos, depth) == nodes);
        // Perft must leave the position as it found it.
        CHECK(g->pos.fen() == r[0]);
    }
}

TEST_CASE("perft: start position depths 1 to 6", "[perft][sweep]") {
    const uint64_t expected[] = {23, 529, 12012, 273026, 6223994, 142078049};
    auto g = game("startpos");
    const Key key = g->pos.key();
    for (int d = 1; d <= 6; ++d) {
        INFO("depth " << d);
        CHECK(perft(g->pos, d) == expected[d - 1]);
    }
    CHECK(g->pos.fen() == StartFen);
    CHECK(g->pos.key() == key);
}

TEST_CASE("perft: depth 0 is one node and divide sums to perft", "[perft]") {
    auto g = game("startpos");
    CHECK(perft(g->pos, 0) == 1);
    auto div = perft_divide(g->pos, 3);
    CHECK(div.size() == 23);
    uint64_t sum = 0;
    for (auto& [move, n] : div) {
        sum += n;
        // Each root entry is the perft of the position after that move.
        auto child = game("startpos", {move});
        CHECK(perft(child->pos, 2) == n);
    }
    CHECK(sum == 12012);
    std::vector<std::string> names;
    for (auto& [move, n] : div) names.push_back(move);
    CHECK(sorted(names) == uci_moves(g->pos));
}

TEST_CASE("perft: perft_report prints Stockfish's format", "[perft]") {
    auto g = game("startpos");
    const std::string rep = perft_report(g->pos, 2);
    std::istringstream is(rep);
    std::string line;
    int moveLines = 0;
    uint64_t sum = 0;
    while (std::getline(is, line) && !line.empty()) {
        auto colon = line.find(": ");
        REQUIRE(colon != std::string::npos);
        sum += std::stoull(line.substr(colon + 2));
        ++moveLines;
    }
    CHECK(moveLines == 23);
    REQUIRE(std::getline(is, line));
    CHECK(line == "Nodes searched: 529");
    CHECK(sum == 529);
}

TEST_CASE("perft: start position depth 7", "[.deep][perft]") {
    auto g = game("startpos");
    CHECK(perft(g->pos, 7) == 3299342874ULL);
}
