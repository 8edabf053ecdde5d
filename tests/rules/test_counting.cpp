// The Makruk counting rules of docs/rules.md ("Counting"), step by step: when a count starts, with
// what limit and ply, how it runs, and how it ends the game.
#include "helpers.h"

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

namespace {

struct CountCase {
    const char* what;
    const char* fen;
    const char* move;
    int limit; // plies
    int ply;
};

void check_case(const CountCase& c) {
    INFO(c.what << ": " << c.fen << " then " << c.move);
    auto g = game(c.fen);
    play(*g, c.move);
    INFO("after: " << g->pos.fen());
    CHECK(g->pos.count_limit() == c.limit);
    CHECK(g->pos.count_ply() == c.ply);
    // The written FEN carries the count, and reading it back restores it.
    auto again = game(g->pos.fen());
    CHECK(again->pos.count_limit() == c.limit);
    CHECK(again->pos.count_ply() == c.ply);
}

} // namespace

TEST_CASE("counting: pieces' honour starts when a capture leaves a bare king", "[counting]") {
    // Limits in moves: two rooks 8, one rook 16, two khons 22, two knights 32, one khon 44,
    // anything else 64; in plies doubled. Ply = 2 * pieces on the board, kings included.
    const CountCase cases[] = {
        {"two rooks", "4k3/8/8/8/8/8/n7/R3K2R w - - 0 1", "a1a2", 16, 8},
        {"one rook", "4k3/8/8/8/8/8/n7/R3K3 w - - 0 1", "a1a2", 32, 6},
        {"two khons", "4k3/8/8/8/8/1n6/S7/2S1K3 w - - 0 1", "a2b3", 44, 8},
        {"two knights", "4k3/8/8/8/8/1n6/8/N1N1K3 w - - 0 1", "a1b3", 64, 8},
        {"one khon", "4k3/8/8/8/8/1n6/S7/4K3 w - - 0 1", "a2b3", 88, 6},
        {"one knight", "4k3/8/8/8/8/1n6/8/N3K3 w - - 0 1", "a1b3", 128, 6},
        {"two mets", "4k3/8/8/8/8/1n6/M7/M3K3 w - - 0 1", "a2b3", 128, 8},
        {"rook before khons", "4k3/8/8/8/8/1n6/S7/R1S1K3 w - - 0 1", "a2b3", 32, 10},
        {"knights before one khon", "4k3/8/8/8/8/1n6/S7/N1N1K3 w - - 0 1", "a2b3", 64, 10},
        {"knight and khon", "4k3/8/8/8/8/1n6/S7/N3K3 w - - 0 1", "a2b3", 88, 8},
        {"black counts against white", "r3k3/N7/8/8/8/8/8/4K3 b - - 0 1", "a8a7", 32, 6},
        {"switch from board's honour", "4k3/8/8/8/8/8/n7/R3K3 w - 128 30 40", "a1a2", 32, 6},
        {"black switches from board's honour", "r3k3/N7/8/8/8/8/8/4K3 b - 128 50 40", "a8a7", 32,
         6},
        {"the last pawn promotes facing a bare king", "4k3/8/8/P7/8/8/8/R3K3 w - - 0 1", "a5a6m",
         32, 8},
        {"two bare kings: no count", "4k3/8/8/8/8/8/nK6/8 w - - 0 1", "b2a2", 0, 0},
        {"a bare king in a FEN without a count", "4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a2", 32, 6},
        {"the bare side's own move starts nothing", "4k3/8/8/8/8/8/8/R3K3 b - - 0 1", "e8d8", 0, 0},
    };
    for (const CountCase& c : cases) check_case(c);
}

