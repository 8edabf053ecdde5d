// The drop games (docs/rules.md "Sittuyin", "Makrukhouse"): hands in the FEN, drops,
// sittuyin's setup and promotion, makrukhouse's captures to hand. The node counts of both
// games against Fairy-Stockfish are in data/rules/perft-{sittuyin,makrukhouse}.epd
// (test_variants.cpp); here each rule is checked on its own.
#include "helpers.h"
#include "khun/tools/san.h"

using namespace khun;
using namespace testutil;

namespace {

const Variant& sittuyin() { return *find_variant("sittuyin"); }
const Variant& house() { return *find_variant("makrukhouse"); }

std::unique_ptr<Game> in(const Variant& v, const std::string& fen,
                         const std::vector<std::string>& moves = {}) {
    init();
    std::string err;
    auto g = Game::make(fen.empty() ? v.startFen : fen, moves, v, err);
    INFO("FEN " << fen << " in " << v.name << ": " << err);
    REQUIRE(g);
    return g;
}

bool has(const std::vector<std::string>& moves, const std::string& m) {
    return std::find(moves.begin(), moves.end(), m) != moves.end();
}

} // namespace

TEST_CASE("drops: sittuyin's setup drops on the own three ranks, rooks on the first",
          "[drops][sittuyin]") {
    auto g = in(sittuyin(), "");
    const auto moves = uci_moves(g->pos);
    // While a drop is legal no piece moves: only drops, and no pawn step.
    for (const std::string& m : moves) CHECK(m[1] == '@');
    CHECK_FALSE(has(moves, "a3a4"));
    CHECK(has(moves, "R@a1"));
    CHECK_FALSE(has(moves, "R@a2")); // rooks on the first rank only
    CHECK(has(moves, "N@h3"));
    CHECK_FALSE(has(moves, "N@a4")); // the own three ranks only
    CHECK_FALSE(has(moves, "N@a3")); // occupied by a pawn
    // 8 rook squares + 4 other kinds on the 20 empty squares of the three ranks.
    CHECK(moves.size() == 8 + 4 * 20);
    play(*g, "K@d1");
    CHECK(g->pos.in_hand(WHITE, KING) == 0);
    CHECK(g->pos.hand_count(WHITE) == 7);
    CHECK(g->pos.fen() == "8/8/4pppp/pppp4/4PPPP/PPPP4/8/3K4[SSFRRNNkssfrrnn] b - - 0 1");
    // Black drops on its own ranks (6 to 8), written upper case like Fairy-Stockfish.
    const auto black = uci_moves(g->pos);
    CHECK(has(black, "R@h8"));
    CHECK_FALSE(has(black, "R@h7"));
    CHECK(has(black, "K@a6"));
    CHECK_FALSE(has(black, "K@a3"));
    // Undo restores the hand and the key.
    const Key before = g->pos.key();
    play(*g, "R@h8");
    REQUIRE(g->undo());
    CHECK(g->pos.key() == before);
    CHECK(g->pos.in_hand(BLACK, ROOK) == 2);
}

TEST_CASE("drops: sittuyin's board moves begin once a side's hand is empty", "[drops][sittuyin]") {
    // White has placed everything; Black still holds a knight.
    auto g = in(sittuyin(), "r1s1k1r1/1n1f1s2/4pppp/pppp4/4PPPP/PPPP4/2NFS3/R1S1K1NR[n] w - - 0 8");
    const auto white = uci_moves(g->pos);
    CHECK(has(white, "a3a4"));
    for (const std::string& m : white) CHECK(m[1] != '@');
    play(*g, "a3a4");
    for (const std::string& m : uci_moves(g->pos)) CHECK(m.substr(0, 2) == "N@");
}

