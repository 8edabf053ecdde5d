#include "khun/packed.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>

namespace khun {

namespace {

int variant_index(const Variant& v) {
    const std::vector<std::string> names = variant_names();
    const auto it = std::find(names.begin(), names.end(), v.name);
    assert(it != names.end());
    return int(it - names.begin());
}

} // namespace

PackedPosition PackedPosition::pack(const Position& pos, int whiteScore, double whiteResult) {
    PackedPosition p{};
    p.occupancy = pos.pieces();
    assert(popcount(p.occupancy) <= 32);
    int i = 0;
    for (Bitboard b = p.occupancy; b; ++i) {
        const Piece pc = pos.piece_on(pop_lsb(b));
        const int nibble = (color_of(pc) == BLACK ? 8 : 0) | int(type_of(pc));
        p.pieces[i / 2] |= uint8_t(nibble << (4 * (i % 2)));
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

const Variant* PackedPosition::game() const {
    const std::vector<std::string> names = variant_names();
    return variant < names.size() ? find_variant(names[variant]) : nullptr;
}

std::optional<std::string> PackedPosition::fen() const {
    const Variant* v = game();
    if (!v || popcount(occupancy) > 32 || result > 2) return std::nullopt;
    char board[SQUARE_NB] = {};
    bool ok = true;
    for_each_piece([&](Piece pc, Square s) {
        const PieceType pt = type_of(pc);
        if (pt < PAWN || pt > KING || v->pieceChars[pt] == '*') {
            ok = false;
            return;
        }
        const char c = v->pieceChars[pt];
        board[s] = color_of(pc) == WHITE ? c : char(std::tolower(static_cast<unsigned char>(c)));
    });
    if (!ok) return std::nullopt;
    std::string s;
    for (int r = RANK_8; r >= RANK_1; --r) {
        int empty = 0;
        for (int f = FILE_A; f <= FILE_H; ++f) {
            const char c = board[make_square(File(f), Rank(r))];
            if (!c) {
                ++empty;
                continue;
            }
            if (empty) s += char('0' + empty), empty = 0;
            s += c;
        }
        if (empty) s += char('0' + empty);
        if (r > RANK_1) s += '/';
    }
    s += side_to_move() == WHITE ? " w - " : " b - ";
    s += countLimit ? std::to_string(countLimit) : std::string("-");
    if (v->firstCheckWins) s += " 3+3"; // karouk's counters are not kept
    s += " " + std::to_string(countLimit ? countPly : 0) + " " +
         std::to_string(std::max<int>(fullmove, 1));
    return s;
}

} // namespace khun
