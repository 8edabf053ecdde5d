#include "khun/protocol/engine.h"

#include "khun/eval/tb.h"
#include "khun/rules/movegen.h"
#include "khun/search/search_params.h"

#include <algorithm>
#include <set>

namespace khun::protocol {

Engine::Engine()
    : base(&default_variant()), active(default_variant()),
      searcher(std::make_unique<search::Searcher>(tt)) {
    Position::init();
    add_options();
    set_variant(*base);
}

// Every option with what a change of it does. The search's own options (Threads,
// MultiPV, Move Overhead, the play levels) are read when a search starts.
void Engine::add_options() {
    using T = EngineOption::Type;
    using Change = decltype(EngineOption::onChange);
    using Typed = decltype(EngineOption::typed);
    auto add = [this](std::string name, T type, std::string def, long long min, long long max,
                      Typed typed = {}, std::vector<std::string> vars = {}, Change change = {},
                      bool hidden = false) {
        opts.add({std::move(name), type, std::move(def), min, max, std::move(vars), "",
                  std::move(change), hidden, typed});
    };
    // An option the engine reads through a field of `current`: its default is the value
    // the field starts with (Settings' and search::Options' initialisers, which nothing
    // has changed yet: this runs once, from the constructor), so it is written only there.
    auto bound = [&add](std::string name, T type, long long min, long long max, Typed typed,
                        Change change = {}) {
        std::string def;
        if (auto* i = std::get_if<int*>(&typed)) def = std::to_string(**i);
        if (auto* b = std::get_if<bool*>(&typed)) def = **b ? "true" : "false";
        add(std::move(name), type, std::move(def), min, max, typed, {}, std::move(change));
    };
    search::Options& so = current.search;
    bound("Threads", T::Spin, 1, 512, &so.threads,
          [this](const EngineOption&, const std::string&, OptionResult&) { finish(); });
    bound("Hash", T::Spin, 1, 1 << 20, &current.hashMb,
          [this](const EngineOption& o, const std::string&, OptionResult& r) {
              finish();
              if (!tt.resize(size_t(current.hashMb)))
                  r.error = "cannot allocate " + o.value + " MB for the hash table; keeping " +
                            std::to_string(tt.size_mb()) + " MB";
          });
    add("Clear Hash", T::Button, "", 0, 0, {}, {},
        [this](const EngineOption&, const std::string&, OptionResult&) {
            finish();
            tt.clear();
        });
    add("Ponder", T::Check, "false", 0, 0);
    bound("MultiPV", T::Spin, 1, 500, &so.multiPV);
    bound("Move Overhead", T::Spin, 0, 5000, &so.moveOverhead);
    // Play levels (skill.h), with Fairy-Stockfish's names, ranges and defaults, which
    // pychess.org sends: Skill Level (20 is full strength), or with UCI_LimitStrength on
    // a level from UCI_Elo.
    bound("Skill Level", T::Spin, -20, 20, &so.skillLevel);
    bound("UCI_LimitStrength", T::Check, 0, 0, &so.limitStrength);
    bound("UCI_Elo", T::Spin, 500, 2850, &so.elo);
    // Stockfish's names; what they do: search::Options::contempt.
    bound("Contempt", T::Spin, -100, 100, &so.contempt);
    bound("UCI_AnalyseMode", T::Check, 0, 0, &so.analyseMode);
    // Accepted (Cute Chess sends it) but hidden: a GUI that sees it offers Khun for
    // Fischer Random chess, which it cannot play.
    add(
        "UCI_Chess960", T::Check, "false", 0, 0, {}, {},
        [](const EngineOption& o, const std::string&, OptionResult& r) {
            if (o.value == "true")
                r.note = "UCI_Chess960 has no meaning in the Makruk family; ignored";
        },
        true);
    add("UCI_Variant", T::Combo, default_variant().name, 0, 0, {}, variant_names(),
        [this](const EngineOption& o, const std::string&, OptionResult&) {
            set_variant(*find_variant(o.value));
        });
    // Where the bare-king mate tables are cached; <default> is ~/.cache/khun (or
    // $XDG_CACHE_HOME/khun), <empty> keeps them in memory only.
    add("TablebasePath", T::String, "<default>", 0, 0, {}, {},
        [](const EngineOption& o, const std::string&, OptionResult&) {
            if (o.value != "<default>")
                eval::tb::set_cache_dir(o.value == "<empty>" ? "" : o.value);
        });
    // The seed's sutras (README "Sutras"): house rules of the games that have them, off
    // by default. A sutra changes the game: it starts again from its start position.
    auto sutra = [this](const EngineOption& o, const std::string& previous, OptionResult& r) {
        finish();
        if (o.value != previous) apply_sutras();
        if (o.value == "true" && !base->sutraHouseRules)
            r.note =
                "the sutras are makruk house rules; " + o.name + " has no effect in " + base->name;
    };
    bound("SutKhun", T::Check, 0, 0, &current.sutKhun, sutra);
    bound("SutMet", T::Check, 0, 0, &current.sutMet, sutra);
    bound("SutMa", T::Check, 0, 0, &current.sutMa, sutra);
    // Fairy-Stockfish's name: `wdl W D L` (wdl.h's model) after each UCI info score; read
    // when a search starts.
    bound("UCI_ShowWDL", T::Check, 0, 0, &current.showWdl);
    // The network (docs/nnue.md), Stockfish's names: a built-in net's name (the default:
    // makruk's) or `<default>` for each game's built-in net, or a net file's path for a
    // net that evaluates every game a net serves. A file that does not load is an error
    // and the net in use stays. The hash table is cleared with a change: its entries hold
    // the old net's scores.
    add("EvalFile", T::String, nnue::embedded_name(GameNet::Makruk), 0, 0, {}, {},
        [this](const EngineOption& o, const std::string& previous, OptionResult& r) {
            if (o.value == previous) return;
            finish();
            if (nnue::embedded_named(o.value) != GameNet::None || o.value == "<default>") {
                fileNet = {};
            } else {
                nnue::Loaded l = nnue::load_file(o.value);
                if (!l.net) {
                    r.error = l.error + "; keeping " +
                              (fileNet.net ? fileNet.name : std::string("the built-in nets"));
                    return;
                }
                fileNet = std::move(l);
            }
            game->forget_accumulators();
            tt.clear();
        });
    bound("Use NNUE", T::Check, 0, 0, &current.useNnue,
          [this](const EngineOption& o, const std::string& previous, OptionResult&) {
              if (o.value != previous) new_game();
          });
    // The tuning build's search parameters (search_params.h), for tools/spsa.py: a match
    // runner sets them before the games; a search in progress ends first.
    for (const search::Tunable& t : search::tunables())
        add(t.name, T::Spin, std::to_string(t.defaultValue), t.min, t.max, {}, {},
            [this, value = t.value](const EngineOption& o, const std::string&, OptionResult&) {
                finish();
                *value = std::stoi(o.value);
                search::tunables_changed();
            });
}

std::shared_ptr<const nnue::Network> Engine::network() const {
    if (!current.useNnue || !search::full_strength(current.search) || active.net == GameNet::None)
        return nullptr;
    return fileNet.net ? fileNet.net : nnue::embedded(active.net);
}

eval::wdl::Model Engine::wdl_model() const {
    using eval::wdl::Model;
    if (!net()) return Model::Classical;
    if (fileNet.net) return Model::Net;
    switch (active.net) {
    case GameNet::Asean: return Model::AseanNet;
    case GameNet::Makpong: return Model::MakpongNet;
    case GameNet::Sittuyin: return Model::SittuyinNet;
    default: return Model::Net;
    }
}

std::string Engine::net_name() const {
    if (!net()) return "";
    return fileNet.net ? fileNet.name : nnue::embedded_name(active.net);
}

Engine::~Engine() {
    finish();
    if (tbLoader.joinable()) tbLoader.join();
}

// The tables a search from pos may meet: where one side has at most two men besides its
// king and the other at most four, every ending of one or two of the stronger side's men
// (a pawn as the met it promotes to) against a bare king. A search that captures the
// last pieces of a side reaches them; a search from further away hardly does.
static std::vector<std::string> wanted_tables(const Position& pos) {
    std::set<std::string> wanted;
    if (!pos.variant().bareKingTables) return {};
    for (Color strong : {WHITE, BLACK}) {
        if (pos.count(~strong) > 3 || pos.count(strong) > 5) continue;
        std::string men;
        for (Bitboard b = pos.pieces(strong) & ~pos.pieces(KING); b;) {
            const PieceType t = type_of(pos.piece_on(pop_lsb(b)));
            if (t == PAWN || t == MET)
                men += 'M';
            else if (t == KHON)
                men += 'S';
            else if (t == KNIGHT)
                men += 'N';
            else if (t == ROOK)
                men += 'R';
        }
        for (size_t i = 0; i < men.size(); ++i) {
            wanted.insert(std::string("K") + men[i] + "K");
            for (size_t j = i + 1; j < men.size(); ++j)
                wanted.insert(std::string("K") + men[i] + men[j] + "K");
        }
    }
    return {wanted.begin(), wanted.end()};
}

// Under a clock, load (or build) those tables in the background: the first build of a
// table takes about a second, which the clock must not pay. The search probes only tables
// already in memory.
void Engine::warm_tablebases() {
    const std::vector<std::string> wanted = wanted_tables(game->pos);
    if (wanted.empty() || loadingTables) return;
    if (tbLoader.joinable()) tbLoader.join();
    loadingTables = true;
    tbLoader = std::thread([this, wanted] {
        for (const std::string& m : wanted) eval::tb::load(m);
        loadingTables = false;
    });
}

// The searches that must give the same result on any machine (those no clock stops, the
// tools): a table that arrived part-way through a search would change its result with
// the machine's speed, so they load the tables first, and get the set they may probe.
// A loader the last `go` started may still run; it ends first.
eval::tb::TableSet Engine::load_tablebases() {
    if (tbLoader.joinable()) tbLoader.join();
    eval::tb::TableSet tables = 0;
    for (const std::string& m : wanted_tables(game->pos)) {
        eval::tb::load(m);
        tables |= eval::tb::tables_of(m);
    }
    return tables;
}

void Engine::set_variant(const Variant& v) {
    finish();
    base = &v;
    apply_sutras();
}

// Rebuilds the active game from the chosen variant and the sutra options, and starts
// it from its start position (the positions of the old game point at `active`).
void Engine::apply_sutras() {
    game.reset();
    active = with_sutras(*base, current.sutKhun, current.sutMet, current.sutMa);
    std::string err;
    game = Game::make(active.startFen, {}, active, err);
}

void Engine::play(Move m) {
    finish();
    game->play(m);
}

bool Engine::undo() {
    finish();
    return game->undo();
}

std::optional<std::string> Engine::set_position(const std::string& fen,
                                                const std::vector<std::string>& moves) {
    // The search reads the game's state chain: never replace it under a running search.
    finish();
    std::string err;
    auto g = Game::make(fen.empty() ? active.startFen : fen, moves, active, err);
    if (!g) return err;
    game = std::move(g);
    return std::nullopt;
}

void Engine::go(search::Limits limits, search::Listener listener) {
    finish();
    search::Options so = current.search;
    so.network = network();
    // A search no clock stops (go nodes, go depth, bench) is a function of its position,
    // its limits and what this game taught the search: it waits for its tables and probes
    // only those, not the ones earlier games happened to load.
    const bool clocked = limits.use_time(WHITE) || limits.use_time(BLACK) || limits.movetime ||
                         limits.infinite || limits.ponder;
    if (clocked)
        warm_tablebases();
    else
        so.tables = load_tablebases();
    searcher->start(game->pos, limits, so, std::move(listener));
}

void Engine::stop() { searcher->stop(); }
void Engine::ponderhit() { searcher->ponderhit(); }
void Engine::wait() { searcher->wait(); }

void Engine::new_game() {
    finish();
    tt.clear();
    searcher->clear();
}

Engine::Thought Engine::think(search::Limits limits) {
    Thought t{Move::none(), VALUE_ZERO, 0, 0};
    search::Listener l;
    l.info = [&t](const search::Info& i) {
        if (i.multipv == 1 && i.bound == search::BOUND_EXACT) t.score = i.score, t.depth = i.depth;
    };
    l.bestmove = [&t](Move best, Move) { t.best = best; };
    // The tools (datagen, analyse) reproduce a run from its seed, also under a clock.
    load_tablebases();
    limits.start = search::now();
    go(limits, l);
    wait();
    t.nodes = searcher->nodes();
    return t;
}

uint64_t Engine::search_nodes(const std::string& fen, int depth, search::Listener listener) {
    if (auto err = set_position(fen, {})) return 0;
    search::Limits limits;
    limits.depth = depth; // no clock: go() loads the tables (bench is the build's signature)
    limits.start = search::now();
    go(limits, std::move(listener));
    wait();
    return searcher->nodes();
}

} // namespace khun::protocol
