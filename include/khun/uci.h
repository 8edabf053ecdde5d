// The UCI dialect: reads commands, turns them into Engine calls, prints the replies.
#pragma once

#include "khun/engine.h"

#include <iosfwd>
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
    void error(const std::string& msg);

    Engine& engine;
    std::ostream& out;
};

} // namespace khun
