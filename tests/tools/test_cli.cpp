// The real binary: a UCI conversation over pipes, the command-line perft tool and the
// tools' command lines.
#include "helpers.h"
#include "khun/eval/nnue.h"
#include "khun/protocol/engine.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace khun;
using namespace khun::protocol;
using namespace testutil;

namespace {

struct Run {
    std::string out, err;
    std::vector<std::string> lines;
    int exitCode = -1;
};

std::string shell_quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// Runs khun with `args`, feeding `input` on stdin; stdout and stderr are captured.
Run run_khun(const std::string& input, const std::vector<std::string>& args = {}) {
    char path[] = "/tmp/khun-test-input-XXXXXX";
    int fd = mkstemp(path);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, input.data(), input.size()) == ssize_t(input.size()));
    close(fd);
    const std::string errPath = std::string(path) + ".err";
    std::string cmd = shell_quote(KHUN_BINARY);
    for (const std::string& a : args) cmd += " " + shell_quote(a);
    cmd += " < " + shell_quote(path) + " 2>" + shell_quote(errPath);
    Run r;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
    int status = pclose(p);
    unlink(path);
    {
        std::ifstream errFile(errPath);
        std::stringstream e;
        e << errFile.rdbuf();
        r.err = e.str();
    }
    unlink(errPath.c_str());
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::istringstream is(r.out);
    for (std::string line; std::getline(is, line);) r.lines.push_back(line);
    return r;
}

bool has_line(const Run& r, const std::string& line) {
    return std::find(r.lines.begin(), r.lines.end(), line) != r.lines.end();
}

int count_prefix(const Run& r, const std::string& prefix) {
    return int(std::count_if(r.lines.begin(), r.lines.end(), [&](const std::string& l) {
        return l.compare(0, prefix.size(), prefix) == 0;
    }));
}

std::vector<std::string> with_prefix(const Run& r, const std::string& prefix) {
    std::vector<std::string> out;
    for (const std::string& l : r.lines)
        if (l.compare(0, prefix.size(), prefix) == 0) out.push_back(l);
    return out;
}

std::string hex_key(Key k) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llX", static_cast<unsigned long long>(k));
    return buf;
}

// Checks a Stockfish-style perft report against the library's move list and count.
void check_perft_report(const Run& r, const std::string& fen, int depth) {
    auto g = game(fen);
    const auto legal = uci_moves(g->pos);
    const uint64_t total = perft(g->pos, depth);
    std::vector<std::string> moves;
    uint64_t sum = 0;
    size_t i = 0;
    for (; i < r.lines.size() && !r.lines[i].empty(); ++i) {
        // "<move>: <count>", the move being from-to with an optional 'm'.
        const std::string& l = r.lines[i];
        INFO("line '" << l << "'");
        const size_t colon = l.find(": ");
        REQUIRE((colon == 4 || colon == 5));
        const std::string mv = l.substr(0, colon), count = l.substr(colon + 2);
        REQUIRE(parse_uci_move(g->pos, mv) != Move::none());
        REQUIRE(!count.empty());
        REQUIRE(count.find_first_not_of("0123456789") == std::string::npos);
        moves.push_back(mv);
        sum += std::stoull(count);
    }
    CHECK(sorted(moves) == legal);
    CHECK(sum == total);
    REQUIRE(i + 1 < r.lines.size());
    CHECK(r.lines[i].empty());
    CHECK(r.lines[i + 1] == "Nodes searched: " + std::to_string(total));
}

} // namespace

TEST_CASE("cli: uci and isready handshake", "[cli]") {
    Run r = run_khun("uci\nisready\nquit\n");
    CHECK(r.exitCode == 0);
    CHECK(count_prefix(r, "id name Khun") == 1);
    CHECK(count_prefix(r, "id author ") == 1);
    CHECK(has_line(r, "uciok"));
    CHECK(has_line(r, "readyok"));
    // uciok ends the uci reply, before readyok.
    auto pos = [&](const std::string& l) {
        return std::find(r.lines.begin(), r.lines.end(), l) - r.lines.begin();
    };
    CHECK(pos("uciok") < pos("readyok"));
    CHECK(r.lines.back() == "readyok");
}

