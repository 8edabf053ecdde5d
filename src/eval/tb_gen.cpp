// The retrograde generator of the bare-king tables: the table layout, the moves of the
// lone king, and the backward sweep from the mates.
#include "tb_internal.h"

#include <algorithm>
#include <cassert>
#include <chrono>

namespace khun::eval::tb::detail {

namespace {

// The knight/khon/met/rook order names use: KSNK, KSMK, KNRK...
constexpr PieceType Kinds[4] = {KHON, KNIGHT, MET, ROOK};
constexpr char Letters[4] = {'S', 'N', 'M', 'R'};

std::vector<Material> make_materials() {
    std::vector<Material> ms;
    for (int i = 0; i < 4; ++i) {
        Material m;
        m.id = int(ms.size());
        m.n = 1;
        m.type[0] = Kinds[i];
        m.name = std::string("K") + Letters[i] + "K";
        m.size = size_t(32) * 64 * 64;
        m.sub[0] = -1;
        ms.push_back(m);
    }
    for (int i = 0; i < 4; ++i)
        for (int j = i; j < 4; ++j) {
            Material m;
            m.id = int(ms.size());
            m.n = 2;
            m.type[0] = Kinds[i], m.type[1] = Kinds[j];
            m.same = i == j;
            m.name = std::string("K") + Letters[i] + Letters[j] + "K";
            m.size = m.same ? size_t(32) * 64 * 2016 : size_t(32) * 64 * 64 * 64;
            // Taking piece 0 leaves piece 1 alone, and the other way round.
            m.sub[0] = j, m.sub[1] = i;
            ms.push_back(m);
        }
    // material_id() computes these places, and tb.cpp keeps one slot per table.
    assert(ms.size() == 14);
    return ms;
}

// The 2016 unordered pairs of distinct squares, by their index a + b(b-1)/2 (a < b).
struct Pairs {
    uint8_t lo[2016], hi[2016];
    Pairs() {
        for (int b = 1; b < 64; ++b)
            for (int a = 0; a < b; ++a)
                lo[b * (b - 1) / 2 + a] = uint8_t(a), hi[b * (b - 1) / 2 + a] = uint8_t(b);
    }
};
const Pairs PairTable;

} // namespace

const std::vector<Material>& all_materials() {
    // Never destroyed: a table loader thread may still read it while a process exits.
    static const std::vector<Material>& ms = *new std::vector<Material>(make_materials());
    return ms;
}

int kind_rank(PieceType pt) {
    for (int i = 0; i < 4; ++i)
        if (Kinds[i] == pt) return i;
    return -1;
}

int material_id(PieceType a, PieceType b) {
    int i = kind_rank(a), j = b == NO_PIECE_TYPE ? -2 : kind_rank(b);
    if (i < 0 || j == -1) return -1;
    if (j == -2) return i;
    if (i > j) std::swap(i, j);
    // Pairs follow the singles, row by row of the upper triangle.
    const int id = 4 + i * 4 - i * (i - 1) / 2 + (j - i);
    assert(all_materials()[id].type[0] == Kinds[i] && all_materials()[id].type[1] == Kinds[j]);
    return id;
}

size_t index(const Material& m, Square wk, Square bk, Square a, Square b) {
    if (file_of(wk) > FILE_D) {
        wk = flip_file(wk), bk = flip_file(bk), a = flip_file(a);
        if (m.n == 2) b = flip_file(b);
    }
    assert(is_ok(wk) && is_ok(bk) && is_ok(a) && (m.n == 1 || is_ok(b)));
    const size_t k = size_t(rank_of(wk) * 4 + file_of(wk)) * 64 + bk;
    if (m.n == 1) return k * 64 + a;
    if (!m.same) return (k * 64 + a) * 64 + b;
    if (a > b) std::swap(a, b);
    // Two like pieces on one square would take the place of another pair.
    assert(a != b);
    return k * 2016 + size_t(b * (b - 1) / 2 + a);
}

void decode(const Material& m, size_t idx, Square& wk, Square& bk, Square& a, Square& b) {
    assert(idx < m.size);
    size_t k;
    if (m.n == 1) {
        a = Square(idx & 63), b = SQ_NONE, k = idx >> 6;
    } else if (!m.same) {
        b = Square(idx & 63), a = Square((idx >> 6) & 63), k = idx >> 12;
    } else {
        size_t p = idx % 2016;
        a = Square(PairTable.lo[p]), b = Square(PairTable.hi[p]), k = idx / 2016;
    }
    bk = Square(k & 63);
    const int w = int(k >> 6);
    wk = make_square(File(w & 3), Rank(w >> 2));
}

BareMoves bare_moves(const Material& m, Square wk, Square bk, const Square* p) {
    Bitboard occ = square_bb(wk) | square_bb(bk);
    for (int i = 0; i < m.n; ++i) occ |= square_bb(p[i]);
    // The lone king does not shield a square behind it from a ruea.
    const Bitboard occX = occ ^ square_bb(bk);
    Bitboard att[2] = {0, 0};
    for (int i = 0; i < m.n; ++i) att[i] = attacks_of(m.type[i], p[i], occX);
    const Bitboard kingAtt = attacks::king(wk);
    const Bitboard all = kingAtt | att[0] | att[1];
    const Bitboard steps = attacks::king(bk);
    BareMoves r;
    r.inCheck = (all & square_bb(bk)) != 0;
    r.quiet = steps & ~occ & ~all;
    for (int i = 0; i < m.n; ++i)
        r.capture[i] = (steps & square_bb(p[i])) && !((kingAtt | att[1 - i]) & square_bb(p[i]));
    return r;
}

bool bare_king_attacked(const Material& m, Square wk, Square bk, const Square* p) {
    if (attacks::king(wk) & square_bb(bk)) return true;
    Bitboard occ = square_bb(wk) | square_bb(bk);
    for (int i = 0; i < m.n; ++i) occ |= square_bb(p[i]);
    for (int i = 0; i < m.n; ++i)
        if (attacks_of(m.type[i], p[i], occ) & square_bb(bk)) return true;
    return false;
}

namespace {

// During generation, B holds the bare side's values: 0..127 mated in that many moves;
// Pending + c not yet known, with c the best a capture gets (the strong side's moves to
// mate after it; 0 if no capture); Fixed a draw or an illegal placement.
constexpr uint8_t Pending = 128;
constexpr uint8_t Fixed = 255;

class Generator {
  public:
    Generator(const Material& m, const uint8_t* sub0, const uint8_t* sub1)
        : m(m), W(m.size, 0), B(m.size), known(m.size / 64 + 1, 0), pending(m.size / 64 + 1, 0) {
        sub[0] = sub0, sub[1] = sub1;
    }

