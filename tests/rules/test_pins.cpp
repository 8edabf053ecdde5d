// Check, pins and x-rays on hand-made positions, with the exact legal move sets.
#include "helpers.h"

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

using Moves = std::vector<std::string>;

TEST_CASE("pins: a knight pinned on a file cannot move", "[pins]") {
    auto g = game("k3r3/8/8/8/8/8/4N3/4K3 w - - 0 1");
    CHECK(g->pos.pinned(WHITE) == square_bb(SQ_E2));
    CHECK(uci_moves(g->pos) == sorted({"e1d1", "e1d2", "e1f1", "e1f2"}));
}

TEST_CASE("pins: a knight pinned on a rank cannot move even to take something", "[pins]") {
    // The knight on b1 could capture on a3 or d2 if it were free.
    auto g = game("k7/8/8/8/8/n7/3m4/rN1K4 w - - 0 1");
    CHECK(g->pos.pinned(WHITE) == square_bb(SQ_B1));
    Moves knight;
    for (auto& m : uci_moves(g->pos))
        if (m.substr(0, 2) == "b1") knight.push_back(m);
    CHECK(knight.empty());
}

TEST_CASE("pins: a rook pinned on a file moves only along the file", "[pins]") {
    auto g = game("k3r3/8/8/8/8/8/4R3/4K3 w - - 0 1");
    CHECK(uci_moves(g->pos) ==
          sorted({"e2e3", "e2e4", "e2e5", "e2e6", "e2e7", "e2e8", "e1d1", "e1d2", "e1f1", "e1f2"}));
}

TEST_CASE("pins: a rook pinned on a rank moves only along the rank", "[pins]") {
    auto g = game("k7/8/8/8/8/8/8/r2RK3 w - - 0 1");
    CHECK(uci_moves(g->pos) == sorted({"d1c1", "d1b1", "d1a1", "e1d2", "e1e2", "e1f2", "e1f1"}));
}

TEST_CASE("pins: a khon pinned on its file may still step forward", "[pins]") {
    auto g = game("k3r3/8/8/8/8/8/4S3/4K3 w - - 0 1");
    CHECK(uci_moves(g->pos) == sorted({"e2e3", "e1d1", "e1d2", "e1f1", "e1f2"}));
    // Black's khon steps forward down the board.
    auto b = game("4k3/4s3/8/8/8/8/8/K3R3 b - - 0 1");
    CHECK(uci_moves(b->pos) == sorted({"e7e6", "e8d8", "e8d7", "e8f8", "e8f7"}));
}

TEST_CASE("pins: a khon pinned on a rank cannot move", "[pins]") {
    auto g = game("k7/8/8/8/8/8/8/r3S2K w - - 0 1");
    CHECK(uci_moves(g->pos) == sorted({"h1g1", "h1g2", "h1h2"}));
}

TEST_CASE("pins: a pinned met cannot move", "[pins]") {
    auto g = game("k3r3/8/8/8/8/8/4M3/4K3 w - - 0 1");
    CHECK(uci_moves(g->pos) == sorted({"e1d1", "e1d2", "e1f1", "e1f2"}));
}

TEST_CASE("pins: a pawn pinned on its file pushes but does not capture", "[pins]") {
    // The black knight on d4 could be taken by e3xd4 if the pawn were free.
    auto g = game("k3r3/8/8/8/3n4/4P3/8/4K3 w - - 0 1");
    CHECK(uci_moves(g->pos) == sorted({"e3e4", "e1d1", "e1d2", "e1f1", "e1f2"}));
}

TEST_CASE("pins: a pawn pinned on a rank can neither push nor capture", "[pins]") {
    // The black knight on d4 could be taken by e3xd4 if the pawn were free.
    auto g = game("k7/8/8/8/3n4/r3P2K/8/8 w - - 0 1");
    CHECK(g->pos.pinned(WHITE) == square_bb(SQ_E3));
    CHECK(uci_moves(g->pos) == sorted({"h3g2", "h3g3", "h3g4", "h3h2", "h3h4"}));
}