TEST_CASE("cli: position startpos moves then d", "[cli]") {
    Run r = run_khun("position startpos moves e3e4\nd\nquit\n");
    CHECK(r.exitCode == 0);
    const std::string fen = "rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1";
    CHECK(has_line(r, "Fen: " + fen));
    auto keys = with_prefix(r, "Key: ");
    REQUIRE(keys.size() == 1);
    CHECK(keys[0] == "Key: " + hex_key(game("startpos", "e3e4")->pos.key()));
    auto checkers = with_prefix(r, "Checkers:");
    REQUIRE(checkers.size() == 1);
    CHECK(trim(checkers[0]) == "Checkers:");
    CHECK(count_prefix(r, "info string error") == 0);
}

TEST_CASE("cli: d lists the checkers", "[cli]") {
    Run r = run_khun("position fen 4r2k/8/8/8/8/3n4/2M5/4K3 w - - 0 1\nd\n");
    auto checkers = with_prefix(r, "Checkers:");
    REQUIRE(checkers.size() == 1);
    auto w = words(checkers[0]);
    CHECK(sorted(std::vector<std::string>(w.begin() + 1, w.end())) == sorted({"d3", "e8"}));
}

TEST_CASE("cli: go perft 3 from the start", "[cli]") {
    Run r = run_khun("position startpos\ngo perft 3\nquit\n");
    CHECK(r.exitCode == 0);
    CHECK(r.lines.size() == 25);
    CHECK(has_line(r, "Nodes searched: 12012"));
    check_perft_report(r, StartFen, 3);
}

TEST_CASE("cli: go perft from a FEN with moves", "[cli]") {
    const std::string fen = "1m6/3s2M1/1k6/8/8/8/4K3/7s w - 128 47 78";
    Run r = run_khun("position fen " + fen + " moves e2d3 b6c5\ngo perft 2\n");
    check_perft_report(r, game(fen, "e2d3 b6c5")->pos.fen(), 2);
}

TEST_CASE("cli: an invalid FEN is reported and the position kept", "[cli]") {
    Run r = run_khun("position startpos moves e3e4\n"
                     "position fen rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNRR w - - 0 1\n"
                     "d\nquit\n");
    CHECK(r.exitCode == 0);
    auto errors = with_prefix(r, "info string error:");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].size() > std::string("info string error: ").size());
    CHECK(has_line(r, "Fen: rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"));
    CHECK(count_prefix(r, "Fen: ") == 1);
}

TEST_CASE("cli: each bad position command keeps the previous position", "[cli]") {
    const std::string bad[] = {
        "position fen 4k3/8/8/8/8/8/8/2K1K3 w - - 0 1",
        "position fen 4k2R/8/8/8/8/8/8/4K3 w - - 0 1",
        "position fen",
        "position fen rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - 99999999999 0 1",
        "position",
        "position something",
        "position startpos moves e3e4 e6e5 zzzz",
        "position startpos moves e3e5",
    };
    for (const std::string& cmd : bad) {
        INFO(cmd);
        Run r = run_khun("position startpos moves d3d4\n" + cmd + "\nd\nisready\n");
        CHECK(r.exitCode == 0);
        CHECK(count_prefix(r, "info string error:") == 1);
        CHECK(has_line(r, "Fen: rnsmksnr/8/pppppppp/8/3P4/PPP1PPPP/8/RNSKMSNR b - - 0 1"));
        CHECK(has_line(r, "readyok"));
    }
}

TEST_CASE("cli: a short FEN followed by moves", "[cli]") {
    Run r = run_khun("position fen rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w moves e3e4\nd\n");
    CHECK(count_prefix(r, "info string error") == 0);
    CHECK(has_line(r, "Fen: rnsmksnr/8/pppppppp/8/4P3/PPPP1PPP/8/RNSKMSNR b - - 0 1"));
}

TEST_CASE("cli: a move list with a bad move is refused as a whole", "[cli]") {
    Run r = run_khun("position startpos moves e3e4 e6e5 zzzz\nd\n");
    CHECK(count_prefix(r, "info string error:") == 1);
    // Not even the legal moves before the bad one were played.
    CHECK(has_line(r, "Fen: " + StartFen));
}