TEST_CASE("drops: sittuyin's promotion, a move of its own to the one general",
          "[drops][sittuyin]") {
    // White: king e1, rook a1, pawns d5 (a diagonal square) and h4; no general.
    auto g = in(sittuyin(), "4k3/8/8/3P4/7P/8/8/R3K3[] w - - 0 40");
    auto moves = uci_moves(g->pos);
    // On its square or a diagonal step onto an empty square; the pawn on h4 is not on a
    // diagonal square and not the last pawn.
    for (const char* m : {"d5d5f", "d5c6f", "d5e6f", "d5c4f", "d5e4f"}) CHECK(has(moves, m));
    CHECK_FALSE(has(moves, "h4h4f"));
    // A plain step is no promotion.
    CHECK(has(moves, "d5d6"));
    // The general may not attack an enemy piece: with a black knight on b7, c6 is out;
    // with the black king on d7, c6 and e6 would give check.
    auto n = in(sittuyin(), "4k3/1n6/8/3P4/7P/8/8/R3K3[] w - - 0 40");
    CHECK_FALSE(has(uci_moves(n->pos), "d5c6f"));
    auto k = in(sittuyin(), "8/3k4/8/3P4/7P/8/8/R3K3[] w - - 0 40");
    moves = uci_moves(k->pos);
    CHECK_FALSE(has(moves, "d5c6f"));
    CHECK_FALSE(has(moves, "d5e6f"));
    CHECK(has(moves, "d5d5f"));
    // With a general on the board there is no promotion.
    auto f = in(sittuyin(), "4k3/8/8/3P4/7P/8/8/R3KF2[] w - - 0 40");
    for (const std::string& m : uci_moves(f->pos)) CHECK(m.size() == 4);
    // The last pawn promotes anywhere.
    auto last = in(sittuyin(), "4k3/8/8/8/7P/8/8/R3K3[] w - - 0 40");
    CHECK(has(uci_moves(last->pos), "h4h4f"));
    CHECK(has(uci_moves(last->pos), "h4g5f"));
    // Played: the pawn becomes the general where it lands.
    play(*g, "d5e6f");
    CHECK(g->pos.fen() == "4k3/8/4F3/8/7P/8/8/R3K3[] b - - 0 40");
    REQUIRE(g->undo());
    play(*g, "d5d5f");
    CHECK(g->pos.piece_on(SQ_D5) == make_piece(WHITE, MET));
    REQUIRE(g->undo());
    CHECK(g->pos.piece_on(SQ_D5) == make_piece(WHITE, PAWN));
    // SAN as Fairy-Stockfish writes it.
    CHECK(tools::to_san(g->pos, parse_uci_move(g->pos, "d5e6f")) == "d5e6=F");
    CHECK(tools::to_san(g->pos, parse_uci_move(g->pos, "d5d5f")) == "d5=F");
    CHECK(tools::parse_san(g->pos, "d5e6=F") == parse_uci_move(g->pos, "d5e6f"));
}

TEST_CASE("drops: a king and one pawn that can only promote is stalemated (sittuyin)",
          "[drops][sittuyin]") {
    // White's king on a1 is boxed in by the rook and the knight, the pawn blocked by the
    // knight: its only moves are the pawn's promotions (a2a2f, a2b1f, a2b3f).
    auto g = in(sittuyin(), "1r5k/8/8/8/8/n7/P7/K7[] w - - 0 60");
    const auto moves = uci_moves(g->pos);
    REQUIRE_FALSE(moves.empty());
    for (const std::string& m : moves) CHECK(m.size() == 5);
    CHECK(g->pos.outcome() == Outcome::Stalemate);
    CHECK(g->pos.is_draw(1));
}

