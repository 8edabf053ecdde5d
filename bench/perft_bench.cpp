// Perft speed benchmark: one thread, bulk counting at the leaves, no hash table; the
// same method Makruk-Stockfish uses, so their times compare directly.
#include "khun/protocol/engine.h"
#include "khun/rules/perft.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
    int depth = argc > 1 ? std::atoi(argv[1]) : 6;
    std::string fen;
    for (int i = 2; i < argc; ++i) fen += (fen.empty() ? "" : " ") + std::string(argv[i]);
    khun::protocol::Engine engine;
    if (auto err = engine.set_position(fen, {})) {
        std::fprintf(stderr, "%s\n", err->c_str());
        return 2;
    }
    auto t0 = std::chrono::steady_clock::now();
    uint64_t n = khun::perft(engine.position(), depth);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("depth %d nodes %llu time %.3f s nps %.0f\n", depth, (unsigned long long)n, s,
                n / s);
    return 0;
}