TEST_CASE("cli: an unknown command is reported and the engine goes on", "[cli]") {
    Run r = run_khun("frobnicate now\nisready\n\n   \nuci\n");
    CHECK(r.exitCode == 0);
    auto errors = with_prefix(r, "info string error");
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].find("frobnicate") != std::string::npos);
    CHECK(has_line(r, "readyok"));
    CHECK(has_line(r, "uciok"));
}

TEST_CASE("cli: go perft without a usable depth is an error", "[cli]") {
    // (Out-of-range numbers are clamped, as UCI engines do: "go perft 0" counts depth 1.)
    for (const char* cmd : {"go perft", "go perft x", "go perft 3x"}) {
        INFO(cmd);
        Run r = run_khun(std::string(cmd) + "\nisready\n");
        CHECK(count_prefix(r, "info string error") == 1);
        CHECK(count_prefix(r, "Nodes searched") == 0);
        CHECK(has_line(r, "readyok"));
    }
}

TEST_CASE("cli: end of input without quit exits with code 0", "[cli]") {
    Run r = run_khun("isready\n");
    CHECK(r.exitCode == 0);
    CHECK(has_line(r, "readyok"));
    CHECK(count_prefix(r, "info string error") == 0);
    Run empty = run_khun("");
    CHECK(empty.exitCode == 0);
    CHECK(count_prefix(empty, "info string error") == 0);
    // Nothing after quit is answered.
    Run q = run_khun("quit\nisready\n");
    CHECK(q.exitCode == 0);
    CHECK_FALSE(has_line(q, "readyok"));
}

TEST_CASE("cli: khun perft on the command line", "[cli]") {
    Run r = run_khun("", {"perft", "3"});
    CHECK(r.exitCode == 0);
    CHECK(has_line(r, "Nodes searched: 12012"));
    check_perft_report(r, StartFen, 3);
}

TEST_CASE("cli: khun perft with a FEN", "[cli]") {
    // As one argument and as the six words a shell passes unquoted.
    const std::string fen = "rn1m4/1s2k1sr/pppppppp/8/KPP5/P1M2PPP/R4S2/1NS3NR b - - 4 10";
    Run one = run_khun("", {"perft", "2", fen});
    CHECK(one.exitCode == 0);
    check_perft_report(one, fen, 2);
    std::vector<std::string> args{"perft", "2"};
    for (auto& w : words(fen)) args.push_back(w);
    Run split = run_khun("", args);
    CHECK(split.out == one.out);
    // The epd's reference count at depth 4.
    Run deep = run_khun("", {"perft", "4", fen});
    CHECK(has_line(deep, "Nodes searched: 176578"));
}

TEST_CASE("cli: khun perft refuses a bad depth or FEN", "[cli]") {
    CHECK(run_khun("", {"perft", "0"}).exitCode != 0);
    CHECK(run_khun("", {"perft", "x"}).exitCode != 0);
    Run bad = run_khun("", {"perft", "2", "4k3/8/8/8/8/8/8/2K1K3 w - - 0 1"});
    CHECK(bad.exitCode != 0);
    CHECK(count_prefix(bad, "Nodes searched") == 0);
}

TEST_CASE("cli: khun perft in another game, and its bad options", "[cli]") {
    Run r = run_khun("", {"perft", "2", "--variant", "cambodian"});
    CHECK(r.exitCode == 0);
    CHECK(count_prefix(r, "Nodes searched: ") == 1);
    CHECK(run_khun("", {"perft", "31"}).exitCode == 2);
    CHECK(run_khun("", {"perft"}).exitCode == 2);
    Run game = run_khun("", {"perft", "2", "--variant", "chess"});
    CHECK(game.exitCode == 2);
    CHECK(game.err.find("unknown game 'chess'") != std::string::npos);
}

