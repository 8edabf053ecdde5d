#include "khun/rules/perft.h"

#include "khun/rules/movegen.h"

namespace khun {

uint64_t perft(Position& pos, int depth) {
    if (depth <= 0) return 1;
    if (depth == 1) return uint64_t(count_legal(pos));
    uint64_t nodes = 0;
    StateInfo st;
    for (Move m : MoveList(pos)) {
        pos.do_move(m, st);
        nodes += depth == 2 ? uint64_t(count_legal(pos)) : perft(pos, depth - 1);
        pos.undo_move(m);
    }
    return nodes;
}

std::vector<std::pair<std::string, uint64_t>> perft_divide(Position& pos, int depth) {
    std::vector<std::pair<std::string, uint64_t>> out;
    StateInfo st;
    for (Move m : MoveList(pos)) {
        pos.do_move(m, st);
        uint64_t n = perft(pos, depth - 1);
        pos.undo_move(m);
        out.emplace_back(to_uci(m, pos), n);
    }
    return out;
}

std::string perft_report(Position& pos, int depth) {
    std::string s;
    uint64_t total = 0;
    if (depth < 1) depth = 1;
    for (auto& [move, n] : perft_divide(pos, depth)) {
        s += move + ": " + std::to_string(n) + "\n";
        total += n;
    }
    return s + "\nNodes searched: " + std::to_string(total) + "\n";
}

} // namespace khun
