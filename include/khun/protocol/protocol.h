// Picks the protocol dialect a session speaks from its first command (`uci`, `usi`,
// `xboard`; anything else is UCI) and runs it. The small parsers the dialects share are
// in text.h.
#pragma once

#include "khun/protocol/engine.h"

#include <iosfwd>
#include <string>

namespace khun::protocol {

// Reads commands from `in` until quit or end of input, answering on `out`.
void run(std::istream& in, std::ostream& out);
// The same session on an engine the caller owns (the fuzz targets reuse one).
void run(std::istream& in, std::ostream& out, Engine& engine);
// A session in the dialect named (`uci`, `usi` or `xboard`) from its start, before any
// command: for a GUI set up to start the engine with its protocol's name as an argument
// (`khun xboard`). The GUI's own handshake is then answered as it comes.
void run(std::istream& in, std::ostream& out, const std::string& dialect);

} // namespace khun::protocol
