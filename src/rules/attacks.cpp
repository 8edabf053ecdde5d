#include "khun/rules/attacks.h"

#include "khun/rules/prng.h"

#include <cassert>
#include <iterator>
#include <mutex>
#include <vector>

namespace khun {

std::string pretty(Bitboard b) {
    std::string s = "+---+---+---+---+---+---+---+---+\n";
    for (int r = RANK_8; r >= RANK_1; --r) {
        for (int f = FILE_A; f <= FILE_H; ++f)
            s += (b & square_bb(make_square(File(f), Rank(r)))) ? "| X " : "|   ";
        s += "| " + std::to_string(r + 1) + "\n+---+---+---+---+---+---+---+---+\n";
    }
    return s + "  a   b   c   d   e   f   g   h\n";
}

namespace attacks {

Magic RookMagics[SQUARE_NB];
Bitboard KingAttacks[SQUARE_NB];
Bitboard KnightAttacks[SQUARE_NB];
Bitboard MetAttacks[SQUARE_NB];
Bitboard KhonAttacks[COLOR_NB][SQUARE_NB];
Bitboard PawnAttacks[COLOR_NB][SQUARE_NB];
Bitboard LineBB[SQUARE_NB][SQUARE_NB];
Bitboard BetweenBB[SQUARE_NB][SQUARE_NB];

namespace {

// 0x19000 entries is the exact total of all rook tables with minimal masks.
Bitboard RookTable[0x19000];

// The square s+(df,dr) as a set, or empty when that leaves the board.
Bitboard step(Square s, int df, int dr) {
    int f = file_of(s) + df, r = rank_of(s) + dr;
    return (f >= 0 && f < 8 && r >= 0 && r < 8) ? square_bb(make_square(File(f), Rank(r))) : 0;
}

Bitboard slide(Square s, Bitboard occupied) {
    static const int dirs[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    Bitboard b = 0;
    for (auto& d : dirs) {
        int f = file_of(s), r = rank_of(s);
        while (true) {
            f += d[0], r += d[1];
            if (f < 0 || f > 7 || r < 0 || r > 7) break;
            Bitboard sq = square_bb(make_square(File(f), Rank(r)));
            b |= sq;
            if (occupied & sq) break;
        }
    }
    return b;
}

void init_rook_magics() {
    Bitboard* table = RookTable;
    std::vector<Bitboard> occ(4096), ref(4096);
    std::vector<int> epoch(4096, 0);
    int cnt = 0;
    Prng rng(728); // a fixed seed: the same magics (and table layout) every run

    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        Bitboard edges = ((Rank1BB | Rank8BB) & ~rank_bb(s)) | ((FileABB | FileHBB) & ~file_bb(s));
        Magic& m = RookMagics[s];
        m.mask = slide(s, 0) & ~edges;
        m.shift = 64 - popcount(m.mask);
        m.table = table;

        // Enumerate every subset of the mask (Carry-Rippler) with its attack set.
        int size = 0;
        Bitboard b = 0;
        do {
            assert(size < int(occ.size())); // a mask has at most 12 squares
            occ[size] = b;
            ref[size] = slide(s, b);
#if defined(KHUN_USE_PEXT)
            m.table[pext(b, m.mask)] = ref[size];
#endif
            ++size;
            b = (b - m.mask) & m.mask;
        } while (b);
        table += size;

#if !defined(KHUN_USE_PEXT)
        // Try sparse random multipliers until one maps every subset without a clash.
        for (int i = 0; i < size;) {
            do m.magic = rng.sparse();
            while (popcount((m.magic * m.mask) >> 56) < 6);
            ++cnt;
            for (i = 0; i < size; ++i) {
                unsigned idx = m.index(occ[i]);
                if (epoch[idx] < cnt) {
                    epoch[idx] = cnt;
                    m.table[idx] = ref[i];
                } else if (m.table[idx] != ref[i])
                    break;
            }
        }
#endif
        // Whichever way the index is computed, every occupancy must find its own attacks.
        for (int i = 0; i < size; ++i) assert(rook(s, occ[i]) == ref[i]);
    }
    // The tables must fill RookTable exactly: a mask one square too wide overruns it.
    assert(table == RookTable + std::size(RookTable));
    (void)cnt;
    (void)rng;
}

void init_tables() {
    for (Square s = SQ_A1; s <= SQ_H8; ++s) {
        KingAttacks[s] = 0;
        for (int df = -1; df <= 1; ++df)
            for (int dr = -1; dr <= 1; ++dr)
                if (df || dr) KingAttacks[s] |= step(s, df, dr);
        KnightAttacks[s] = step(s, 1, 2) | step(s, 2, 1) | step(s, -1, 2) | step(s, -2, 1) |
                           step(s, 1, -2) | step(s, 2, -1) | step(s, -1, -2) | step(s, -2, -1);
        MetAttacks[s] = step(s, 1, 1) | step(s, -1, 1) | step(s, 1, -1) | step(s, -1, -1);
        KhonAttacks[WHITE][s] = MetAttacks[s] | step(s, 0, 1);
        KhonAttacks[BLACK][s] = MetAttacks[s] | step(s, 0, -1);
        PawnAttacks[WHITE][s] = step(s, 1, 1) | step(s, -1, 1);
        PawnAttacks[BLACK][s] = step(s, 1, -1) | step(s, -1, -1);
    }
    for (Square a = SQ_A1; a <= SQ_H8; ++a)
        for (Square b = SQ_A1; b <= SQ_H8; ++b) {
            LineBB[a][b] = BetweenBB[a][b] = 0;
            if (a == b || !(slide(a, 0) & square_bb(b))) continue;
            LineBB[a][b] = (slide(a, 0) & slide(b, 0)) | square_bb(a) | square_bb(b);
            BetweenBB[a][b] = slide(a, square_bb(b)) & slide(b, square_bb(a));
        }
}

} // namespace

void init() {
    static std::once_flag once;
    std::call_once(once, [] {
        init_tables();
        init_rook_magics();
    });
}

} // namespace attacks
} // namespace khun