TEST_CASE("counting: counting_limit_for follows the limits of docs/rules.md", "[counting]") {
    auto rooks = game("4k3/8/8/8/8/8/8/R3K2R b - - 0 1");
    CHECK(rooks->pos.counting_limit_for(BLACK) == 8);
    CHECK(rooks->pos.counting_limit_for(WHITE) == 0); // the other side is bare
    auto both = game("4k2r/8/8/8/8/8/8/4K2N w - - 0 1");
    CHECK(both->pos.counting_limit_for(WHITE) == 64);
    CHECK(both->pos.counting_limit_for(BLACK) == 64);
    auto pawn = game("4k3/8/8/8/8/P7/8/R3K3 b - - 0 1");
    CHECK(pawn->pos.counting_limit_for(BLACK) == 0);
    CHECK(pawn->pos.counting_limit_for(WHITE) == 0);
    auto kings = game("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    CHECK(kings->pos.counting_limit_for(WHITE) == 0);
    CHECK(kings->pos.counting_limit_for(BLACK) == 0);
}

TEST_CASE("counting: board's honour starts at ply 0 when the last pawn goes", "[counting]") {
    const CountCase cases[] = {
        {"white takes the last pawn", "4k2r/8/8/8/3p4/5N2/8/4K3 w - - 0 1", "f3d4", 128, 0},
        {"black takes the last pawn", "r3k3/8/8/8/P7/8/8/4K2N b - - 0 1", "a8a4", 128, 0},
        {"the last pawn promotes", "4k2r/8/8/4P3/8/8/8/4K2N w - - 0 1", "e5e6m", 128, 0},
        {"no pawns and no count yet", "4k2r/8/8/8/8/8/8/4K2N w - - 0 1", "h1g3", 128, 0},
        {"a bare king takes a pawn but keeps a piece", "8/8/8/4k3/4P3/8/n7/4K2R b - - 0 1", "e5e4",
         128, 0},
    };
    for (const CountCase& c : cases) check_case(c);

    // Before the last pawn goes there is no count; afterwards it runs one ply a move.
    auto g = game("4k2r/8/8/8/3p4/5N2/8/4K3 w - - 0 1");
    CHECK(g->pos.count_limit() == 0);
    play(*g, "f3d4");
    CHECK(g->pos.count_limit() == 128);
    CHECK(g->pos.count_ply() == 0);
    CHECK(g->pos.fen() == "4k2r/8/8/8/3N4/8/8/4K3 b - 128 0 1");
    play(*g, "h8h7");
    CHECK(g->pos.count_ply() == 1);
    play(*g, "e1d2");
    CHECK(g->pos.count_ply() == 2);
    CHECK(g->pos.fen() == "4k3/7r/8/8/3N4/8/3K4/8 b - 128 2 2");
}

TEST_CASE("counting: rule 1 - a bare king takes the last pawn", "[counting]") {
    // The mover is left with a bare king and counts at once: ply = 2 * pieces - 1.
    const CountCase cases[] = {
        {"against one rook", "8/8/8/4k3/4P3/8/8/4K2R b - - 0 1", "e5e4", 32, 5},
        {"against two rooks", "8/8/8/4k3/4P3/8/8/R3K2R b - - 0 1", "e5e4", 16, 7},
        {"against a met and a knight", "8/8/8/4k3/4P3/8/8/M3K2N b - - 0 1", "e5e4", 128, 7},
        {"white's bare king", "4k2r/8/8/8/4p3/4K3/8/8 w - - 0 1", "e3e4", 32, 5},
    };
    for (const CountCase& c : cases) check_case(c);

    auto g = game("8/8/8/4k3/4P3/8/8/4K2R b - - 0 1");
    play(*g, "e5e4");
    play(*g, "h1h4");
    CHECK(g->pos.count_limit() == 32);
    CHECK(g->pos.count_ply() == 6);
}

TEST_CASE("counting: the ply grows by one every move while a count runs", "[counting]") {
    auto g = game("4k3/8/8/8/8/8/8/R3K3 w - 32 6 1");
    int ply = 6;
    for (const char* m : {"a1a2", "e8d8", "a2a7", "d8c8", "e1e2", "c8b8", "e2e3", "b8c8"}) {
        play(*g, m);
        CHECK(g->pos.count_limit() == 32);
        CHECK(g->pos.count_ply() == ++ply);
    }
    CHECK(g->pos.fen() == "2k5/R7/8/8/8/4K3/8/8 w - 32 14 5");

    // Board's honour: a capture that leaves both sides with pieces does not restart it.
    auto b = game("4k2r/8/8/8/8/6n1/8/4K2N w - 128 40 30");
    play(*b, "h1g3");
    CHECK(b->pos.count_limit() == 128);
    CHECK(b->pos.count_ply() == 41);

    // Pieces' honour: the bare king taking a rook leaves the limit as it was.
    auto p = game("8/8/8/8/8/8/5kR1/R1K5 b - 16 9 30");
    play(*p, "f2g2");
    CHECK(p->pos.count_limit() == 16);
    CHECK(p->pos.count_ply() == 10);

    // Undo restores the count exactly.
    p->pos.undo_move(p->pos.last_move());
    CHECK(p->pos.count_limit() == 16);
    CHECK(p->pos.count_ply() == 9);
}

TEST_CASE("counting: no count while an unpromoted pawn is on the board", "[counting]") {
    // A capture that leaves a bare king, but White still has a pawn.
    check_case({"white pawn left", "4k3/8/8/8/8/P7/n7/R3K3 w - - 0 1", "a1a2", 0, 0});
    // A bare king takes a pawn, but another pawn remains.
    check_case({"second pawn left", "8/8/8/4k3/4P3/P7/8/4K2R b - - 0 1", "e5e4", 0, 0});
    // Both sides have pieces, one pawn each.
    auto g = game("4k2r/p7/8/8/8/P7/8/4K2N w - - 0 1");
    for (const char* m : {"h1g3", "h8h7", "g3f5", "h7h8", "f5d6", "e8d8"}) {
        play(*g, m);
        CHECK(g->pos.count_limit() == 0);
        CHECK(g->pos.count_ply() == 0);
    }
    CHECK_FALSE(g->pos.counting_expired());
    // The opening: no count for a whole random-looking game while pawns stand.
    auto o = game("startpos", "e3e4 e6e5 b1d2 b8d7 d2c4 d7c5 c4e5 c5e4 e5d7 e4d2");
    CHECK(o->pos.count_limit() == 0);
}

// A worked example of the pieces' honour count: two rooks and a knight against a bare king. After
// the capture that leaves the king bare there are 5 pieces, so the count starts at ply 10 with
// limit 16 and White's moves land on plies 12, 14 and 16: exactly 3 moves to mate.

namespace {

// Plays the longest defence and a fastest mate until the game ends; returns the outcome.
Outcome play_out(Game& g, int maxPlies) {
    for (int i = 0; i < maxPlies && g.pos.outcome() == Outcome::None; ++i) {
        Move best = Move::none();
        if (g.pos.side_to_move() == WHITE) {
            // The quickest mate that still works under the count, else any move.
            for (int n = 1; n <= 4 && !best; ++n)
                for (Move m : MoveList(g.pos)) {
                    StateInfo st;
                    g.pos.do_move(m, st);
                    bool mates = defender_mated(g.pos, n - 1);
                    g.pos.undo_move(m);
                    if (mates) {
                        best = m;
                        break;
                    }
                }
            // No mate in reach: any move that does not stalemate.
            for (Move m : MoveList(g.pos)) {
                if (best) break;
                StateInfo st;
                g.pos.do_move(m, st);
                if (count_legal(g.pos) > 0) best = m;
                g.pos.undo_move(m);
            }
            REQUIRE(best);
        } else {
            // The reply that survives longest (not mated within the fewest moves).
            int longest = -1;
            for (Move m : MoveList(g.pos)) {
                StateInfo st;
                g.pos.do_move(m, st);
                int n = 0;
                while (n <= 4 && !attacker_mates(g.pos, n)) ++n;
                g.pos.undo_move(m);
                if (n > longest) longest = n, best = m;
            }
        }
        g.play(best);
    }
    return g.pos.outcome();
}

} // namespace

TEST_CASE("counting: worked example - mate in 3 within the count is a win", "[counting]") {
    // The rook on e1 takes the black knight; the black king is left bare.
    auto g = game("7k/8/3R4/5K2/8/8/N3n3/4R3 w - - 0 1");
    play(*g, "e1e2");
    REQUIRE(g->pos.count_limit() == 16);
    REQUIRE(g->pos.count_ply() == 10);
    CHECK(g->pos.counting_limit_for(BLACK) == 8);
    // Whatever Black does, White mates within its three moves; not within two.
    CHECK(defender_mated(g->pos, 3));
    CHECK_FALSE(defender_mated(g->pos, 2));
    // Played out: the mate lands on ply 16, the last one the count allows.
    CHECK(play_out(*g, 20) == Outcome::Checkmate);
    CHECK(g->pos.count_ply() == 16);
    CHECK(g->pos.in_check());
    CHECK(count_legal(g->pos) == 0);
    CHECK_FALSE(g->pos.is_draw(0));
    CHECK_FALSE(is_draw(g->pos.outcome()));
}

TEST_CASE("counting: worked example - mate in 4 is a counting draw", "[counting]") {
    auto g = game("8/8/5k2/8/8/K7/4n3/1R2R2N w - - 0 1");
    play(*g, "e1e2");
    REQUIRE(g->pos.count_limit() == 16);
    REQUIRE(g->pos.count_ply() == 10);
    // Without the count White mates in 4 (the same position with the count just begun)...
    auto free = game("8/8/5k2/8/8/K7/4R3/1R5N b - 16 0 1");
    CHECK(defender_mated(free->pos, 4));
    CHECK_FALSE(defender_mated(free->pos, 3));
    // ...but under the count no line mates: the search runs until the count expires.
    CHECK_FALSE(defender_mated(g->pos, 3));
    CHECK_FALSE(defender_mated(g->pos, 10));
    CHECK(play_out(*g, 20) == Outcome::CountingDraw);
    CHECK(g->pos.count_ply() == 17);
    CHECK(g->pos.side_to_move() == WHITE);
    CHECK(g->pos.counting_expired());
    CHECK(g->pos.is_draw(0));
    CHECK(is_draw(g->pos.outcome()));
}

TEST_CASE("counting: a count expires only when ply exceeds the limit", "[counting]") {
    auto at = game("7k/R7/8/6K1/8/8/8/1R6 b - 16 16 40");
    CHECK_FALSE(at->pos.counting_expired());
    CHECK(at->pos.outcome() == Outcome::None);
    CHECK_FALSE(at->pos.is_draw(0));
    auto past = game("7k/R7/8/6K1/8/8/8/1R6 b - 16 17 40");
    CHECK(past->pos.counting_expired());
    CHECK(past->pos.outcome() == Outcome::CountingDraw);
    CHECK(past->pos.is_draw(0));
    CHECK(past->pos.is_draw(3));
}

TEST_CASE("counting: a mate on the ply that exceeds the count is still a mate", "[counting]") {
    auto g = game("7k/R7/8/6K1/8/8/8/1R6 w - 16 16 40");
    play(*g, "b1b8");
    CHECK(g->pos.count_ply() == 17);
    CHECK(g->pos.counting_expired());
    CHECK(g->pos.outcome() == Outcome::Checkmate);
    CHECK_FALSE(g->pos.is_draw(0));
    // The same count with a non-mating check is a draw.
    auto h = game("7k/R7/8/6K1/8/8/8/1R6 w - 16 16 40");
    play(*h, "b1h1");
    CHECK(h->pos.in_check());
    CHECK(h->pos.outcome() == Outcome::CountingDraw);
    CHECK(h->pos.is_draw(0));
}

TEST_CASE("counting: positions of counting-makruk.txt within reach of the search", "[counting]") {
    int checked = 0;
    for (auto& r : counting_records(true)) {
        auto g = game(r[0]);
        const int limit = g->pos.count_limit(), ply = g->pos.count_ply();
        REQUIRE(limit > 0);
        // White may move while ply <= limit (a move that lands beyond it may still mate),
        // so its moves land on ply+1, ply+3, ... while the ply before them is <= limit.
        const int movesLeft = ply <= limit ? (limit - ply) / 2 + 1 : 0;
        const int mateIn = std::stoi(r[2]);
        INFO(r[0] << " ; " << r[1] << " ; " << r[2] << "  (moves left " << movesLeft << ")");
        if (r[1] == "mate") {
            CHECK(mateIn <= movesLeft);
            if (mateIn > 3) continue;
            CHECK(attacker_mates(g->pos, mateIn));
            CHECK_FALSE(attacker_mates(g->pos, mateIn - 1));
        } else {
            REQUIRE(r[1] == "draw");
            if (movesLeft > 3) continue;
            CHECK_FALSE(attacker_mates(g->pos, movesLeft + 1));
        }
        ++checked;
    }
    CHECK(checked >= 15);
}

TEST_CASE("counting: the key prefetched before a move is the child's, count included",
          "[counting]") {
    // search_key_after is exact while a running count just takes its next ply; only a
    // capture or a promotion may restart it.
    int exact = 0;
    for (auto& r : counting_records(true)) {
        auto g = game(r[0]);
        REQUIRE(g->pos.count_limit() > 0);
        for (Move m : MoveList(g->pos)) {
            StateInfo st;
            const Key predicted = g->pos.search_key_after(m);
            const bool restart = g->pos.is_capture(m) || m.is_promotion();
            g->pos.do_move(m, st);
            INFO(r[0] << " move " << to_uci(m, g->pos));
            if (!restart) {
                CHECK(predicted == g->pos.search_key());
                ++exact;
                for (Move reply : MoveList(g->pos)) {
                    if (g->pos.is_capture(reply) || reply.is_promotion()) continue;
                    StateInfo st2;
                    const Key next = g->pos.search_key_after(reply);
                    g->pos.do_move(reply, st2);
                    CHECK(next == g->pos.search_key());
                    g->pos.undo_move(reply);
                    ++exact;
                }
            }
            g->pos.undo_move(m);
        }
    }
    CHECK(exact > 1000);
}
