#include "khun/engine.h"

namespace khun {

Engine::Engine() : var(&default_variant()) {
    Position::init();
    set_variant(*var);
}

void Engine::set_variant(const Variant& v) {
    var = &v;
    std::string err;
    game = Game::make(v.startFen, {}, v, err);
}

std::optional<std::string> Engine::set_position(const std::string& fen,
                                                const std::vector<std::string>& moves) {
    std::string err;
    auto g = Game::make(fen.empty() ? var->startFen : fen, moves, *var, err);
    if (!g) return err;
    game = std::move(g);
    return std::nullopt;
}

} // namespace khun
