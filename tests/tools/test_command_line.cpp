// The tools' command-line parser (tools/cli.h) on its own: what each word becomes, what
// is refused and how, and the help it writes.
#include "khun/tools/cli.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

using namespace khun::tools;

namespace {

// One tool's fields, described the way the tools describe theirs.
struct Fields {
    int n = 0;
    long long big = 7;
    uint64_t seed = 1;
    double rate = 0.5;
    float share = 1.0f;
    int threads = 4;
    std::string game = "makruk", file;
    std::vector<std::string> rest;
    bool fast = false;
};

struct Parsed {
    std::optional<int> exit;
    std::string out, err;
};

Parsed parse(Fields& f, const std::vector<std::string>& args) {
    CommandLine app{"khun demo", "Shows how the words are read."};
    app.add("N", f.n, "a count").required().check(int_in(1, 30));
    app.add("REST", f.rest, "everything else");
    app.add("--big", f.big, "a large number").show_default();
    app.add("--seed", f.seed, "a seed").check(int_in(0, 9'000'000'000'000'000)).show_default();
    Arg& rate = app.add("--rate", f.rate, "a rate").check(real_in(0, 10, true)).show_default();
    app.add("--share", f.share, "a share").check(real_in(0, 1, false, true));
    app.add("--threads", f.threads, "threads").check(clamped(1, 512));
    app.add("--variant", f.game, "the game").check(game_name()).show_default();
    app.add("--file", f.file, "a file").check(existing_file()).excludes(rate);
    app.flag("--fast", f.fast, "go fast");
    std::ostringstream out, err;
    Parsed p;
    p.exit = app.parse(args, out, err);
    p.out = out.str(), p.err = err.str();
    return p;
}

// The one line a refusal writes, without the "khun demo: " and "; see ..." around it.
std::string refusal(const std::vector<std::string>& args) {
    Fields f;
    Parsed p = parse(f, args);
    REQUIRE(p.exit == BadArguments);
    CHECK(p.out.empty());
    const std::string head = "khun demo: ", tail = "; see khun demo --help\n";
    REQUIRE(p.err.rfind(head, 0) == 0);
    REQUIRE(p.err.size() > head.size() + tail.size());
    CHECK(p.err.substr(p.err.size() - tail.size()) == tail);
    return p.err.substr(head.size(), p.err.size() - head.size() - tail.size());
}

} // namespace

TEST_CASE("command line: words become the fields", "[cli]") {
    Fields f;
    Parsed p = parse(f, {"12", "a", "--seed", "99", "b", "--rate=0.25", "--share", "0.5", "--fast",
                         "--variant", "sittuyin", "--big", "-3", "--", "--c"});
    REQUIRE(!p.exit);
    CHECK(p.err.empty());
    CHECK(f.n == 12);
    CHECK(f.rest == std::vector<std::string>{"a", "b", "--c"});
    CHECK(f.seed == 99);
    CHECK(f.rate == 0.25);
    CHECK(f.share == 0.5f);
    CHECK(f.fast);
    CHECK(f.game == "sittuyin");
    CHECK(f.big == -3);
    // An option given twice keeps the last; a clamped number is brought within its range.
    Fields g;
    REQUIRE(!parse(g, {"1", "--threads", "0", "--big", "5", "--big", "6"}).exit);
    CHECK(g.threads == 1);
    CHECK(g.big == 6);
    REQUIRE(!parse(g, {"1", "--threads", "99999999999999999999999"}).exit);
    CHECK(g.threads == 512);
    // Fields not given keep their values.
    CHECK(g.seed == 1);
    CHECK(g.game == "makruk");
    CHECK(!g.fast);
}

TEST_CASE("command line: each refusal says what and where", "[cli]") {
    CHECK(refusal({}) == "N is required");
    CHECK(refusal({"x"}) == "N: must be a whole number from 1 to 30, not 'x'");
    CHECK(refusal({"31"}) == "N: must be a whole number from 1 to 30, not '31'");
    CHECK(refusal({"1", "--nope"}) == "The following argument was not expected: --nope");
    CHECK(refusal({"1", "-x"}) == "The following argument was not expected: -x");
    CHECK(refusal({"1", "--seed"}) == "--seed: needs a value (INT)");
    CHECK(refusal({"1", "--seed", "--fast"}) == "--seed: needs a value (INT)");
    CHECK(refusal({"1", "--seed", "-1"}) ==
          "--seed: must be a whole number from 0 to 9000000000000000, not '-1'");
    CHECK(refusal({"1", "--big", "1.5"}) == "--big: must be a whole number, not '1.5'");
    CHECK(refusal({"1", "--big", "99999999999999999999"}) ==
          "--big: must be a whole number from " +
              std::to_string(std::numeric_limits<long long>::min()) + " to " +
              std::to_string(std::numeric_limits<long long>::max()) +
              ", not '99999999999999999999'");
    CHECK(refusal({"1", "--rate", "0"}) == "--rate: must be a number above 0, at most 10, not '0'");
    CHECK(refusal({"1", "--rate", "nan"}) ==
          "--rate: must be a number above 0, at most 10, not 'nan'");
    CHECK(refusal({"1", "--share", "1"}) == "--share: must be a number from 0, below 1, not '1'");
    CHECK(refusal({"1", "--threads", "many"}) == "--threads: must be a whole number, not 'many'");
    CHECK(refusal({"1", "--fast=yes"}) == "--fast: takes no value");
    CHECK(refusal({"1", "--variant", "chess"})
              .rfind("--variant: unknown game 'chess' (the "
                     "games: makruk, ",
                     0) == 0);
    CHECK(refusal({"1", "--file", "/nonexistent/x"}) == "--file: no such file: '/nonexistent/x'");
    // A refusal is one line whatever the word holds.
    CHECK(refusal({"1", "--big", "a\nb"}) == "--big: must be a whole number, not 'a b'");

    const std::string path = "/tmp/khun-test-cli-" + std::to_string(getpid());
    std::ofstream(path) << "x";
    CHECK(refusal({"1", "--file", path, "--rate", "1"}) == "--file excludes --rate");
    Fields f;
    CHECK(!parse(f, {"1", "--file", path}).exit);
    CHECK(f.file == path);
    std::remove(path.c_str());
}

TEST_CASE("command line: --help wins over everything and shows each argument", "[cli]") {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--help"}, {"-h"}, {"x", "--nope", "--help"}}) {
        Fields f;
        Parsed p = parse(f, args);
        REQUIRE(p.exit == 0);
        CHECK(p.err.empty());
        CHECK(p.out.rfind("Shows how the words are read.\nUsage: khun demo [OPTIONS] N [REST...]\n",
                          0) == 0);
        CHECK(p.out.find("\n  N INT                     a count (required, 1 to 30)\n") !=
              std::string::npos);
        CHECK(p.out.find("\n  --rate NUMBER             a rate (above 0, at most 10, default "
                         "0.5)\n") != std::string::npos);
        CHECK(p.out.find("\n  --variant TEXT            the game (default makruk)\n") !=
              std::string::npos);
        CHECK(p.out.find("\n  --fast                    go fast\n") != std::string::npos);
        CHECK(p.out.find("\n  -h, --help") != std::string::npos);
    }
    // After "--", "--help" is a word like any other.
    Fields f;
    CHECK(!parse(f, {"1", "--", "--help"}).exit);
    CHECK(f.rest == std::vector<std::string>{"--help"});
}
