// SAN: every legal move of the test positions of all six games round-trips through
// to_san and parse_san, SANs are unique in a position, and the notation matches what
// Fairy-Stockfish, Cute Chess and XBoard write.
#include "helpers.h"

#include "khun/tools/pgn.h"
#include "khun/tools/san.h"

#include <fstream>
#include <set>

using namespace khun;
using namespace khun::protocol;
using namespace khun::tools;
using namespace testutil;

namespace {

const char* const Games[] = {"makruk", "cambodian", "makpong", "karouk", "ai-wok", "asean"};

// Checks every legal move of `pos`: its SAN names it and no other move.
void check_position(Position& pos) {
    std::set<std::string> seen;
    for (Move m : MoveList(pos)) {
        const std::string san = to_san(pos, m);
        INFO("FEN " << pos.fen() << " move " << to_uci(m, pos) << " SAN " << san);
        CHECK(seen.insert(san).second);
        std::string err;
        CHECK(parse_san(pos, san, &err) == m);
        CHECK(err.empty());
    }
}

Move uci(const Position& pos, const std::string& text) {
    Move m = parse_uci_move(pos, text);
    INFO("move " << text << " in " << pos.fen());
    REQUIRE(m);
    return m;
}

std::unique_ptr<Game> make_game(const std::string& variant, const std::string& fen = "",
                                const std::vector<std::string>& moves = {}) {
    init();
    const Variant* v = find_variant(variant);
    REQUIRE(v);
    std::string err;
    auto g = Game::make(fen.empty() ? v->startFen : fen, moves, *v, err);
    INFO(err);
    REQUIRE(g);
    return g;
}

std::string san(Game& g, const std::string& move) { return to_san(g.pos, uci(g.pos, move)); }

} // namespace

TEST_CASE("san: every move of every perft position and its children round-trips", "[san][sweep]") {
    init();
    for (const char* name : Games) {
        const Variant* v = find_variant(name);
        REQUIRE(v);
        INFO("variant " << name);
        int positions = 0;
        for (auto& r : records(std::string("rules/perft-") + name + ".epd", 3)) {
            std::string err;
            auto g = Game::make(r[0], {}, *v, err);
            INFO(err);
            REQUIRE(g);
            check_position(g->pos);
            ++positions;
            // One ply further: promotions, checks and ambiguities the roots lack.
            const MoveList roots(g->pos);
            std::vector<Move> moves(roots.begin(), roots.end());
            for (Move m : moves) {
                g->play(m);
                check_position(g->pos);
                ++positions;
                g->undo();
            }
            CHECK(g->pos.fen() == r[0]);
        }
        CHECK(positions > 100);
    }
}

TEST_CASE("san: the forms Fairy-Stockfish writes", "[san]") {
    auto g = make_game("makruk");
    CHECK(san(*g, "e3e4") == "e4");
    CHECK(san(*g, "b1d2") == "Nd2");
    CHECK(san(*g, "c1c2") == "Sc2");
    CHECK(san(*g, "e1f2") == "Mf2");
    CHECK(san(*g, "d1e2") == "Ke2");

    // Two knights reach d2: the file tells them apart; two mets on one file: the rank.
    auto k = make_game("makruk", "", {"f3f4", "c8d7", "g1f3", "c6c5", "f1e2", "b8c6"});
    CHECK(san(*k, "b1d2") == "Nbd2");
    CHECK(san(*k, "f3d2") == "Nfd2");
    std::string err;
    CHECK(parse_san(k->pos, "Nd2", &err) == Move::none());
    CHECK(err == "ambiguous move");
    auto mets = make_game("makruk", "8/8/3k4/8/8/2M5/1K6/2M5 w - - 0 1");
    CHECK(san(*mets, "c3d2") == "M3d2");
    CHECK(san(*mets, "c1d2") == "M1d2");
    // Three mets around one square: file and rank both shared, so the square.
    auto three = make_game("makruk", "8/8/3k4/8/8/2M1M3/1K6/2M5 w - - 0 1");
    CHECK(san(*three, "c3d2") == "Mc3d2");
    CHECK(san(*three, "e3d2") == "Med2");
    CHECK(san(*three, "c1d2") == "M1d2");

    // Pawn captures name their file; promotion to met is written =M; check and mate.
    auto p = make_game("makruk", "4k3/8/8/8/3p4/8/8/4K1R1 b - - 0 1");
    CHECK(san(*p, "d4d3m") == "d3=M");
    auto c = make_game("makruk", "4k3/8/8/1PP5/8/8/8/4K3 w - - 0 1");
    CHECK(san(*c, "c5c6m") == "c6=M");
    auto mate = make_game("makruk", "k7/8/1K6/8/8/8/8/7R w - - 0 1");
    CHECK(san(*mate, "h1h8") == "Rh8#");
    CHECK(san(*mate, "h1a1") == "Ra1+");
    auto cap = make_game("makruk", "4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1");
    CHECK(san(*cap, "c4d5") == "cxd5");
    CHECK(san(*cap, "e4d5") == "exd5");
}

