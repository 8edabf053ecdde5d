// The CECP (xboard) dialect over the real binary: the protover handshake, a conversation
// through the commands GUIs send, bad input, and a game played to its end.
#include "khun/rules/movegen.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"
#include "test_variants_pipe.h"

#include <algorithm>
#include <regex>

using namespace khun;
using pipetest::Child;
using pipetest::starts_with;
using pipetest::words;

namespace {

bool is_move(const std::string& s) {
    static const std::regex re("^[a-h][1-8][a-h][1-8][a-z]?$");
    return std::regex_match(s, re);
}

bool is_result(const std::string& l) {
    return starts_with(l, "1-0 ") || starts_with(l, "0-1 ") || starts_with(l, "1/2-1/2 ");
}

// The FEN the engine holds, from the `# Fen:` line of `d`.
std::string fen_of(Child& e) { return d_field(e, "# Fen: ", "# Checkers:"); }

// Sends ping N and waits for pong N: everything sent before has been handled.
bool sync(Child& e, int n) {
    e.send("ping " + std::to_string(n));
    return bool(e.until([&](const std::string& l) { return l == "pong " + std::to_string(n); }));
}

void handshake(Child& e) {
    e.send("xboard");
    e.send("protover 2");
    PIPE_REQUIRE(e, e.until_prefix("feature done=1"));
}

const std::string MakrukStart = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";

} // namespace

TEST_CASE("xboard: protover 2 declares the features and the eight games", "[xboard][protocol]") {
    Child e;
    e.send("xboard");
    e.send("protover 2");
    auto r = e.until_prefix("feature done=1");
    PIPE_REQUIRE(e, r);
    std::string features;
    for (const std::string& l : *r) features += l + "\n";
    for (const char* f :
         {"setboard=1", "usermove=1", "ping=1", "memory=1", "smp=1", "time=1", "analyze=1",
          "sigint=0",
          "variants=\"makruk,cambodian,makpong,karouk,ai-wok,asean,sittuyin,makrukhouse\""})
        PIPE_CHECK(e, features.find(f) != std::string::npos);
    PIPE_CHECK(e, features.find("feature option=\"SutKhun -check 0\"") != std::string::npos);
    PIPE_CHECK(e, features.find("feature option=\"Move Overhead -spin 10 0 5000\"") !=
                      std::string::npos);
    // Nothing else after done=1 until asked.
    PIPE_CHECK(e, sync(e, 7));
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}

