// Every margin, reduction and time constant of the search in one place, so that a tuner
// (or a person) finds them all here and a change to one is a change to this file only.
// Values are the ones the engine was tuned and tested with; each says why it exists.
#pragma once

#include "khun/rules/types.h"

#include <vector>

namespace khun::search {

// A search parameter an SPSA tuner may move (tools/spsa.py): its name, value, range and
// the step it is perturbed by at the end of a run (OpenBench's c_end).
struct Tunable {
    const char* name;
    int* value;
    int defaultValue, min, max;
    double step;
};
// Every tunable in the order declared; empty unless built with KHUN_TUNE.
[[nodiscard]] std::vector<Tunable>& tunables();
inline bool list_tunable(const Tunable& t) {
    tunables().push_back(t);
    return true;
}
// Recomputes what the search derives from the tunables (the reduction table); the tuning
// build's options call it after a change.
void tunables_changed();

// KHUN_TUNABLE(name, value, min, max, step): a constant in the usual build; in the tuning
// build (cmake -DKHUN_TUNE=ON) a variable that a UCI spin option of the same name sets, so
// that a match runner can play two settings against each other. The search reads it the
// same way in both.
#ifdef KHUN_TUNE
#define KHUN_TUNABLE(name, value, lo, hi, step)                                                    \
    inline int name = value;                                                                       \
    inline const bool name##Listed = list_tunable({#name, &name, value, lo, hi, step})
#else
#define KHUN_TUNABLE(name, value, lo, hi, step) constexpr int name = value
#endif

namespace params {

// --- Late move reductions ------------------------------------------------------------
// Reductions[d][m] = (LmrBase + 100 * ln(d) * ln(m) / LmrDivisor) / 100, in plies: later
// moves at deeper nodes are less likely to matter, and the log-log shape keeps shallow
// nodes nearly full depth. (Hundredths, so that a tuner moves integers.)
KHUN_TUNABLE(LmrBase, 60, 0, 150, 8);
KHUN_TUNABLE(LmrDivisor, 210, 120, 350, 12);
// Quiet moves reduce less (or more) by their history, up to this many plies either way,
// one ply per LmrHistoryDivisor of combined butterfly and continuation history.
KHUN_TUNABLE(LmrHistoryDivisor, 6000, 2000, 16000, 600);
constexpr int LmrHistoryMaxPlies = 2;

// --- Aspiration windows --------------------------------------------------------------
// From this depth on, the root is searched in a window around the previous score: a
// shallower score is too unstable to aim at.
constexpr int AspirationMinDepth = 4;
// The first half-width; each failure widens it by half plus AspirationGrowth, and past
// AspirationMaxDelta the window opens fully (a score that far off is not worth chasing).
KHUN_TUNABLE(AspirationDelta, 20, 8, 60, 3);
constexpr int AspirationGrowth = 5;
constexpr int AspirationMaxDelta = 1000;

// --- Reverse futility pruning --------------------------------------------------------
// A static evaluation this far above beta (per ply, less when improving) will not fall
// below it in the plies left.
constexpr int RfpMaxDepth = 8;
KHUN_TUNABLE(RfpMargin, 90, 40, 200, 8);
KHUN_TUNABLE(RfpImprovingMargin, 30, 0, 90, 6);

// --- Null move pruning ---------------------------------------------------------------
constexpr int NmpMinDepth = 3;
// The static evaluation must be near beta as well (this much per ply below it at most).
KHUN_TUNABLE(NmpEvalMargin, 20, 0, 60, 4);
// R = NmpBase + depth / NmpDepthDivisor + min((eval - beta) / NmpEvalDivisor, NmpEvalMax).
KHUN_TUNABLE(NmpBase, 3, 1, 6, 1);
constexpr int NmpDepthDivisor = 3;
KHUN_TUNABLE(NmpEvalDivisor, 200, 100, 400, 15);
constexpr int NmpEvalMax = 3;
// From this depth a null-move cut is verified by a reduced search without the null move:
// Makruk endings are full of zugzwang.
constexpr int NmpVerifyDepth = 12;

// --- Internal iterative reduction ----------------------------------------------------
// A PV or cut node without a TT move this deep is searched one ply shallower.
constexpr int IirMinDepth = 6;

// --- Move loop pruning ---------------------------------------------------------------
// Late move pruning: after LmpBase + depth^2 (halved when not improving) quiet moves.
KHUN_TUNABLE(LmpBase, 3, 1, 8, 1);
// Continuation-history pruning: a quiet move whose history is worse than this (per ply)
// at a reduced depth below ContHistMaxDepth.
constexpr int ContHistMaxDepth = 5;
KHUN_TUNABLE(ContHistMargin, -3000, -8000, -500, 300);
// The LMR depth used by futility and SEE pruning grows by one ply per this much history.
KHUN_TUNABLE(PruneHistoryDivisor, 8000, 3000, 16000, 600);
// Futility pruning of quiet moves: static eval + FutilityBase + FutilityMargin * lmrDepth
// still below alpha, below FutilityMaxDepth.
constexpr int FutilityMaxDepth = 8;
KHUN_TUNABLE(FutilityBase, 100, 30, 200, 8);
KHUN_TUNABLE(FutilityMargin, 110, 50, 200, 8);
// SEE pruning: a quiet move may lose QuietSeeMargin * lmrDepth^2, a capture or promotion
// CaptureSeeMargin * depth below CaptureSeeMaxDepth.
KHUN_TUNABLE(QuietSeeMargin, -25, -80, -5, 4);
constexpr int CaptureSeeMaxDepth = 7;
KHUN_TUNABLE(CaptureSeeMargin, -120, -250, -40, 10);

// --- Extensions ----------------------------------------------------------------------
// Singular extension: from this depth, with a TT entry at most SingularTTDepthSlack
// plies shallower; the TT move must beat the others by SingularMargin per ply, by
// DoubleExtensionMargin more for two plies.
constexpr int SingularMinDepth = 8;
constexpr int SingularTTDepthSlack = 3;
constexpr int SingularMargin = 2;
KHUN_TUNABLE(DoubleExtensionMargin, 20, 5, 50, 3);
// Checks that do not lose material are extended below this depth.
constexpr int CheckExtensionMaxDepth = 12;

// --- Quiescence ----------------------------------------------------------------------
// A capture that cannot lift the standing pat this much above alpha is skipped.
KHUN_TUNABLE(QsFutilityMargin, 150, 60, 300, 10);
// Below this quiescence depth only recaptures on the last move's square (and
// promotions, and evasions) are searched.
constexpr int QsRecaptureDepth = -6;

// --- History -------------------------------------------------------------------------
// stat_bonus(d) = min(StatBonusQuad * d^2 + StatBonusLinear * d, StatBonusMax).
KHUN_TUNABLE(StatBonusQuad, 16, 4, 32, 2);
KHUN_TUNABLE(StatBonusLinear, 32, 0, 96, 6);
KHUN_TUNABLE(StatBonusMax, 1600, 800, 3000, 100);
// Saturation limits of the history tables.
constexpr int ContHistLimit = 16384;
constexpr int CaptureHistLimit = 8192;
constexpr int ButterflyLimit = 8192;

// --- Move ordering -------------------------------------------------------------------
// A capture's order: the victim's SEE value times MvvWeight (the victim decides first),
// plus PromotionBonus for a promotion, plus its capture history / CaptureHistDivisor.
constexpr int MvvWeight = 8;
constexpr int PromotionBonus = 1500;
constexpr int CaptureHistDivisor = 8;
// Correction history: the entry moves the evaluation by cv * |cv| / CorrectionScale; it
// learns (best - static eval) * depth / CorrectionDepthDivisor, clamped to
// CorrectionMaxBonus, saturating at CorrectionLimit. Its tables have 2^CorrectionBits
// entries, by pawn structure and by each side's other pieces; an entry of the latter two
// moves the evaluation by cv * |cv| / NonPawnCorrectionScale.
constexpr int CorrectionBits = 14;
KHUN_TUNABLE(CorrectionScale, 11175, 5000, 20000, 800);
KHUN_TUNABLE(NonPawnCorrectionScale, 22350, 8000, 60000, 1600);
constexpr int CorrectionDepthDivisor = 8;
constexpr int CorrectionMaxBonus = 256;
constexpr int CorrectionLimit = 1024;

// --- Static exchange evaluation ------------------------------------------------------
// Piece values for SEE, MVV ordering and quiescence futility, by PieceType (none, bia,
// ma, khon, met, ruea, ai-wok, king). Fixed, not the evaluation's tuned material: a
// retune of the evaluation must not silently move every SEE threshold and pruning margin
// of the search. They are the tuned middlegame weights of the day they were fixed, so the
// search prunes exactly as before; rounding them (110/530/360/230/800) scored 48.2% in
// 200 games against that (docs/log/tuning.md, "Fixed SEE values"): change them with a match. They
// agree with Makruk's order: a met (one step diagonally) is worth less than a khon (one
// step diagonally or straight ahead), the ma more than either, the ruea more, and the
// ai-wok (ruea + ma + met) most. The king is 0: legal moves never put it en prise, and
// SEE stops at a king capture that could be answered.
constexpr int SeeValue[PIECE_TYPE_NB] = {0, 115, 536, 361, 232, 796, 1100, 0};

// --- Play levels (skill.h) ------------------------------------------------------------
// Fairy-Stockfish's rule (Skill Level -20..20, 20 = full strength): a weaker level
// searches at least SkillMultiPV root moves fully and, at depth 1 + max(level, 0), plays
// the one with the largest score + push, push = (weakness * (top - score) + delta *
// (random % weakness)) / SkillPushDivisor, weakness = SkillWeaknessBase -
// SkillWeaknessPerLevel * level, delta = min(top - the last one's score, the cap below).
constexpr int SkillMultiPV = 4;
constexpr int SkillWeaknessBase = 120;
constexpr int SkillWeaknessPerLevel = 2;
constexpr int SkillPushDivisor = 128;
// The random spread is at most what Fairy-Stockfish's is, measured in the side's own
// pawns: its cap is PawnValueMg (126) while its pawn is worth 126 in the middlegame and
// 208 in the endgame, so a whole pawn of noise with all pieces on and 0.6 of one when
// they are gone. Khun's bia is worth 115 and 51 (eval_weights.cpp), so its cap runs from
// 115 to 31 with the game phase; a flat 115 would be two bia of noise in an ending and
// made every level weaker than Fairy-Stockfish's at the same UCI_Elo.
constexpr int SkillDeltaMaxMg = 115;
constexpr int SkillDeltaMaxEg = 31;
// UCI_Elo to a float level (Fairy-Stockfish's fit, anchored on CCRL): shifted = Elo' -
// SkillEloShift; level = (shifted / SkillEloScale)^(1 / SkillEloExponent) above, and
// shifted / SkillEloScale + (shifted / SkillEloLowScale)^5 below. Elo' is UCI_Elo put on
// Khun's own scale first: at the same level Khun's shallow searches are weaker than
// Fairy-Stockfish's and its deep ones stronger. Elo' = Elo + a shift interpolated
// linearly between these anchors: between 1000 and 2500 the line fitted to 160 games
// against Fairy-Stockfish at the same UCI_Elo (docs/log/tuning.md, "Play levels"), and none at the
// ends of the range, which stay the weakest and the strongest level as in Fairy-Stockfish.
constexpr double SkillEloAnchor[] = {500, 1000, 2500, 2850};
constexpr double SkillEloAnchorShift[] = {0, 102, -85, 0};
constexpr double SkillEloShift = 1346.6;
constexpr double SkillEloScale = 143.4;
constexpr double SkillEloExponent = 0.806;
constexpr double SkillEloLowScale = 500.0;
// Makruk's count ends a won bare-king ending in a draw: a level that drifted among
// "nearly as good" moves would let it run out, and a person who has lost everything but
// the king would be handed a draw by an engine that is winning by a ruea. So from this
// level up, when the best root move mates (a search or a table score), only root moves
// that still mate may be chosen. -5 is below pychess.org's weakest level (it sends -4),
// so every level a person picks there converts; the levels under it are left free to
// throw a win away, as the lowest levels are meant to.
constexpr int SkillKeepMateLevel = -5;
// A weak level also stops after a node budget: SkillNodesBase for levels up to 0,
// doubling with each level above (level 10: about 4M nodes, past any depth-11 pick; level
// 19: beyond any real search). The move is chosen at depth 1 + level anyway, so the cap
// costs the pick nothing when it is reached; it only spares the person a full movetime
// wait for a depth-1 choice, and keeps a lower level never searching more than a higher.
constexpr unsigned long long SkillNodesBase = 4096;

// --- Time ----------------------------------------------------------------------------
// Past this many ms a search reports fail-high/low lines, multipv lines as they come, and
// `currmove`: a GUI watching a long search wants to see it move, a short one only spams.
constexpr long long VerboseAfterMs = 3000;
// How many nodes the main thread searches between two looks at the clock.
constexpr int TimeCheckNodes = 512;
// The soft limit is scaled by how stable the best move has been over iterations...
constexpr int StableIterationsLong = 4;
constexpr int StableIterationsShort = 2;
constexpr double StableFactorLong = 0.8;  // stable for StableIterationsLong or more
constexpr double StableFactorShort = 1.1; // stable for StableIterationsShort or more
constexpr double UnstableFactor = 1.6;
// ... and grows when the score dropped by more than ScoreDropMargin since the last one.
constexpr int ScoreDropMargin = 30;
constexpr double ScoreDropFactor = 1.4;

// --- Time allocation (TimeManager::init) ----------------------------------------------
// With movestogo: the time left over at most MovesToGoCap moves plus this share of the
// increment (in tenths); the hard limit at most MaxOverOptimum times that.
constexpr int MovesToGoCap = 40;
constexpr int MovesToGoIncTenths = 7;
constexpr int MaxOverOptimum = 5;
// Sudden death, as Stockfish plans it: a horizon of SuddenDeathHorizon moves; the share
// of it spent now is OptScaleBase + sqrt(ply + 3) * OptScalePerPly, at most OptScaleMax
// of the clock; the hard limit MaxScaleBase + ply / MaxScalePlyDivisor times that, at
// most MaxScaleMax.
constexpr int SuddenDeathHorizon = 50;
constexpr double OptScaleBase = 0.0084;
constexpr double OptScalePerPly = 0.0042;
constexpr double OptScaleMax = 0.2;
constexpr double MaxScaleBase = 4.0;
constexpr double MaxScalePlyDivisor = 12.0;
constexpr double MaxScaleMax = 7.0;
// Short of time (under LowTimeMs, or under LowTimeIncrements increments) spend a share
// of the clock plus under a third of the increment, so that the clock builds back a
// reserve for a machine that answers late.
constexpr long long LowTimeMs = 300;
constexpr int LowTimeIncrements = 5;
constexpr int LowTimeClockDivisor = 50;
constexpr int LowTimeIncTenths = 3;

} // namespace params

} // namespace khun::search