TEST_CASE("pins: a piece between two of our own pieces is not pinned", "[pins]") {
    auto g = game("k3r3/8/8/4R3/8/8/4N3/4K3 w - - 0 1");
    CHECK(g->pos.pinned(WHITE) == 0);
    CHECK(MoveList(g->pos).contains(Move(SQ_E2, SQ_C3)));
}

TEST_CASE("check: single check is met by capture or block or king move", "[check]") {
    auto g = game("4r2k/8/8/8/8/8/R7/4K3 w - - 0 1");
    REQUIRE(g->pos.in_check());
    CHECK(g->pos.checkers() == square_bb(SQ_E8));
    CHECK(uci_moves(g->pos) == sorted({"a2e2", "e1d1", "e1d2", "e1f1", "e1f2"}));
    CHECK(uci_moves<EVASIONS>(g->pos) == uci_moves(g->pos));

    // The met can take the checking knight.
    auto n = game("k7/8/8/8/8/3n4/2M5/4K3 w - - 0 1");
    REQUIRE(n->pos.in_check());
    CHECK(uci_moves(n->pos) == sorted({"c2d3", "e1d1", "e1d2", "e1e2", "e1f1"}));
}

TEST_CASE("check: in double check only the king moves", "[check]") {
    // Rook e8 and knight d3 both give check; the met could take the knight in single check.
    auto g = game("k3r3/8/8/8/8/3n4/2M5/4K3 w - - 0 1");
    CHECK(popcount(g->pos.checkers()) == 2);
    CHECK(uci_moves(g->pos) == sorted({"e1d1", "e1d2", "e1f1"}));
    CHECK(uci_moves<EVASIONS>(g->pos) == uci_moves(g->pos));
}

TEST_CASE("check: the king cannot step back along the checking rook's line", "[check]") {
    // e3 is hidden behind the king itself: the rook attacks it once the king leaves e4.
    auto file = game("k3r3/8/8/8/4K3/8/8/8 w - - 0 1");
    CHECK(uci_moves(file->pos) == sorted({"e4d3", "e4d4", "e4d5", "e4f3", "e4f4", "e4f5"}));
    auto rank = game("k7/8/8/8/r3K3/8/8/8 w - - 0 1");
    CHECK(uci_moves(rank->pos) == sorted({"e4d3", "e4d5", "e4e3", "e4e5", "e4f3", "e4f5"}));
}

TEST_CASE("check: the king may take an unprotected checker but not a protected one", "[check]") {
    auto free = game("k7/8/8/8/8/8/4r3/4K3 w - - 0 1");
    CHECK(uci_moves(free->pos) == sorted({"e1d1", "e1e2", "e1f1"}));
    // The knight on d4 guards the rook on e2.
    auto guarded = game("k7/8/8/8/3n4/8/4r3/4K3 w - - 0 1");
    CHECK(uci_moves(guarded->pos) == sorted({"e1d1", "e1f1"}));
}

TEST_CASE("check: the khon attacks forward and diagonally but not straight back", "[check]") {
    // A black khon on e5 attacks d4, e4, f4 (its forward, down the board) and d6, f6.
    auto g = game("k7/8/8/4s3/8/4K3/8/8 w - - 0 1");
    CHECK(uci_moves(g->pos) == sorted({"e3d2", "e3d3", "e3e2", "e3f2", "e3f3"}));
    auto h = game("k7/8/4K3/4s3/8/8/8/8 w - - 0 1");
    // From e6 the king may take the khon (nothing guards e5); d6 and f6 lie on the khon's
    // backward diagonals, d5 and f5 beside it are free.
    CHECK(uci_moves(h->pos) == sorted({"e6d5", "e6e5", "e6f5", "e6d7", "e6e7", "e6f7"}));
}

TEST_CASE("check: pawns check diagonally forward only", "[check]") {
    auto g = game("8/8/8/4k3/3P4/8/8/4K3 b - - 0 1");
    CHECK(g->pos.in_check());
    CHECK(g->pos.checkers() == square_bb(SQ_D4));
    auto h = game("8/8/8/4k3/4P3/8/8/4K3 b - - 0 1");
    CHECK_FALSE(h->pos.in_check());
}
