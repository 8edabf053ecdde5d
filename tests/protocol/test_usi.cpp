// The USI dialect over the real binary: a conversation that touches every command, bad
// input that leaves the position alone, and a game played to its end.
#include "khun/protocol/usi.h"
#include "khun/rules/movegen.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"
#include "test_variants_pipe.h"

#include <algorithm>
#include <regex>

using namespace khun;
using namespace khun::protocol;
using pipetest::Child;
using pipetest::starts_with;
using pipetest::words;

namespace {

bool is_usi_move(const std::string& s) {
    static const std::regex re("^[1-8][a-h][1-8][a-h][a-z]?$");
    return std::regex_match(s, re);
}

// The Sfen: line of a `d` reply.
std::string sfen_of(Child& e) { return d_field(e, "Sfen: ", "Sfen: "); }

void handshake(Child& e) {
    e.send("usi");
    auto r = e.until_prefix("usiok");
    PIPE_REQUIRE(e, r);
}

} // namespace

TEST_CASE("usi: squares, moves and SFEN convert as Fairy-Stockfish writes them", "[usi]") {
    Position::init();
    CHECK(uci_to_usi("e3e4") == "4f4e");
    CHECK(uci_to_usi("a1h8") == "8h1a");
    CHECK(uci_to_usi("e5e6m") == "4d4cm");
    CHECK(usi_to_uci("4f4e") == "e3e4");
    CHECK(usi_to_uci("8h1a") == "a1h8");
    // Drops: "R@a1" is "R*8h", as Fairy-Stockfish writes them over USI.
    CHECK(uci_to_usi("R@a1") == "R*8h");
    CHECK(usi_to_uci("R*8h") == "R@a1");
    CHECK(usi_to_uci("P*4e") == "P@e4");
    CHECK(usi_to_uci("resign") == "resign");
    for (const char* m : {"a1a2", "h8g6", "d1b2", "c7c8q"}) CHECK(usi_to_uci(uci_to_usi(m)) == m);
    CHECK(usi_option_name("Hash") == "USI_Hash");
    CHECK(usi_option_name("UCI_Variant") == "USI_Variant");
    CHECK(usi_option_name("Move Overhead") == "Move_Overhead");
    CHECK(usi_option_name("SutKhun") == "SutKhun");

    std::string err;
    auto f = sfen_to_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b - 1", err);
    REQUIRE(f);
    CHECK(*f == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1");
    f = sfen_to_fen("rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR w - 2", err);
    REQUIRE(f);
    CHECK(*f == "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1");
    CHECK_FALSE(sfen_to_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR x - 1", err));
    // The hands become the FEN's "[...]" (the game then judges whether it has them).
    f = sfen_to_fen("8/8/4pppp/pppp4/4PPPP/PPPP4/8/8 b K2R2sf 1", err);
    REQUIRE(f);
    CHECK(*f == "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KRRssf] w - - 0 1");
    CHECK_FALSE(sfen_to_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b P2 1", err));
    CHECK_FALSE(sfen_to_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b P! 1", err));
    CHECK_FALSE(sfen_to_fen("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b - x", err));
    CHECK_FALSE(sfen_to_fen("rnsmksnr", err));

    std::string e2;
    auto g = Game::make("rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1", {},
                        default_variant(), e2);
    REQUIRE(g);
    CHECK(to_sfen(g->pos) == "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR w - 2");
}

TEST_CASE("usi: a conversation through every command", "[usi][protocol]") {
    Position::init();
    Child e;
    e.send("usi");
    auto r = e.until_prefix("usiok");
    PIPE_REQUIRE(e, r);
    auto has_line = [&](const std::string& l) {
        return std::find(r->begin(), r->end(), l) != r->end();
    };
    PIPE_CHECK(e, has_line("id name Khun " KHUN_VERSION));
    PIPE_CHECK(e, has_line("option name USI_Hash type spin default 16 min 1 max 1048576"));
    PIPE_CHECK(e, has_line("option name USI_Ponder type check default false"));
    PIPE_CHECK(e, has_line("option name Move_Overhead type spin default 10 min 0 max 5000"));
    PIPE_CHECK(e, has_line("option name USI_Variant type combo default makruk var makruk var "
                           "cambodian var makpong var karouk var ai-wok var asean var sittuyin "
                           "var makrukhouse"));
    PIPE_CHECK(e, has_line("option name SutKhun type check default false"));

    e.send("isready");
    PIPE_CHECK(e, e.until_prefix("readyok"));
    e.send("setoption name USI_Variant value makruk");
    e.send("setoption name USI_Hash value 8");
    e.send("usinewgame");
    // Moves in USI squares: e3e4 d6d5.
    e.send("position startpos moves 4f4e 5c5d");
    PIPE_CHECK(e, sfen_of(e) == "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR b - 3");

    // go with USI clocks: btime is the first player's.
    e.send("go btime 2000 wtime 2000 byoyomi 100");
    auto best = e.until_prefix("bestmove");
    PIPE_REQUIRE(e, best);
    auto w = words(best->back());
    PIPE_REQUIRE(e, w.size() >= 2);
    PIPE_CHECK(e, is_usi_move(w[1]));
    // Every pv of the info lines is in USI squares too.
    for (const std::string& l : *best)
        if (starts_with(l, "info depth") && l.find(" pv ") != std::string::npos) {
            auto iw = words(l.substr(l.find(" pv ") + 4));
            for (const std::string& m : iw) PIPE_CHECK(e, is_usi_move(m));
        }
    // The move is legal in the position.
    std::string err;
    auto g = Game::make("rnsmksnr/8/ppp1pppp/3p4/4P3/PPPP1PPP/8/RNSKMSNR w - - 0 2", {},
                        default_variant(), err);
    REQUIRE(g);
    PIPE_CHECK(e, parse_uci_move(g->pos, usi_to_uci(w[1])));

    // sfen positions; an SFEN says nothing about counts, so none runs.
    e.send("position sfen 4k3/8/8/8/8/8/8/R3K2R b - 1 moves 4h4g");
    PIPE_CHECK(e, sfen_of(e) == "4k3/8/8/8/8/8/4K3/R6R w - 2");
    e.send("go depth 4");
    best = e.until_prefix("bestmove");
    PIPE_REQUIRE(e, best);
    PIPE_CHECK(e, is_usi_move(words(best->back())[1]));

    // Bad input: an error line, and the position stays.
    const std::string before = sfen_of(e);
    for (const char* bad : {"position sfen 4k3/8/8/8/8/8/8/R3K2R x - 1",
                            "position sfen 4k3/8/8/8/8/8/8/R3K2R b - 1 moves 9z9z",
                            "position sfen 4k3/8/8/8/8/8/8/R3K2R b - 1 moves 1h1g 1h1g",
                            "position fen nonsense", "position", "go depth x", "frobnicate"}) {
        e.send(bad);
        auto err_line = e.until_prefix("info string error");
        PIPE_CHECK(e, err_line);
        PIPE_CHECK(e, sfen_of(e) == before);
    }

    // A mated side answers resign.
    e.send("position sfen 3R1k2/8/5K2/8/8/8/8/8 w - 1");
    e.send("go depth 3");
    best = e.until_prefix("bestmove");
    PIPE_REQUIRE(e, best);
    PIPE_CHECK(e, best->back() == "bestmove resign");
    PIPE_CHECK(e,
               std::find(best->begin(), best->end(), "info depth 0 score mate 0") != best->end());

    // Mate distances are in plies: mate in one move is "mate 1".
    e.send("position sfen 5k2/8/5K2/8/8/8/8/3R4 b - 1");
    e.send("go depth 4");
    best = e.until_prefix("bestmove");
    PIPE_REQUIRE(e, best);
    PIPE_CHECK(e, best->back() == "bestmove 5h5a");
    bool mate1 = false;
    for (const std::string& l : *best) mate1 |= l.find("score mate 1 ") != std::string::npos;
    PIPE_CHECK(e, mate1);

    // Other games over USI: cambodian's first moves come from startpos.
    e.send("setoption name USI_Variant value cambodian");
    e.send("position startpos moves 5h7g");
    PIPE_CHECK(e, sfen_of(e) == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/1K6/RNS1MSNR w - 2");
    e.send("go perft 1");
    auto perft = e.until_prefix("Nodes searched");
    PIPE_REQUIRE(e, perft);
    PIPE_CHECK(e, perft->back() == "Nodes searched: 25");

    e.send("go infinite");
    e.send("stop");
    PIPE_CHECK(e, e.until_prefix("bestmove"));
    e.send("gameover draw");
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}

TEST_CASE("usi: a makruk ending played to its end", "[usi][game]") {
    Position::init();
    Child e;
    handshake(e);
    e.send("setoption name USI_Variant value makruk");
    e.send("usinewgame");
    // Two rooks against a bare king: the count starts with the first move and the game
    // ends by mate (or, failing that, by the count).
    const std::string sfen = "8/8/8/4k3/8/8/8/R3K2R b - 1";
    std::string err;
    auto fen = sfen_to_fen(sfen, err);
    REQUIRE(fen);
    auto g = Game::make(*fen, {}, default_variant(), err);
    REQUIRE(g);
    std::string moves;
    Outcome end = Outcome::None;
    for (int ply = 0; ply < 200 && (end = g->pos.outcome()) == Outcome::None; ++ply) {
        e.send("position sfen " + sfen + (moves.empty() ? "" : " moves" + moves));
        e.send("go btime 10000 wtime 10000 byoyomi 50");
        auto best = e.until_prefix("bestmove");
        PIPE_REQUIRE(e, best);
        const std::string m = words(best->back())[1];
        PIPE_REQUIRE(e, is_usi_move(m));
        Move mv = parse_uci_move(g->pos, usi_to_uci(m));
        PIPE_REQUIRE(e, mv);
        g->play(mv);
        moves += " " + m;
    }
    INFO("game: " << moves << "\nend: " << outcome_name(end));
    PIPE_CHECK(e, (end == Outcome::Checkmate || end == Outcome::CountingDraw));
    // The side to move at the end has no move: the engine resigns for it.
    if (end == Outcome::Checkmate) {
        e.send("position sfen " + sfen + " moves" + moves);
        e.send("go depth 2");
        auto best = e.until_prefix("bestmove");
        PIPE_REQUIRE(e, best);
        PIPE_CHECK(e, best->back() == "bestmove resign");
    }
    e.send("gameover lose");
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}
