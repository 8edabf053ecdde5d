// The rules that differ between the games of the Makruk family. Position and movegen
// read these flags; everything else is shared.
#pragma once

#include "khun/types.h"

#include <string>
#include <vector>

namespace khun {

enum class CountingRule { None, Makruk, Cambodian, Asean };

struct Variant {
    std::string name;
    std::string startFen;
    // FEN letters indexed by PieceType (upper case; lower case for Black).
    std::string pieceChars;
    CountingRule counting = CountingRule::Makruk;
    Rank promotionRank = RANK_6; // relative rank on which a pawn promotes
    PieceType promotedTo = MET;  // kind a pawn becomes (asean offers a choice)
    bool cambodianMoves = false; // first-move king leap and met double step
    bool makpong = false;        // a king in check may only capture the checker
    bool firstCheckWins = false; // karouk
};

// The variant named `name` (as Fairy-Stockfish spells it), or nullptr.
const Variant* find_variant(const std::string& name);
const Variant& default_variant();
// Names of every supported variant, default first, for the UCI_Variant combo.
std::vector<std::string> variant_names();

} // namespace khun
