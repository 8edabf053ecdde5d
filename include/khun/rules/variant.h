// The rules that differ between the games of the Makruk family. Position and movegen
// read these flags; everything else is shared. docs/rules.md ("The games") is the
// specification; Fairy-Stockfish's names and FEN conventions are followed.
#pragma once

#include "khun/rules/types.h"

#include <string>
#include <vector>

namespace khun {

enum class CountingRule { None, Makruk, Cambodian, Asean };
// The hand-written evaluation's weight sets (eval/eval_params.h), each fitted on its own
// game's records (docs/tuning.md).
enum class WeightSet { Makruk, Sittuyin };
// The nets built into the binary (docs/nnue.md, "Which games use it"), each trained on its
// own game's records; None: the game is evaluated by the hand-written evaluation only.
enum class GameNet { None, Makruk, Asean, Makpong, Sittuyin, Makrukhouse, Karouk, Aiwok };
constexpr GameNet BuiltInNets[] = {GameNet::Makruk,   GameNet::Asean,       GameNet::Makpong,
                                   GameNet::Sittuyin, GameNet::Makrukhouse, GameNet::Karouk,
                                   GameNet::Aiwok};

struct Variant {
    std::string name; // as Fairy-Stockfish, UCI_Variant and CECP's `variant` spell it
    // Other names a PGN's [Variant] tag may give the game (pychess.org, Cute Chess, other
    // writers), in lower-case letters and digits only: see find_variant_named().
    std::vector<std::string> otherNames;
    // The start position in pieces: the board (FEN field 1) and the first-move rights
    // (FEN field 3, "-" for none). `startFen` is built from them by start_fen().
    std::string startBoard;
    std::string startRights = "-";
    std::string startFen;
    // FEN letters indexed by PieceType (upper case; lower case for Black); '*' marks a
    // kind that does not exist in this game.
    std::string pieceChars;
    CountingRule counting = CountingRule::Makruk;
    Rank promotionRank = RANK_6;  // relative rank on which a pawn promotes
    PieceType promotedTo = MET;   // what a pawn becomes (the default choice in asean)
    bool promotionChoice = false; // asean: rook, knight, khon or met
    bool cambodianMoves = false;  // first-move king leap and met double step (FEN field 3)
    bool makpong = false;         // a king in check may only capture the checker
    bool firstCheckWins = false;  // karouk: check counters in the FEN, a check ends the game
    int moveRule = 0;             // draw after this many moves without capture or pawn move
    // The seed's sutras, house rules of makruk switched on by engine options. Their
    // first-move rights live in FEN field 3 like Cambodian's.
    bool sutKhun = false;         // an unmoved king may leap like a knight to the next rank
    bool sutMet = false;          // first move: the pawn ahead of the met advances, the met follows
    bool sutMa = false;           // first move: the pawn on a knight's landing square advances, the
                                  // knight follows
    bool sutraHouseRules = false; // the sutra options apply to this game (makruk's house rules)
    bool bareKingTables = false;  // the bare-king mate tables (makruk's rules) hold here
    GameNet net = GameNet::None;  // the built-in net that evaluates this game (docs/nnue.md)
    WeightSet weights = WeightSet::Makruk; // the hand-written evaluation's weights
    // The drop games. A piece in hand may be put on an empty square instead of a move;
    // the FEN carries the hands as "[...]" after the board.
    bool drops = false;
    std::string startHand;            // the hands at the start, in FEN letters ("KFRR...kfrr...")
    bool capturesToHand = false;      // makrukhouse: a captured piece joins the captor's hand
                                      // (a promoted pawn as a pawn)
    bool mustDrop = false;            // sittuyin: a side with pieces in hand must drop one
    int dropRanks = 8;                // the own ranks a piece may be dropped on (sittuyin 3)
    bool rookDropsBackRank = false;   // sittuyin: rooks only on the first rank
    bool pawnDropsEverywhere = false; // makrukhouse: pawns on the first rank and the
                                      // promotion zone too, only never where they cannot move
    bool sittuyinPromotion = false;   // promotion a move of its own (docs/rules.md, sittuyin)
    // How CECP meets the game: empty `cecpSetup` when XBoard knows it by name; otherwise
    // the piece letters of its `setup` command and the Betza `piece` lines that follow.
    std::string cecpSetup;
    std::string cecpTemplate = "makruk"; // the parent game the setup command names
    std::vector<std::string> cecpPieces;

    [[nodiscard]] bool sutras() const { return sutKhun || sutMet || sutMa; }
    // Field 3 of the FEN holds first-move rights (files of unmoved pieces).
    [[nodiscard]] bool has_rights() const { return cambodianMoves || sutras(); }
    // Rules that need the general (slower) move generator in every position; rights
    // switch it on by themselves while they last.
    [[nodiscard]] bool general_movegen() const {
        return makpong || firstCheckWins || promotionChoice || drops;
    }
    // Rules do_move must take its general path for: karouk's check counters, the hands.
    [[nodiscard]] bool general_make() const { return firstCheckWins || drops; }
    // "<board> w <rights> - 0 1": the start FEN the board and rights stand for.
    [[nodiscard]] std::string start_fen() const;
};

// The variant named `name` (as Fairy-Stockfish spells it), or nullptr.
[[nodiscard]] const Variant* find_variant(const std::string& name);
// The variant a person or another program names `text`: case, spaces and punctuation do
// not count ("Makruk", "Ai-Wok", "ASEAN", "Ouk Chatrang"), nor do the other names a
// game's record lists; nullptr for none.
[[nodiscard]] const Variant* find_variant_named(const std::string& text);
[[nodiscard]] const Variant& default_variant();
// Names of every supported variant, default first, for the UCI_Variant combo.
[[nodiscard]] std::vector<std::string> variant_names();

// `base` with the sutras switched on as asked, its start position carrying the rights
// they need. Games without `sutraHouseRules` are returned unchanged.
[[nodiscard]] Variant with_sutras(const Variant& base, bool khun, bool met, bool ma);

// The FEN letters of the first-move rights a sutra start position holds ("BDEGbdeg"
// with all three), "-" with none.
[[nodiscard]] std::string sutra_rights(bool khun, bool met, bool ma);

} // namespace khun
