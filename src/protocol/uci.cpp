#include "khun/protocol/uci.h"

#include "khun/protocol/bench.h"

#include <sstream>

namespace khun::protocol {

const Notation UciNotation = [] {
    Notation n{};
    n.hello = "uci";
    n.ok = "uciok";
    n.newGame = "ucinewgame";
    n.afterId = "";
    n.move_out = n.move_in = n.option_name = as_is;
    n.score = uci_score;
    n.whiteLetter = 'w';
    n.noMove = "(none)";
    n.tbhits = true;
    n.searchmoves = true;
    n.byoyomi = false;
    n.wdl = true;
    n.sfen_to_fen = nullptr;
    return n;
}();

bool Uci::dialect_command(const std::string& token, std::istringstream& is) {
    if (token == "debug" || token == "register") return true; // nothing to do here
    if (token != "bench") return false;
    if (idle("'bench'")) cmd_bench(is);
    return true;
}

void Uci::cmd_bench(std::istringstream& is) {
    using protocol::number;
    std::string a, b, c;
    is >> a >> b >> c;
    auto given = [](const std::string& s, int fallback) {
        return s.empty() ? std::to_string(fallback) : s;
    };
    auto hash = number(given(a, BenchDefaults::HashMb), 1, 1 << 16);
    auto threads = number(given(b, BenchDefaults::Threads), 1, 512);
    auto depth = number(given(c, BenchDefaults::Depth), 1, 64);
    if (!hash || !threads || !depth) return error("bench [hash MB] [threads] [depth]");
    std::ostringstream os;
    run_bench(engine, os, int(*hash), int(*threads), int(*depth));
    std::string s = os.str();
    s.pop_back();
    send(s);
}

} // namespace khun::protocol