    std::vector<uint8_t> run() {
        init();
        for (int n = 1;; ++n) {
            // The strong side's wins in n: a move to a position lost in n-1.
            std::vector<uint32_t> won;
            if (size_t(n - 1) < lost.size()) {
                for (uint32_t idx : lost[n - 1]) unmove_strong(idx, n, won);
                std::vector<uint32_t>().swap(lost[n - 1]);
            }
            // The bare side's losses: every move now leads to a known loss.
            for (uint32_t idx : won) unmove_bare(idx, n);
            if (won.empty() && size_t(n) >= lost.size()) break;
        }
        return std::move(W);
    }

  private:
    void set_lost(size_t idx, int v) {
        assert(v >= 0 && v < Pending); // at Pending and above the value reads as unresolved
        B[idx].value = uint8_t(v);
        pending[idx / 64] &= ~(uint64_t(1) << (idx % 64));
        if (lost.size() <= size_t(v)) lost.resize(v + 1);
        lost[v].push_back(uint32_t(idx));
    }

    // Every placement with the bare side to move: illegal, mated, stalemated, drawn by a
    // capture, or pending with the number of its other moves still unresolved.
    void init() {
        for (size_t idx = 0; idx < m.size; ++idx) {
            Square wk, bk, p[2];
            decode(m, idx, wk, bk, p[0], p[1]);
            if (!placement_ok(wk, bk, p) || (attacks::king(wk) & square_bb(bk))) continue;
            BareMoves bm = bare_moves(m, wk, bk, p);
            int floor = 0, captures = 0;
            bool draw = false;
            for (int i = 0; i < m.n; ++i) {
                if (!bm.capture[i]) continue;
                ++captures;
                int v = capture_value(i, wk, p);
                if (!v) draw = true;
                floor = std::max(floor, v);
            }
            if (draw) continue; // stays Fixed
            const int quiet = popcount(bm.quiet);
            if (quiet + captures == 0) {
                if (bm.inCheck) set_lost(idx, 0);
                continue; // stalemate: Fixed
            }
            if (quiet == 0) {
                set_lost(idx, floor);
                continue;
            }
            assert(Pending + floor < Fixed); // else a pending entry reads as a draw
            B[idx] = {uint8_t(Pending + floor), uint8_t(quiet)};
            pending[idx / 64] |= uint64_t(1) << (idx % 64);
        }
    }

    // The strong side to move after the lone king took piece i: its moves to mate, 0 for
    // a draw (a bare king against a bare king, or a drawn smaller ending).
    int capture_value(int i, Square wk, const Square* p) const {
        if (!sub[i]) return 0;
        const Material& sm = all_materials()[m.sub[i]];
        return sub[i][index(sm, wk, p[i], p[1 - i], SQ_NONE)];
    }

    bool placement_ok(Square wk, Square bk, const Square* p) const {
        if (wk == bk) return false;
        for (int i = 0; i < m.n; ++i)
            if (p[i] == wk || p[i] == bk) return false;
        return m.n == 1 || p[0] != p[1];
    }

