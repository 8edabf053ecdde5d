// Play levels for people (UCI `Skill Level`, `UCI_LimitStrength`, `UCI_Elo`), with
// Fairy-Stockfish's names, ranges and rule: a weaker level searches a few root moves
// behind the scenes (MultiPV) and plays one of the best few, chosen at random weighted by
// score, at a shallow depth. Not random blunders: the choice is among moves the search
// found nearly as good, and a won bare-king ending keeps a mating move (Makruk's count
// would otherwise let a weak level throw the win away).
#pragma once

#include "khun/rules/prng.h"
#include "khun/rules/types.h"
#include "khun/search/search.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace khun::search {

// The level's dice: one generator a search, seeded from the clock by default so that play
// varies from game to game; tests may seed it.
using SkillRng = Prng;

// The level a search plays at, from the options: UCI_Elo's level (a float, Fairy-
// Stockfish's fit) when UCI_LimitStrength is on, else Skill Level.
[[nodiscard]] double skill_float_level(const Options& o);
// No play level is set: the search plays at full strength.
[[nodiscard]] bool full_strength(const Options& o);
// The float level rounded up or down at random so that the average equals it.
[[nodiscard]] int skill_round_level(double level, SkillRng& rng);
// The cap on the pick's random spread at this game phase (0..eval::PhaseMax): from
// SkillDeltaMaxMg with every piece on to SkillDeltaMaxEg with none.
[[nodiscard]] int skill_delta_max(int phase);

class Skill {
  public:
    // `phase`: the root position's game phase (eval::phase), which sets the random
    // spread's cap (skill_delta_max).
    Skill(int level, uint64_t seed, int phase)
        : level(level), deltaMax(skill_delta_max(phase)), rng(seed) {}
    [[nodiscard]] bool enabled() const { return level < SkillMaxLevel; }
    // The root depth whose results the pick is made from.
    [[nodiscard]] bool time_to_pick(int depth) const { return depth == pick_depth(); }
    [[nodiscard]] int pick_depth() const { return 1 + std::max(level, 0); }
    // How many root moves to search fully (at least the user's MultiPV).
    [[nodiscard]] int multi_pv(int userMultiPV) const;
    // The node cap of this level (0: none).
    [[nodiscard]] uint64_t node_cap() const;
    // Chooses among the first `multiPV` of `rootMoves` (sorted best first) and remembers
    // the choice in `best`. A root move not searched this iteration counts with its
    // previous score; one with neither is skipped.
    Move pick_best(const std::vector<RootMove>& rootMoves, int multiPV);
    // True when `best` should be chosen again from these (final) root moves: none was
    // picked, or the best move mates and the picked one no longer does.
    [[nodiscard]] bool must_repick(const std::vector<RootMove>& rootMoves, int multiPV) const;

    static constexpr int SkillMaxLevel = 20;
    const int level;
    const int deltaMax;
    Move best = Move::none();

  private:
    SkillRng rng;
};

} // namespace khun::search
