// The one facade the protocol dialects talk to: the game being played, the options, and
// the search control. Dialects only parse text and print replies.
#pragma once

#include "khun/eval/wdl.h"
#include "khun/protocol/options.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"
#include "khun/search/search.h"
#include "khun/search/skill.h"
#include "khun/search/tt.h"

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace khun::protocol {

class Engine {
  public:
    Engine();
    ~Engine();

    // The game being played: a variant of variant.h with the sutra options applied.
    [[nodiscard]] const Variant& variant() const { return active; }
    // Switches game; the position becomes that game's start position.
    void set_variant(const Variant& v);
    // The start FEN of the current game (with the sutras' first-move rights).
    [[nodiscard]] const std::string& start_fen() const { return active.startFen; }

    // Replaces the position with `fen` (or the variant's start when empty) plus `moves`.
    // On error returns the message and keeps the previous position.
    std::optional<std::string> set_position(const std::string& fen,
                                            const std::vector<std::string>& moves);
    Position& position() { return game->pos; }
    const Position& position() const { return game->pos; }
    // Plays a legal move on the current position (for dialects that send one move at a
    // time); stops a search first.
    void play(Move m);
    // Takes back the last move; false when there is none.
    bool undo();

    // Options (options.h); each one's effect is declared where the engine adds it.
    [[nodiscard]] const std::vector<EngineOption>& options() const { return opts.all(); }
    OptionResult set_option(const std::string& name, const std::string& value) {
        return opts.set(name, value);
    }
    [[nodiscard]] std::string option(const std::string& name) const { return opts.get(name); }
    // The options the engine itself reads, typed, kept current by the option set. Their
    // initial values here and in search::Options are the options' defaults.
    struct Settings {
        search::Options search; // Threads, MultiPV, Move Overhead, the play levels
        int hashMb = search::TranspositionTable::DefaultMb;
        bool showWdl = false, useNnue = true;
        bool sutKhun = false, sutMet = false, sutMa = false; // the house rules
    };
    [[nodiscard]] const Settings& settings() const { return current; }

    // Search control. go() returns at once; the listener gets info lines and one bestmove.
    void go(search::Limits limits, search::Listener listener);
    void stop();
    // Stops any search and returns once its bestmove is out (quit, end of input).
    void finish() {
        stop();
        wait();
    }
    void ponderhit();
    void wait();
    [[nodiscard]] bool searching() const { return searcher->searching(); }
    void new_game();

    // A silent, blocking search of the current position (self-play, tools).
    struct Thought {
        Move best;
        Value score;    // for the side to move
        int depth;      // of the last complete iteration that gave `score`
        uint64_t nodes; // searched, where the search stopped
    };
    Thought think(search::Limits limits);

    // Fixed-depth search of a position, blocking; for bench and tests. Returns nodes.
    uint64_t search_nodes(const std::string& fen, int depth, search::Listener listener);

    // The net searches evaluate with, or nullptr: with Use NNUE on, in a game a net
    // serves, EvalFile's net or else the game's built-in one. A play level keeps the
    // hand-written evaluation: its UCI_Elo map was fitted with it (docs/tuning.md,
    // "Play levels").
    [[nodiscard]] const nnue::Network* net() const { return network().get(); }
    // That net's name ("" for none).
    [[nodiscard]] std::string net_name() const;
    // The WDL model for what searches score with: the fit of the net that scores them
    // (makruk's for a net file), the hand-written evaluation's where no net plays.
    [[nodiscard]] eval::wdl::Model wdl_model() const;

  private:
    void add_options();
    void apply_sutras();
    void warm_tablebases();
    eval::tb::TableSet load_tablebases();
    std::thread tbLoader;
    std::atomic<bool> loadingTables{false};

    const Variant* base; // the game chosen by UCI_Variant
    Variant active;      // `base` with the sutras applied; every Position points here
    std::unique_ptr<Game> game;
    Settings current; // before `opts`, whose options write into it
    OptionSet opts;
    search::TranspositionTable tt;
    std::unique_ptr<search::Searcher> searcher;
    [[nodiscard]] std::shared_ptr<const nnue::Network> network() const;
    // EvalFile's net and its name; no net for the built-in nets (its default).
    nnue::Loaded fileNet;
};

} // namespace khun::protocol