    // Positions with the strong side to move that reach `idx` (lost in n-1) in one move.
    // Only legal ones: the origins from which the moved man, or a ruea it uncovers,
    // would attack the lone king are masked out beforehand rather than tried one by one.
    void unmove_strong(uint32_t idx, int n, std::vector<uint32_t>& won) {
        Square wk, bk, p[2];
        decode(m, idx, wk, bk, p[0], p[1]);
        Bitboard occ = square_bb(wk) | square_bb(bk);
        for (int i = 0; i < m.n; ++i) occ |= square_bb(p[i]);
        auto visit = [&](Square k, const Square* q) {
            size_t j = index(m, k, bk, q[0], q[1]);
            const uint64_t bit = uint64_t(1) << (j % 64);
            if (known[j / 64] & bit) return;
            known[j / 64] |= bit;
            W[j] = uint8_t(n);
            won.push_back(uint32_t(j));
        };
        Bitboard allowed = attacks::king(wk) & ~occ & ~attacks::king(bk);
        for (int i = 0; i < m.n; ++i) allowed &= safe_origins(m.type[i], p[i], bk, occ, wk);
        while (allowed) visit(pop_lsb(allowed), p);
        for (int i = 0; i < m.n; ++i) {
            allowed = origins_of(m.type[i], p[i], occ) & ~occ;
            allowed &= ~(m.type[i] == ROOK ? attacks::rook(bk, occ ^ square_bb(p[i]))
                                           : origins_of(m.type[i], bk, 0));
            if (m.n == 2) allowed &= safe_origins(m.type[1 - i], p[1 - i], bk, occ, p[i]);
            Square q[2] = {p[0], p[1]};
            while (allowed) {
                q[i] = pop_lsb(allowed);
                visit(wk, q);
            }
        }
    }

    // Where a man may come from, leaving `from` empty, without the piece of kind t on s
    // (which stays) attacking the lone king afterwards.
    static Bitboard safe_origins(PieceType t, Square s, Square bk, Bitboard occ, Square from) {
        if (t != ROOK) return attacks_of(t, s, 0) & square_bb(bk) ? 0 : ~Bitboard(0);
        if (!line_bb(s, bk)) return ~Bitboard(0);
        const Bitboard between = between_bb(s, bk);
        // Blocked by another man whatever happens, or only by one landing in between.
        return between & occ & ~square_bb(from) ? ~Bitboard(0) : between;
    }

    // Positions with the bare side to move that reach `idx` (won in n) in one king step.
    void unmove_bare(uint32_t idx, int n) {
        Square wk, bk, p[2];
        decode(m, idx, wk, bk, p[0], p[1]);
        Bitboard occ = square_bb(wk) | square_bb(bk);
        for (int i = 0; i < m.n; ++i) occ |= square_bb(p[i]);
        for (Bitboard b = attacks::king(bk) & ~occ & ~attacks::king(wk); b;) {
            size_t j = index(m, wk, pop_lsb(b), p[0], p[1]);
            if (!(pending[j / 64] & (uint64_t(1) << (j % 64)))) continue;
            // Each king step is counted down once: its target is won only once.
            assert(B[j].left > 0);
            if (--B[j].left == 0) set_lost(j, std::max(n, B[j].value - Pending));
        }
    }

    const Material& m;
    const uint8_t* sub[2];
    // The bare side's value, and while pending the number of its king steps whose
    // result is still unknown (side by side: one cache miss for both).
    struct Bare {
        uint8_t value = Fixed, left = 0;
    };
    std::vector<uint8_t> W;
    std::vector<Bare> B;
    // Bit sets small enough to stay in cache: W known, B pending.
    std::vector<uint64_t> known, pending;
    std::vector<std::vector<uint32_t>> lost; // bare side to move, by moves until mated
};

} // namespace

std::vector<uint8_t> generate_table(const Material& m, const uint8_t* sub0, const uint8_t* sub1) {
    return Generator(m, sub0, sub1).run();
}

GenStats table_stats(const Material& m, const std::vector<uint8_t>& dtm) {
    uint64_t legal = 0, won = 0;
    int longest = 0;
    for (size_t idx = 0; idx < m.size; ++idx) {
        Square wk, bk, p[2];
        decode(m, idx, wk, bk, p[0], p[1]);
        if (wk == bk || p[0] == wk || p[0] == bk) continue;
        if (m.n == 2 && (p[1] == wk || p[1] == bk || p[0] == p[1])) continue;
        if (bare_king_attacked(m, wk, bk, p)) continue;
        ++legal;
        if (dtm[idx]) ++won, longest = std::max(longest, int(dtm[idx]));
    }
    // Each stored position stands for itself and its mirror image; two like pieces are
    // counted as two placements, as the reference summary does.
    const uint64_t scale = m.same ? 4 : 2;
    GenStats s;
    s.name = m.name;
    s.positions = legal * scale;
    s.wonShare = legal ? double(won) / double(legal) : 0.0;
    s.longestMate = longest;
    s.seconds = 0;
    s.bytes = dtm.size();
    return s;
}

} // namespace khun::eval::tb::detail
