// PGN games of the Makruk family: reading (tags, movetext with move numbers, comments,
// NAGs, skipped variations, results; several games a file), replaying the moves on a
// Position, and writing a game back with its comments.
#pragma once

#include "khun/rules/position.h"
#include "khun/rules/variant.h"

#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace khun::tools {

struct PgnMove {
    std::string san;          // as read (or as written by to_san)
    std::vector<int> nags;    // $n, suffix glyphs included ("?" is 2, "?!" is 6)
    std::string comment;      // the comments after the move, joined by a space
    Move move = Move::none(); // filled by replay_pgn
};

struct PgnGame {
    std::vector<std::pair<std::string, std::string>> tags; // in the order read
    std::string comment;                                   // a comment before the first move
    std::vector<PgnMove> moves;                            // the main line
    std::string result = "*"; // the movetext's termination (1-0, 0-1, 1/2-1/2, *)
    int number = 0;           // 1-based position in the file
    int line = 0;             // line where the game starts
    // A syntax error: the game is cut where it happened.
    std::optional<std::string> error;

    // The tag's value, or "" (names compare case-insensitively).
    std::string tag(const std::string& name) const;
    void set_tag(const std::string& name, const std::string& value);
};

// Every game of a PGN text. A syntax error is recorded in its game (which then holds
// the moves before it), and reading goes on with the next game.
std::vector<PgnGame> read_pgn(std::istream& in);
std::vector<PgnGame> read_pgn_string(const std::string& text);

// The game a [Variant] tag names, as Cute Chess ("makruk"), pychess.org ("Makruk") and
// others write it: case, spaces, '-' and '_' ignored; "ouk chatrang" and "kar ouk" too.
// An empty tag is makruk; an unknown name is nullptr.
const Variant* pgn_variant(const std::string& tagValue);

// "14" for White's 14th move, "14..." for Black's: how errors name a move.
std::string move_number_text(int fullmove, Color side);

// A game's moves played out from its start (the [FEN] tag, else the game's start).
struct ReplayedGame {
    std::unique_ptr<Game> game; // the position after the last good move
    const Variant* variant = nullptr;
    std::string startFen;             // the set-up position
    std::vector<std::string> fens;    // before each move, and after the last
    std::optional<std::string> error; // e.g. "move 14: illegal move 'Nxe5'"
};
// Fills each PgnMove::move; stops at the first move that is not legal (or the game's
// syntax error) and reports it, keeping what came before.
ReplayedGame replay_pgn(PgnGame& game);

// PGN export: the tags, the movetext with move numbers (from the [FEN]'s move number),
// NAGs $1-$6 written as their glyphs after the move, comments, lines up to 80 columns.
void write_pgn(std::ostream& out, const PgnGame& game);

} // namespace khun::tools
