// Search start/stop churn inside the test process, through the UCI dialect on an Engine:
// two to four threads, go/stop in quick succession, Hash and Threads changed between
// searches, ucinewgame, position and ponderhit while a search runs. In the normal build
// it checks that every go gets exactly one legal bestmove; built with KHUN_TSAN it is the
// ThreadSanitizer test (ctest -L tsan), where any data race fails the run.
#include "khun/protocol/engine.h"
#include "khun/protocol/uci.h"
#include "khun/rules/movegen.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <random>
#include <sstream>
#include <thread>

using namespace khun;
using namespace khun::protocol;

namespace {

struct Spot {
    std::string fen;
    std::string command;
};

const Spot Spots[] = {
    {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", "position startpos"},
    {"r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26",
     "position fen r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26"},
    {"rnsmksnr/8/ppppp1pp/5p2/2P5/PP1PPPPP/8/RNSKMSNR w - - 0 2",
     "position startpos moves c3c4 f6f5"},
    {"5m2/5k2/8/8/4K3/8/4s3/8 w - 88 28 77", "position fen 5m2/5k2/8/8/4K3/8/4s3/8 w - 88 28 77"},
};

} // namespace

TEST_CASE("churn: go/stop, options and new games around a multi-threaded search",
          "[churn][stress]") {
    Position::init();
    Engine engine;
    std::ostringstream out;
    Uci uci(engine, out);
    std::mt19937 rng(2024);
    const char* gos[] = {"go infinite",
                         "go depth 30",
                         "go movetime 50",
                         "go nodes 5000",
                         "go wtime 200 btime 200 winc 10 binc 10",
                         "go ponder wtime 1000 btime 1000"};
    // The position each go searched, in order: its bestmove must be legal there.
    std::vector<size_t> searched;
    size_t spot = 0;
    uci.command("setoption name Threads value 2");
    uci.command(Spots[0].command);
    const int Rounds = 400;
    for (int i = 0; i < Rounds; ++i) {
        const int go = int(rng() % 6);
        uci.command(gos[go]);
        searched.push_back(spot);
        if (rng() % 2) std::this_thread::sleep_for(std::chrono::microseconds(rng() % 2000));
        switch (rng() % 8) {
        case 0: uci.command("ucinewgame"); break;
        case 1: uci.command("setoption name Threads value " + std::to_string(2 + rng() % 3)); break;
        case 2: uci.command("setoption name Hash value " + std::to_string(1 + rng() % 4)); break;
        case 3:
            spot = rng() % std::size(Spots);
            uci.command(Spots[spot].command); // stops the search first
            break;
        case 4: uci.command("ponderhit"); break;
        case 5: uci.command("isready"); break;
        default: break;
        }
        uci.command("stop");
    }
    uci.command("quit");

    // Every go got exactly one bestmove, legal in the position it searched.
    std::istringstream is(out.str());
    std::vector<std::string> bestmoves;
    for (std::string line; std::getline(is, line);)
        if (line.compare(0, 9, "bestmove ") == 0) bestmoves.push_back(line);
    REQUIRE(bestmoves.size() == searched.size());
    for (size_t k = 0; k < bestmoves.size(); ++k) {
        INFO("go " << k << ": " << bestmoves[k] << " in " << Spots[searched[k]].fen);
        std::istringstream ws(bestmoves[k]);
        std::string word, move;
        ws >> word >> move;
        std::string err;
        auto g = Game::make(Spots[searched[k]].fen, {}, default_variant(), err);
        REQUIRE(g);
        CHECK(parse_uci_move(g->pos, move) != Move::none());
    }
}
