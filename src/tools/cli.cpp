#include "khun/tools/cli.h"
#include "khun/rules/variant.h"

#include <ostream>
#include <sstream>

namespace khun::tools {

namespace {

// The help's width: CLI11 prints each description on one line however long it is.
constexpr size_t HelpWidth = 88;

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

} // namespace

std::optional<int> parse_args(CLI::App& app, const std::vector<std::string>& args,
                              std::ostream& out, std::ostream& err) {
    // CLI11 takes the words last first.
    std::vector<std::string> words(args.rbegin(), args.rend());
    try {
        app.parse(words);
        return std::nullopt;
    } catch (const CLI::Success&) { // -h, --help
        app.description(wrap(app.get_description(), HelpWidth));
        // Option descriptions start at the formatter's column (30).
        const size_t column = app.get_formatter()->get_column_width();
        for (CLI::Option* o : app.get_options())
            o->description(wrap(o->get_description(), HelpWidth - column));
        out << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        // One line, whatever CLI11 put in the message: scripts grep stderr line by line.
        std::string why = e.what();
        for (char& c : why)
            if (c == '\n') c = ' ';
        err << app.get_name() << ": " << why << "; see " << app.get_name() << " --help\n";
        return BadArguments;
    }
}

CLI::Validator game_name() {
    return CLI::Validator(
        [](std::string& name) -> std::string {
            if (find_variant(name)) return {};
            std::string games;
            for (const std::string& n : variant_names()) games += (games.empty() ? "" : ", ") + n;
            return "unknown game '" + name + "' (the games: " + games + ")";
        },
        "GAME");
}

CLI::Validator real_in(double lo, double hi, bool openLo, bool openHi) {
    const auto text = [](double v) {
        std::ostringstream s;
        s << v;
        return s.str();
    };
    const std::string range =
        std::string(openLo ? "(" : "[") + text(lo) + ", " + text(hi) + (openHi ? ")" : "]");
    std::string words = std::string("a number ") + (openLo ? "above " : "from ") + text(lo);
    words += openHi ? ", below " : openLo ? ", at most " : " to ";
    words += text(hi);
    return CLI::Validator(
        [=](std::string& input) -> std::string {
            double v = 0;
            const bool ok = CLI::detail::lexical_cast(input, v) && (openLo ? v > lo : v >= lo) &&
                            (openHi ? v < hi : v <= hi);
            return ok ? std::string() : "must be " + words + ", not '" + input + "'";
        },
        range);
}

} // namespace khun::tools
