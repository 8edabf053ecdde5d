// Entry point: the protocol loop by default, or a tool named on the command line.
#include "khun/eval/tb.h"
#ifdef KHUN_BOT
#include "khun/bot/bot.h"
#endif
#include "khun/protocol/bench.h"
#include "khun/protocol/engine.h"
#include "khun/protocol/protocol.h"
#include "khun/protocol/uci.h"
#include "khun/rules/perft.h"
#include "khun/tools/analyse.h"
#include "khun/tools/cli.h"
#include "khun/tools/progress.h"
#include "khun/tools/train.h"
#include "khun/tools/tune.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* Help = R"(Khun, a Makruk (Thai chess) engine.

Usage:
  khun                  speak a GUI protocol on stdin/stdout, chosen by the first command:
                        `uci` (UCI, also the default), `usi` (USI as Fairy-Stockfish
                        speaks it), `xboard` (CECP / WinBoard protocol 2)
  khun perft N [FEN]    count the legal move sequences of length N, per root move
  khun perft N --variant V [FEN]
                        the same in another game: %VARIANTS%
  khun bench [hash] [threads] [depth]
                        search the built-in positions to a fixed depth (default 16 1 13)
                        and print the node count: the build's signature
  khun tbgen [DIR]      generate every bare-king mate table into DIR (default ~/.cache/khun)
  khun datagen [--games N] [--nodes N] [--threads N] [--random N] [--openings FILE]
               [--variant V] [--net default|none|FILE] [--seed N] [--out FILE]
                        self-play games at N nodes a move (default 1000 5000 all-cores)
                        from the start or the openings plus random plies; appends a
                        32-byte record (position, score, result) per quiet position to
                        FILE (default khun-data.bin), for `train` and `tune`; net default
                        is the game's built-in net, none the hand-written evaluation
                        (omitted: what `go` uses, Use NNUE's default)
  khun unpack FILE...   print records as "FEN ; result ; score" lines (White's view)
  khun tune FILE [--variant V] [--epochs N] [--rate R] [--lambda L] [--reg R] [--out FILE]
                        fit the game's evaluation weights to its records in FILE (Adam;
                        target lambda*result + (1-lambda)*sigmoid(score); reg pulls toward
                        the current weights) and write them to the set's source,
                        src/eval/eval_weights.cpp (makruk's, which the other games without
                        a set of their own share) or src/eval/eval_weights_sittuyin.cpp
                        (defaults makruk 300 0.5 0.5 2e-9)
  khun train DATA... [--out FILE] [--epochs N] [--batch N] [--lr R] [--lambda L]
             [--val F] [--decay D] [--threads N] [--seed N] [--init NET] [--mirror]
             [--king-buckets none|home|ranks|quarters]
                        fit the network to files of 32-byte training records: AdamW with
                        decay D, learning rate from R down to R/100 on a cosine, target
                        lambda*sigmoid(score/400) + (1-lambda)*result, share F held out
                        for validation; init starts from NET's weights; mirror trains
                        half of each epoch's records turned over left to right;
                        king-buckets gives the first layer a copy per region of each
                        side's king (copies of NET's when it has one). Writes the
                        quantised net to FILE (default: its own name, nn-<hash>.nnue)
                        (defaults 15 1024 0.005 1.0 0.02 0.01, all cores, seed 1)
  khun analyse GAMES.pgn [--movetime MS | --depth D] [--out FILE]
                        annotate every game: evaluations, better moves, ?! ? ??, counts
                        (default 500 ms a position; also --threads N --hash MB --quiet)
  khun bot [--token T] [--server URL] [--max-games N] [--concurrency N]
           [--variants LIST] [--threads N] [--hash MB]
                        play on pychess.org as a BOT account: accept challenges, play
                        them, reconnect after failures (token also from KHUN_BOT_TOKEN)
  khun TOOL --help      a tool's options, with their defaults and ranges
  khun --help           this text
  khun --version        the version

Evaluation: makruk and cambodian play with makruk's built-in net, asean and makpong each
with a net of its own (UCI option Use NNUE, default true; a play level, Skill Level below
20 or UCI_LimitStrength, keeps the hand-written evaluation). Karouk, ai-wok, sittuyin and
makrukhouse use the hand-written evaluation, sittuyin with weights of its own.
)";

// The usage text, its list of games taken from the variant table (wrapped as the rest).
std::string help() {
    std::string text = Help, list;
    size_t column = 50; // where the list starts on its line
    const auto names = khun::variant_names();
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string word = names[i] + (i + 1 < names.size() ? "," : "");
        if (i && column + 1 + word.size() > 88) {
            list += "\n                        ";
            column = 24;
        } else if (i) {
            list += ' ';
            ++column;
        }
        list += word;
        column += word.size();
    }
    return text.replace(text.find("%VARIANTS%"), 10, list);
}

