#include "khun/engine.h"
#include "khun/movegen.h"
#include "khun/progress.h"
#include "khun/tune.h"

#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <random>
#include <thread>

namespace khun {

namespace {

struct DatagenConfig {
    int games = 1000;
    int nodes = 6000;
    int threads = 1;
    uint64_t seed = 1;
    std::string out = "khun-data.txt";
};

// One self-play game; appends its quiet positions with the result to `lines`.
void play_game(Engine& engine, std::mt19937_64& rng, int nodes, std::vector<std::string>& lines) {
    std::vector<std::string> moves;
    engine.set_position("", {});
    engine.new_game();
    // A few random plies first, so the games spread over many openings.
    const int randomPlies = 6 + int(rng() % 5);
    for (int i = 0; i < randomPlies; ++i) {
        MoveList ml(engine.position());
        if (ml.size() == 0) return;
        Move m = *(ml.begin() + rng() % ml.size());
        moves.push_back(to_uci(m, engine.position()));
        if (engine.set_position("", moves)) return;
    }
    if (engine.position().outcome() != Outcome::None) return;

    // FEN and the search score from White's side.
    std::vector<std::pair<std::string, int>> positions;
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
        limits.nodes = uint64_t(nodes);
        Engine::Thought t = engine.think(limits);
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
        if (!pos.in_check() && !pos.is_capture(t.best) && !t.best.is_promotion() &&
            std::abs(t.score) < 1000)
            positions.emplace_back(pos.fen(), stm == WHITE ? t.score : -t.score);
        moves.push_back(to_uci(t.best, pos));
        if (engine.set_position("", moves)) break;
    }
    const char* r = result == 1.0 ? "1" : result == 0.0 ? "0" : "0.5";
    for (auto& p : positions)
        lines.push_back(p.first + " ; " + r + " ; " + std::to_string(p.second));
}

} // namespace

int datagen_main(const std::vector<std::string>& args) {
    DatagenConfig cfg;
    for (size_t i = 0; i + 1 < args.size(); i += 2) {
        const std::string& k = args[i];
        const std::string& v = args[i + 1];
        try {
            if (k == "games")
                cfg.games = std::stoi(v);
            else if (k == "nodes")
                cfg.nodes = std::stoi(v);
            else if (k == "threads")
                cfg.threads = std::max(1, std::stoi(v));
            else if (k == "seed")
                cfg.seed = std::stoull(v);
            else if (k == "out")
                cfg.out = v;
            else {
                std::cerr << "datagen: unknown parameter '" << k << "'\n";
                return 2;
            }
        } catch (...) {
            std::cerr << "datagen: bad value '" << v << "' for " << k << "\n";
            return 2;
        }
    }
    std::ofstream out(cfg.out, std::ios::app);
    if (!out) {
        std::cerr << "datagen: cannot write " << cfg.out << "\n";
        return 2;
    }
    std::mutex mu; // guards `out` and `progress`
    Progress progress(std::cerr, "datagen", "games", uint64_t(std::max(0, cfg.games)));
    std::atomic<int> next{0}, done{0};
    std::atomic<size_t> written{0};
    auto worker = [&](int id) {
        Engine engine;
        engine.set_option("Hash", "8");
        std::vector<std::string> lines;
        for (int g; (g = next++) < cfg.games;) {
            std::mt19937_64 rng(cfg.seed * 1000003 + uint64_t(g));
            lines.clear();
            play_game(engine, rng, cfg.nodes, lines);
            std::lock_guard<std::mutex> lock(mu);
            for (auto& l : lines) out << l << '\n';
            written += lines.size();
            ++done;
            progress.update(uint64_t(done), format_count(written) + " positions");
        }
        (void)id;
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < cfg.threads; ++i) pool.emplace_back(worker, i);
    for (auto& t : pool) t.join();
    progress.update(uint64_t(done), format_count(written) + " positions");
    progress.finish(format_count(written) + " positions written to " + cfg.out);
    return 0;
}

} // namespace khun