TEST_CASE("drops: makrukhouse sends captures to hand, a promoted pawn as a pawn",
          "[drops][makrukhouse]") {
    // White's met on d6 was a pawn (the mark '~'); Black's rook takes it.
    auto g = in(house(), "4k2r/8/3M~4/8/8/8/8/3K4[] b - - 0 30");
    CHECK(g->pos.fen() == "4k2r/8/3M~4/8/8/8/8/3K4[] b - - 0 30");
    play(*g, "h8h6");
    play(*g, "d1c2");
    play(*g, "h6d6");
    CHECK(g->pos.in_hand(BLACK, PAWN) == 1);
    CHECK(g->pos.in_hand(BLACK, MET) == 0);
    // Counting looks at the board only, as Fairy-Stockfish's: White's king is bare there.
    CHECK(g->pos.fen() == "4k3/8/3r4/8/8/8/2K5/8[p] w - 32 6 32");
    play(*g, "c2b3");
    // Pawn drops: the first rank and the promotion zone too, never the last rank (where a
    // pawn could not move).
    const auto moves = uci_moves(g->pos);
    CHECK(has(moves, "P@a8"));
    CHECK(has(moves, "P@a3"));
    CHECK_FALSE(has(moves, "P@a1"));
    CHECK(has(moves, "P@a2"));
    // Taken back, the met comes back marked and Black's hand empties.
    REQUIRE(g->undo());
    REQUIRE(g->undo());
    CHECK(g->pos.fen() == "4k3/8/3M~3r/8/8/8/2K5/8[] b - 128 1 31");
}

TEST_CASE("drops: a drop blocks a check, never captures, and gives check as it lands",
          "[drops][makrukhouse]") {
    // Black's rook checks the white king along the first rank; White holds a knight.
    auto g = in(house(), "4k3/8/8/8/8/8/8/r3K3[N] w - - 0 30");
    const auto moves = uci_moves(g->pos);
    for (const char* m : {"N@b1", "N@c1", "N@d1"}) CHECK(has(moves, m));
    CHECK_FALSE(has(moves, "N@e4"));
    CHECK_FALSE(has(moves, "N@a1"));
    // A knight dropped where it attacks the king gives check.
    auto c = in(house(), "4k3/8/8/8/8/8/8/4K3[N] w - - 0 30");
    const Move check = parse_uci_move(c->pos, "N@d6");
    REQUIRE(check);
    CHECK(c->pos.gives_check(check));
    CHECK(tools::to_san(c->pos, check) == "N@d6+");
    CHECK(tools::parse_san(c->pos, "N@d6") == check);
    CHECK(tools::parse_san(c->pos, "n@d6") == check);
    CHECK(parse_uci_move(c->pos, "n@d6") == check); // a lower-case drop letter is read
}

TEST_CASE("drops: the hands in the FEN, and every bad form refused", "[drops][fen]") {
    init();
    Position pos;
    StateInfo si;
    REQUIRE_FALSE(pos.set(sittuyin().startFen, sittuyin(), &si));
    const std::string before = pos.fen();
    // Fairy-Stockfish's order: the king down through its own order of kinds.
    CHECK(before == "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KSSFRRNNkssfrrnn] w - - 0 1");
    for (const char* bad : {"8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRRSSNNkfrrssnnX] w - - 0 1",
                            "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRR w - - 0 1",
                            "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KK] w - - 0 1",
                            "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[] w - - 0 1",
                            "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8[KFRRSSNNkfrrssnn]x w - - 0 1"}) {
        StateInfo s2;
        INFO(bad);
        CHECK(pos.set(bad, sittuyin(), &s2));
        CHECK(pos.fen() == before);
    }
    // Makruk has no hands: "[]" is accepted, a piece in it is not.
    StateInfo s3;
    CHECK_FALSE(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR[] w - - 0 1", makruk(), &s3));
    CHECK(pos.fen() == StartFen);
    StateInfo s4;
    CHECK(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR[P] w - - 0 1", makruk(), &s4));
    // Without "[...]" a makrukhouse FEN has empty hands.
    StateInfo s5;
    CHECK_FALSE(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", house(), &s5));
    CHECK(pos.fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR[] w - - 0 1");
    // A pawn on the last rank cannot be (it could never move).
    StateInfo s6;
    CHECK(pos.set("P3k3/8/8/8/8/8/8/4K3[] w - - 0 1", house(), &s6));
    // Illegal drops are refused as moves.
    auto g = in(sittuyin(), "");
    for (const char* bad : {"R@a2", "K@a3", "K@e8", "P@e2", "Q@a1", "R@", "@a1", "R@i1"})
        CHECK(parse_uci_move(g->pos, bad) == Move::none());
}
