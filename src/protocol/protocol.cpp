#include "khun/protocol/protocol.h"

#include "khun/protocol/uci.h"
#include "khun/protocol/usi.h"
#include "khun/protocol/xboard.h"

#include <sstream>

namespace khun::protocol {

namespace {

// Runs the dialect named (anything but `usi` and `xboard` is UCI) until quit or end of
// input, first answering `firstLine` when there is one.
void speak(const std::string& dialect, Engine& engine, std::istream& in, std::ostream& out,
           const std::string* firstLine) {
    auto session = [&](auto&& s) {
        if (!firstLine || s.command(*firstLine)) s.loop(in);
    };
    if (dialect == "usi")
        session(Usi(engine, out));
    else if (dialect == "xboard")
        session(XBoard(engine, out));
    else
        session(Uci(engine, out));
}

} // namespace

void run(std::istream& in, std::ostream& out, const std::string& dialect) {
    // Reading std::cin flushes the stream tied to it, std::cout, from this thread while a
    // search thread may be writing to it. Every reply is flushed as it is written (under
    // the dialect's lock), so the tie has nothing to do but race.
    in.tie(nullptr);
    Engine engine;
    if (dialect.empty())
        run(in, out, engine);
    else
        speak(dialect, engine, in, out, nullptr);
}

void run(std::istream& in, std::ostream& out, Engine& engine) {
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream is(line);
        std::string first;
        if (!(is >> first)) continue;
        speak(first, engine, in, out, &line);
        return;
    }
}

} // namespace khun::protocol
