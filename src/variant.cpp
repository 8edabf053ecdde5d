#include "khun/variant.h"

namespace khun {

namespace {

// Index = PieceType: none, pawn, knight, khon, met, rook, ai-wok, king.
Variant make_makruk() {
    Variant v;
    v.name = "makruk";
    v.startFen = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1";
    v.pieceChars = " PNSMR*K";
    return v;
}

Variant make_cambodian() {
    Variant v = make_makruk();
    v.name = "cambodian";
    v.startFen = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w DEde - 0 1";
    v.cambodianMoves = true;
    v.counting = CountingRule::Cambodian;
    return v;
}

Variant make_makpong() {
    Variant v = make_makruk();
    v.name = "makpong";
    v.makpong = true;
    return v;
}

Variant make_karouk() {
    Variant v = make_cambodian();
    v.name = "karouk";
    v.firstCheckWins = true;
    return v;
}

Variant make_aiwok() {
    Variant v = make_makruk();
    v.name = "ai-wok";
    v.startFen = "rnsaksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKASNR w - - 0 1";
    v.pieceChars = " PNS*RAK";
    v.promotedTo = AIWOK;
    return v;
}

// ASEAN chess: chess letters (khon = B, met = Q), the king on e1, promotion on the last
// rank with a choice, its own counting, and the fifty-move rule (Fairy-Stockfish keeps
// its chess default there).
Variant make_asean() {
    Variant v = make_makruk();
    v.name = "asean";
    v.startFen = "rnbqkbnr/8/pppppppp/8/8/PPPPPPPP/8/RNBQKBNR w - - 0 1";
    v.pieceChars = " PNBQR*K";
    v.promotionRank = RANK_8;
    v.promotionChoice = true;
    v.counting = CountingRule::Asean;
    v.moveRule = 50;
    return v;
}

const Variant Makruk = make_makruk();
const Variant Cambodian = make_cambodian();
const Variant Makpong = make_makpong();
const Variant Karouk = make_karouk();
const Variant AiWok = make_aiwok();
const Variant Asean = make_asean();

const Variant* const All[] = {&Makruk, &Cambodian, &Makpong, &Karouk, &AiWok, &Asean};

} // namespace

const Variant* find_variant(const std::string& name) {
    for (const Variant* v : All)
        if (v->name == name) return v;
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
    if (base.name != "makruk") return v;
    v.sutKhun = khun;
    v.sutMet = met;
    v.sutMa = ma;
    // Field 3 of the start FEN: "... w - - 0 1" -> "... w <rights> - 0 1".
    const size_t at = v.startFen.find(" w - ");
    if (at != std::string::npos) v.startFen.replace(at + 3, 1, sutra_rights(khun, met, ma));
    return v;
}

} // namespace khun
