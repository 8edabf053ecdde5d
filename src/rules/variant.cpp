#include "khun/rules/variant.h"

#include <cassert>
#include <cctype>

namespace khun {

namespace {

const char* const MakrukBoard = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR";

// The Betza lines Fairy-Stockfish gives XBoard for a makruk-like game it does not know:
// the common pieces, then `queen` (the met or ai-wok) and the king.
std::vector<std::string> cecp_pieces(const std::string& queen, const std::string& king) {
    return {"piece P& fmWfcF", "piece N& N", "piece R& R", "piece S& FfW", queen, king};
}

// Index = PieceType: none, pawn, knight, khon, met, rook, ai-wok, king.
Variant make_makruk() {
    Variant v;
    v.name = "makruk";
    v.otherNames = {"thai", "thaichess"};
    v.startBoard = MakrukBoard;
    v.pieceChars = " PNSMR*K";
    v.sutraHouseRules = true;
    v.bareKingTables = true;
    v.net = GameNet::Makruk;
    return v;
}

// The games below start from makruk and say what differs.
Variant like_makruk(const char* name) {
    Variant v = make_makruk();
    v.name = name;
    v.otherNames.clear();
    v.sutraHouseRules = false;
    v.bareKingTables = false;
    v.net = GameNet::None;
    v.cecpSetup = "PN.R.M....SKpn.r.m....sk";
    v.cecpPieces = cecp_pieces("piece M& F", "piece K& K");
    return v;
}

Variant make_cambodian() {
    Variant v = like_makruk("cambodian");
    v.otherNames = {"ouk", "oukchatrang", "oukchaktrang"};
    v.startRights = "DEde";
    v.cambodianMoves = true;
    v.counting = CountingRule::Cambodian;
    v.cecpPieces = cecp_pieces("piece M& FifD", "piece K& KismN");
    // Makruk's net, though it never saw the first-move leaps: it beat the hand-written
    // evaluation here by about +60 Elo in 180 games (docs/log/nnue.md, "The related games").
    v.net = GameNet::Makruk;
    return v;
}

Variant make_makpong() {
    Variant v = like_makruk("makpong");
    v.makpong = true;
    // Makruk's net trained further on makpong's own games: +215 Elo over the hand-written
    // evaluation at fixed nodes, where makruk's net made +26 (docs/log/nnue.md, "Makpong's net").
    v.net = GameNet::Makpong;
    return v;
}

Variant make_karouk() {
    Variant v = make_cambodian();
    v.name = "karouk";
    v.otherNames.clear();
    v.firstCheckWins = true;
    // Makruk's net trained further on karouk's games, where a check wins: makruk's net as it
    // was lost to the hand-written evaluation (docs/nnue.md, "Nets in use").
    v.net = GameNet::Karouk;
    return v;
}

Variant make_aiwok() {
    Variant v = like_makruk("ai-wok");
    v.startBoard = "rnsaksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKASNR";
    v.pieceChars = " PNS*RAK";
    v.promotedTo = AIWOK;
    // Makruk's net trained further on ai-wok's games, which taught it the ai-wok it never saw
    // (docs/nnue.md, "Nets in use").
    v.net = GameNet::Aiwok;
    v.cecpSetup = "PN.R...A..SKpn.r...a..sk";
    v.cecpPieces = cecp_pieces("piece A& RNF", "piece K& K");
    return v;
}

// ASEAN chess: chess letters (khon = B, met = Q), the king on e1, promotion on the last
// rank with a choice, its own counting, and the fifty-move rule (Fairy-Stockfish keeps
// its chess default there). XBoard knows it by name.
Variant make_asean() {
    Variant v = like_makruk("asean");
    v.otherNames = {"aseanchess"};
    v.startBoard = "rnbqkbnr/8/pppppppp/8/8/PPPPPPPP/8/RNBQKBNR";
    v.pieceChars = " PNBQR*K";
    v.promotionRank = RANK_8;
    v.promotionChoice = true;
    v.counting = CountingRule::Asean;
    v.moveRule = 50;
    v.cecpSetup.clear();
    v.cecpPieces.clear();
    // Makruk's net never saw a bia past the sixth rank nor these endings: a net of its own.
    v.net = GameNet::Asean;
    return v;
}

// Sittuyin (Burmese chess), as Fairy-Stockfish's `sittuyin`: the pawns stand on the
// board, every other piece starts in hand and is dropped on the own three ranks (rooks on
// the first) before any piece moves; a pawn promotes by a move of its own to a general
// (the met, `F`), which the side may have only one of; the elephant is the khon (`S`).
Variant make_sittuyin() {
    Variant v = like_makruk("sittuyin");
    v.otherNames = {"burmese", "burmesechess", "myanmar"};
    v.startBoard = "8/8/4pppp/pppp4/4PPPP/PPPP4/8/8";
    v.startHand = "KFRRSSNNkfrrssnn";
    v.pieceChars = " PNSFR*K";
    v.drops = true;
    v.mustDrop = true;
    v.dropRanks = 3;
    v.rookDropsBackRank = true;
    v.sittuyinPromotion = true;
    v.promotionRank = RANK_NB; // no promotion by arriving: see sittuyinPromotion
    v.counting = CountingRule::Asean;
    v.moveRule = 50;
    // Fairy-Stockfish sets it up for XBoard as a bughouse-like game with six pockets.
    v.cecpSetup = "PN.R.F....SKpn.r.f....sk";
    v.cecpTemplate = "bughouse";
    v.cecpPieces = cecp_pieces("piece F& F", "piece K& K");
    // Its setup and its promotion make other positions than makruk's: weights of its own,
    // and a net of its own, with inputs for the pieces in hand (docs/nnue.md, "Nets in use").
    v.weights = WeightSet::Sittuyin;
    v.net = GameNet::Sittuyin;
    return v;
}

// Makrukhouse, pychess.org's `[makrukhouse:makruk]`: makruk where a captured piece joins
// the captor's hand (a met that was a pawn as a pawn) and may be dropped instead of a
// move; pawns may be dropped on the first rank and in the promotion zone (unpromoted),
// but never where they could not move.
Variant make_makrukhouse() {
    Variant v = like_makruk("makrukhouse");
    v.drops = true;
    v.capturesToHand = true;
    v.pawnDropsEverywhere = true;
    // Its promoted mets borrow the ai-wok's code in training records and its rows in a net
    // (packed.h, nnue_arch.h): a game whose captures go to the hand has no ai-wok.
    assert(v.pieceChars[AIWOK] == '*');
    // A net of its own, with inputs for the pieces in hand (docs/nnue.md, "Nets in use").
    v.net = GameNet::Makrukhouse;
    return v;
}

Variant finished(Variant v) {
    v.startFen = v.start_fen();
    return v;
}

const Variant Makruk = finished(make_makruk());
const Variant Cambodian = finished(make_cambodian());
const Variant Makpong = finished(make_makpong());
const Variant Karouk = finished(make_karouk());
const Variant AiWok = finished(make_aiwok());
const Variant Asean = finished(make_asean());
const Variant Sittuyin = finished(make_sittuyin());
const Variant Makrukhouse = finished(make_makrukhouse());

const Variant* const All[] = {&Makruk, &Cambodian, &Makpong,  &Karouk,
                              &AiWok,  &Asean,     &Sittuyin, &Makrukhouse};

} // namespace

std::string Variant::start_fen() const {
    return startBoard + (drops ? "[" + startHand + "]" : "") + " w " + startRights + " - 0 1";
}

const Variant* find_variant(const std::string& name) {
    for (const Variant* v : All)
        if (v->name == name) return v;
    return nullptr;
}

const Variant* find_variant_named(const std::string& text) {
    auto squeeze = [](const std::string& s) {
        std::string out;
        for (char c : s)
            if (std::isalnum(static_cast<unsigned char>(c)))
                out += char(std::tolower(static_cast<unsigned char>(c)));
        return out;
    };
    const std::string n = squeeze(text);
    for (const Variant* v : All) {
        if (squeeze(v->name) == n) return v;
        for (const std::string& other : v->otherNames)
            if (other == n) return v;
    }
    return nullptr;
}

const Variant& default_variant() { return Makruk; }

std::vector<std::string> variant_names() {
    std::vector<std::string> names;
    for (const Variant* v : All) names.push_back(v->name);
    return names;
}

// White: knights b1 g1, king d1, met e1; Black: knights b8 g8, met d8, king e8.
std::string sutra_rights(bool khun, bool met, bool ma) {
    std::string s;
    if (ma) s += 'B';
    if (khun) s += 'D';
    if (met) s += 'E';
    if (ma) s += 'G';
    if (ma) s += 'b';
    if (met) s += 'd';
    if (khun) s += 'e';
    if (ma) s += 'g';
    return s.empty() ? "-" : s;
}

Variant with_sutras(const Variant& base, bool khun, bool met, bool ma) {
    Variant v = base;
    if (!base.sutraHouseRules) return v;
    v.sutKhun = khun;
    v.sutMet = met;
    v.sutMa = ma;
    v.startRights = sutra_rights(khun, met, ma);
    v.startFen = v.start_fen();
    return v;
}

} // namespace khun