TEST_CASE("san: the related games' letters and special moves", "[san]") {
    // Cambodian first moves are ordinary-looking king and met moves.
    auto camb = make_game("cambodian");
    CHECK(san(*camb, "d1b2") == "Kb2");
    CHECK(san(*camb, "d1f2") == "Kf2");
    auto opened = make_game("cambodian", "", {"e3e4", "c8d7"});
    CHECK(san(*opened, "e1e3") == "Me3");
    // Ai-wok: A, and pawns promote to it.
    auto aiwok = make_game("ai-wok", "4k3/8/8/2P5/8/8/8/3AK3 w - - 0 1");
    CHECK(san(*aiwok, "c5c6a") == "c6=A");
    CHECK(san(*aiwok, "d1d7") == "Ad7+");
    // Asean: chess letters and a choice of promotion.
    auto asean = make_game("asean", "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1");
    CHECK(san(*asean, "b7b8r") == "b8=R+");
    CHECK(san(*asean, "b7b8q") == "b8=Q");
    CHECK(san(*asean, "b7b8n") == "b8=N");
    CHECK(san(*asean, "b7b8b") == "b8=B");
    CHECK(parse_san(asean->pos, "b8R") == uci(asean->pos, "b7b8r"));
    CHECK(parse_san(asean->pos, "b8=r") == uci(asean->pos, "b7b8r"));
    CHECK(parse_san(asean->pos, "b8b") == uci(asean->pos, "b7b8b"));
    // No piece: the usual promotion (the met, written Q here).
    CHECK(parse_san(asean->pos, "b8") == uci(asean->pos, "b7b8q"));
    auto astart = make_game("asean");
    CHECK(san(*astart, "c1c2") == "Bc2");
    CHECK(san(*astart, "d1e2") == "Qe2");
}

TEST_CASE("san: reading is tolerant", "[san]") {
    auto k = make_game("makruk", "4k3/8/8/3p4/2P1P3/8/8/4K3 w - - 0 1");
    const Move cxd5 = uci(k->pos, "c4d5");
    for (const char* text :
         {"cxd5", "cd5", "c4xd5", "c:d5", "cxd5+", "cxd5!?", "cxd5??", "c4d5", "c4-d5", " cxd5 "})
        CHECK(parse_san(k->pos, text) == cxd5);
    auto start = make_game("makruk");
    const Move nd2 = uci(start->pos, "b1d2");
    for (const char* text : {"Nd2", "Nb1d2", "Nb1-d2", "N1d2", "Nbd2", "nd2", "b1d2"})
        CHECK(parse_san(start->pos, text) == nd2);
    // Chess letters for the met and khon, Cute Chess's alternatives too.
    CHECK(parse_san(start->pos, "Qf2") == uci(start->pos, "e1f2"));
    CHECK(parse_san(start->pos, "Ff2") == uci(start->pos, "e1f2"));
    CHECK(parse_san(start->pos, "Bc2") == uci(start->pos, "c1c2"));
    CHECK(parse_san(start->pos, "Ec2") == uci(start->pos, "c1c2"));
    // Promotion: '=' optional, the piece optional, any case.
    auto p = make_game("makruk", "4k3/8/8/2P5/8/8/8/4K3 w - - 0 1");
    const Move c6 = uci(p->pos, "c5c6m");
    for (const char* text : {"c6=M", "c6M", "c6", "c6=m", "c6=Q", "c5c6m", "c5c6"})
        CHECK(parse_san(p->pos, text) == c6);

    std::string err;
    CHECK(parse_san(start->pos, "Nc4", &err) == Move::none());
    CHECK(err == "illegal move");
    CHECK(parse_san(start->pos, "Zc3", &err) == Move::none());
    CHECK(err.find("unknown piece") != std::string::npos);
    for (const char* bad : {"", "--", "O-O", "N", "Nc", "e9", "c6=Z", "xx", "Nc3c4d5"})
        CHECK(parse_san(start->pos, bad) == Move::none());
    CHECK(parse_san(p->pos, "c6=Z", &err) == Move::none());
    CHECK(err.find("promotion") != std::string::npos);
}

TEST_CASE("san: XBoard's Makruk game is written back move for move", "[san]") {
    init();
    std::ifstream in(std::string(KHUN_TEST_DATA) + "/../../docs/xboard-makruk.pgn");
    REQUIRE(in.good());
    auto games = read_pgn(in);
    REQUIRE(games.size() == 1);
    PgnGame& g = games[0];
    ReplayedGame r = replay_pgn(g);
    INFO(r.error.value_or(""));
    REQUIRE(!r.error);
    REQUIRE(g.moves.size() > 150);
    Position& pos = r.game->pos;
    std::vector<Move> played = r.game->moves;
    for (size_t i = played.size(); i-- > 0;) r.game->undo();
    for (size_t i = 0; i < played.size(); ++i) {
        INFO("ply " << i);
        CHECK(to_san(pos, played[i]) == g.moves[i].san);
        r.game->play(played[i]);
    }
}
