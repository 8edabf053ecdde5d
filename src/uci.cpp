#include "khun/uci.h"

#include "khun/movegen.h"
#include "khun/perft.h"

#include <iostream>
#include <sstream>

namespace khun {

void Uci::error(const std::string& msg) { out << "info string error: " << msg << std::endl; }

void Uci::loop(std::istream& in) {
    std::string line;
    while (std::getline(in, line))
        if (!command(line)) return;
}

bool Uci::command(const std::string& line) {
    std::istringstream is(line);
    std::string token;
    if (!(is >> token)) return true;

    if (token == "quit") return false;
    if (token == "uci") {
        out << "id name Khun " << KHUN_VERSION << "\nid author the Khun developers\n"
            << "option name UCI_Variant type combo default makruk var makruk\nuciok" << std::endl;
    } else if (token == "isready")
        out << "readyok" << std::endl;
    else if (token == "ucinewgame") {
    } else if (token == "position")
        cmd_position(is);
    else if (token == "go")
        cmd_go(is);
    else if (token == "d")
        out << engine.position().pretty() << std::flush;
    else
        error("unknown command '" + token + "'");
    return true;
}

void Uci::cmd_position(std::istringstream& is) {
    std::string token, fen;
    is >> token;
    if (token == "startpos") {
        is >> token;
    } else if (token == "fen") {
        while (is >> token && token != "moves") fen += (fen.empty() ? "" : " ") + token;
        if (fen.empty()) return error("position fen needs a FEN");
    } else
        return error("position needs 'startpos' or 'fen', got '" + token + "'");
    std::vector<std::string> moves;
    if (token == "moves")
        while (is >> token) moves.push_back(token);
    if (auto err = engine.set_position(fen, moves)) error(*err + "; position unchanged");
}

void Uci::cmd_go(std::istringstream& is) {
    std::string token;
    while (is >> token) {
        if (token == "perft") {
            int depth = 0;
            if (!(is >> depth) || depth < 1 || depth > 30)
                return error("go perft needs a depth from 1 to 30");
            out << perft_report(engine.position(), depth) << std::flush;
            return;
        }
    }
    error("search is not available yet");
}

} // namespace khun
