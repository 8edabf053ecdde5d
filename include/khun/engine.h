// The one facade the protocol dialects talk to: the game being played, the options, and
// (from the search layer) the search control. Dialects only parse text and print replies.
#pragma once

#include "khun/position.h"
#include "khun/variant.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace khun {

class Engine {
  public:
    Engine();

    const Variant& variant() const { return *var; }
    // Switches game; the position becomes that game's start position.
    void set_variant(const Variant& v);

    // Replaces the position with `fen` (or the variant's start when empty) plus `moves`.
    // On error returns the message and keeps the previous position.
    std::optional<std::string> set_position(const std::string& fen,
                                            const std::vector<std::string>& moves);
    Position& position() { return game->pos; }
    const Position& position() const { return game->pos; }

  private:
    const Variant* var;
    std::unique_ptr<Game> game;
};

} // namespace khun
