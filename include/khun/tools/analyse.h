// `khun analyse`: searches every position of the games of a PGN file and writes the
// games back annotated: the evaluation after each move, the better move where the game
// left it, ?! ? ?? by the expected result a move gave away (the WDL model of wdl.h),
// and where a count starts.
#pragma once

#include "khun/eval/wdl.h"
#include "khun/protocol/engine.h"
#include "khun/rules/types.h"
#include "khun/tools/pgn.h"

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace khun::tools {

// Half a second a position: a 60-move game takes about a minute on one thread.
constexpr int DefaultAnalyseMovetime = 500;

struct AnalyseOptions {
    int depth = 0;    // a fixed depth per position, when set
    int movetime = 0; // milliseconds per position; DefaultAnalyseMovetime when neither is set
    int threads = 1;
    int hashMb = 64;
    bool progress = true; // the updating progress line on the error stream
};

// The expected result (0 to 1: a win 1, a draw 1/2) of the side a WDL is for: W + D/2
// per mille of the model of wdl.h. A draw-heavy game's scale: a bia down at the start is
// about 0.44, a ruea down there about 0.25, and with little material and a count nearly
// out any score is near 0.5.
double win_chance(const eval::wdl::WDL& w);
// The same for a score at a material count (eval::wdl::material) and a running count's plies
// left.
double win_chance(Value score, int material, int countPliesLeft = eval::wdl::NoCount);

// The judgement glyph's NAG for a move that gave away `drop` (0 to 1) of the mover's
// expected result: 0 (none), 6 (?!) from 0.05, 2 (?) from 0.10, 4 (??) from 0.15.
int judge_move(double drop);

// A score for White in pawns ("+0.35", "-1.20", "0.00"), or a mate ("+M3": White mates in
// 3 moves, "-M2": Black does).
std::string format_score(Value whiteScore);

// Annotates one game in place (its moves' comments and judgement NAGs), searching with
// `engine`. `onPosition(done, total)` is called after each position searched. Returns the
// error ("move 14: illegal move 'Nxe5'") when the game cannot be replayed whole; the game
// is then left as read.
std::optional<std::string> annotate_game(protocol::Engine& engine, PgnGame& game,
                                         const AnalyseOptions& opts,
                                         const std::function<void()>& onPosition = {});

// Reads every game of `in`, annotates and writes each to `out`; errors and the progress
// line go to `err`. A game that cannot be read or replayed is reported as
// "error: game N, move M: ..." and left out; the others are still written. Returns the
// exit status: 0, or 1 when any game had an error.
int analyse_pgn(std::istream& in, std::ostream& out, std::ostream& err, const AnalyseOptions& opts);

// The command line after "analyse": GAMES.pgn [--movetime MS | --depth D] [--threads N]
// [--hash MB] [--out FILE] [--quiet]. Returns the exit status (2 for bad arguments).
int analyse_main(const std::vector<std::string>& args);

} // namespace khun::tools
