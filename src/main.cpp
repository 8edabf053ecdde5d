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

// `khun perft N [--variant V] [FEN]`: the rules layer's check from the command line.
int perft_cmd(const std::vector<std::string>& args) {
    using namespace khun;
    int depth = 0;
    std::string variant;
    std::vector<std::string> fenWords;
    tools::CommandLine app{"khun perft",
                           "Counts the legal move sequences of length N from a position, per "
                           "root move, as Stockfish's `go perft` prints them."};
    app.add("N", depth, "the length in plies").required().check(tools::int_in(1, 30));
    app.add("FEN", fenWords,
            "the position, as one argument or its words (default: the game's start)");
    app.add("--variant", variant, "the game (default: makruk)").check(tools::game_name());
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
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

using Bench = khun::protocol::BenchDefaults;

// Stockfish's positional form, which OpenBench-style runners call; the UCI `bench`
// command does the work (and brings numbers out of range within it).
int bench_cmd(const std::vector<std::string>& args) {
    long long numbers[3] = {};
    khun::tools::CommandLine app{"khun bench",
                                 "Searches the built-in positions to a fixed depth and prints "
                                 "the node count: the build's signature (with one thread)."};
    const khun::tools::Arg* given[3] = {
        &app.add("hash", numbers[0],
                 "hash table size in MB (default " + std::to_string(Bench::HashMb) + ")"),
        &app.add("threads", numbers[1],
                 "search threads (default " + std::to_string(Bench::Threads) + ")"),
        &app.add("depth", numbers[2], "the depth (default " + std::to_string(Bench::Depth) + ")")};
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
    std::string line = "bench";
    for (int i = 0; i < 3; ++i)
        if (given[i]->given()) line += " " + std::to_string(numbers[i]);
    khun::protocol::Engine engine;
    khun::protocol::Uci uci(engine, std::cout);
    uci.command(line);
    return 0;
}

// Every bare-king table generated afresh and cached, with what it holds.
int tbgen_cmd(const std::vector<std::string>& args) {
    std::string dirArg;
    khun::tools::CommandLine app{"khun tbgen", "Generates every bare-king mate table and caches "
                                               "it in DIR, with a line of what each holds."};
    app.add("DIR", dirArg, "the cache folder (default: ~/.cache/khun)");
    if (auto exit = app.parse(args, std::cout, std::cerr)) return *exit;
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

#ifdef KHUN_BOT
const char* BotSummary = "play on pychess.org as a BOT account: accept challenges, play\n"
                         "them, reconnect after failures (token also from KHUN_BOT_TOKEN)";
#else
const char* BotSummary = "play on pychess.org as a BOT account: not in this build\n"
                         "(configured without libcurl or nlohmann-json)";
#endif

// `khun bot`, where the build has the pychess.org client (KHUN_BOT).
int bot_cmd(const std::vector<std::string>& args) {
#ifdef KHUN_BOT
    return khun::bot::bot_main(args);
#else
    (void)args;
    std::cerr << "khun bot: this build has no pychess.org client (it was configured without "
                 "libcurl or nlohmann-json, or with -DKHUN_BOT=OFF)\n";
    return 2;
#endif
}

// One row of the command line: `khun NAME ARGS`, what it does, and what runs it. The
// usage text is built from the rows, so a command and its line in it cannot drift apart.
struct Command {
    // One form of the command: its arguments after the name (a line break continues them
    // under the first) and what it does (lines of the usage's right-hand column).
    struct Form {
        const char* args;
        std::string summary;
    };
    const char* name; // "" : no command, the protocol loop
    std::vector<Form> forms;
    // Takes the words after the name and returns the exit code; none for a line of the
    // usage that is no command of its own.
    int (*run)(const std::vector<std::string>& args);
};

std::string help();

int protocol_cmd(const std::vector<std::string>&) {
    khun::protocol::run(std::cin, std::cout);
    return 0;
}

// `khun uci`, `khun usi`, `khun xboard`: that dialect from the start.
template <const char* Dialect>
int dialect_cmd(const std::vector<std::string>& args) {
    if (!args.empty()) {
        std::cerr << "khun: " << Dialect << " takes no arguments (its commands come on stdin)\n";
        return 2;
    }
    khun::protocol::run(std::cin, std::cout, std::string(Dialect));
    return 0;
}
constexpr char Uci[] = "uci", Usi[] = "usi", XBoard[] = "xboard";

int help_cmd(const std::vector<std::string>&) {
    std::cout << help();
    return 0;
}

int version_cmd(const std::vector<std::string>&) {
    std::cout << "Khun " << KHUN_VERSION << "\n";
    return 0;
}

int train_cmd(const std::vector<std::string>& args) {
    return khun::tools::train::train_main(args, std::cerr);
}

// In the order of the usage text.
const std::vector<Command>& commands() {
    static const std::vector<Command> table = {
        {"",
         {{"", "speak a GUI protocol on stdin/stdout, chosen by the first command:\n"
               "`uci` (UCI, also the default), `usi` (USI as Fairy-Stockfish\n"
               "speaks it), `xboard` (CECP / WinBoard protocol 2)"}},
         protocol_cmd},
        {"uci|usi|xboard",
         {{"", "the same in that protocol from the start, for a GUI that\n"
               "names it as an argument; its handshake is answered as it comes"}},
         nullptr},
        {Uci, {}, dialect_cmd<Uci>},
        {Usi, {}, dialect_cmd<Usi>},
        {XBoard, {}, dialect_cmd<XBoard>},
        {"perft",
         {{"N [FEN]", "count the legal move sequences of length N, per root move"},
          {"N --variant V [FEN]", "the same in another game: %VARIANTS%"}},
         perft_cmd},
        {"bench",
         {{"[hash] [threads] [depth]", "search the built-in positions to a fixed depth (default " +
                                           std::to_string(Bench::HashMb) + " " +
                                           std::to_string(Bench::Threads) + " " +
                                           std::to_string(Bench::Depth) +
                                           ")\n"
                                           "and print the node count: the build's signature"}},
         bench_cmd},
        {"tbgen",
         {{"[DIR]", "generate every bare-king mate table into DIR (default ~/.cache/khun)"}},
         tbgen_cmd},
        {"datagen",
         {{"[--games N] [--nodes N] [--threads N] [--random N] [--openings FILE]\n"
           "[--variant V] [--net default|none|FILE] [--seed N] [--out FILE]",
           "self-play games at N nodes a move (default 1000 5000 all-cores)\n"
           "from the start or the openings plus random plies; appends a\n"
           "32-byte record (position, score, result) per quiet position to\n"
           "FILE (default khun-data.bin), for `train` and `tune`; net default\n"
           "is the game's built-in net, none the hand-written evaluation\n"
           "(omitted: what `go` uses, Use NNUE's default)"}},
         khun::tools::datagen_main},
        {"unpack",
         {{"FILE...", "print records as \"FEN ; result ; score\" lines (White's view)"}},
         khun::tools::unpack_main},
        {"tune",
         {{"FILE [--variant V] [--epochs N] [--rate R] [--lambda L] [--reg R] [--out FILE]",
           "fit the game's evaluation weights to its records in FILE (Adam;\n"
           "target lambda*result + (1-lambda)*sigmoid(score); reg pulls toward\n"
           "the current weights) and write them to the set's source,\n"
           "src/eval/eval_weights.cpp (makruk's, which the other games without\n"
           "a set of their own share) or src/eval/eval_weights_sittuyin.cpp\n"
           "(defaults makruk 300 0.5 0.5 2e-9)"}},
         khun::tools::tune_main},
        {"train",
         {{"DATA... [--out FILE] [--epochs N] [--batch N] [--lr R] [--lambda L]\n"
           "[--val F] [--decay D] [--threads N] [--seed N] [--init NET] [--mirror]\n"
           "[--king-buckets none|home|ranks|quarters]",
           "fit the network to files of 32-byte training records: AdamW with\n"
           "decay D, learning rate from R down to R/100 on a cosine, target\n"
           "lambda*sigmoid(score/400) + (1-lambda)*result, share F held out\n"
           "for validation; init starts from NET's weights; mirror trains\n"
           "half of each epoch's records turned over left to right;\n"
           "king-buckets gives the first layer a copy per region of each\n"
           "side's king (copies of NET's when it has one). Writes the\n"
           "quantised net to FILE (default: its own name, nn-<hash>.nnue)\n"
           "(defaults 15 1024 0.005 1.0 0.02 0.01, all cores, seed 1)"}},
         train_cmd},
        {"analyse",
         {{"GAMES.pgn [--movetime MS | --depth D] [--out FILE]",
           "annotate every game: evaluations, better moves, ?! ? ??, counts\n"
           "(default 500 ms a position; also --threads N --hash MB --quiet)"}},
         khun::tools::analyse_main},
        {"bot",
         {{"[--token T] [--server URL] [--max-games N] [--concurrency N]\n"
           "[--variants LIST] [--threads N] [--hash MB]",
           BotSummary}},
         bot_cmd},
        {"TOOL", {{"--help", "a tool's options, with their defaults and ranges"}}, nullptr},
        {"--help", {{"", "this text"}}, help_cmd},
        {"--version", {{"", "the version"}}, version_cmd},
    };
    return table;
}

// What the usage text ends with, after the table's rows.
const char* Evaluation = R"(
Evaluation: makruk and cambodian play with makruk's built-in net; asean, makpong,
sittuyin, makrukhouse, karouk and ai-wok each with a net of its own (UCI option Use NNUE,
default true; a play level, Skill Level below 20 or UCI_LimitStrength, keeps the
hand-written evaluation).
)";

// The usage text: the table's rows, each form's arguments after `khun NAME` and what it
// does from column 24 (on the same line when the arguments leave room), the list of
// games taken from the variant table and wrapped as the rest.
std::string help() {
    constexpr size_t Column = 24, Width = 88;
    std::string text = "Khun, a Makruk (Thai chess) engine.\n\nUsage:\n";
    for (const Command& c : commands())
        for (const Command::Form& f : c.forms) {
            std::string head = std::string("  khun") + (*c.name ? " " : "") + c.name;
            if (*f.args) head += " ";
            std::string synopsis = head;
            for (const char* a = f.args; *a; ++a)
                synopsis += *a == '\n' ? "\n" + std::string(head.size(), ' ') : std::string(1, *a);
            const bool sameLine =
                synopsis.find('\n') == std::string::npos && synopsis.size() + 2 <= Column;
            text += synopsis;
            std::istringstream summary(f.summary);
            bool first = true;
            for (std::string line; std::getline(summary, line); first = false) {
                if (first && sameLine)
                    text += std::string(Column - synopsis.size(), ' ');
                else
                    text += "\n" + std::string(Column, ' ');
                text += line;
            }
            text += "\n";
        }
    text += Evaluation;
    const size_t at = text.find("%VARIANTS%");
    size_t column = at - (text.rfind('\n', at) + 1); // where the list starts on its line
    std::string list;
    const auto names = khun::variant_names();
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string word = names[i] + (i + 1 < names.size() ? "," : "");
        if (i && column + 1 + word.size() > Width) {
            list += "\n" + std::string(Column, ' ');
            column = Column;
        } else if (i) {
            list += ' ';
            ++column;
        }
        list += word;
        column += word.size();
    }
    return text.replace(at, 10, list);
}

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::string cmd = argc > 1 ? argv[1] : "";
    if (cmd == "-h" || cmd == "help") cmd = "--help";
    // A command's arguments: the words after its name.
    const std::vector<std::string> args(argv + std::min(argc, 2), argv + argc);
    for (const Command& c : commands())
        if (c.run && cmd == c.name) return c.run(args);
    std::cerr << "khun: unknown command '" << cmd << "'\n" << help();
    return 2;
}
