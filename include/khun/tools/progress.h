// One progress line on stderr for the long tools (analyse, datagen, tune, tbgen): redrawn
// in place with '\r' at most about once a second, ended with a newline by finish().
//
//   what: done/total unit[, extra], R unit/s, M:SS left      (total known)
//   what: done unit[, extra], R unit/s                       (total unknown, 0)
//   what: 0/total unit[, extra]                              (nothing done yet)
//   what: done/total unit[, extra], R unit/s, done in M:SS   (finish)
//
// Counts carry thousands separators (8,432); durations are M:SS, or H:MM:SS from an hour.
// Not thread-safe: a multi-threaded caller updates under its own lock.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace khun::tools {

// 75 -> "1:15", 3725 -> "1:02:05"; rounded to the second, negatives as 0.
[[nodiscard]] std::string format_duration(double seconds);

// 8432 -> "8,432".
[[nodiscard]] std::string format_count(uint64_t n);

// A rate per second: no decimals from 100, one from 1, two below ("3.1", "0.25", "1,234").
[[nodiscard]] std::string format_rate(double perSecond);

class Progress {
  public:
    // Seconds since any fixed point; injectable so tests can drive the time.
    using Clock = std::function<double()>;

    // total 0: unknown (no time left shown). A default Clock reads std::chrono::steady_clock.
    Progress(std::ostream& err, std::string what, std::string unit, uint64_t total,
             bool enabled = true, Clock clock = {});

    // `done` units so far; redraws the line if none is shown yet or a second has passed
    // since the last redraw.
    void update(uint64_t done, const std::string& extra = "");

    // An update now would redraw the line: lets a caller compute costly extra text only
    // when it will be shown.
    [[nodiscard]] bool due() const;

    // Erases the line shown (if any), so other output can start at the line's start; the
    // next update redraws at once.
    void clear();

    // The final line, with `summary` (if not empty) in place of the extra text, the overall
    // rate and the time taken, then a newline. Nothing more is printed afterwards.
    void finish(const std::string& summary = "");

    // The text of the line for `done` units after `elapsed` seconds (no '\r', no padding).
    [[nodiscard]] std::string line(uint64_t done, const std::string& extra, double elapsed,
                                   bool final = false) const;

  private:
    void draw(const std::string& text, bool newline);

    std::ostream& err_;
    std::string what_, unit_;
    uint64_t total_;
    bool enabled_;
    Clock clock_;
    double start_;
    double lastDraw_ = 0;
    bool shown_ = false; // a line is on screen: until then an update draws at once
    bool finished_ = false;
    size_t lastLen_ = 0;
    uint64_t done_ = 0;
    std::string extra_;
};

} // namespace khun::tools
