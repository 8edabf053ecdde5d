#include "khun/tools/cli.h"
#include "khun/rules/variant.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <ostream>
#include <sstream>

namespace khun::tools {

namespace {

// The help's width, and the column the descriptions start at.
constexpr size_t HelpWidth = 88;
constexpr size_t HelpColumn = 28;

// `text` with its spaces turned into line breaks where a line would pass `width`.
std::string wrap(std::string text, size_t width) {
    size_t lineStart = 0, lastSpace = std::string::npos;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\n') {
            lineStart = i + 1, lastSpace = std::string::npos;
            continue;
        }
        if (text[i] == ' ') lastSpace = i;
        if (i - lineStart >= width && lastSpace != std::string::npos) {
            text[lastSpace] = '\n';
            lineStart = lastSpace + 1, lastSpace = std::string::npos;
        }
    }
    return text;
}

// `text` read whole as an integer of type T; nothing when it is not one or does not fit.
template <typename T>
std::optional<T> whole(const std::string& text) {
    T v{};
    const char* end = text.data() + text.size();
    const char* first = text.data() + (!text.empty() && text[0] == '+');
    const auto [ptr, ec] = std::from_chars(first, end, v);
    if (ec != std::errc() || ptr != end || first == end) return std::nullopt;
    return v;
}

// `text` read whole as a finite number.
std::optional<double> real(const std::string& text) {
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// `text` is a whole number written out, a sign and digits, whether or not it fits a type.
bool digits(const std::string& text) {
    const size_t sign = !text.empty() && (text[0] == '+' || text[0] == '-');
    return text.size() > sign && text.find_first_not_of("0123456789", sign) == std::string::npos;
}

template <typename T>
std::string assign_whole(const std::string& text, T& to) {
    if (auto v = whole<T>(text)) {
        to = *v;
        return {};
    }
    // Digits that do not fit the field: say the field's range.
    if (!digits(text)) return "must be a whole number, not '" + text + "'";
    return "must be a whole number from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
           std::to_string(std::numeric_limits<T>::max()) + ", not '" + text + "'";
}

std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

// A word that is an option's name rather than a value: "--x", "-h"; not "-", "-3", "-.5".
bool is_option(const std::string& w) {
    if (w.size() < 2 || w[0] != '-') return false;
    return !(std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.');
}

} // namespace

namespace detail {
std::string assign(const std::string& text, int& to) { return assign_whole(text, to); }
std::string assign(const std::string& text, long long& to) { return assign_whole(text, to); }
std::string assign(const std::string& text, uint64_t& to) { return assign_whole(text, to); }
std::string assign(const std::string& text, double& to) {
    if (auto v = real(text)) {
        to = *v;
        return {};
    }
    return "must be a number, not '" + text + "'";
}
std::string assign(const std::string& text, float& to) {
    double v = 0;
    std::string why = assign(text, v);
    if (why.empty()) to = float(v);
    return why;
}
std::string assign(const std::string& text, std::string& to) {
    to = text;
    return {};
}
std::string assign(const std::string& text, std::vector<std::string>& to) {
    to.push_back(text);
    return {};
}
std::string value_text(int v) { return std::to_string(v); }
std::string value_text(long long v) { return std::to_string(v); }
std::string value_text(uint64_t v) { return std::to_string(v); }
std::string value_text(double v) { return number_text(v); }
std::string value_text(const std::string& v) { return v; }
} // namespace detail

Arg& Arg::required() {
    required_ = true;
    return show("required");
}

Arg& Arg::check(Filter f) {
    show(f.describe);
    filters_.push_back(std::move(f));
    return *this;
}

Arg& Arg::show_default() { return current_ ? show("default " + current_()) : *this; }

Arg& Arg::show(const std::string& what) {
    if (!what.empty()) shown_ += (shown_.empty() ? "" : ", ") + what;
    return *this;
}

CommandLine::CommandLine(std::string name, std::string about)
    : name_(std::move(name)), about_(std::move(about)) {}

Arg& CommandLine::make(const std::string& name, const std::string& help, const char* value) {
    auto a = std::make_unique<Arg>();
    a->name_ = name, a->help_ = help, a->value_ = value;
    args_.push_back(std::move(a));
    return *args_.back();
}

Arg& CommandLine::flag(const std::string& name, bool& field, const std::string& help) {
    Arg& a = make(name, help, "");
    a.flag_ = true;
    a.set_ = [&field](const std::string&) {
        field = true;
        return std::string();
    };
    return a;
}

std::string CommandLine::take(Arg& a, std::string text) {
    for (const Filter& f : a.filters_)
        if (std::string why = f.run(text); !why.empty()) return why;
    ++a.count_;
    return a.set_(text);
}

std::optional<int> CommandLine::parse(const std::vector<std::string>& args, std::ostream& out,
                                      std::ostream& err) {
    const auto refuse = [&](const std::string& why) {
        std::string line = why;
        for (char& c : line)
            if (c == '\n' || c == '\r') c = ' ';
        err << name_ << ": " << line << "; see " << name_ << " --help\n";
        return BadArguments;
    };
    // Help first, whatever else the line holds.
    for (const std::string& w : args) {
        if (w == "--") break;
        if (w == "-h" || w == "--help") {
            out << help();
            return 0;
        }
    }
    std::vector<Arg*> positionals;
    for (auto& a : args_)
        if (a->name_.rfind("--", 0) != 0) positionals.push_back(a.get());
    size_t nextPositional = 0;
    bool optionsEnded = false;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& w = args[i];
        if (!optionsEnded && w == "--") {
            optionsEnded = true;
            continue;
        }
        if (!optionsEnded && is_option(w)) {
            const size_t eq = w.find('=');
            const std::string name = w.substr(0, eq);
            Arg* a = nullptr;
            for (auto& o : args_)
                if (o->name_ == name && name.rfind("--", 0) == 0) a = o.get();
            if (!a) return refuse("The following argument was not expected: " + w);
            if (a->flag_) {
                if (eq != std::string::npos) return refuse(name + ": takes no value");
                (void)take(*a, "");
                continue;
            }
            std::string value;
            if (eq != std::string::npos)
                value = w.substr(eq + 1);
            else if (i + 1 < args.size() && !is_option(args[i + 1]))
                value = args[++i];
            else
                return refuse(name + ": needs a value (" + a->value_ + ")");
            // A single option given twice keeps the last.
            if (!a->many_) a->count_ = 0;
            if (std::string why = take(*a, value); !why.empty()) return refuse(name + ": " + why);
            continue;
        }
        if (nextPositional >= positionals.size())
            return refuse("The following argument was not expected: " + w);
        Arg& p = *positionals[nextPositional];
        if (std::string why = take(p, w); !why.empty()) return refuse(p.name_ + ": " + why);
        if (!p.many_) ++nextPositional;
    }
    for (auto& a : args_) {
        if (a->required_ && !a->given()) return refuse(a->name_ + " is required");
        for (const Arg* other : a->excludes_)
            if (a->given() && other->given()) return refuse(a->name_ + " excludes " + other->name_);
    }
    return std::nullopt;
}

