// The USI dialect, as Fairy-Stockfish speaks it for the Makruk family: `usi`/`usiok`,
// `usinewgame`, `position sfen|startpos`, `go btime wtime byoyomi binc winc`, `bestmove`.
// Squares are written the shogi way (file digit 1-8 from the right, rank letter a-h from
// the top: e3 is "4f"); "btime" and "b" in an SFEN mean the side that moves first
// (White); SFEN carries no counting state and no first-move rights.
#pragma once

#include "khun/protocol/command.h"

#include <iosfwd>
#include <sstream>
#include <string>

namespace khun::protocol {

// Square and move text between USI and UCI ("4f4e" <-> "e3e4"; a promotion suffix is
// kept). Returns the input unchanged when it is not a move.
[[nodiscard]] std::string usi_to_uci(const std::string& move);
[[nodiscard]] std::string uci_to_usi(const std::string& move);
// The SFEN of a position ("<board> b - 1"), and the FEN an SFEN stands for (nullopt
// with `error` set when it is malformed).
[[nodiscard]] std::string to_sfen(const Position& pos);
[[nodiscard]] std::optional<std::string> sfen_to_fen(const std::string& sfen, std::string& error);
// USI option names: Hash, Ponder and MultiPV get "USI_", UCI_ becomes USI_, spaces become
// underscores.
[[nodiscard]] std::string usi_option_name(const std::string& name);

extern const Notation UsiNotation;

// UCI's command layer in USI's notation, plus `gameover`; `d` also shows the SFEN.
class Usi : public protocol::Session {
  public:
    Usi(Engine& engine, std::ostream& out) : Session(engine, out, protocol::UsiNotation) {}

  protected:
    bool dialect_command(const std::string& token, std::istringstream& is) override;
    [[nodiscard]] std::string board() const override;
};

} // namespace khun::protocol
