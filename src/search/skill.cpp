#include "khun/search/skill.h"

#include "khun/eval/eval_params.h"
#include "khun/search/search_params.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>

namespace khun::search {
using namespace params;

namespace {

// A root move's score for the pick: this iteration's, or the last one's when this
// iteration did not search it (a stop came first); -VALUE_INFINITE when neither has one.
Value pick_score(const RootMove& rm) {
    return rm.score != -VALUE_INFINITE ? rm.score : rm.prevScore;
}

// Khun's shift of UCI_Elo (search_params.h), linear between the anchors.
double elo_shift(double elo) {
    constexpr int n = int(std::size(SkillEloAnchor));
    static_assert(n == int(std::size(SkillEloAnchorShift)));
    if (elo <= SkillEloAnchor[0]) return SkillEloAnchorShift[0];
    for (int i = 1; i < n; ++i)
        if (elo <= SkillEloAnchor[i]) {
            const double t =
                (elo - SkillEloAnchor[i - 1]) / (SkillEloAnchor[i] - SkillEloAnchor[i - 1]);
            return SkillEloAnchorShift[i - 1] +
                   t * (SkillEloAnchorShift[i] - SkillEloAnchorShift[i - 1]);
        }
    return SkillEloAnchorShift[n - 1];
}

bool mates(Value v) { return v >= VALUE_MATE_IN_MAX_PLY && v < VALUE_INFINITE; }

} // namespace

double skill_float_level(const Options& o) {
    if (!o.limitStrength) return double(o.skillLevel);
    const double shifted = o.elo + elo_shift(o.elo) - SkillEloShift;
    const double level = shifted > 0
                             ? std::pow(shifted / SkillEloScale, 1 / SkillEloExponent)
                             : shifted / SkillEloScale + std::pow(shifted / SkillEloLowScale, 5);
    return std::clamp(level, -20.0, 20.0);
}

bool full_strength(const Options& o) { return skill_float_level(o) >= Skill::SkillMaxLevel; }

int skill_round_level(double level, SkillRng& rng) {
    // Up with the probability of the fraction: on average the float level is played.
    // (floor, not truncation, so that negative levels average right too.)
    const double whole = std::floor(level);
    const double fraction = level - whole;
    return int(whole) + (fraction * 1024 > double(rng.next() % 1024) ? 1 : 0);
}

int skill_delta_max(int phase) {
    assert(phase >= 0 && phase <= eval::PhaseMax);
    return (SkillDeltaMaxMg * phase + SkillDeltaMaxEg * (eval::PhaseMax - phase)) / eval::PhaseMax;
}

int Skill::multi_pv(int userMultiPV) const {
    return enabled() ? std::max(userMultiPV, SkillMultiPV) : userMultiPV;
}

uint64_t Skill::node_cap() const {
    if (!enabled()) return 0;
    return SkillNodesBase << std::clamp(level, 0, SkillMaxLevel - 1);
}

Move Skill::pick_best(const std::vector<RootMove>& rootMoves, int multiPV) {
    const int n = std::min<int>(multiPV, int(rootMoves.size()));
    Value top = -VALUE_INFINITE, last = VALUE_INFINITE;
    for (int i = 0; i < n; ++i)
        if (const Value v = pick_score(rootMoves[i]); v != -VALUE_INFINITE) {
            top = std::max(top, v);
            last = std::min(last, v);
        }
    if (top == -VALUE_INFINITE) { // nothing scored yet: the search's own first move
        best = rootMoves.empty() ? Move::none() : rootMoves[0].pv[0];
        return best;
    }
    const bool keepMate = level >= SkillKeepMateLevel && mates(top);
    const int64_t delta = std::min<int64_t>(int64_t(top) - last, deltaMax);
    const int64_t weakness = SkillWeaknessBase - int64_t(SkillWeaknessPerLevel) * level;
    assert(weakness > 0); // the random part is taken modulo it
    int64_t maxScore = INT64_MIN;
    // Each move gets a push: a fixed part that grows with weakness and with how far the
    // move is behind the best, and a random part. The largest score + push is played.
    for (int i = 0; i < n; ++i) {
        const Value v = pick_score(rootMoves[i]);
        if (v == -VALUE_INFINITE || (keepMate && !mates(v))) continue;
        const int64_t push =
            (weakness * (int64_t(top) - v) + delta * int64_t(rng.next() % uint64_t(weakness))) /
            SkillPushDivisor;
        if (v + push >= maxScore) {
            maxScore = v + push;
            best = rootMoves[i].pv[0];
        }
    }
    return best;
}

bool Skill::must_repick(const std::vector<RootMove>& rootMoves, int multiPV) const {
    if (!best) return true;
    if (rootMoves.empty() || level < SkillKeepMateLevel || !mates(pick_score(rootMoves[0])))
        return false;
    const int n = std::min<int>(multiPV, int(rootMoves.size()));
    for (int i = 0; i < n; ++i)
        if (rootMoves[i].pv[0] == best) return !mates(pick_score(rootMoves[i]));
    return true; // fell out of the fully searched moves: its score is not known
}

} // namespace khun::search
