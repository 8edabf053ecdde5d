#include "khun/engine.h"

#include "khun/movegen.h"
#include "khun/tb.h"

#include <algorithm>
#include <cctype>

namespace khun {

namespace {

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::optional<long long> parse_int(const std::string& s) {
    if (s.empty() || s.size() > 18) return std::nullopt;
    size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
    if (i == s.size()) return std::nullopt;
    long long v = 0;
    for (; i < s.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
        v = v * 10 + (s[i] - '0');
    }
    return s[0] == '-' ? -v : v;
}

} // namespace

Engine::Engine()
    : base(&default_variant()), active(default_variant()),
      searcher(std::make_unique<search::Searcher>(tt)) {
    Position::init();
    using T = EngineOption::Type;
    opts = {
        {"Threads", T::Spin, "1", 1, 512, {}, ""},
        {"Hash", T::Spin, "16", 1, 1 << 20, {}, ""},
        {"Clear Hash", T::Button, "", 0, 0, {}, ""},
        {"Ponder", T::Check, "false", 0, 0, {}, ""},
        {"MultiPV", T::Spin, "1", 1, 500, {}, ""},
        {"Move Overhead", T::Spin, "10", 0, 5000, {}, ""},
        {"UCI_Chess960", T::Check, "false", 0, 0, {}, ""},
        {"UCI_Variant", T::Combo, default_variant().name, 0, 0, variant_names(), ""},
        // Where the bare-king mate tables are cached; <default> is ~/.cache/khun (or
        // $XDG_CACHE_HOME/khun), <empty> keeps them in memory only.
        {"TablebasePath", T::String, "<default>", 0, 0, {}, ""},
        // The seed's sutras (README "Sutras"): makruk house rules, off by default.
        {"SutKhun", T::Check, "false", 0, 0, {}, ""},
        {"SutMet", T::Check, "false", 0, 0, {}, ""},
        {"SutMa", T::Check, "false", 0, 0, {}, ""},
    };
    for (auto& o : opts) o.value = o.defaultValue;
    set_variant(*base);
}

Engine::~Engine() {
    stop();
    wait();
    if (tbLoader.joinable()) tbLoader.join();
}

// Near a bare-king ending, load (or build) the tables the search will meet, in the
// background: the first build of a table takes about a second, which the clock must not
// pay. The search probes only tables already in memory.
void Engine::warm_tablebases() {
    const Position& pos = game->pos;
    if (pos.pieces(PAWN) || !pos.variant().bareKingTables || pos.pieces(AIWOK)) return;
    std::vector<std::string> wanted;
    static const char Letters[] = " PNSMRAK";
    for (Color strong : {WHITE, BLACK}) {
        const int n = pos.count(strong) - 1;
        if (n < 1 || n > 2 || pos.count(~strong) > 3) continue;
        std::string m = "K";
        for (Bitboard b = pos.pieces(strong) & ~pos.pieces(KING); b;)
            m += Letters[type_of(pos.piece_on(pop_lsb(b)))];
        wanted.push_back(m + "K");
    }
    if (wanted.empty() || loadingTables) return;
    if (tbLoader.joinable()) tbLoader.join();
    loadingTables = true;
    tbLoader = std::thread([this, wanted] {
        for (const std::string& m : wanted) tb::load(m);
        loadingTables = false;
    });
}

void Engine::set_variant(const Variant& v) {
    stop();
    wait();
    base = &v;
    apply_sutras();
}

// Rebuilds the active game from the chosen variant and the sutra options, and starts
// it from its start position (the positions of the old game point at `active`).
void Engine::apply_sutras() {
    game.reset();
    active = with_sutras(*base, option("SutKhun") == "true", option("SutMet") == "true",
                         option("SutMa") == "true");
    std::string err;
    game = Game::make(active.startFen, {}, active, err);
}

void Engine::play(Move m) {
    stop();
    wait();
    game->play(m);
}

bool Engine::undo() {
    stop();
    wait();
    return game->undo();
}

std::optional<std::string> Engine::set_position(const std::string& fen,
                                                const std::vector<std::string>& moves) {
    // The search reads the game's state chain: never replace it under a running search.
    stop();
    wait();
    std::string err;
    auto g = Game::make(fen.empty() ? active.startFen : fen, moves, active, err);
    if (!g) return err;
    game = std::move(g);
    return std::nullopt;
}

std::string Engine::option(const std::string& name) const {
    for (auto& o : opts)
        if (lower(o.name) == lower(name)) return o.value;
    return "";
}

OptionResult Engine::set_option(const std::string& name, const std::string& value) {
    OptionResult r;
    auto it = std::find_if(opts.begin(), opts.end(),
                           [&](const EngineOption& o) { return lower(o.name) == lower(name); });
    if (it == opts.end()) {
        r.note = "unknown option '" + name + "' ignored";
        return r;
    }
    EngineOption& o = *it;
    std::string v = value;
    switch (o.type) {
    case EngineOption::Type::Spin: {
        auto n = parse_int(value);
        if (!n) {
            r.error = "option '" + o.name + "' needs a number from " + std::to_string(o.min) +
                      " to " + std::to_string(o.max) + ", not '" + value + "'";
            return r;
        }
        long long c = std::clamp(*n, o.min, o.max);
        if (c != *n)
            r.note = "option '" + o.name + "' value " + value + " clamped to " + std::to_string(c);
        v = std::to_string(c);
        break;
    }
    case EngineOption::Type::Check:
        v = lower(value);
        if (v != "true" && v != "false") {
            r.error = "option '" + o.name + "' needs true or false, not '" + value + "'";
            return r;
        }
        break;
    case EngineOption::Type::Combo: {
        auto m = std::find_if(o.vars.begin(), o.vars.end(),
                              [&](const std::string& x) { return lower(x) == lower(value); });
        if (m == o.vars.end()) {
            r.error = "option '" + o.name + "' has no value '" + value + "'";
            return r;
        }
        v = *m;
        break;
    }
    default: break;
    }

    const bool sutra = o.name == "SutKhun" || o.name == "SutMet" || o.name == "SutMa";
    if (o.name == "Hash" || o.name == "Clear Hash" || o.name == "Threads" ||
        o.name == "UCI_Variant" || sutra) {
        stop();
        wait();
    }
    if (o.name == "Hash") {
        if (!tt.resize(size_t(std::stoll(v)))) {
            r.error = "cannot allocate " + v + " MB for the hash table; keeping " +
                      std::to_string(tt.size_mb()) + " MB";
            return r;
        }
    } else if (o.name == "Clear Hash") {
        tt.clear();
    } else if (o.name == "UCI_Variant") {
        set_variant(*find_variant(v));
    } else if (sutra) {
        // A sutra changes the game: it starts again from its start position.
        const bool changed = o.value != v;
        o.value = v;
        if (changed) apply_sutras();
        if (v == "true" && !base->sutraHouseRules)
            r.note =
                "the sutras are makruk house rules; " + o.name + " has no effect in " + base->name;
        return r;
    } else if (o.name == "TablebasePath") {
        if (v != "<default>") tb::set_cache_dir(v == "<empty>" ? "" : v);
    } else if (o.name == "UCI_Chess960" && v == "true") {
        r.note = "UCI_Chess960 has no meaning in the Makruk family; ignored";
    }
    o.value = v;
    return r;
}

void Engine::go(search::Limits limits, search::Listener listener) {
    stop();
    wait();
    search::Options so;
    so.threads = std::stoi(option("Threads"));
    so.multiPV = std::stoi(option("MultiPV"));
    so.moveOverhead = std::stoi(option("Move Overhead"));
    warm_tablebases();
    searcher->start(game->pos, limits, so, std::move(listener));
}

void Engine::stop() { searcher->stop(); }
void Engine::ponderhit() { searcher->ponderhit(); }
void Engine::wait() { searcher->wait(); }

void Engine::new_game() {
    stop();
    wait();
    tt.clear();
    searcher->clear();
}

Engine::Thought Engine::think(search::Limits limits) {
    Thought t{Move::none(), VALUE_ZERO};
    search::Listener l;
    l.info = [&t](const search::Info& i) {
        if (i.multipv == 1 && i.bound == BOUND_EXACT) t.score = i.score;
    };
    l.bestmove = [&t](Move best, Move) { t.best = best; };
    limits.start = now();
    go(limits, l);
    wait();
    return t;
}

uint64_t Engine::search_nodes(const std::string& fen, int depth, search::Listener listener) {
    if (auto err = set_position(fen, {})) return 0;
    search::Limits limits;
    limits.depth = depth;
    // Bench is the build's signature: the tables must be in memory before the search
    // starts, not arrive part-way through it.
    warm_tablebases();
    if (tbLoader.joinable()) tbLoader.join();
    limits.start = now();
    go(limits, std::move(listener));
    wait();
    return searcher->nodes();
}

} // namespace khun
