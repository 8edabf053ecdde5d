// libFuzzer target: move strings, in UCI and USI squares, on positions of every game.
// The first byte picks the position ('A' the first of Starts below, 'B' the next...);
// the rest is a move list. A string the parser
// accepts must name a legal move that prints back as a string naming the same move.
#include "fuzz_common.h"

#include "khun/protocol/usi.h"
#include "khun/rules/movegen.h"
#include "khun/rules/variant.h"

#include <sstream>

namespace {

struct Start {
    const char* game;
    const char* fen; // "" for the game's start position
    bool sutras;
};

const Start Starts[] = {
    {"makruk", "", false},
    {"makruk", "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26", false},
    {"makruk", "8/8/8/8/2nM4/1k6/1mm5/K7 w - 128 49 91", false},
    {"makruk", "4k3/8/8/3P4/8/8/8/4K3 w - - 0 1", false}, // a promotion
    {"makruk", "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w BDEGbdeg - 0 1", true},
    {"cambodian", "", false},
    {"makpong", "", false},
    {"karouk", "", false},
    {"ai-wok", "", false},
    {"asean", "", false},
    {"asean", "4k3/P7/8/8/8/8/8/4K3 w - - 0 1", false},                     // promotion choice
    {"sittuyin", "", false},                                                // the setup's drops
    {"sittuyin", "4k3/8/8/3P4/7P/8/8/R3K3[] w - - 0 40", false},            // its promotions
    {"makrukhouse", "4k3/8/3r4/8/8/8/2K5/8[PNSMRpnsmr] w - - 0 32", false}, // full hands
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace khun;
    using namespace khun::protocol;
    fuzz::init();
    if (size == 0) return 0;
    static std::vector<Variant> games = [] {
        std::vector<Variant> v;
        for (const Start& s : Starts)
            v.push_back(s.sutras ? with_sutras(*find_variant(s.game), true, true, true)
                                 : *find_variant(s.game));
        return v;
    }();
    const size_t which = uint8_t(data[0] - 'A') % std::size(Starts);
    const Variant& var = games[which];
    const std::string fen = *Starts[which].fen ? Starts[which].fen : var.startFen;
    const std::string input = fuzz::text(data + 1, size - 1);

    std::string err;
    auto game = Game::make(fen, {}, var, err);
    if (!game) fuzz::fail("start position refused: " + err);
    std::istringstream is(input);
    std::vector<std::string> played;
    for (std::string word; is >> word;) {
        // The same word in USI squares too: conversion must not crash and must round-trip.
        const std::string asUci = usi_to_uci(word);
        if (asUci != word && uci_to_usi(asUci) != word)
            fuzz::fail("USI '" + word + "' -> '" + asUci + "' -> '" + uci_to_usi(asUci) + "'");
        (void)parse_uci_move(game->pos, asUci);
        (void)sfen_to_fen(input, err);

        const Move m = parse_uci_move(game->pos, word);
        if (!m) continue;
        if (!MoveList(game->pos).contains(m))
            fuzz::fail("'" + word + "' parsed to a move that is not legal in " + game->pos.fen());
        const std::string back = to_uci(m, game->pos);
        if (parse_uci_move(game->pos, back) != m)
            fuzz::fail("'" + word + "' printed as '" + back + "', which does not parse back");
        game->play(m);
        played.push_back(back);
        if (game->pos.outcome() != Outcome::None) break;
    }
    // The moves played one by one are the moves Game::make accepts as a list.
    auto replay = Game::make(fen, played, var, err);
    if (!replay) fuzz::fail("move list refused: " + err);
    if (replay->pos.fen() != game->pos.fen() || replay->pos.key() != game->pos.key())
        fuzz::fail("move list gives another position than the moves one by one");
    // And every move can be taken back.
    while (game->undo()) {
    }
    StateInfo si{};
    Position start;
    start.set(fen, var, &si);
    if (game->pos.fen() != start.fen()) fuzz::fail("undo of every move does not give the start");
    return 0;
}
