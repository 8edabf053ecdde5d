// The small text helpers every dialect and the options share: reading lines, the one
// number parser, seconds, case, and the writer that keeps what goes out to a GUI
// printable. No engine here, so the options can use them without the dispatcher.
#pragma once

#include <istream>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

namespace khun::protocol {

// Hands each line of `in` to `handle` until it returns false or input ends.
template <class Handler>
void read_lines(std::istream& in, Handler handle) {
    std::string line;
    while (std::getline(in, line))
        if (!handle(line)) return;
}

// The one number parser of every dialect and of the options: a whole number in [lo, hi];
// out-of-range values are clamped, garbage is nullopt.
[[nodiscard]] std::optional<long long> number(const std::string& s, long long lo, long long hi);
// Whether `n`, what number() made of `s`, is not the value `s` says (it was clamped).
[[nodiscard]] bool clamped(const std::string& s, long long n);
// A decimal number of seconds ("5", "0.5") in milliseconds, or nullopt.
[[nodiscard]] std::optional<long long> seconds_to_ms(const std::string& s);

// `text` as it may go out to a GUI: bytes outside printable ASCII (an echo of binary
// input, invalid UTF-8) become "\xNN", and a line over 4096 characters (an echo of a
// huge token) is cut with "...". Line breaks and what the engine writes itself pass.
[[nodiscard]] std::string printable(const std::string& text);

[[nodiscard]] std::string lower(std::string s);

// One line-oriented writer shared by the reading thread and the search thread; what it
// sends goes through printable().
class Writer {
  public:
    explicit Writer(std::ostream& out) : out(out) {}
    void send(const std::string& text);

  private:
    std::ostream& out;
    std::mutex mutex;
};

} // namespace khun::protocol
