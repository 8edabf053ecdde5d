// Stress against the real binary: a thousand go/stop cycles, Hash and Threads changed
// between searches and commands that cut a search short, and games of 1000+ plies (a
// history without a capture or pawn move, a repetition shuffle, an expired count) that
// must not slow the search down.
#include "engine_session.h"

#include <iostream>
#include <random>
#include <set>

using namespace enginetest;

namespace {

const std::string MiddleFen = "r2m3k/1s1n4/pp4n1/6P1/3P4/PS4N1/2K1S3/6M1 b - - 2 26";

std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& m : v) s += (s.empty() ? "" : " ") + m;
    return s;
}

// `plies` quiet moves (no capture, no pawn move) from the start position that never
// repeat a position: the longest history the repetition test has to walk through.
std::vector<std::string> quiet_walk(int plies, unsigned seed) {
    auto g = library_game(StartFen);
    REQUIRE(g);
    std::mt19937 rng(seed);
    std::set<khun::Key> seen = {g->pos.key()};
    std::vector<std::string> moves;
    while (int(moves.size()) < plies) {
        std::vector<khun::Move> fresh;
        for (khun::Move m : khun::MoveList(g->pos)) {
            if (g->pos.is_capture(m) || khun::type_of(g->pos.piece_on(m.from())) == khun::PAWN)
                continue;
            khun::StateInfo st;
            g->pos.do_move(m, st);
            const bool ok = !seen.count(g->pos.key()) && khun::MoveList(g->pos).size() > 0;
            g->pos.undo_move(m);
            if (ok) fresh.push_back(m);
        }
        REQUIRE(!fresh.empty());
        const khun::Move m = fresh[rng() % fresh.size()];
        moves.push_back(khun::to_uci(m, g->pos));
        g->play(m);
        seen.insert(g->pos.key());
    }
    REQUIRE(g->pos.outcome() == khun::Outcome::None);
    return moves;
}

void timing(const std::string& what, double ms) {
    std::cout << "[stress timing] " << what << ": " << long(ms) << " ms" << std::endl;
}

} // namespace

TEST_CASE("stress: 1000 go/stop cycles with two threads, one legal bestmove each", "[stress]") {
    auto e = started_engine();
    auto r = e->reply("setoption name Threads value 2");
    ENGINE_REQUIRE(*e, r);
    r = e->reply("position fen " + MiddleFen);
    ENGINE_REQUIRE(*e, r);
    ENGINE_CHECK(*e, r->empty());
    const char* gos[] = {"go infinite",         "go depth 40",
                         "go movetime 100000",  "go wtime 100000 btime 100000",
                         "go nodes 1000000000", "go ponder wtime 5000 btime 5000"};
    const size_t from = e->mark();
    const auto t0 = Clock::now();
    const int Cycles = 1000;
    for (int i = 0; i < Cycles; ++i) {
        e->send(gos[i % 6]);
        if (i % 6 == 5 && i % 12 == 11) e->send("ponderhit");
        e->send("stop");
    }
    ENGINE_REQUIRE(*e, e->sync(60000));
    // The last bestmove may come after readyok: wait until all have arrived.
    auto count = [&] {
        size_t n = 0;
        for (const std::string& l : e->texts(from)) n += is_bestmove(l);
        return n;
    };
    for (int k = 0; k < 100 && count() < size_t(Cycles); ++k) e->drain(50);
    const double ms = ms_between(t0, Clock::now());
    timing("1000 go/stop cycles", ms);
    ENGINE_CHECK(*e, count() == size_t(Cycles));
    size_t illegal = 0;
    for (const std::string& l : e->texts(from))
        if (is_bestmove(l)) illegal += !is_legal_move(MiddleFen, bestmove_of(l));
    ENGINE_CHECK(*e, illegal == 0);
    // And it still searches normally.
    auto s = e->search("go depth 6");
    ENGINE_REQUIRE(*e, s.done);
    ENGINE_CHECK(*e, is_legal_move(MiddleFen, s.best));
    ENGINE_CHECK(*e, s.last.depth == 6);
    e->send("quit");
    ENGINE_CHECK(*e, e->wait_exit(5000) == 0);
}

