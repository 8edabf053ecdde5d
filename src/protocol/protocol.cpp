#include "khun/protocol/protocol.h"

#include "khun/protocol/uci.h"
#include "khun/protocol/usi.h"
#include "khun/protocol/xboard.h"

#include <sstream>

namespace khun::protocol {

void run(std::istream& in, std::ostream& out) {
    // Reading std::cin flushes the stream tied to it, std::cout, from this thread while a
    // search thread may be writing to it. Every reply is flushed as it is written (under
    // the dialect's lock), so the tie has nothing to do but race.
    in.tie(nullptr);
    Engine engine;
    run(in, out, engine);
}

void run(std::istream& in, std::ostream& out, Engine& engine) {
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream is(line);
        std::string first;
        if (!(is >> first)) continue;
        if (first == "usi") {
            Usi usi(engine, out);
            if (usi.command(line)) usi.loop(in);
        } else if (first == "xboard") {
            XBoard xb(engine, out);
            if (xb.command(line)) xb.loop(in);
        } else {
            Uci uci(engine, out);
            if (uci.command(line)) uci.loop(in);
        }
        return;
    }
}

} // namespace khun::protocol
