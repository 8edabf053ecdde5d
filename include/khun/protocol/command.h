// The command layer UCI and USI share: `go` parsed into search::Limits, `position`,
// `setoption`, the option list, and the info/currmove/bestmove reports. A dialect is a
// Notation (how squares, moves, scores, option names and colours are written) plus the
// few commands only it has.
#pragma once

#include "khun/protocol/engine.h"
#include "khun/protocol/text.h"

#include <iosfwd>
#include <optional>
#include <sstream>
#include <string>

namespace khun::protocol {

struct Notation {
    const char* hello;   // the handshake command, answered with id, options and `ok`
    const char* ok;      // "uciok"
    const char* newGame; // "ucinewgame"
    const char* afterId; // what follows the `id author` line before the options
    // Move text from the engine's (UCI) form to the dialect's, and back.
    std::string (*move_out)(const std::string& uci);
    std::string (*move_in)(const std::string& text);
    std::string (*score)(Value v);
    std::string (*option_name)(const std::string& name);
    char whiteLetter;   // the first letter of go's wtime/winc for White ('b' in USI)
    const char* noMove; // what bestmove says when there is no legal move
    bool tbhits;        // info lines report tbhits
    bool searchmoves;   // go accepts searchmoves
    bool byoyomi;       // go accepts byoyomi
    bool wdl;           // UCI_ShowWDL is listed and adds `wdl W D L` to the info lines
    // `position sfen <sfen>`: the FEN an SFEN stands for (nullopt with `error` set when
    // malformed); nullptr in a dialect without SFEN.
    std::optional<std::string> (*sfen_to_fen)(const std::string& sfen, std::string& error);
};

// The text as it is: the move and option-name translation of a dialect that needs none.
[[nodiscard]] inline std::string as_is(const std::string& text) { return text; }

// "cp 35" or "mate -3" (mate in moves).
[[nodiscard]] std::string uci_score(Value v);

// One session of a UCI-like dialect.
class Session {
  public:
    Session(Engine& engine, std::ostream& out, const Notation& notation)
        : engine(engine), notation(notation), writer(out) {}
    virtual ~Session() = default;
    // Handles one line; false once the loop should end (quit).
    bool command(const std::string& line);
    // Reads lines until quit or end of input.
    void loop(std::istream& in);

  protected:
    // A command only this dialect has; false when `token` is none.
    virtual bool dialect_command(const std::string& token, std::istringstream& is) {
        (void)token, (void)is;
        return false;
    }
    // What `d` shows.
    [[nodiscard]] virtual std::string board() const;
    void send(const std::string& text) { writer.send(text); }
    void error(const std::string& msg) { send("info string error: " + msg); }
    // False, with an error, when a search runs: `what` needs the position to itself.
    bool idle(const std::string& what);

    Engine& engine;
    const Notation& notation;

  private:
    void hello();
    void cmd_setoption(std::istringstream& is);
    void cmd_position(std::istringstream& is);
    void cmd_go(std::istringstream& is);
    // Reads the next token of `go` as a number for `what`; false (with an error) if none.
    bool go_number(std::istringstream& is, const std::string& what, long long lo, long long hi,
                   long long& dst);
    void perft(int depth);
    [[nodiscard]] search::Listener reporter();

    Writer writer;
};

} // namespace khun::protocol
