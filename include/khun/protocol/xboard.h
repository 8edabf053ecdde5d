// The CECP (xboard / WinBoard protocol 2) dialect: `xboard`, `protover 2` and its feature
// list, `new`, `variant`, `setboard`, `usermove`, `go`, `force`, `playother`, `?`, `ping`,
// `level`, `st`, `sd`, `time`, `otim`, `analyze`/`exit`, `undo`, `remove`, `result`,
// `post`/`nopost`, `memory`, `cores`, `option`, `quit`.
//
// CECP keeps the game in the engine: the dialect plays each move on the Engine's game.
// A game search runs in the background and announces "move X" from the search thread;
// the move is played on the game by the reading thread before it handles its next
// command, so the game is only ever touched by one thread.
#pragma once

#include "khun/protocol/engine.h"
#include "khun/protocol/text.h"

#include <atomic>
#include <iosfwd>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>

namespace khun::protocol {

class XBoard {
  public:
    XBoard(Engine& engine, std::ostream& out) : engine(engine), writer(out) {}
    // Handles one line; false once the loop should end (quit).
    bool command(const std::string& line);
    // Reads lines until quit or end of input.
    void loop(std::istream& in);

  private:
    enum class Search { None, Game, Analysis };

    void features();
    void set_variant(const std::string& name);
    // Stops any search (its move discarded when `abort`) and plays a move it announced.
    void finish_search(bool abort);
    // Plays a move a finished search announced, if the search is over.
    void settle();
    void think();   // a game search for the side to move, or the result if the game is over
    void analyze(); // (re)starts the infinite analysis search
    void after_change();
    void thinking(const search::Info& i, const Position& pos);
    void user_move(const std::string& text);
    void level(std::istringstream& is);
    // protocol::number() with a note when the value had to be clamped.
    std::optional<long long> number(const std::string& what, const std::string& v, long long lo,
                                    long long hi);
    search::Limits game_limits() const;
    void send(const std::string& s) { writer.send(s); }

    Engine& engine;
    protocol::Writer writer;

    // Shared with the search thread's callbacks.
    std::mutex mutex;
    Search searching = Search::None;
    bool aborted = false;
    Move pending = Move::none();

    // Game state the GUI sets.
    bool force = false;
    Color engineColor = BLACK; // the side the engine plays when not in force mode
    bool analyzing = false;
    std::atomic<bool> post{true}; // thinking output (read by the search thread)
    // Time control: level MPS BASE INC, st, sd; time/otim report the clocks.
    int movesPerSession = 0;
    long long baseMs = 0, incMs = 0, moveTimeMs = 0;
    bool haveLevel = false;
    int depthLimit = 0;
    long long ownClockMs = -1, oppClockMs = -1;
};

} // namespace khun::protocol
