// The UCI dialect: the shared command layer (command.h) in UCI's own notation, plus
// `debug`, `register` and `bench`.
#pragma once

#include "khun/protocol/command.h"

#include <iosfwd>
#include <string>

namespace khun::protocol {

extern const Notation UciNotation;

class Uci : public protocol::Session {
  public:
    Uci(Engine& engine, std::ostream& out) : Session(engine, out, protocol::UciNotation) {}

  protected:
    bool dialect_command(const std::string& token, std::istringstream& is) override;

  private:
    void cmd_bench(std::istringstream& is);
};

} // namespace khun::protocol