TEST_CASE("stress: Hash and Threads between searches, commands that cut a search short",
          "[stress]") {
    auto e = started_engine();
    const std::vector<std::pair<std::string, std::vector<std::string>>> positions = {
        {StartFen, {}},
        {MiddleFen, {}},
        {StartFen, {"c3c4", "f6f5", "b1c3"}},
        {"5m2/5k2/8/8/4K3/8/4s3/8 w - 88 28 77", {}}, // a count running
    };
    std::mt19937 rng(7);
    const char* cutters[] = {"ucinewgame", "setoption name Hash value 2",
                             "setoption name Threads value 3", "setoption name Clear Hash", "stop"};
    for (int i = 0; i < 60; ++i) {
        INFO("round " << i);
        const auto& [fen, moves] = positions[i % positions.size()];
        std::string cmd = "position fen " + fen + (moves.empty() ? "" : " moves " + join(moves));
        auto r = e->reply("setoption name Hash value " + std::to_string(1 << (rng() % 5)));
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        r = e->reply("setoption name Threads value " + std::to_string(1 + rng() % 4));
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        r = e->reply(cmd);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        const size_t from = e->mark();
        if (i % 3 == 0) {
            // A search that ends by itself.
            auto s = e->search("go depth 5");
            ENGINE_REQUIRE(*e, s.done);
            ENGINE_CHECK(*e, is_legal_move(fen, s.best, moves));
            continue;
        }
        // A search cut short by a command that has to stop it: its move still comes, once.
        e->send("go infinite");
        e->drain(int(rng() % 30));
        e->send(cutters[i % 5]);
        auto best = e->wait_for(is_bestmove, 10000, from);
        ENGINE_REQUIRE(*e, best);
        ENGINE_CHECK(*e, is_legal_move(fen, bestmove_of(e->lines[*best].text), moves));
        ENGINE_REQUIRE(*e, e->sync());
        ENGINE_CHECK(*e, !e->wait_for(is_bestmove, 0, *best + 1));
    }
    // Back to one thread and 16 MB, the engine plays as before.
    ENGINE_REQUIRE(*e, e->reply("setoption name Threads value 1"));
    ENGINE_REQUIRE(*e, e->reply("setoption name Hash value 16"));
    ENGINE_REQUIRE(*e, e->reply("position fen " + MiddleFen));
    auto s = e->search("go depth 7");
    ENGINE_REQUIRE(*e, s.done);
    ENGINE_CHECK(*e, s.last.depth == 7);
    ENGINE_CHECK(*e, is_legal_move(MiddleFen, s.best));
}

TEST_CASE("stress: games of 1000+ plies search as fast as short ones", "[stress]") {
    auto e = started_engine();
    // The same final position, once at the end of a 1200-ply history with no capture and
    // no pawn move (every node of the search walks back through it looking for a
    // repetition), once from its FEN with the history cleared.
    const std::vector<std::string> walk = quiet_walk(1200, 11);
    auto g = library_game(StartFen, walk);
    REQUIRE(g);
    std::string fen = g->pos.fen();
    // Field 5 holds the plies since the last capture or pawn move: reset it.
    auto f = words(fen);
    REQUIRE(f.size() == 6);
    REQUIRE(f[4] == "1200");
    const std::string shortFen = f[0] + " " + f[1] + " " + f[2] + " " + f[3] + " 0 " + f[5];

    auto timed = [&](const std::string& position) {
        auto r = e->reply(position, 20000);
        ENGINE_REQUIRE(*e, r);
        ENGINE_CHECK(*e, r->empty());
        ENGINE_REQUIRE(*e, e->reply("ucinewgame"));
        auto s = e->search("go nodes 300000", 60000);
        ENGINE_REQUIRE(*e, s.done);
        ENGINE_CHECK(*e, is_legal_move(StartFen, s.best, walk));
        return s.ms;
    };
    // Best of two each, so that a busy machine does not decide the comparison.
    const double longMs = std::min(timed("position startpos moves " + join(walk)),
                                   timed("position startpos moves " + join(walk)));
    const double shortMs =
        std::min(timed("position fen " + shortFen), timed("position fen " + shortFen));
    timing("go nodes 300000 after 1200 quiet plies", longMs);
    timing("go nodes 300000, same position, no history", shortMs);
    ENGINE_CHECK(*e, longMs < 3 * shortMs + 300);

    std::optional<std::vector<std::string>> r;
    // A knight shuffle of 1000 plies (every position repeated many times) and a count
    // that ran out long ago: still a legal move, quickly.
    std::vector<std::string> shuffle;
    for (int i = 0; i < 250; ++i)
        for (const char* m : {"b1d2", "b8d7", "d2b1", "d7b8"}) shuffle.push_back(m);
    r = e->reply("position startpos moves " + join(shuffle), 20000);
    ENGINE_REQUIRE(*e, r);
    ENGINE_CHECK(*e, r->empty());
    ENGINE_CHECK(*e,
                 e->shown_fen() == "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 1000 501");
    auto s = e->search("go depth 8", 30000);
    ENGINE_REQUIRE(*e, s.done);
    ENGINE_CHECK(*e, is_legal_move(StartFen, s.best, shuffle));
    timing("go depth 8 after a 1000-ply knight shuffle", s.ms);
    ENGINE_CHECK(*e, s.ms < 10000);

    std::vector<std::string> rooks;
    for (int i = 0; i < 300; ++i)
        for (const char* m : {"a1a2", "h8h7", "a2a1", "h7h8"}) rooks.push_back(m);
    const std::string countFen = "4k2r/8/8/8/8/8/8/R3K3 w - - 0 1";
    r = e->reply("position fen " + countFen + " moves " + join(rooks), 20000);
    ENGINE_REQUIRE(*e, r);
    ENGINE_CHECK(*e, r->empty());
    const std::string shownFen = e->shown_fen();
    ENGINE_CHECK(*e, shownFen == "4k2r/8/8/8/8/8/8/R3K3 w - 128 1199 601");
    s = e->search("go depth 8", 30000);
    ENGINE_REQUIRE(*e, s.done);
    ENGINE_CHECK(*e, is_legal_move(countFen, s.best, rooks));
    timing("go depth 8 after 1200 plies of an expired count", s.ms);
    ENGINE_CHECK(*e, s.ms < 10000);
}
