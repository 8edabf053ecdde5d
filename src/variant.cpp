#include "khun/variant.h"

namespace khun {

namespace {

// Index = PieceType: none, pawn, knight, khon, met, rook, ai-wok, king.
const Variant Makruk{"makruk",   "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1",
                     " PNSMRAK", CountingRule::Makruk,
                     RANK_6,     MET,
                     false,      false,
                     false};

const Variant* const All[] = {&Makruk};

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

} // namespace khun
