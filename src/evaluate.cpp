#include "khun/evaluate.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace khun {
namespace eval {

//                                         -   P    N    S    M    R    A     K
// Pawns are weak in Makruk (no double step, they promote only to a met) and the rook is
// the one long-range piece: relative values close to Fairy-Stockfish's for makruk.
const int PieceValueMg[PIECE_TYPE_NB] = {0, 60, 375, 320, 200, 645, 1100, 0};
const int PieceValueEg[PIECE_TYPE_NB] = {0, 90, 410, 310, 215, 690, 1300, 0};

namespace {

// Game phase from the pieces besides pawns and kings: 24 at the start, 0 when bare.
constexpr int PhaseWeight[PIECE_TYPE_NB] = {0, 0, 1, 1, 1, 3, 4, 0};
constexpr int PhaseMax = 2 * (2 * 1 + 2 * 1 + 1 + 2 * 3);

struct Score {
    int mg = 0, eg = 0;
    Score& operator+=(Score o) {
        mg += o.mg, eg += o.eg;
        return *this;
    }
    Score& operator-=(Score o) {
        mg -= o.mg, eg -= o.eg;
        return *this;
    }
};
constexpr Score S(int mg, int eg) { return Score{mg, eg}; }
inline Score operator*(Score s, int k) { return S(s.mg * k, s.eg * k); }

int centre_distance(Square s) {
    int f = file_of(s), r = rank_of(s);
    return std::max(std::max(3 - f, f - 4), std::max(3 - r, r - 4));
}
int edge_distance(Square s) {
    int f = file_of(s), r = rank_of(s);
    return std::min(std::min(f, 7 - f), std::min(r, 7 - r));
}
int distance(Square a, Square b) {
    return std::max(std::abs(file_of(a) - file_of(b)), std::abs(rank_of(a) - rank_of(b)));
}

// Piece-square bonus from White's side; Black's squares are rotated 180 degrees, the
// symmetry of the Makruk start position (kings on d1 and e8).
Score psq(PieceType pt, Square s) {
    const int cd = centre_distance(s); // 0 in the centre, 3 in a corner
    const int rr = rank_of(s);
    switch (pt) {
    case PAWN: {
        // Pawns start on rank 3 and promote on rank 6: every step counts.
        static const int adv[8] = {0, 0, 0, 6, 18, 0, 0, 0};
        int centreFile = (file_of(s) >= FILE_C && file_of(s) <= FILE_F) ? 6 : 0;
        return S(adv[rr] + centreFile, adv[rr] * 2);
    }
    case KNIGHT: return S(12 - 8 * cd, 8 - 6 * cd);
    case KHON: return S(10 - 5 * cd + 3 * std::min(rr, 4), 6 - 4 * cd);
    case MET: return S(8 - 4 * cd + 2 * std::min(rr, 4), 8 - 4 * cd);
    case ROOK: return S(rr == 6 ? 12 : 0, 0);
    case AIWOK: return S(10 - 5 * cd, 10 - 5 * cd);
    case KING: return S(rr == 0 ? 10 : -8 * rr, 14 - 8 * cd);
    default: return S(0, 0);
    }
}

constexpr Score MobilityBonus[PIECE_TYPE_NB] = {S(0, 0), S(0, 0), S(6, 6), S(5, 4),
                                                S(4, 4), S(4, 5), S(4, 4), S(0, 0)};
constexpr Score RookOpenFile = S(30, 12);
constexpr Score RookHalfOpenFile = S(14, 6);
constexpr Score PawnIsolated = S(-8, -10);
constexpr Score PawnDoubled = S(-10, -16);
constexpr Score PawnSupported = S(8, 6);
constexpr Score PawnPassed[8] = {S(0, 0),   S(0, 0), S(0, 0), S(10, 20),
                                 S(25, 45), S(0, 0), S(0, 0), S(0, 0)};
constexpr Score KingShelter = S(12, 0);     // per met/khon next to the king
constexpr Score KingZoneAttack = S(-9, -2); // per enemy attack on the king zone
constexpr int Tempo = 12;

template <Color Us>
Score evaluate_side(const Position& pos, Bitboard enemyPawnAttacks, int& kingAttacks) {
    constexpr Color Them = ~Us;
    Score s;
    const Bitboard occ = pos.pieces();
    const Bitboard ours = pos.pieces(Us);
    const Bitboard pawns = pos.pieces(Us, PAWN), theirPawns = pos.pieces(Them, PAWN);
    const Bitboard safe = ~ours & ~enemyPawnAttacks;
    const Square theirKing = pos.king_square(Them);
    const Bitboard theirZone = attacks::king(theirKing) | square_bb(theirKing);

    for (Bitboard b = pos.pieces(Us) & ~pos.pieces(KING); b;) {
        Square sq = pop_lsb(b);
        PieceType pt = type_of(pos.piece_on(sq));
        Square rel = Us == WHITE ? sq : Square(sq ^ 63);
        s += S(PieceValueMg[pt], PieceValueEg[pt]);
        s += psq(pt, rel);
        if (pt == PAWN) continue;
        Bitboard att = attacks::of(pt, Us, sq, occ);
        s += MobilityBonus[pt] * (popcount(att & safe) - (pt == ROOK ? 6 : 2));
        kingAttacks += popcount(att & theirZone);
        if (pt == ROOK) {
            Bitboard f = file_bb(sq);
            if (!(f & pawns)) s += (f & theirPawns) ? RookHalfOpenFile : RookOpenFile;
        }
    }

    // Pawn structure.
    for (Bitboard b = pawns; b;) {
        Square sq = pop_lsb(b);
        File f = file_of(sq);
        Bitboard adj =
            (f > FILE_A ? file_bb(File(f - 1)) : 0) | (f < FILE_H ? file_bb(File(f + 1)) : 0);
        if (!(adj & pawns)) s += PawnIsolated;
        if (more_than_one(file_bb(f) & pawns)) s += PawnDoubled;
        if (attacks::pawn(Them, sq) & pawns) s += PawnSupported;
        // Passed: no enemy pawn ahead on this or an adjacent file.
        Rank r = relative_rank(Us, sq);
        const int rk = rank_of(sq);
        const Bitboard front = Us == WHITE ? (rk < 7 ? ~Bitboard(0) << (8 * (rk + 1)) : 0)
                                           : (Bitboard(1) << (8 * rk)) - 1;
        const Bitboard ahead = (file_bb(f) | adj) & front;
        if (!(ahead & theirPawns)) s += PawnPassed[r];
    }

    // King shelter by mets and khons, which defend by stepping.
    const Square ksq = pos.king_square(Us);
    s += KingShelter * popcount(attacks::king(ksq) & (pos.pieces(Us, MET) | pos.pieces(Us, KHON)));
    s += psq(KING, Us == WHITE ? ksq : Square(ksq ^ 63));
    return s;
}

// Bare king against mating material: drive the king to the edge, bring ours closer.
int mop_up(const Position& pos, Color strong) {
    const Square wk = pos.king_square(~strong), sk = pos.king_square(strong);
    return 40 * (3 - edge_distance(wk)) + 10 * (3 - centre_distance(wk)) * 2 +
           12 * (7 - distance(wk, sk));
}

// How much of the winning side's advantage survives, in 1/64ths.
int scale(const Position& pos, Color strong) {
    if (pos.pieces(PAWN)) return 64;
    const Color weak = ~strong;
    const int n = pos.count(strong) - 1;
    const int rooks = pos.count(strong, ROOK) + pos.count(strong, AIWOK);
    const int khons = pos.count(strong, KHON);
    if (rooks) return 64;
    if (n <= 1) return 4; // a lone met, khon or knight cannot mate
    if (n == 2 && khons == 0) {
        // Two knights, two mets or knight+met: almost never a forced mate.
        return pos.count(strong, KNIGHT) == 1 && pos.count(strong, MET) == 1 ? 16 : 6;
    }
    (void)weak;
    return 64;
}

} // namespace

bool dead_draw(const Position& pos) {
    if (pos.pieces(PAWN)) return false;
    for (Color c : {WHITE, BLACK}) {
        Bitboard rest = pos.pieces(c) & ~pos.pieces(KING);
        if (more_than_one(rest)) return false;
        if (rest & (pos.pieces(ROOK) | pos.pieces(KHON) | pos.pieces(AIWOK))) return false;
    }
    // Each side has at most a lone met or knight: no mate can be forced or helped.
    return !(pos.pieces(WHITE) & ~pos.pieces(KING)) || !(pos.pieces(BLACK) & ~pos.pieces(KING));
}

Value evaluate(const Position& pos) {
    const Bitboard wp = pos.pieces(WHITE, PAWN), bp = pos.pieces(BLACK, PAWN);
    const Bitboard wAtt = ((wp & ~FileABB) << 7) | ((wp & ~FileHBB) << 9);
    const Bitboard bAtt = ((bp & ~FileABB) >> 9) | ((bp & ~FileHBB) >> 7);
    int wKingAttacks = 0, bKingAttacks = 0;
    Score s = evaluate_side<WHITE>(pos, bAtt, wKingAttacks);
    s -= evaluate_side<BLACK>(pos, wAtt, bKingAttacks);
    s += KingZoneAttack * bKingAttacks;
    s -= KingZoneAttack * wKingAttacks;

    int phase = 0;
    for (PieceType pt = KNIGHT; pt <= AIWOK; ++pt) phase += PhaseWeight[pt] * pos.count(pt);
    phase = std::min(phase, PhaseMax);
    int v = (s.mg * phase + s.eg * (PhaseMax - phase)) / PhaseMax;

    // Endings against a bare king.
    for (Color c : {WHITE, BLACK}) {
        if (!more_than_one(pos.pieces(~c)) && more_than_one(pos.pieces(c)) && !pos.pieces(PAWN)) {
            int bonus = mop_up(pos, c);
            v += c == WHITE ? bonus : -bonus;
        }
    }
    Color strong = v > 0 ? WHITE : BLACK;
    v = v * scale(pos, strong) / 64;

    v = pos.side_to_move() == WHITE ? v : -v;
    return v + Tempo;
}

std::string trace(const Position& pos) {
    std::ostringstream os;
    Value v = evaluate(pos);
    int white = pos.side_to_move() == WHITE ? v : -v;
    os << "Final evaluation: " << (white >= 0 ? "+" : "") << white / 100.0 << " (white side) [" << v
       << " cp for the side to move]\n";
    return os.str();
}

} // namespace eval
} // namespace khun
