// Picks the protocol dialect a session speaks from its first command (`uci`, `usi`,
// `xboard`; anything else is UCI) and runs it. The small parsers the dialects share are
// in text.h.
#pragma once

#include "khun/protocol/engine.h"

#include <iosfwd>
#include <string>

namespace khun::protocol {

// Reads commands from `in` until quit or end of input, answering on `out`. With a dialect
// named (`uci`, `usi` or `xboard`) the session speaks it from its start, before any
// command: for a GUI set up to start the engine with its protocol's name as an argument
// (`khun xboard`); the GUI's own handshake is then answered as it comes.
void run(std::istream& in, std::ostream& out, const std::string& dialect = "");
// The same session, its dialect chosen by the first command, on an engine the caller owns
// (the fuzz targets reuse one).
void run(std::istream& in, std::ostream& out, Engine& engine);

} // namespace khun::protocol
