// The tools' one command-line convention: `khun <tool> [SUBJECT...] [--name value]...`,
// parsed by CLI11. Each tool describes its options on a CLI::App named "khun <tool>" and
// hands it the words after the tool's name to parse_args(), which prints the generated
// help for --help and turns every parse error into one line on stderr and exit code 2.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace khun::tools {

// The exit code for a command line the tool cannot run with.
constexpr int BadArguments = 2;

// Parses `args` (the words after the tool's name) into `app`'s options. Returns nothing
// when the tool should go on; otherwise the code to exit with: 0 after printing the help
// to `out` (-h, --help), BadArguments after one line on `err` naming the tool, what was
// wrong and where the help is ("khun datagen: --threads: Value x could not be converted;
// see khun datagen --help").
[[nodiscard]] std::optional<int> parse_args(CLI::App& app, const std::vector<std::string>& args,
                                            std::ostream& out, std::ostream& err);

// Checks that an option names a game of the variant table (variant.h), as the protocols'
// UCI_Variant spells it; the error lists the games.
[[nodiscard]] CLI::Validator game_name();

// Checks that an option is a number from `lo` to `hi`; `openLo` / `openHi` leave that end
// itself out. The error says the range in words ("a number above 0 and at most 10").
[[nodiscard]] CLI::Validator real_in(double lo, double hi, bool openLo = false,
                                     bool openHi = false);

} // namespace khun::tools
