// The USI dialect, as Fairy-Stockfish speaks it for the Makruk family: `usi`/`usiok`,
// `usinewgame`, `position sfen|startpos`, `go btime wtime byoyomi binc winc`, `bestmove`.
// Squares are written the shogi way (file digit 1-8 from the right, rank letter a-h from
// the top: e3 is "4f"); "btime" and "b" in an SFEN mean the side that moves first
// (White); SFEN carries no counting state and no first-move rights.
#pragma once

#include "khun/engine.h"
#include "khun/protocol.h"

#include <iosfwd>
#include <sstream>
#include <string>

namespace khun {

// Square and move text between USI and UCI ("4f4e" <-> "e3e4"; a promotion suffix is
// kept). Returns the input unchanged when it is not a move.
std::string usi_to_uci(const std::string& move);
std::string uci_to_usi(const std::string& move);
// The SFEN of a position ("<board> b - 1"), and the FEN an SFEN stands for (nullopt
// with `error` set when it is malformed).
std::string to_sfen(const Position& pos);
std::optional<std::string> sfen_to_fen(const std::string& sfen, std::string& error);
// USI option names: Hash, Ponder and MultiPV get "USI_", UCI_ becomes USI_, spaces become
// underscores.
std::string usi_option_name(const std::string& name);

class Usi {
  public:
    Usi(Engine& engine, std::ostream& out) : engine(engine), writer(out) {}
    // Handles one line; false once the loop should end (quit).
    bool command(const std::string& line);
    // Reads lines until quit or end of input.
    void loop(std::istream& in);

  private:
    void cmd_usi();
    void cmd_position(std::istringstream& is);
    void cmd_go(std::istringstream& is);
    void cmd_setoption(std::istringstream& is);
    void error(const std::string& msg) { writer.send("info string error: " + msg); }

    Engine& engine;
    protocol::Writer writer;
};

} // namespace khun
