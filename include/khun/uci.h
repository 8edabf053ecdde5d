// The UCI dialect: reads commands, turns them into Engine calls, prints the replies.
// Replies from the search thread and from this one go through one locked writer.
#pragma once

#include "khun/engine.h"

#include <iosfwd>
#include <mutex>
#include <string>

namespace khun {

class Uci {
  public:
    Uci(Engine& engine, std::ostream& out) : engine(engine), out(out) {}
    // Handles one line; false once the loop should end (quit).
    bool command(const std::string& line);
    // Reads lines until quit or end of input.
    void loop(std::istream& in);

  private:
    void cmd_position(std::istringstream& is);
    void cmd_go(std::istringstream& is);
    void cmd_setoption(std::istringstream& is);
    void cmd_bench(std::istringstream& is);
    void error(const std::string& msg);
    void send(const std::string& text);

    Engine& engine;
    std::ostream& out;
    std::mutex outMutex;
};

} // namespace khun
