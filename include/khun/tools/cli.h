// The tools' one command-line convention: `khun <tool> [SUBJECT...] [--name value]...`.
// Each tool describes its arguments on a CommandLine named "khun <tool>" and hands it the
// words after the tool's name to parse(), which prints the help for -h / --help and turns
// every refusal into one line on stderr and exit code 2. Written here rather than taken
// from a library so that the engine and its tools build with a compiler and CMake alone.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace khun::tools {

// The exit code for a command line the tool cannot run with.
constexpr int BadArguments = 2;

// A test, or a change, of an argument's text before it is converted: `run` may rewrite the
// text (clamped() does) and returns why it is refused, or "" to let it through.
// `describe` is its part of the help ("1 to 30").
struct Filter {
    std::string describe;
    std::function<std::string(std::string&)> run;
};

// What one argument's text becomes: the parse into its field, "" or why not.
namespace detail {
std::string assign(const std::string& text, int& to);
std::string assign(const std::string& text, long long& to);
std::string assign(const std::string& text, uint64_t& to);
std::string assign(const std::string& text, float& to);
std::string assign(const std::string& text, double& to);
std::string assign(const std::string& text, std::string& to);
std::string assign(const std::string& text, std::vector<std::string>& to);
std::string value_text(int v);
std::string value_text(long long v);
std::string value_text(uint64_t v);
std::string value_text(double v);
std::string value_text(const std::string& v);
} // namespace detail

// One option (`--name VALUE`, a flag `--name`) or positional argument (`NAME`).
class Arg {
  public:
    // Refused when not given.
    Arg& required();
    Arg& check(Filter f);
    // Shows the field's value as the default in the help (call it before parse()).
    Arg& show_default();
    // Refused together with `other`.
    Arg& excludes(const Arg& other) {
        excludes_.push_back(&other);
        return *this;
    }
    [[nodiscard]] bool given() const { return count_ > 0; }

  private:
    friend class CommandLine;
    // Adds `what` to the help's parenthesis after the description.
    Arg& show(const std::string& what);
    std::string name_, value_, help_, shown_;
    bool flag_ = false, many_ = false, required_ = false;
    int count_ = 0;
    std::vector<Filter> filters_;
    std::vector<const Arg*> excludes_;
    std::function<std::string(const std::string&)> set_;
    std::function<std::string()> current_;
};

class CommandLine {
  public:
    // `name` is how the tool is called ("khun perft"); `about` opens its help.
    CommandLine(std::string name, std::string about);
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // An option when `name` starts with "--", else the next positional argument. A
    // vector field takes every remaining positional word (or every use of the option).
    template <typename T>
    Arg& add(const std::string& name, T& field, const std::string& help) {
        Arg& a = make(name, help, value_name<T>());
        a.many_ = std::is_same_v<T, std::vector<std::string>>;
        a.set_ = [&field](const std::string& text) { return detail::assign(text, field); };
        if constexpr (!std::is_same_v<T, std::vector<std::string>>) {
            a.current_ = [&field] {
                if constexpr (std::is_same_v<T, float>)
                    return detail::value_text(double(field));
                else
                    return detail::value_text(field);
            };
        }
        return a;
    }
    // `--name` with no value, setting `field` to true.
    Arg& flag(const std::string& name, bool& field, const std::string& help);

    // Reads `args` (the words after the tool's name) into the fields. Returns nothing when
    // the tool should go on; otherwise the code to exit with: 0 after printing the help to
    // `out` (-h, --help), BadArguments after one line on `err` naming the tool, what was
    // wrong and where the help is ("khun datagen: --threads: needs a value; see khun
    // datagen --help").
    [[nodiscard]] std::optional<int> parse(const std::vector<std::string>& args, std::ostream& out,
                                           std::ostream& err);
    [[nodiscard]] std::string help() const;

  private:
    template <typename T>
    static const char* value_name() {
        if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
            return "NUMBER";
        else if constexpr (std::is_integral_v<T>)
            return "INT";
        else
            return "TEXT";
    }
    Arg& make(const std::string& name, const std::string& help, const char* value);
    // Why `a` refuses `text`, or "" after storing it.
    std::string take(Arg& a, std::string text);

    std::string name_, about_;
    std::vector<std::unique_ptr<Arg>> args_;
};

// Filters for Arg::check().

// A game of the variant table (variant.h), as the protocols' UCI_Variant spells it; the
// error lists the games.
[[nodiscard]] Filter game_name();
// A whole number from `lo` to `hi`.
[[nodiscard]] Filter int_in(long long lo, long long hi);
// A whole number, brought within `lo` to `hi` rather than refused; `describe` replaces
// the help's "brought within lo to hi".
[[nodiscard]] Filter clamped(long long lo, long long hi, std::string describe = "");
// A number from `lo` to `hi`; `openLo` / `openHi` leave that end itself out. The error
// says the range in words ("a number above 0 and at most 10").
[[nodiscard]] Filter real_in(double lo, double hi, bool openLo = false, bool openHi = false);
// A file that exists.
[[nodiscard]] Filter existing_file();

} // namespace khun::tools
