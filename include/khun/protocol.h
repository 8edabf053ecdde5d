// Picks the protocol dialect a session speaks from its first command (`uci`, `usi`,
// `xboard`; anything else is UCI) and runs it; plus the small parsers the dialects share.
#pragma once

#include "khun/engine.h"

#include <istream>
#include <mutex>
#include <optional>
#include <string>

namespace khun {

namespace protocol {

// Reads commands from `in` until quit or end of input, answering on `out`.
void run(std::istream& in, std::ostream& out);

// Hands each line of `in` to `handle` until it returns false or input ends.
template <class Handler>
void read_lines(std::istream& in, Handler handle) {
    std::string line;
    while (std::getline(in, line))
        if (!handle(line)) return;
}

// A whole number in [lo, hi]; out-of-range values are clamped, garbage is nullopt.
std::optional<long long> number(const std::string& s, long long lo, long long hi);
// A decimal number of seconds ("5", "0.5") in milliseconds, or nullopt.
std::optional<long long> seconds_to_ms(const std::string& s);

const char* option_type_name(EngineOption::Type t);
std::string lower(std::string s);

// One line-oriented writer shared by the reading thread and the search thread.
class Writer {
  public:
    explicit Writer(std::ostream& out) : out(out) {}
    void send(const std::string& text);

  private:
    std::ostream& out;
    std::mutex mutex;
};

} // namespace protocol

} // namespace khun
