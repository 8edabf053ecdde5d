// Picks the protocol dialect a session speaks from its first command (`uci`, `usi`,
// `xboard`; anything else is UCI) and runs it. The small parsers the dialects share are
// in text.h.
#pragma once

#include "khun/protocol/engine.h"

#include <iosfwd>

namespace khun::protocol {

// Reads commands from `in` until quit or end of input, answering on `out`.
void run(std::istream& in, std::ostream& out);
// The same session on an engine the caller owns (the fuzz targets reuse one).
void run(std::istream& in, std::ostream& out, Engine& engine);

} // namespace khun::protocol