std::string CommandLine::help() const {
    std::string usage = "Usage: " + name_ + " [OPTIONS]", positionals, options;
    const auto line = [](std::string left, const std::string& text) {
        left = "  " + left;
        left += left.size() + 1 < HelpColumn ? std::string(HelpColumn - left.size(), ' ')
                                             : "\n" + std::string(HelpColumn, ' ');
        std::string body = wrap(text, HelpWidth - HelpColumn);
        for (size_t at = 0; (at = body.find('\n', at)) != std::string::npos; at += HelpColumn)
            body.insert(++at, std::string(HelpColumn, ' '));
        return left + body + "\n";
    };
    options += line("-h, --help", "print this help and exit");
    for (const auto& a : args_) {
        const std::string text = a->help_ + (a->shown_.empty() ? "" : " (" + a->shown_ + ")");
        if (a->name_.rfind("--", 0) == 0) {
            options += line(a->name_ + (a->flag_ ? "" : " " + a->value_), text);
        } else {
            const std::string shown = a->name_ + (a->many_ ? "..." : "");
            usage += " " + (a->required_ ? shown : "[" + shown + "]");
            positionals += line(shown + " " + a->value_, text);
        }
    }
    std::string h = wrap(about_, HelpWidth) + "\n" + usage + "\n";
    if (!positionals.empty()) h += "\nPositionals:\n" + positionals;
    return h + "\nOptions:\n" + options;
}

Filter game_name() {
    return {"", [](std::string& name) -> std::string {
                if (find_variant(name)) return {};
                std::string games;
                for (const std::string& n : variant_names())
                    games += (games.empty() ? "" : ", ") + n;
                return "unknown game '" + name + "' (the games: " + games + ")";
            }};
}

Filter int_in(long long lo, long long hi) {
    const std::string range = std::to_string(lo) + " to " + std::to_string(hi);
    return {range, [=](std::string& text) -> std::string {
                const auto v = whole<long long>(text);
                if (v && *v >= lo && *v <= hi) return {};
                return "must be a whole number from " + range + ", not '" + text + "'";
            }};
}

Filter clamped(long long lo, long long hi, std::string describe) {
    if (describe.empty())
        describe = "brought within " + std::to_string(lo) + " to " + std::to_string(hi);
    return {describe, [=](std::string& text) -> std::string {
                if (auto v = whole<long long>(text))
                    text = std::to_string(std::clamp(*v, lo, hi));
                else if (digits(text))
                    text = std::to_string(text[0] == '-' ? lo : hi);
                return {}; // a word that is no number is refused by the conversion
            }};
}

Filter real_in(double lo, double hi, bool openLo, bool openHi) {
    std::string words = std::string("a number ") + (openLo ? "above " : "from ") + number_text(lo);
    words += openHi ? ", below " : openLo ? ", at most " : " to ";
    words += number_text(hi);
    return {words.substr(9), [=](std::string& input) -> std::string {
                const auto v = real(input);
                const bool ok = v && (openLo ? *v > lo : *v >= lo) && (openHi ? *v < hi : *v <= hi);
                return ok ? std::string() : "must be " + words + ", not '" + input + "'";
            }};
}

Filter existing_file() {
    return {"", [](std::string& path) -> std::string {
                std::error_code ec;
                if (std::filesystem::is_regular_file(path, ec)) return {};
                return "no such file: '" + path + "'";
            }};
}

} // namespace khun::tools
