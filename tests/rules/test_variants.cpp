// The related games and the sutras (docs/rules.md "The games", README "Games"): perft
// against Fairy-Stockfish's numbers for every game, FEN fields of each game, the
// special moves and winning rules, and the invariants of make/unmake under them.
#include "khun/protocol/engine.h"
#include "khun/rules/movegen.h"
#include "khun/rules/perft.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace khun;
using namespace khun::protocol;

namespace {

const std::vector<std::string> Games = {"makruk", "cambodian", "makpong",  "karouk",
                                        "ai-wok", "asean",     "sittuyin", "makrukhouse"};

const Variant& game(const std::string& name) {
    Position::init();
    const Variant* v = find_variant(name);
    INFO("variant " << name);
    REQUIRE(v);
    return *v;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

struct PerftRecord {
    std::string fen;
    int depth;
    uint64_t nodes;
};

std::vector<PerftRecord> perft_records(const std::string& name) {
    const std::string path = std::string(KHUN_TEST_DATA) + "/rules/perft-" + name + ".epd";
    std::ifstream in(path);
    INFO("data file " << path);
    REQUIRE(in.good());
    std::vector<PerftRecord> out;
    for (std::string line; std::getline(in, line);) {
        line = trim(line);
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::istringstream is(line);
        for (std::string x; std::getline(is, x, ';');) f.push_back(trim(x));
        REQUIRE(f.size() == 3);
        out.push_back({f[0], std::stoi(f[1]), std::stoull(f[2])});
    }
    REQUIRE(out.size() >= 10);
    return out;
}

std::unique_ptr<Game> make(const std::string& fen, const Variant& v,
                           const std::vector<std::string>& moves = {}) {
    std::string err;
    auto g = Game::make(fen.empty() ? v.startFen : fen, moves, v, err);
    INFO("FEN '" << fen << "' in " << v.name << ": " << err);
    REQUIRE(g);
    return g;
}

std::vector<std::string> legal(const Position& pos) {
    std::vector<std::string> out;
    for (Move m : MoveList(pos)) out.push_back(to_uci(m, pos));
    std::sort(out.begin(), out.end());
    return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

// Plays `text`; fails the test when it is not legal.
void play(Game& g, const std::string& text) {
    Move m = parse_uci_move(g.pos, text);
    INFO("move " << text << " in " << g.pos.fen());
    REQUIRE(m);
    g.play(m);
}

} // namespace

TEST_CASE("variants: the eight games by their Fairy-Stockfish names", "[variants]") {
    CHECK(variant_names() == Games);
    for (const std::string& name : Games) CHECK(game(name).name == name);
    CHECK(find_variant("chess") == nullptr);
    CHECK(find_variant("Makruk") == nullptr);
    CHECK(game("cambodian").startFen == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1");
    CHECK(game("ai-wok").startFen == "rnsaksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKASNR w - - 0 1");
    CHECK(game("asean").startFen == "rnbqkbnr/8/pppppppp/8/8/PPPPPPPP/8/RNBQKBNR w - - 0 1");
    CHECK(game("sittuyin").startFen ==
          "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRRSSNNkfrrssnn] w - - 0 1");
    CHECK(game("makrukhouse").startFen ==
          "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR[] w - - 0 1");
}

TEST_CASE("variants: a game is found by the names people and other programs give it",
          "[variants]") {
    const std::pair<const char*, const char*> cases[] = {{"makruk", "makruk"},
                                                         {"Makruk", "makruk"},
                                                         {"Thai Chess", "makruk"},
                                                         {"Cambodian", "cambodian"},
                                                         {"Ouk Chatrang", "cambodian"},
                                                         {"Makpong", "makpong"},
                                                         {"Kar Ouk", "karouk"},
                                                         {"kar-ouk", "karouk"},
                                                         {"Ai-Wok", "ai-wok"},
                                                         {"aiwok", "ai-wok"},
                                                         {"ASEAN", "asean"},
                                                         {"asean-chess", "asean"}};
    for (const auto& [text, name] : cases) {
        INFO(text);
        const Variant* v = find_variant_named(text);
        REQUIRE(v);
        CHECK(v->name == name);
    }
    // Another game's alias does not leak into the games built from it.
    for (const char* text : {"chess", "shogi", "thai cambodian", "ouk makruk", ""}) {
        INFO(text);
        CHECK(find_variant_named(text) == nullptr);
    }
}

TEST_CASE("variants: perft of every game equals the shared perft files",
          "[variants][perft][sweep]") {
    for (const std::string& name : Games) {
        const Variant& v = game(name);
        for (const PerftRecord& r : perft_records(name)) {
            INFO(name << ": " << r.fen << " depth " << r.depth);
            auto g = make(r.fen, v);
            CHECK(perft(g->pos, r.depth) == r.nodes);
            // The FEN is written back exactly as Fairy-Stockfish wrote it.
            CHECK(g->pos.fen() == r.fen);
        }
    }
}

TEST_CASE("variants: start positions, perft 1-4 as Fairy-Stockfish counts them",
          "[variants][perft]") {
    const std::vector<std::pair<std::string, std::vector<uint64_t>>> expected = {
        {"makruk", {23, 529, 12012, 273026}},  {"cambodian", {25, 625, 15031, 361719}},
        {"makpong", {23, 529, 12012, 273026}}, {"karouk", {25, 625, 15031, 361719}},
        {"ai-wok", {26, 676, 18102, 485045}},  {"asean", {23, 529, 12012, 273026}},
    };
    for (auto& [name, counts] : expected) {
        auto g = make("", game(name));
        for (size_t d = 0; d < counts.size(); ++d) {
            INFO(name << " depth " << d + 1);
            CHECK(perft(g->pos, int(d) + 1) == counts[d]);
        }
    }
}

TEST_CASE("variants: letters belong to their own game", "[variants][fen]") {
    Position pos;
    StateInfo st;
    // ai-wok's A is no makruk piece, makruk's M no ai-wok piece; asean writes B and Q.
    CHECK(pos.set("4k3/8/8/8/8/8/8/A3K3 w - - 0 1", game("makruk"), &st));
    CHECK_FALSE(pos.set("4k3/8/8/8/8/8/8/A3K3 w - - 0 1", game("ai-wok"), &st));
    CHECK(pos.set("4k3/8/8/8/8/8/8/M3K3 w - - 0 1", game("ai-wok"), &st));
    CHECK_FALSE(pos.set("4k3/8/8/8/8/8/8/BQ2K3 w - - 0 1", game("asean"), &st));
    CHECK(pos.set("4k3/8/8/8/8/8/8/SM2K3 w - - 0 1", game("asean"), &st));
    // First-move rights only where a game has them.
    CHECK(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1", game("makruk"), &st));
    CHECK(
        pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1", game("makpong"), &st));
    CHECK_FALSE(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1",
                        game("cambodian"), &st));
    CHECK(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w D1de - 0 1", game("cambodian"),
                  &st));
    // Karouk's check counters.
    CHECK_FALSE(pos.set("4k3/8/8/8/8/8/8/R3K3 w - - 1+1 0 1", game("karouk"), &st));
    CHECK(pos.set("4k3/8/8/8/8/8/8/R3K3 w - - 1+x 0 1", game("karouk"), &st));
    CHECK(pos.set("4k3/8/8/8/8/8/8/R3K3 w - - 1+1 0 1", game("makruk"), &st));
}

TEST_CASE("variants: a refused FEN leaves the position as it was", "[variants][fen]") {
    for (const std::string& name : Games) {
        const Variant& v = game(name);
        auto g = make("", v);
        const std::string before = g->pos.fen();
        const Key key = g->pos.key();
        StateInfo st;
        for (const char* bad : {"rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w XYZ - 0 1",
                                "8/8/8/8/8/8/8/8 w - - 0 1", "4k3/8/8/8/8/8/8/4K3 w - - 1+1+1 0 1",
                                "4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra more"}) {
            INFO(name << ": " << bad);
            CHECK(g->pos.set(bad, v, &st));
            CHECK(g->pos.fen() == before);
            CHECK(g->pos.key() == key);
        }
    }
}

TEST_CASE("cambodian: first-move rights, the king's leap and the met's double step",
          "[variants][cambodian]") {
    const Variant& v = game("cambodian");
    auto g = make("", v);
    auto moves = legal(g->pos);
    // The kings may leap at once; the mets wait for the pawn in front to go.
    CHECK(moves.size() == 25);
    for (const char* m : {"d1b2", "d1f2"}) CHECK(has(moves, m));
    CHECK_FALSE(has(moves, "e1e3"));
    play(*g, "e3e4");
    play(*g, "d6d5");
    CHECK(has(legal(g->pos), "e1e3"));

    // Using a right loses it; the other side's rights stay.
    play(*g, "e1e3");
    CHECK(g->pos.fen() == "rnsmksnr/8/ppp1pppp/3p4/4P3/PPPPMPPP/8/RNSK1SNR b Dde - 1 2");
    play(*g, "e8c7");
    CHECK(g->pos.fen() == "rnsm1snr/2k5/ppp1pppp/3p4/4P3/PPPPMPPP/8/RNSK1SNR w Dd - 2 3");
    for (int i = 0; i < 4; ++i) CHECK(g->undo());
    CHECK_FALSE(g->undo());
    CHECK(g->pos.fen() == v.startFen);
    CHECK(g->pos.key() == make("", v)->pos.key());

    // No leap out of check, and none onto an attacked square.
    auto c = make("4k3/8/8/8/8/8/5n2/3K4 w D - 0 1", v);
    CHECK(c->pos.in_check());
    CHECK_FALSE(has(legal(c->pos), "d1b2"));
    auto a = make("4k3/8/8/8/8/1r6/8/3K4 w D - 0 1", v);
    CHECK(has(legal(a->pos), "d1f2"));
    CHECK_FALSE(has(legal(a->pos), "d1b2")); // the rook on b3 guards b2
    // An enemy rook arriving on the king's file or rank takes the leap away, even behind
    // a blocker (Fairy-Stockfish tests the lines on an empty board); elsewhere it does not.
    auto r = make("r3k3/8/8/8/3p4/8/8/3K4 b D - 0 1", v);
    play(*r, "a8a7");
    CHECK(r->pos.fen() == "4k3/r7/8/8/3p4/8/8/3K4 w D - 1 2");
    CHECK(r->undo());
    play(*r, "a8d8");
    CHECK(r->pos.fen() == "3rk3/8/8/8/3p4/8/8/3K4 w - - 1 2");
    auto r2 = make("4k3/3r4/8/8/3p4/8/8/3K4 b D - 0 1", v);
    play(*r2, "d7d5");
    CHECK(r2->pos.rights() == 0);
    CHECK(r2->pos.fen() == "4k3/8/8/3r4/3p4/8/8/3K4 w - - 1 2");
}

TEST_CASE("karouk: the first check wins", "[variants][karouk]") {
    const Variant& v = game("karouk");
    auto g = make("4k3/8/8/8/8/8/8/R3K3 w - - 1+1 0 1", v);
    CHECK(g->pos.fen() == "4k3/8/8/8/8/8/8/R3K3 w - - 1+1 0 1");
    CHECK(has_checking_move(g->pos));
    CHECK_FALSE(g->pos.lost_by_check());
    play(*g, "a1a8");
    CHECK(g->pos.in_check());
    CHECK(g->pos.lost_by_check());
    CHECK(MoveList(g->pos).size() == 0);
    CHECK(count_legal(g->pos) == 0);
    CHECK(g->pos.outcome() == Outcome::Checked);
    CHECK(is_loss(Outcome::Checked));
    // (A rook against a bare king also starts Cambodian counting: 15 moves.)
    CHECK(g->pos.fen() == "R3k3/8/8/8/8/8/8/4K3 b - 30 0+1 6 1");
    CHECK(g->undo());
    CHECK(g->pos.fen() == "4k3/8/8/8/8/8/8/R3K3 w - - 1+1 0 1");
    // Without a counter in the FEN each side needs one check; a check already on the
    // board with both counters left is answered like any check.
    auto e = make("4k3/8/8/8/8/8/8/4KR2 b - - 0 1", v);
    CHECK(e->pos.fen() == "4k3/8/8/8/8/8/8/4KR2 b - - 1+1 0 1");
    auto c = make("4k3/8/8/8/8/8/8/4R1K1 b - - 1+1 0 1", v);
    CHECK(c->pos.in_check());
    CHECK(legal(c->pos) == std::vector<std::string>{"e8d7", "e8d8", "e8f7", "e8f8"});
    // In makruk the same check is only a check.
    auto m = make("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", game("makruk"));
    play(*m, "a1a8");
    CHECK(m->pos.outcome() == Outcome::None);
}

TEST_CASE("makpong: a king in check may only capture the checker", "[variants][makpong]") {
    auto mk = make("4k3/4R3/8/8/8/8/8/K7 b - - 0 1", game("makruk"));
    CHECK(legal(mk->pos) == std::vector<std::string>{"e8d8", "e8e7", "e8f8"});
    auto mp = make("4k3/4R3/8/8/8/8/8/K7 b - - 0 1", game("makpong"));
    CHECK(legal(mp->pos) == std::vector<std::string>{"e8e7"});
    // A check from afar: the king cannot step aside, so a lone king is mated.
    auto far = make("4k3/8/8/8/8/8/8/K3R3 b - - 0 1", game("makpong"));
    CHECK(count_legal(far->pos) == 0);
    CHECK(far->pos.outcome() == Outcome::Checkmate);
    CHECK(make("4k3/8/8/8/8/8/8/K3R3 b - - 0 1", game("makruk"))->pos.outcome() == Outcome::None);
    // Blocking and capturing with other pieces stay legal.
    auto block = make("4k3/8/8/8/8/8/3r4/K3R3 b - - 0 1", game("makpong"));
    CHECK(legal(block->pos) == std::vector<std::string>{"d2e2"});
    // Out of check the king moves as usual.
    auto free = make("4k3/8/8/8/8/8/8/K6R b - - 0 1", game("makpong"));
    CHECK(legal(free->pos).size() == 5);
}

TEST_CASE("asean: promotion with a choice on the last rank, counting, fifty moves",
          "[variants][asean]") {
    const Variant& v = game("asean");
    auto g = make("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", v);
    auto moves = legal(g->pos);
    for (const char* m : {"a7a8q", "a7a8r", "a7a8n", "a7a8b"}) CHECK(has(moves, m));
    CHECK(parse_uci_move(g->pos, "a7a8") == Move::none());
    CHECK(parse_uci_move(g->pos, "a7a8R"));
    play(*g, "a7a8r");
    CHECK(g->pos.fen() == "R3k3/8/8/8/8/8/8/4K3 b - 32 0 1");
    // Pawns promote on the last rank only.
    auto six = make("4k3/8/P7/8/8/8/8/4K3 w - - 0 1", v);
    CHECK(has(legal(six->pos), "a6a7"));
    Position pos;
    StateInfo st;
    CHECK(pos.set("P3k3/8/8/8/8/8/8/4K3 w - - 0 1", v, &st));
    // The count of a bare king against a rook: 16 moves, counted from 0.
    auto c = make("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", v);
    play(*c, "a1a2");
    CHECK(c->pos.fen() == "4k3/8/8/8/8/8/R7/4K2R b - 32 0 1");
    // Fifty moves without capture or pawn move.
    CHECK(make("4k3/8/8/8/8/8/8/R3K3 w - - 100 80", v)->pos.outcome() == Outcome::MoveRule);
    CHECK(make("4k3/8/8/8/8/8/8/R3K3 w - - 99 80", v)->pos.outcome() == Outcome::None);
    CHECK(make("4k3/8/8/8/8/8/8/R3K3 w - - 100 80", game("makruk"))->pos.outcome() ==
          Outcome::None);
}

TEST_CASE("ai-wok: the ai-wok moves as rook, knight and met, and pawns become one",
          "[variants][ai-wok]") {
    const Variant& v = game("ai-wok");
    auto g = make("4k3/8/8/8/3A4/8/8/K7 w - - 0 1", v);
    int aiwok = 0;
    for (const std::string& m : legal(g->pos)) aiwok += m.compare(0, 2, "d4") == 0;
    CHECK(aiwok == 14 + 8 + 4);
    auto p = make("4k3/8/8/P7/8/8/8/K7 w - - 0 1", v);
    CHECK(has(legal(p->pos), "a5a6a"));
    play(*p, "a5a6");
    CHECK(p->pos.fen() == "4k3/8/A7/8/8/8/8/K7 b - 128 6 1");
}

TEST_CASE("cambodian counting: one move shorter, board's honour with pawns",
          "[variants][cambodian][counting]") {
    auto c = make("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", game("cambodian"));
    play(*c, "a1a2");
    CHECK(c->pos.fen() == "4k3/8/8/8/8/8/R7/4K2R b - 14 8 1");
    auto m = make("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", game("makruk"));
    play(*m, "a1a2");
    CHECK(m->pos.fen() == "4k3/8/8/8/8/8/R7/4K2R b - 16 8 1");
    // Down to three pieces, pawns included, a side starts the board's honour count.
    auto b = make("4k3/p7/p7/8/8/8/8/R3K2R w - - 0 1", game("cambodian"));
    play(*b, "a1a2");
    CHECK(b->pos.fen() == "4k3/p7/p7/8/8/8/R7/4K2R b - 126 0 1");
    auto bm = make("4k3/p7/p7/8/8/8/8/R3K2R w - - 0 1", game("makruk"));
    play(*bm, "a1a2");
    CHECK(bm->pos.fen() == "4k3/p7/p7/8/8/8/R7/4K2R b - - 1 1");
}

TEST_CASE("sutras: start position rights and the first-move specials", "[variants][sutras]") {
    const Variant& base = game("makruk");
    CHECK(sutra_rights(false, false, false) == "-");
    CHECK(sutra_rights(true, false, false) == "De");
    CHECK(sutra_rights(false, true, false) == "Ed");
    CHECK(sutra_rights(true, true, true) == "BDEGbdeg");
    const Variant all = with_sutras(base, true, true, true);
    CHECK(all.startFen == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w BDEGbdeg - 0 1");
    CHECK(with_sutras(base, false, false, false).startFen == base.startFen);
    // Other games are left as they are.
    CHECK(with_sutras(game("cambodian"), true, true, true).startFen == game("cambodian").startFen);
    CHECK_FALSE(with_sutras(game("asean"), true, true, true).sutras());

    auto g = make("", all);
    auto moves = legal(g->pos);
    // 23 makruk moves, two king leaps, Sut Met and four Sut Ma.
    CHECK(moves.size() == 30);
    for (const char* m : {"d1b2", "d1f2", "e1e3", "b1a3", "b1c3", "g1f3", "g1h3"})
        CHECK(has(moves, m));

    // Sut Met: the e3 pawn steps to e4 and the met takes e3; the side's other first-move
    // rights go, the king's stays.
    play(*g, "e1e3");
    CHECK(g->pos.fen() == "rnsmksnr/8/pppppppp/8/4P3/PPPPMPPP/8/RNSK1SNR b Dbdeg - 0 1");
    CHECK(g->pos.is_ok());
    // Black's Sut Ma: the c6 pawn to c5, the b8 knight to c6.
    play(*g, "b8c6");
    CHECK(g->pos.fen() == "r1smksnr/8/ppnppppp/2p5/4P3/PPPPMPPP/8/RNSK1SNR w De - 0 2");
    CHECK(g->pos.is_ok());
    // The kings' leaps outlive the first move.
    CHECK(has(legal(g->pos), "d1b2"));
    CHECK_FALSE(has(legal(g->pos), "b1c3"));
    CHECK_FALSE(has(legal(g->pos), "g1f3"));
    CHECK(g->undo());
    CHECK(g->undo());
    CHECK(g->pos.fen() == all.startFen);
    CHECK(g->pos.key() == make("", all)->pos.key());

    // Sut Khun alone: only the kings' leaps.
    const Variant khun = with_sutras(base, true, false, false);
    auto k = make("", khun);
    CHECK(legal(k->pos).size() == 25);
    play(*k, "d1f2");
    CHECK(k->pos.fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/5K2/RNS1MSNR b e - 1 1");
    // A knight-leap for the king needs an empty square on the next rank.
    auto blocked = make("4k3/8/8/8/8/8/1P3P2/3K4 w D - 0 1", khun);
    CHECK_FALSE(has(legal(blocked->pos), "d1b2"));
    // A sutra move that would leave the king in check is not legal: the met is pinned.
    const Variant met = with_sutras(base, false, true, false);
    auto pin = make("4k3/8/8/8/8/4P3/8/3KM2r w E - 0 1", met);
    CHECK_FALSE(has(legal(pin->pos), "e1e3"));
    auto nopin = make("4k3/8/8/8/8/4P3/r7/3KM3 w E - 0 1", met);
    CHECK(has(legal(nopin->pos), "e1e3"));
}

TEST_CASE("sutras: the engine options switch them on and restart the game", "[variants][sutras]") {
    Engine e;
    CHECK(e.option("SutKhun") == "false");
    CHECK(e.position().fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1");
    auto r = e.set_option("SutKhun", "true");
    CHECK_FALSE(r.error);
    CHECK(e.position().fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w De - 0 1");
    r = e.set_option("SutMa", "true");
    CHECK(e.start_fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w BDGbeg - 0 1");
    CHECK_FALSE(e.set_position("", {"b1c3", "g8f6"}));
    CHECK(e.position().fen() == "rnsmks1r/8/pppppnpp/5p2/2P5/PPNPPPPP/8/R1SKMSNR w De - 0 2");
    // A makruk FEN with rights is read while the sutras are on.
    CHECK_FALSE(e.set_position("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w De - 0 1", {}));
    r = e.set_option("SutMet", "maybe");
    CHECK(r.error);
    // In another game the sutras do nothing, and say so.
    e.set_option("SutKhun", "false");
    e.set_option("SutMa", "false");
    CHECK(e.set_option("UCI_Variant", "cambodian").error == std::nullopt);
    r = e.set_option("SutKhun", "true");
    CHECK(r.note);
    CHECK(e.position().fen() == game("cambodian").startFen);
}

TEST_CASE("variants: UCI_Variant switches the game and its start position", "[variants]") {
    Engine e;
    for (const std::string& name : Games) {
        CHECK_FALSE(e.set_option("UCI_Variant", name).error);
        CHECK(e.variant().name == name);
        // (Karouk's start FEN gains its check counters, 1+1, when written.)
        const std::string start = make("", game(name))->pos.fen();
        CHECK(e.position().fen() == start);
        CHECK_FALSE(e.set_position("", {}));
        CHECK(e.position().fen() == start);
    }
    CHECK(e.set_option("UCI_Variant", "chess").error);
    CHECK(e.variant().name == Games.back()); // the last one set stays
}

TEST_CASE("variants: Takhaeng Ruea, the rooks turned mets, is a FEN", "[variants][sutras]") {
    // README "Takhaeng Ruea": White gives both rooks' power away.
    auto g = make("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/MNSKMSNM w - - 0 1", game("makruk"));
    // The mets in the corners step to b2 and g2 where the rooks went to a2 and h2.
    CHECK(perft(g->pos, 1) == 23);
    CHECK(perft(g->pos, 3) > 0);
}

TEST_CASE("variants: make/unmake keeps every invariant on random games", "[variants]") {
    std::mt19937 rng(20240611);
    std::vector<Variant> rules;
    for (const std::string& name : Games) rules.push_back(game(name));
    rules.push_back(with_sutras(game("makruk"), true, true, true));
    for (const Variant& v : rules) {
        int predictedMoves = 0;
        for (int n = 0; n < 12; ++n) {
            auto g = make("", v);
            for (int ply = 0; ply < 160; ++ply) {
                MoveList ml(g->pos);
                if (!ml.size()) break;
                // Every move: gives_check agrees with the position it leads to, and taking
                // it back restores the position exactly.
                const std::string fen = g->pos.fen();
                const Key key = g->pos.key();
                for (Move m : ml) {
                    const bool gc = g->pos.gives_check(m);
                    const Key predicted = g->pos.search_key_after(m);
                    const Position& p = g->pos;
                    const int limit = p.count_limit(), cply = p.count_ply();
                    const Bitboard rights = p.rights();
                    // (Only karouk's states carry the check counters.)
                    const auto checks = [&] {
                        return v.firstCheckWins ? p.checks_left(WHITE) + 16 * p.checks_left(BLACK)
                                                : 0;
                    };
                    const int checksBefore = checks();
                    // A capture in makrukhouse puts a piece in the hand.
                    const bool toHand = v.capturesToHand && p.is_capture(m);
                    StateInfo st;
                    g->pos.do_move(m, st);
                    std::string why;
                    INFO(v.name << " " << fen << " move " << to_uci(m, g->pos));
                    REQUIRE(g->pos.is_ok(&why));
                    CHECK(gc == g->pos.in_check());
                    // The key the search prefetches is the child's, whenever the move
                    // keeps the rights, the check counters and the count's course.
                    if (!m.is_drop() && m.kind() != SUT_MOVE && !toHand && p.rights() == rights &&
                        checks() == checksBefore && p.count_limit() == limit &&
                        p.count_ply() == cply + (limit != 0)) {
                        CHECK(predicted == p.search_key());
                        ++predictedMoves;
                    }
                    g->pos.undo_move(m);
                    REQUIRE(g->pos.key() == key);
                    REQUIRE(g->pos.fen() == fen);
                }
                // The move counts of the three generators add up.
                const size_t caps = MoveList::of<CAPTURES>(g->pos).size();
                const size_t quiets = MoveList::of<QUIETS>(g->pos).size();
                if (!g->pos.in_check()) CHECK(caps + quiets == ml.size());
                CHECK(size_t(count_legal(g->pos)) == ml.size());
                Move pick = *(ml.begin() + rng() % ml.size());
                g->play(pick);
                // A FEN read back gives the same position and key.
                auto h = make(g->pos.fen(), v);
                REQUIRE(h->pos.fen() == g->pos.fen());
                REQUIRE(h->pos.key() == g->pos.key());
            }
        }
        INFO(v.name);
        CHECK(predictedMoves > 10000);
    }
}