// `khun perft N [--variant V] [FEN]`: the rules layer's check from the command line.
int perft_cmd(const std::vector<std::string>& args) {
    using namespace khun;
    int depth = 0;
    std::string variant;
    std::vector<std::string> fenWords;
    CLI::App app{"Counts the legal move sequences of length N from a position, per root move, "
                 "as Stockfish's `go perft` prints them.",
                 "khun perft"};
    app.add_option("N", depth, "the length in plies")->required()->check(CLI::Range(1, 30));
    app.add_option("FEN", fenWords,
                   "the position, as one argument or its words (default: the game's start)");
    app.add_option("--variant", variant, "the game (default: makruk)")->check(tools::game_name());
    if (auto exit = tools::parse_args(app, args, std::cout, std::cerr)) return *exit;
    protocol::Engine engine;
    if (!variant.empty()) engine.set_variant(*find_variant(variant));
    std::string fen;
    for (const std::string& w : fenWords) fen += (fen.empty() ? "" : " ") + w;
    if (auto err = engine.set_position(fen, {})) {
        std::cerr << "khun perft: " << *err << "\n";
        return tools::BadArguments;
    }
    std::cout << perft_report(engine.position(), depth);
    return 0;
}

// Stockfish's positional form, which OpenBench-style runners call; the UCI `bench`
// command does the work (and brings numbers out of range within it).
int bench_cmd(const std::vector<std::string>& args) {
    long long numbers[3] = {};
    CLI::App app{"Searches the built-in positions to a fixed depth and prints the node count: "
                 "the build's signature (with one thread).",
                 "khun bench"};
    CLI::Option* given[3] = {
        app.add_option("hash", numbers[0], "hash table size in MB (default 16)"),
        app.add_option("threads", numbers[1], "search threads (default 1)"),
        app.add_option("depth", numbers[2], "the depth (default 13)")};
    if (auto exit = khun::tools::parse_args(app, args, std::cout, std::cerr)) return *exit;
    std::string line = "bench";
    for (int i = 0; i < 3; ++i)
        if (given[i]->count()) line += " " + std::to_string(numbers[i]);
    khun::protocol::Engine engine;
    khun::protocol::Uci uci(engine, std::cout);
    uci.command(line);
    return 0;
}

// Every bare-king table generated afresh and cached, with what it holds.
int tbgen_cmd(const std::vector<std::string>& args) {
    std::string dirArg;
    CLI::App app{"Generates every bare-king mate table and caches it in DIR, with a line of "
                 "what each holds.",
                 "khun tbgen"};
    app.add_option("DIR", dirArg, "the cache folder (default: ~/.cache/khun)");
    if (auto exit = khun::tools::parse_args(app, args, std::cout, std::cerr)) return *exit;
    if (!dirArg.empty()) khun::eval::tb::set_cache_dir(dirArg);
    const std::string dir = khun::eval::tb::cache_dir();
    std::cout << "cache: " << (dir.empty() ? "none (memory only)" : dir) << "\n";
    const auto& names = khun::eval::tb::materials();
    khun::tools::Progress progress(std::cerr, "tbgen", "tables", names.size());
    uint64_t built = 0;
    for (const std::string& name : names) {
        progress.update(built, "building " + name);
        auto s = khun::eval::tb::generate(name);
        ++built;
        // The table's line goes to stdout at the start of a clean line.
        progress.clear();
        char line[160];
        std::snprintf(line, sizeof line,
                      "%-5s %9llu positions  %5.1f%% won  longest mate %2d  %5.2f s  %8zu bytes",
                      s->name.c_str(), (unsigned long long)s->positions, 100 * s->wonShare,
                      s->longestMate, s->seconds, s->bytes);
        std::cout << line << (s->file.empty() ? "  (not cached)" : "") << std::endl;
    }
    progress.update(built);
    progress.finish();
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "--help" || cmd == "-h" || cmd == "help") {
        std::cout << help();
        return 0;
    }
    if (cmd == "--version") {
        std::cout << "Khun " << KHUN_VERSION << "\n";
        return 0;
    }
    // A tool's arguments: the words after its name.
    const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
    if (cmd == "perft") return perft_cmd(args);
    if (cmd == "bench") return bench_cmd(args);
    if (cmd == "tbgen") return tbgen_cmd(args);
    if (cmd == "analyse") return khun::tools::analyse_main(args);
    if (cmd == "unpack") return khun::tools::unpack_main(args);
    if (cmd == "train") return khun::tools::train::train_main(args, std::cerr);
    if (cmd == "datagen") return khun::tools::datagen_main(args);
    if (cmd == "tune") return khun::tools::tune_main(args);
    if (cmd == "bot") {
#ifdef KHUN_BOT
        return khun::bot::bot_main(args);
#else
        std::cerr << "khun bot: this build has no pychess.org client (it was configured "
                     "without libcurl or nlohmann-json, or with -DKHUN_BOT=OFF)\n";
        return 2;
#endif
    }
    if (!cmd.empty()) {
        std::cerr << "khun: unknown command '" << cmd << "'\n" << help();
        return 2;
    }
    khun::protocol::run(std::cin, std::cout);
    return 0;
}