// Every tool's command line is parsed the same way (tools/cli.h): a generated --help on
// stdout, and any bad argument one line on stderr with exit code 2.
TEST_CASE("cli: every tool has --help and refuses a bad option with exit code 2", "[cli]") {
    for (const std::string tool :
         {"perft", "bench", "tbgen", "datagen", "unpack", "tune", "train", "analyse"}) {
        INFO(tool);
        Run help = run_khun("", {tool, "--help"});
        CHECK(help.exitCode == 0);
        CHECK(help.out.find("Usage: khun " + tool + " ") != std::string::npos);
        CHECK(help.out.find("--help") != std::string::npos);
        CHECK(help.err.empty());
        // The tools that take a subject get one (any existing file: the arguments are
        // refused before it is read), so that the option is what is wrong.
        std::vector<std::string> args{tool};
        if (tool == "perft") args.push_back("2");
        if (tool == "unpack" || tool == "tune" || tool == "train" || tool == "analyse")
            args.push_back(std::string(KHUN_TEST_DATA) + "/tools/games-pychess.pgn");
        args.push_back("--no-such-option");
        Run bad = run_khun("", args);
        CHECK(bad.exitCode == 2);
        CHECK(bad.out.empty());
        CHECK(bad.err == "khun " + tool +
                             ": The following argument was not expected: --no-such-option; see "
                             "khun " +
                             tool + " --help\n");
    }
    // The top-level help lists the tools in their new form.
    Run top = run_khun("", {"--help"});
    CHECK(top.exitCode == 0);
    CHECK(top.out.find("khun datagen [--games N]") != std::string::npos);
    CHECK(top.out.find("khun train DATA... [--out FILE]") != std::string::npos);
    CHECK(top.out.find("khun TOOL --help") != std::string::npos);
    // Non-numbers, numbers out of range, options without a value, missing files.
    const std::vector<std::vector<std::string>> refused = {
        {"bench", "x"},
        {"bench", "16", "1", "13", "4"},
        {"datagen", "--nodes", "many"},
        {"datagen", "--threads"},
        {"tune", "/nonexistent/data.bin"},
        {"tune", "/nonexistent/data.bin", "--epochs", "x"},
        {"train", "/nonexistent/data.bin"},
        {"train", "/nonexistent/data.bin", "--threads", "0"},
        {"analyse", "/nonexistent/games.pgn"},
        {"analyse", "-", "--depth", "2", "--movetime", "100"},
        {"analyse", "-", "--hash", "0"},
        {"unpack"},
        {"unpack", "/nonexistent/data.bin"},
        {"tbgen", "a", "b"},
    };
    for (const auto& args : refused) {
        INFO(args[0] << " " << (args.size() > 1 ? args[1] : ""));
        Run r = run_khun("", args);
        CHECK(r.exitCode == 2);
        // Named by the tool: "khun tune: ..." from the parser, "unpack: ..." from the tool.
        const bool named =
            r.err.rfind("khun " + args[0] + ": ", 0) == 0 || r.err.rfind(args[0] + ": ", 0) == 0;
        CHECK(named);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}

TEST_CASE("cli: khun bench keeps Stockfish's positional form", "[cli]") {
    Run r = run_khun("", {"bench", "16", "1", "2"});
    CHECK(r.exitCode == 0);
    CHECK(count_prefix(r, "Nodes searched  : ") == 1);
}

TEST_CASE("cli: datagen writes records that unpack to legal positions of its games", "[cli]") {
    testutil::init();
    const std::string out = "/tmp/khun-test-datagen-" + std::to_string(getpid()) + ".bin";
    std::remove(out.c_str());
    Run gen = run_khun("", {"datagen", "--games", "3", "--nodes", "300", "--threads", "2", "--seed",
                            "5", "--random", "6", "--out", out});
    REQUIRE(gen.exitCode == 0);
    std::ifstream in(out, std::ios::binary | std::ios::ate);
    REQUIRE(in.good());
    const auto size = size_t(in.tellg());
    CHECK(size > 0);
    CHECK(size % 32 == 0);
    Run text = run_khun("", {"unpack", out});
    REQUIRE(text.exitCode == 0);
    CHECK(text.lines.size() == size / 32);
    for (const std::string& line : text.lines) {
        INFO(line);
        const auto f = split(line, ';');
        REQUIRE(f.size() == 3);
        khun::StateInfo si;
        khun::Position pos;
        CHECK(!pos.set(f[0], khun::default_variant(), &si));
        CHECK((f[1] == "1" || f[1] == "0.5" || f[1] == "0"));
        CHECK(std::abs(std::stoi(f[2])) < 1000);
    }
    // Bad parameters and a damaged file are errors, not crashes.
    CHECK(run_khun("", {"datagen", "--games", "x"}).exitCode == 2);
    CHECK(run_khun("", {"datagen", "--net", "/nonexistent.nnue", "--games", "1"}).exitCode == 2);
    CHECK(run_khun("", {"datagen", "--variant", "chess"}).exitCode == 2);
    std::ofstream(out, std::ios::binary | std::ios::app) << "xyz";
    CHECK(run_khun("", {"unpack", out}).exitCode == 2);
    std::remove(out.c_str());
}

TEST_CASE("cli: tune fits the weight set of the game it is given", "[cli]") {
    testutil::init();
    const std::string tag = std::to_string(getpid());
    const std::string data = "/tmp/khun-test-tune-" + tag + ".bin";
    const std::string src = "/tmp/khun-test-tune-" + tag + ".cpp";
    std::remove(data.c_str());
    REQUIRE(run_khun("", {"datagen", "--variant", "sittuyin", "--games", "6", "--nodes", "300",
                          "--threads", "2", "--seed", "3", "--net", "none", "--out", data})
                .exitCode == 0);
    auto written = [&](const std::vector<std::string>& extra) {
        std::remove(src.c_str());
        std::vector<std::string> args = {"tune", data, "--epochs", "3", "--out", src};
        args.insert(args.end(), extra.begin(), extra.end());
        Run r = run_khun("", args);
        std::ifstream in(src);
        return std::make_pair(r.exitCode, std::string((std::istreambuf_iterator<char>(in)),
                                                      std::istreambuf_iterator<char>()));
    };
    // Sittuyin's records fit sittuyin's set: the source names its array and the header
    // the tree has, so it compiles where `khun tune` writes it by default.
    const auto [code, text] = written({"--variant", "sittuyin"});
    REQUIRE(code == 0);
    CHECK(text.find("#include \"khun/eval/eval_params.h\"") != std::string::npos);
    CHECK(text.find("Score SittuyinWeights[PARAM_NB] = {") != std::string::npos);
    CHECK(text.find("namespace khun::eval {") != std::string::npos);
    // Makruk's set finds no makruk records there: an error, and no file written.
    const auto [makrukCode, makrukText] = written({});
    CHECK(makrukCode == 2);
    CHECK(makrukText.empty());
    CHECK(written({"--variant", "chess"}).first == 2);
    std::remove(data.c_str());
    std::remove(src.c_str());
}

TEST_CASE("cli: datagen's net default is the built-in net, none the hand-written evaluation",
          "[cli]") {
    testutil::init();
    // The same seed plays the same opening; the evaluation shows in the records' scores,
    // and datagen's first line names it.
    struct Data {
        std::string bytes, said;
    };
    auto records = [](const std::vector<std::string>& net) {
        const std::string out = "/tmp/khun-test-datagen-net-" + std::to_string(getpid()) + ".bin";
        std::remove(out.c_str());
        std::vector<std::string> args = {"datagen",   "--games", "1",      "--nodes", "200",
                                         "--threads", "1",       "--seed", "7",       "--random",
                                         "4",         "--out",   out};
        args.insert(args.end(), net.begin(), net.end());
        const Run r = run_khun("", args);
        REQUIRE(r.exitCode == 0);
        std::ifstream in(out, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::remove(out.c_str());
        REQUIRE(!bytes.empty());
        return Data{bytes, r.err.substr(0, r.err.find('\n'))};
    };
    const Data builtin = records({"--net", "default"});
    const Data handWritten = records({"--net", "none"});
    CHECK(builtin.bytes != handWritten.bytes);
    CHECK(builtin.said ==
          "datagen: makruk games evaluated by " + khun::nnue::embedded_name(khun::GameNet::Makruk));
    CHECK(handWritten.said == "datagen: makruk games evaluated by the hand-written evaluation");
    // Omitted, it is what `go` uses: Use NNUE's default.
    const bool netByDefault = khun::protocol::Engine().option("Use NNUE") == "true";
    const Data omitted = records({});
    CHECK(omitted.said == (netByDefault ? builtin : handWritten).said);
    // The same opening and evaluation: the same first records (a 32-byte record each).
    const std::string& same = (netByDefault ? builtin : handWritten).bytes;
    CHECK(omitted.bytes.substr(0, 32 * 40) == same.substr(0, 32 * 40));
}
