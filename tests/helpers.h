// Shared helpers for the rules tests: data files, positions built from FEN, move lists as
// sorted UCI strings, and a small exhaustive mate search that honours the game's end rules.
#pragma once

#include "khun/protocol/engine.h"
#include "khun/rules/movegen.h"
#include "khun/rules/perft.h"
#include "khun/rules/position.h"
#include "khun/rules/text.h"
#include "khun/rules/variant.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace testutil {

inline void init() {
    static const bool done = (khun::Position::init(), true);
    (void)done;
}

inline const khun::Variant& makruk() { return khun::default_variant(); }

inline const std::string StartFen = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";

inline std::string data_path(const std::string& name) {
    return std::string(KHUN_TEST_DATA) + "/" + name;
}

inline std::string trim(const std::string& s) {
    const char* ws = " \t\r\n";
    size_t b = s.find_first_not_of(ws);
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

inline std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string field;
    std::istringstream is(s);
    while (std::getline(is, field, sep)) out.push_back(trim(field));
    return out;
}

using khun::words;

// The `;`-separated records of a data file, comments and blank lines skipped. A file that
// is missing or empty fails the calling test instead of passing it vacuously.
inline std::vector<std::vector<std::string>> records(const std::string& name, size_t fields) {
    std::ifstream in(data_path(name));
    INFO("data file " << data_path(name));
    REQUIRE(in.good());
    std::vector<std::vector<std::string>> out;
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (line.empty() || line[0] == '#') continue;
        auto r = split(line, ';');
        INFO("line: " << line);
        REQUIRE(r.size() == fields);
        out.push_back(r);
    }
    REQUIRE(!out.empty());
    return out;
}

// The records of counting-makruk.txt. 17 of its 41 positions are not legal: White is to
// move while the black king stands in check (e.g. 8/3K4/8/8/8/8/5R1k/8 w), which
// Fairy-Stockfish does not check. Khun refuses them as docs/rules.md says; `legal` chooses
// the records whose FEN Khun accepts, or the others.
inline std::vector<std::vector<std::string>> counting_records(bool legal) {
    init();
    std::vector<std::vector<std::string>> out;
    for (auto& r : records("rules/counting-makruk.txt", 3)) {
        khun::Position pos;
        khun::StateInfo st;
        if (!pos.set(r[0], makruk(), &st) == legal) out.push_back(r);
    }
    return out;
}

// Every FEN named in the data files (perft positions, transition starts and ends,
// counting positions).
inline std::vector<std::string> data_fens() {
    std::vector<std::string> fens;
    for (auto& r : records("rules/perft-makruk.epd", 3)) fens.push_back(r[0]);
    for (auto& r : records("rules/transitions-makruk.txt", 3)) {
        fens.push_back(r[0] == "startpos" ? StartFen : r[0]);
        fens.push_back(r[2]);
    }
    for (auto& r : counting_records(true)) fens.push_back(r[0]);
    return fens;
}

// A game set up from `fen` (or "startpos") and `moves`; fails the test if it is refused.
inline std::unique_ptr<khun::Game> game(const std::string& fen,
                                        const std::vector<std::string>& moves = {}) {
    init();
    std::string err;
    auto g = khun::Game::make(fen == "startpos" ? StartFen : fen, moves, makruk(), err);
    INFO("FEN: " << fen << "  error: " << err);
    REQUIRE(g);
    return g;
}

inline std::unique_ptr<khun::Game> game(const std::string& fen, const std::string& moves) {
    return game(fen, words(moves));
}

// Plays one UCI move on a game; fails the test if the move is not legal there.
inline void play(khun::Game& g, const std::string& uci) {
    khun::Move m = khun::parse_uci_move(g.pos, uci);
    INFO("move " << uci << " in " << g.pos.fen());
    REQUIRE(m != khun::Move::none());
    g.play(m);
}

template <khun::GenType T = khun::LEGAL>
std::vector<std::string> uci_moves(const khun::Position& pos) {
    std::vector<std::string> out;
    for (khun::Move m : khun::MoveList::of<T>(pos)) out.push_back(khun::to_uci(m, pos));
    std::sort(out.begin(), out.end());
    return out;
}

inline std::vector<std::string> sorted(std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    return v;
}

// Exhaustive mate search under the real game-end rules (outcome(): checkmate first, then
// stalemate, the counting rule, repetition). `attacker_mates`: the side to move can force
// checkmate with at most n moves of its own. `defender_mated`: whatever the side to move
// plays, the opponent mates it with at most n further moves (n = 0: it is mated now).
bool defender_mated(khun::Position& pos, int n);

inline bool attacker_mates(khun::Position& pos, int n) {
    if (n <= 0 || pos.outcome() != khun::Outcome::None) return false;
    khun::StateInfo st;
    for (khun::Move m : khun::MoveList(pos)) {
        if (n == 1 && !pos.gives_check(m)) continue; // a mating move gives check
        pos.do_move(m, st);
        bool win = defender_mated(pos, n - 1);
        pos.undo_move(m);
        if (win) return true;
    }
    return false;
}

inline bool defender_mated(khun::Position& pos, int n) {
    khun::Outcome o = pos.outcome();
    if (o == khun::Outcome::Checkmate) return true;
    if (o != khun::Outcome::None || n <= 0) return false;
    khun::StateInfo st;
    for (khun::Move m : khun::MoveList(pos)) {
        pos.do_move(m, st);
        bool lost = attacker_mates(pos, n);
        pos.undo_move(m);
        if (!lost) return false;
    }
    return true;
}

} // namespace testutil