TEST_CASE("xboard: a conversation through the commands GUIs send", "[xboard][protocol]") {
    Position::init();
    Child e;
    handshake(e);
    e.send("new");
    PIPE_CHECK(e, fen_of(e) == MakrukStart);

    // Cambodian: XBoard does not know it, so the engine describes it.
    e.send("variant cambodian");
    auto setup = e.until_prefix("piece K& ");
    PIPE_REQUIRE(e, setup);
    PIPE_CHECK(e, setup->front() == "setup (PN.R.M....SKpn.r.m....sk) 8x8+0_makruk "
                                    "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1");
    PIPE_CHECK(e, setup->back() == "piece K& KismN");
    // Force mode: moves are only played. A move Cute Chess uses as a dummy is an error
    // there, not an illegal-move claim.
    e.send("force");
    e.send("b2b3");
    auto err = e.until_prefix("Error");
    PIPE_REQUIRE(e, err);
    PIPE_CHECK(e, err->back() == "Error (illegal move in force mode): b2b3");
    e.send("usermove d1b2");
    PIPE_CHECK(e, sync(e, 1));
    PIPE_CHECK(e, fen_of(e) == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/1K6/RNS1MSNR b Ede - 1 1");
    e.send("undo");
    PIPE_CHECK(e, fen_of(e) == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1");

    // setboard, good and bad; a bad one keeps the position.
    e.send("setboard 4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    PIPE_CHECK(e, fen_of(e) == "4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    e.send("setboard 4k3/8/8/8/8/8/8/R3K3 x - - 0 1");
    auto bad = e.until_prefix("tellusererror");
    PIPE_CHECK(e, bad);
    PIPE_CHECK(e, fen_of(e) == "4k3/8/8/8/8/8/8/R3K3 w - - 0 1");

    // A game: the engine plays Black after new; the GUI's move starts its search.
    e.send("new");
    e.send("variant makruk");
    e.send("level 40 0:05 0.1");
    e.send("post");
    e.send("time 500");
    e.send("otim 500");
    e.send("usermove e3e4");
    auto mv = e.until_prefix("move ");
    PIPE_REQUIRE(e, mv);
    const std::string reply = words(mv->back())[1];
    PIPE_CHECK(e, is_move(reply));
    // Thinking lines: depth score time nodes pv.
    bool thinking = false;
    for (const std::string& l : *mv)
        if (!l.empty() && std::isdigit(static_cast<unsigned char>(l[0]))) {
            auto w = words(l);
            thinking = w.size() >= 5 && is_move(w[4]);
        }
    PIPE_CHECK(e, thinking);
    std::string er;
    auto g = Game::make(MakrukStart, {"e3e4", reply}, default_variant(), er);
    PIPE_REQUIRE(e, g);
    PIPE_CHECK(e, fen_of(e) == g->pos.fen());
    // An illegal move outside force mode is reported as such and changes nothing.
    e.send("usermove e4e6");
    auto ill = e.until_prefix("Illegal move");
    PIPE_REQUIRE(e, ill);
    PIPE_CHECK(e, ill->back() == "Illegal move: e4e6");
    PIPE_CHECK(e, fen_of(e) == g->pos.fen());
    // remove takes back both moves.
    e.send("remove");
    PIPE_CHECK(e, fen_of(e) == MakrukStart);

    // go: the engine plays the side to move; sd limits the depth.
    e.send("sd 3");
    e.send("go");
    mv = e.until_prefix("move ");
    PIPE_REQUIRE(e, mv);
    PIPE_CHECK(e, parse_uci_move(Game::make(MakrukStart, {}, default_variant(), er)->pos,
                                 words(mv->back())[1]));
    // ? moves at once.
    e.send("force");
    e.send("new");
    e.send("st 30");
    e.send("go");
    e.send("?");
    mv = e.until_prefix("move ", 5000);
    PIPE_CHECK(e, mv);

    // analyze prints thinking until exit, and follows the moves it is sent.
    e.send("new");
    e.send("force");
    e.send("analyze");
    auto an = e.until([](const std::string& l) { return starts_with(l, "4 "); });
    PIPE_CHECK(e, an);
    e.send("usermove c3c4");
    e.send("exit");
    PIPE_CHECK(e, sync(e, 2));
    PIPE_CHECK(e, fen_of(e) == "rnsmksnr/8/pppppppp/8/2P5/PP1PPPPP/8/RNSKMSNR b - - 0 1");

    // Options and resources.
    e.send("memory 32");
    e.send("cores 1");
    e.send("option SutKhun=1");
    e.send("new");
    PIPE_CHECK(e, fen_of(e) == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w De - 0 1");
    e.send("option SutKhun=0");
    e.send("result 1/2-1/2 {Draw}");
    e.send("variant chess");
    auto unsup = e.until_prefix("Error");
    PIPE_CHECK(e, unsup);
    PIPE_CHECK(e, unsup->back() == "Error (unsupported variant): chess");
    e.send("frobnicate");
    auto unk = e.until_prefix("Error");
    PIPE_CHECK(e, unk);
    PIPE_CHECK(e, unk->back() == "Error (unknown command): frobnicate");
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}

TEST_CASE("xboard: a karouk game played to its end, and the result claimed", "[xboard][game]") {
    Position::init();
    Child e;
    handshake(e);
    e.send("new");
    e.send("variant karouk");
    e.send("sd 3");
    const Variant& v = *find_variant("karouk");
    std::string err;
    auto g = Game::make(v.startFen, {}, v, err);
    REQUIRE(g);
    // The engine plays both sides: `go` hands it the side to move each time.
    std::string last;
    for (int ply = 0; ply < 300; ++ply) {
        e.send("go");
        auto r =
            e.until([](const std::string& l) { return starts_with(l, "move ") || is_result(l); });
        PIPE_REQUIRE(e, r);
        last = r->back();
        if (is_result(last)) break;
        Move m = parse_uci_move(g->pos, words(last)[1]);
        PIPE_REQUIRE(e, m);
        g->play(m);
        e.send("force");
    }
    INFO("final position " << g->pos.fen());
    const Outcome end = g->pos.outcome();
    PIPE_CHECK(e, end == Outcome::Checked);
    // The side to move has been checked: the engine claims the win for the other side.
    const bool whiteWon = g->pos.side_to_move() == BLACK;
    PIPE_CHECK(e, last == (whiteWon ? "1-0 {White checks first}" : "0-1 {Black checks first}"));
    PIPE_CHECK(e, fen_of(e) == g->pos.fen());
    e.send("result " + last);
    e.send("quit");
    PIPE_CHECK(e, e.wait_exit() == 0);
}
