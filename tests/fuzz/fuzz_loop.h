// The command-loop targets: one session of a dialect, driven by the input as the text a
// GUI sends, through the binary's own entry point (protocol::run, which picks the dialect
// from the first line and runs its loop). Searches run on their own thread as in the
// binary; the end of input stops them as end of file does, and fuzz::tame() keeps
// expensive requests small.
//
// One Engine serves every input (building one costs a 16 MB hash table, which would
// slow the fuzzer tenfold); before each input it is put back to a new engine's state:
// default options (but a 1 MB hash, which clears fast), the default game at its start
// position, hash and history cleared.
#pragma once

#include "fuzz_common.h"

#include "khun/protocol/engine.h"
#include "khun/protocol/protocol.h"

#include <sstream>

inline void reset(khun::protocol::Engine& engine) {
    using khun::protocol::EngineOption;
    for (const EngineOption& o : engine.options()) {
        const std::string want = o.name == "Hash" ? "1" : o.defaultValue;
        if (o.type != EngineOption::Type::Button && o.value != want)
            engine.set_option(o.name, want);
    }
    engine.set_variant(khun::default_variant());
    engine.new_game();
}

inline int fuzz_session(const char* opener, const uint8_t* data, size_t size) {
    fuzz::init();
    static khun::protocol::Engine* engine =
        new khun::protocol::Engine; // lives as long as the fuzzer
    reset(*engine);
    std::istringstream in(std::string(opener) + "\n" + fuzz::tamed_session(fuzz::text(data, size)));
    std::ostringstream out;
    khun::protocol::run(in, out, *engine);
    if (engine->searching()) fuzz::fail("a search still runs after the session ended");
    return 0;
}
