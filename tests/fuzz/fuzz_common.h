// What the libFuzzer targets share: the engine's tables set up once, the input as text,
// an abort with a message when an invariant breaks (libFuzzer then saves the input), and
// the guard that keeps a command loop's run short without touching the engine.
#pragma once

#include "khun/eval/tb.h"
#include "khun/protocol/text.h"
#include "khun/rules/position.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace fuzz {

inline void init() {
    static const bool done = [] {
        khun::Position::init();
        // Mate tables stay in memory: a fuzzer must not write files wherever it likes.
        khun::eval::tb::set_cache_dir("");
        return true;
    }();
    (void)done;
}

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
    std::abort();
}

inline std::string text(const uint8_t* data, size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
}

// The separators `std::istream >> std::string` splits on (classic locale).
inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

// Where each whitespace-separated token of `line` starts, and its length.
inline std::vector<std::pair<size_t, size_t>> tokens(const std::string& line) {
    std::vector<std::pair<size_t, size_t>> toks;
    for (size_t i = 0; i < line.size();) {
        while (i < line.size() && is_space(line[i])) ++i;
        const size_t b = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > b) toks.push_back({b, i - b});
    }
    return toks;
}

// A command line as the fuzz harness passes it on. The engine is built to obey a GUI,
// and a few requests are legitimately expensive: `go perft 30` or `bench` run for hours,
// `Hash` can ask for a terabyte, `Threads` for 512 threads, and `TablebasePath` writes
// files. The harness scales those requests down (or drops them) so that every input
// runs in milliseconds; everything else reaches the dialect byte for byte, and nothing
// in the engine is changed or switched off for fuzzing. Returns false to drop the line.
inline bool tame(std::string& line) {
    std::string low = line;
    for (char& c : low) c = char(std::tolower(static_cast<unsigned char>(c)));
    if (low.find("tablebasepath") != std::string::npos) return false;
    auto toks = tokens(line);
    if (toks.empty()) return true;
    auto tok = [&](size_t k) { return line.substr(toks[k].first, toks[k].second); };
    if (tok(0) == "bench") return false;

    // Hash / memory at most 8 MB, Threads / cores at most 4: every run of digits in the
    // line that says more is cut down (a non-number still reaches the engine as it is).
    const bool hash = low.find("hash") != std::string::npos || tok(0) == "memory";
    const bool threads = low.find("thread") != std::string::npos || tok(0) == "cores";
    if (hash || threads) {
        const long long cap = hash ? 8 : 4;
        std::string out;
        for (size_t i = 0; i < line.size();) {
            if (!std::isdigit(static_cast<unsigned char>(line[i]))) {
                out += line[i++];
                continue;
            }
            const size_t b = i;
            long long v = 0;
            for (; i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])); ++i)
                v = v > 1000000 ? v : v * 10 + (line[i] - '0');
            out += v > cap ? std::to_string(cap) : line.substr(b, i - b);
        }
        line = out;
        toks = tokens(line);
    }
    // perft N: at most 3 plies (from the back, so earlier positions stay valid).
    for (size_t k = toks.size(); k-- > 1;)
        if (tok(k - 1) == "perft") {
            auto n = khun::protocol::number(tok(k), 1, 1000);
            if (n && *n > 3) line.replace(toks[k].first, toks[k].second, "3");
        }
    return true;
}

// The whole input, line by line through tame(), as the text a dialect reads.
inline std::string tamed_session(const std::string& input) {
    std::string out, line;
    size_t start = 0;
    while (start <= input.size()) {
        size_t nl = input.find('\n', start);
        const bool last = nl == std::string::npos;
        line = input.substr(start, last ? std::string::npos : nl - start);
        if (tame(line)) out += line + (last ? "" : "\n");
        if (last) break;
        start = nl + 1;
    }
    return out;
}

} // namespace fuzz
