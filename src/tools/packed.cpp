#include "khun/tools/packed.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>

namespace khun::tools {

namespace {

// The games by record index (their order in the variant table), built once: damage() and
// game() run on every record a trainer loads, and variant_names() builds its list afresh.
const std::vector<const Variant*>& games() {
    static const std::vector<const Variant*> list = [] {
        std::vector<const Variant*> g;
        for (const std::string& name : variant_names()) g.push_back(find_variant(name));
        return g;
    }();
    return list;
}

int variant_index(const Variant& v) {
    const auto& g = games();
    const auto it =
        std::find_if(g.begin(), g.end(), [&](const Variant* x) { return x->name == v.name; });
    assert(it != g.end());
    return int(it - g.begin());
}

} // namespace

PackedPosition PackedPosition::pack(const Position& pos, int whiteScore, double whiteResult) {
    PackedPosition p{};
    p.occupancy = pos.pieces();
    assert(popcount(p.occupancy) <= 32);
    int i = 0;
    for (Bitboard b = p.occupancy; b; ++i) {
        const Square s = pop_lsb(b);
        const Piece pc = pos.piece_on(s);
        // A position marks promoted pieces only where captures go to the hand.
        const int kind = pos.promoted() & square_bb(s) ? PromotedMetCode : int(type_of(pc));
        const int nibble = (color_of(pc) == BLACK ? 8 : 0) | kind;
        p.pieces[i / 2] |= uint8_t(nibble << (4 * (i % 2)));
    }
    // The hands, after the board's pieces: board and hands hold the game's 32 at most.
    for (Color c : {WHITE, BLACK})
        for (PieceType pt = PAWN; pt <= KING; ++pt)
            for (int k = 0; k < pos.in_hand(c, pt); ++k, ++i) {
                assert(i < 32);
                p.pieces[i / 2] |= uint8_t(((c == BLACK ? 8 : 0) | int(pt)) << (4 * (i % 2)));
            }
    p.score = int16_t(std::clamp(whiteScore, -32000, 32000));
    p.result = uint8_t(std::lround(std::clamp(whiteResult, 0.0, 1.0) * 2));
    p.flags = pos.side_to_move() == BLACK ? 1 : 0;
    p.countLimit = uint8_t(std::clamp(pos.count_limit(), 0, 255));
    p.countPly = uint8_t(std::clamp(pos.count_ply(), 0, 255));
    p.variant = uint8_t(variant_index(pos.variant()));
    p.fullmove = uint8_t(std::min(1 + pos.game_ply() / 2, 255));
    return p;
}

std::optional<std::string> PackedPosition::damage() const {
    const PackedPosition& p = *this;
    if (p.variant >= games().size()) return "unknown game " + std::to_string(p.variant);
    const std::string& chars = games()[p.variant]->pieceChars;
    const int n = popcount(p.occupancy);
    if (n > 32) return std::to_string(n) + " pieces";
    if (p.result > 2) return "result " + std::to_string(p.result);
    const bool drops = games()[p.variant]->drops;
    int kings[COLOR_NB] = {};
    bool handEnded = false;
    for (int i = 0; i < 32; ++i) {
        const int nibble = (p.pieces[i / 2] >> (4 * (i % 2))) & 15;
        if (i >= n) {
            // The hands of a drop game, up to the first zero nibble.
            handEnded |= !drops || !nibble;
            if (nibble && handEnded) return std::string("bits set after the last piece");
            if (!nibble) continue;
        }
        const int kind = nibble & 7;
        if (kind == PromotedMetCode && i < n && games()[p.variant]->capturesToHand) continue;
        if (kind < PAWN || chars[kind] == '*')
            return "piece kind " + std::to_string(kind) + " (not in its game)";
        if (kind == KING) ++kings[nibble >> 3];
    }
    if (kings[WHITE] != 1 || kings[BLACK] != 1)
        return std::to_string(kings[WHITE]) + " white and " + std::to_string(kings[BLACK]) +
               " black kings";
    return std::nullopt;
}

const Variant* PackedPosition::game() const {
    return variant < games().size() ? games()[variant] : nullptr;
}

std::optional<std::string> PackedPosition::fen() const {
    if (damage()) return std::nullopt;
    const Variant* v = game();
    Piece board[SQUARE_NB] = {};
    Bitboard promoted = 0;
    for_each_piece([&](Piece pc, Square s, bool isPromoted) {
        board[s] = pc;
        if (isPromoted) promoted |= square_bb(s);
    });
    std::string s = board_fen(board, *v, promoted);
    if (v->drops) {
        s += '[';
        for (int i = popcount(occupancy); i < 32; ++i) {
            const int nibble = (pieces[i / 2] >> (4 * (i % 2))) & 15;
            if (!nibble) break;
            const char c = v->pieceChars[nibble & 7];
            s += nibble & 8 ? char(std::tolower(static_cast<unsigned char>(c))) : c;
        }
        s += ']';
    }
    s += side_to_move() == WHITE ? " w - " : " b - ";
    s += countLimit ? std::to_string(countLimit) : std::string("-");
    if (v->firstCheckWins) s += " 3+3"; // karouk's counters are not kept
    s += " " + std::to_string(countLimit ? countPly : 0) + " " +
         std::to_string(std::max<int>(fullmove, 1));
    return s;
}

} // namespace khun::tools
