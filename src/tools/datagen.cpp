#include "khun/protocol/engine.h"
#include "khun/rules/movegen.h"
#include "khun/tools/cli.h"
#include "khun/tools/packed.h"
#include "khun/tools/progress.h"
#include "khun/tools/tune.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

namespace khun::tools {

namespace {

struct DatagenConfig {
    int games = 1000;
    int nodes = 5000;
    int threads = std::max(1, int(std::thread::hardware_concurrency()));
    // -1: 8 from the start position, 2 after an opening; from the start of a game with a
    // setup (sittuyin), a number drawn each game from SetupRandom.
    int randomPlies = -1;
    uint64_t seed = 1;
    std::string out = "khun-data.bin";
    std::string openings; // a file of FEN/EPD lines; empty: the start position
    std::string variant = "makruk";
    // Empty: what `go` would use (Use NNUE's default); "default": the built-in net; "none":
    // the hand-written evaluation; else a net file.
    std::string net;
};

// The openings file's positions (the first four fields of each FEN/EPD line).
std::vector<std::string> read_openings(const std::string& file, std::string& error) {
    std::vector<std::string> fens;
    std::ifstream in(file);
    if (!in) {
        error = "cannot read " + file;
        return fens;
    }
    for (std::string line; std::getline(in, line);) {
        std::istringstream ss(line);
        std::string f, fen;
        for (int i = 0; i < 4 && ss >> f; ++i) fen += (i ? " " : "") + f;
        if (!fen.empty() && fen[0] != '#') fens.push_back(fen);
    }
    if (fens.empty()) error = file + " holds no positions";
    return fens;
}

// Sittuyin's setup is sixteen drops: its games start from that many random plies and up to
// two more, or as few as four, so that some setups are random throughout and the rest are
// the search's from some point on, whose positions (pieces still in hand) are recorded.
constexpr int SetupRandomMin = 4, SetupRandomMax = 18;

// One self-play game; appends its quiet positions with the game's result to `records`.
void play_game(protocol::Engine& engine, std::mt19937_64& rng, const DatagenConfig& cfg,
               const std::vector<std::string>& openings, std::vector<PackedPosition>& records) {
    const std::string fen = openings.empty() ? "" : openings[rng() % openings.size()];
    if (engine.set_position(fen, {})) return;
    engine.new_game();
    // A few random plies, so that the games spread over many more openings than the
    // file holds.
    const bool setup = engine.position().variant().mustDrop && engine.position().hand_count(WHITE);
    const int randomPlies =
        cfg.randomPlies >= 0 ? cfg.randomPlies
        : setup              ? SetupRandomMin + int(rng() % (SetupRandomMax - SetupRandomMin + 1))
        : openings.empty()   ? 8
                             : 2;
    for (int i = 0; i < randomPlies; ++i) {
        MoveList ml(engine.position());
        if (ml.size() == 0) return;
        engine.play(*(ml.begin() + rng() % ml.size()));
    }
    if (engine.position().outcome() != Outcome::None) return;

    std::vector<std::pair<PackedPosition, int>> positions; // record, score from White's side
    double result = 0.5;
    int winStreak = 0, drawStreak = 0;
    for (int ply = 0;; ++ply) {
        const Position& pos = engine.position();
        const Outcome o = pos.outcome();
        if (is_loss(o)) {
            result = pos.side_to_move() == WHITE ? 0.0 : 1.0;
            break;
        }
        if (o != Outcome::None || ply > 400) break;

        search::Limits limits;
        limits.nodes = uint64_t(cfg.nodes);
        const protocol::Engine::Thought t = engine.think(limits);
        if (!t.best) break;
        const Color stm = pos.side_to_move();
        // Adjudicate clear results to save time.
        winStreak = std::abs(t.score) >= 1000 ? winStreak + 1 : 0;
        drawStreak = std::abs(t.score) <= 8 && ply > 120 ? drawStreak + 1 : 0;
        if (winStreak >= 6) {
            result = (t.score > 0) == (stm == WHITE) ? 1.0 : 0.0;
            break;
        }
        if (drawStreak >= 20) break;
        // Quiet positions only: a score there is the evaluation's to learn, not a
        // capture's about to happen.
        if (!pos.in_check() && !pos.is_capture(t.best) && !t.best.is_promotion() &&
            std::abs(t.score) < 1000) {
            const int white = stm == WHITE ? t.score : -t.score;
            positions.emplace_back(PackedPosition::pack(pos, white, 0.5), white);
        }
        engine.play(t.best);
    }
    for (auto& [rec, white] : positions) {
        rec.result = uint8_t(std::lround(result * 2));
        records.push_back(rec);
    }
}

} // namespace

int datagen_main(const std::vector<std::string>& args) {
    DatagenConfig cfg;
    CommandLine app{"khun datagen",
                    "Self-play games at a fixed node count from the start position or the openings "
                    "file's positions plus a few random plies; appends one 32-byte record "
                    "(position, search score, game result) per quiet position to the output file, "
                    "for `khun train` and `khun tune`."};
    app.add("--games", cfg.games, "games to play").show_default();
    // Out-of-range counts are brought within their range rather than refused: a run asked
    // for 0 threads or 1000 random plies still does what is nearest.
    app.add("--nodes", cfg.nodes, "nodes searched a move")
        .check(clamped(1, std::numeric_limits<int>::max(), "at least 1"))
        .show_default();
    app.add("--threads", cfg.threads, "games played at once (default: every core)")
        .check(clamped(1, 512));
    app.add("--random", cfg.randomPlies,
            "random plies before the search plays (default: 8 from the start "
            "position, 2 after an opening; in sittuyin, from its start, 4 to 18 drawn "
            "each game, its setup being 16 drops)")
        .check(clamped(0, 100));
    app.add("--openings", cfg.openings, "a file of FEN/EPD lines to start from");
    app.add("--variant", cfg.variant, "the game").check(game_name()).show_default();
    app.add("--net", cfg.net,
            "the evaluation: default (the game's built-in net), none (the hand-written "
            "evaluation) or a net file (default: what `go` uses, Use NNUE's default)");
    app.add("--seed", cfg.seed, "the games' random seed").show_default();
    app.add("--out", cfg.out, "the file the records are appended to").show_default();
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
    std::vector<std::string> openings;
    if (!cfg.openings.empty()) {
        std::string error;
        openings = read_openings(cfg.openings, error);
        if (!error.empty()) {
            std::cerr << "datagen: " << error << "\n";
            return 2;
        }
    }
    // Every engine is set up the same way; try one first, so that a bad net or opening
    // is one message and not one a thread.
    auto setup = [&](protocol::Engine& engine) -> std::optional<std::string> {
        engine.set_option("Hash", "8");
        // The scores are training targets: a draw scores 0, without the play's contempt.
        engine.set_option("UCI_AnalyseMode", "true");
        if (auto r = engine.set_option("UCI_Variant", cfg.variant); r.error) return r.error;
        if (!cfg.net.empty()) {
            if (cfg.net != "none" && cfg.net != "default")
                if (auto r = engine.set_option("EvalFile", cfg.net); r.error) return r.error;
            engine.set_option("Use NNUE", cfg.net == "none" ? "false" : "true");
        }
        for (const std::string& fen : openings)
            if (auto e = engine.set_position(fen, {})) return "opening " + fen + ": " + *e;
        return std::nullopt;
    };
    {
        protocol::Engine probe;
        if (auto e = setup(probe)) {
            std::cerr << "datagen: " << *e << "\n";
            return 2;
        }
        // Said first, because a run's data is only as good as the evaluation that made it.
        std::cerr << "datagen: " << cfg.variant << " games evaluated by "
                  << (probe.net() ? probe.net_name() : std::string("the hand-written evaluation"))
                  << "\n";
    }
    std::ofstream out(cfg.out, std::ios::app | std::ios::binary);
    if (!out) {
        std::cerr << "datagen: cannot write " << cfg.out << "\n";
        return 2;
    }
    std::mutex mu; // guards `out` and `progress`
    Progress progress(std::cerr, "datagen", "games", uint64_t(std::max(0, cfg.games)));
    std::atomic<int> next{0}, done{0};
    std::atomic<size_t> written{0};
    const auto start = std::chrono::steady_clock::now();
    auto worker = [&] {
        protocol::Engine engine;
        (void)setup(engine);
        std::vector<PackedPosition> records;
        for (int g; (g = next++) < cfg.games;) {
            std::mt19937_64 rng(cfg.seed * 1000003 + uint64_t(g));
            records.clear();
            play_game(engine, rng, cfg, openings, records);
            std::lock_guard<std::mutex> lock(mu);
            out.write(reinterpret_cast<const char*>(records.data()),
                      std::streamsize(records.size() * sizeof(PackedPosition)));
            written += records.size();
            ++done;
            progress.update(uint64_t(done), format_count(written) + " positions");
        }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < cfg.threads; ++i) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    out.flush();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress.update(uint64_t(done), format_count(written) + " positions");
    progress.finish(format_count(written) + " positions written to " + cfg.out + " (" +
                    format_rate(double(written) / std::max(secs, 1e-9)) + " positions/s)");
    return out ? 0 : 2;
}

int unpack_main(const std::vector<std::string>& args) {
    std::vector<std::string> files;
    CommandLine app{"khun unpack",
                    "Prints the records of datagen's files as \"FEN ; result ; score\" lines, "
                    "the result and score from White's side."};
    app.add("FILE", files, "record files").required();
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
    for (const std::string& file : files) {
        std::ifstream in(file, std::ios::binary);
        if (!in) {
            std::cerr << "unpack: cannot read " << file << "\n";
            return 2;
        }
        uint64_t n = 0;
        for (PackedPosition rec; in.read(reinterpret_cast<char*>(&rec), sizeof rec); ++n) {
            if (const auto why = rec.damage()) {
                std::cerr << "unpack: " << file << ": record " << n << " is damaged: " << *why
                          << "\n";
                return 2;
            }
            const auto fen = rec.fen();
            const double r = rec.white_result();
            std::cout << *fen << " ; "
                      << (r == 1   ? "1"
                          : r == 0 ? "0"
                                   : "0.5")
                      << " ; " << rec.score << '\n';
        }
        if (in.gcount() != 0) {
            std::cerr << "unpack: " << file << " ends in a partial record\n";
            return 2;
        }
    }
    return 0;
}

} // namespace khun::tools
