#include "khun/tools/progress.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <utility>

namespace khun::tools {

std::string format_duration(double seconds) {
    const long long s = seconds > 0 ? std::llround(seconds) : 0;
    char buf[48];
    if (s >= 3600)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

std::string format_count(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string format_rate(double perSecond) {
    if (!(perSecond > 0)) return "0.0";
    if (perSecond >= 100) return format_count(uint64_t(std::llround(perSecond)));
    char buf[32];
    std::snprintf(buf, sizeof buf, perSecond >= 1 ? "%.1f" : "%.2f", perSecond);
    return buf;
}

Progress::Progress(std::ostream& err, std::string what, std::string unit, uint64_t total,
                   bool enabled, Clock clock)
    : err_(err), what_(std::move(what)), unit_(std::move(unit)), total_(total), enabled_(enabled),
      clock_(std::move(clock)) {
    if (!clock_)
        clock_ = [] {
            return std::chrono::duration<double>(
                       std::chrono::steady_clock::now().time_since_epoch())
                .count();
        };
    start_ = clock_();
}

std::string Progress::line(uint64_t done, const std::string& extra, double elapsed,
                           bool final) const {
    std::string s = what_ + ": " + format_count(done);
    if (total_) s += "/" + format_count(total_);
    s += " " + unit_;
    if (!extra.empty()) s += ", " + extra;
    // No rate before the first unit is done (nor in no time): it would say nothing.
    if (elapsed > 0 && (done > 0 || final)) {
        const double rate = double(done) / elapsed;
        s += ", " + format_rate(rate) + " " + unit_ + "/s";
        if (final)
            s += ", done in " + format_duration(elapsed);
        else if (total_ && done > 0)
            s += ", " + format_duration(double(total_ > done ? total_ - done : 0) / rate) + " left";
    } else if (final) {
        s += ", done in " + format_duration(0);
    }
    return s;
}

bool Progress::due() const {
    return enabled_ && !finished_ && (!shown_ || clock_() - lastDraw_ >= 1.0);
}

void Progress::update(uint64_t done, const std::string& extra) {
    done_ = done;
    extra_ = extra;
    if (!enabled_ || finished_) return;
    const double t = clock_();
    if (shown_ && t - lastDraw_ < 1.0) return;
    lastDraw_ = t;
    draw(line(done, extra, t - start_), false);
}

void Progress::clear() {
    if (!enabled_ || !shown_) return;
    err_ << '\r' << std::string(lastLen_, ' ') << '\r' << std::flush;
    shown_ = false;
    lastLen_ = 0;
}

void Progress::finish(const std::string& summary) {
    if (!enabled_ || finished_) return;
    finished_ = true;
    draw(line(done_, summary.empty() ? extra_ : summary, clock_() - start_, true), true);
}

void Progress::draw(const std::string& text, bool newline) {
    // Spaces over what is left of a longer line drawn before.
    const size_t pad = lastLen_ > text.size() ? lastLen_ - text.size() : 0;
    err_ << '\r' << text << std::string(pad, ' ');
    if (newline) {
        err_ << '\n';
        shown_ = false;
        lastLen_ = 0;
    } else {
        shown_ = true;
        lastLen_ = text.size();
    }
    err_ << std::flush;
}

} // namespace khun::tools
