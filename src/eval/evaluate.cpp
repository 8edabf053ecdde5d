#include "khun/eval/evaluate.h"

#include "khun/eval/eval_params.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <iomanip>
#include <iterator>
#include <sstream>

namespace khun::eval {
namespace {

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

// Black's squares are rotated 180 degrees: the symmetry of the Makruk start position
// (kings on d1 and e8), so one table serves both colours.
template <Color Us>
constexpr Square relative(Square s) {
    return Us == WHITE ? s : Square(s ^ 63);
}

// Adds weighted feature counts into a score (play), with weight set S ...
template <WeightSet S>
struct ScoreSink {
    Score s;
    void add(Color c, int param, int n = 1) {
        // An index past its term's block reads another term's weight: no crash, only a
        // silently worse evaluation.
        assert(param >= 0 && param < PARAM_NB);
        constexpr const Score* w = weights(S);
        if (c == WHITE)
            s += w[param] * n;
        else
            s -= w[param] * n;
    }
};

} // namespace

// ... or records the counts themselves, White minus Black (tuning).
struct TraceSink {
    int16_t* coef;
    void add(Color c, int param, int n = 1) {
        assert(param >= 0 && param < PARAM_NB);
        coef[param] += int16_t(c == WHITE ? n : -n);
    }
};

namespace {

// What one side's pieces attack, worked out once for both sides' terms.
struct Attacks {
    int n = 0; // pieces other than pawns and the king
    Square sq[64];
    PieceType pt[64];
    Bitboard att[64];
    Bitboard pawns = 0;  // squares its pawns attack
    Bitboard all = 0;    // everything, king and pawns included
    Bitboard minors = 0; // by knights, khons and mets
    Bitboard rooks = 0;  // by rooks and ai-woks
};

template <Color C>
void gather(const Position& pos, Attacks& a) {
    const Bitboard occ = pos.pieces();
    a.pawns = pawn_attacks_bb<C>(pos.pieces(C, PAWN));
    a.all = a.pawns | attacks::king(pos.king_square(C));
    for (Bitboard b = pos.pieces(C) & ~pos.pieces(PAWN) & ~pos.pieces(KING); b;) {
        const Square sq = pop_lsb(b);
        const PieceType pt = type_of(pos.piece_on(sq));
        const Bitboard att = attacks::of(pt, C, sq, occ);
        // A row of P_MOBILITY holds every count a piece can reach (an ai-wok's 26 at most),
        // so the clamp in side_terms() never merges two of them.
        assert(popcount(att) <= MobilityMax);
        a.sq[a.n] = sq;
        a.pt[a.n] = pt;
        a.att[a.n++] = att;
        a.all |= att;
        if (pt == KNIGHT || pt == KHON || pt == MET) a.minors |= att;
        if (pt == ROOK || pt == AIWOK) a.rooks |= att;
    }
}

// The terms that depend on the pawns alone (evaluate() caches them by pawn structure).
// Returns Us's passed pawns.
template <Color Us, class Sink>
Bitboard pawn_terms(const Position& pos, Sink& out) {
    constexpr Color Them = ~Us;
    const Bitboard pawns = pos.pieces(Us, PAWN), theirPawns = pos.pieces(Them, PAWN);
    const Bitboard theirPawnAttacks = pawn_attacks_bb<Them>(theirPawns);
    Bitboard passed = 0;
    for (Bitboard b = pawns; b;) {
        const Square sq = pop_lsb(b);
        out.add(Us, P_MATERIAL + PAWN);
        out.add(Us, P_PSQ + PAWN * 64 + relative<Us>(sq));
        if (square_bb(sq) & theirPawnAttacks) out.add(Them, P_THREAT_BY_PAWN + PAWN);
        const File f = file_of(sq);
        const Bitboard adj =
            (f > FILE_A ? file_bb(File(f - 1)) : 0) | (f < FILE_H ? file_bb(File(f + 1)) : 0);
        if (!(adj & pawns)) out.add(Us, P_PAWN_ISOLATED);
        if (more_than_one(file_bb(f) & pawns)) out.add(Us, P_PAWN_DOUBLED);
        if (attacks::pawn(Them, sq) & pawns) out.add(Us, P_PAWN_SUPPORTED);
        if (adj & rank_bb(sq) & pawns) out.add(Us, P_PAWN_PHALANX);
        if ((attacks::pawn(Them, sq) & pawns) || (adj & rank_bb(sq) & pawns))
            out.add(Us, P_PAWN_CONNECTED + relative_rank(Us, sq));
        if (relative_rank(Us, sq) == RANK_8) continue; // a pawn there has promoted
        const Square ahead = Us == WHITE ? Square(sq + 8) : Square(sq - 8);
        // Backward: no pawn of ours beside or behind it, and its stop square is held.
        const Bitboard behind = Us == WHITE ? (Bitboard(1) << (8 * (rank_of(sq) + 1))) - 1
                                            : ~Bitboard(0) << (8 * rank_of(sq));
        if (!(adj & behind & pawns) && (square_bb(ahead) & theirPawnAttacks))
            out.add(Us, P_PAWN_BACKWARD);
        // Passed: no enemy pawn ahead on this or an adjacent file.
        const int rk = rank_of(sq);
        const Bitboard front = Us == WHITE ? (rk < 7 ? ~Bitboard(0) << (8 * (rk + 1)) : 0)
                                           : (Bitboard(1) << (8 * rk)) - 1;
        if (!((file_bb(f) | adj) & front & theirPawns)) {
            out.add(Us, P_PAWN_PASSED + relative_rank(Us, sq));
            passed |= square_bb(sq);
        }
    }
    return passed;
}

template <Color Us, class Sink>
void side_terms(const Position& pos, const Attacks& ourAtt, const Attacks& theirAtt,
                Bitboard passed, Sink& out) {
    constexpr Color Them = ~Us;
    const Bitboard occ = pos.pieces();
    const Bitboard ours = pos.pieces(Us);
    const Bitboard pawns = pos.pieces(Us, PAWN), theirPawns = pos.pieces(Them, PAWN);
    const Bitboard safe = ~ours & ~theirAtt.pawns;
    const Square theirKing = pos.king_square(Them);
    const Bitboard theirZone = attacks::king(theirKing) | square_bb(theirKing);

    const Bitboard theirKingAttacks = attacks::king(theirKing);
    int attackUnits = 0;

    for (int i = 0; i < ourAtt.n; ++i) {
        const Square sq = ourAtt.sq[i];
        const PieceType pt = ourAtt.pt[i];
        const Bitboard att = ourAtt.att[i];
        out.add(Us, P_MATERIAL + pt);
        out.add(Us, P_PSQ + pt * 64 + relative<Us>(sq));
        if (square_bb(sq) & theirAtt.pawns) out.add(Them, P_THREAT_BY_PAWN + pt);
        if (pt >= ROOK && (square_bb(sq) & theirAtt.minors)) out.add(Them, P_THREAT_BY_MINOR + pt);
        if (pt != ROOK && (square_bb(sq) & theirAtt.rooks)) out.add(Them, P_THREAT_BY_ROOK + pt);
        out.add(Us,
                P_MOBILITY + pt * MobilityMax + std::min(popcount(att & safe), MobilityMax - 1));
        if (int n = popcount(att & theirZone)) {
            out.add(Us, P_KING_ATTACK + pt, n);
            attackUnits += n;
        }
        // Checks from squares the enemy does not guard (its king included). A khon or met
        // checks only from next to the king, which guards that square: never safe.
        if (pt != KHON && pt != MET &&
            (att & ~ours & attacks::of(pt, Them, theirKing, occ) & ~theirAtt.all &
             ~theirKingAttacks))
            out.add(Us, P_SAFE_CHECK + pt);
        // Advanced minor pieces backed by a pawn.
        if (pt <= MET && relative_rank(Us, sq) >= RANK_4 && (attacks::pawn(Them, sq) & pawns))
            out.add(Us, P_OUTPOST + pt);
        if (pt == ROOK) {
            Bitboard f = file_bb(sq);
            if (!(f & pawns)) out.add(Us, (f & theirPawns) ? P_ROOK_HALF_OPEN : P_ROOK_OPEN);
        }
    }
    // Our pieces the enemy attacks and nothing of ours defends.
    if (int n = popcount(ours & ~pos.pieces(KING) & theirAtt.all & ~ourAtt.all))
        out.add(Them, P_HANGING, n);
    if (int n = popcount(ours & ~pos.pieces(KING) & theirKingAttacks & ~ourAtt.all))
        out.add(Them, P_THREAT_BY_KING, n);
    out.add(Us, P_KING_DANGER + std::min(attackUnits, 15));
    for (PieceType pt : {KNIGHT, KHON, MET, ROOK})
        if (more_than_one(pos.pieces(Us, pt))) out.add(Us, P_PAIR + pt);

    // Pawns: what depends on more than the pawns (the rest is in pawn_terms).
    const Bitboard stops = Us == WHITE ? shift<NORTH>(pawns) : shift<SOUTH>(pawns);
    if (int n = popcount(stops & occ)) out.add(Us, P_PAWN_BLOCKED, n);
    for (Bitboard b = passed; b;) {
        const Square sq = pop_lsb(b);
        const Square ahead = Us == WHITE ? Square(sq + 8) : Square(sq - 8);
        out.add(Us, P_PASSED_OUR_KING + distance(pos.king_square(Us), ahead));
        out.add(Us, P_PASSED_THEIR_KING + distance(theirKing, ahead));
        if (!(occ & square_bb(ahead)) && !(square_bb(ahead) & theirAtt.all))
            out.add(Us, P_PASSED_FREE);
    }

    // The king, and the mets and khons that shelter it by stepping.
    const Square ksq = pos.king_square(Us);
    out.add(Us, P_PSQ + KING * 64 + relative<Us>(ksq));
    if (int n = popcount(attacks::king(ksq) & (pos.pieces(Us, MET) | pos.pieces(Us, KHON))))
        out.add(Us, P_KING_SHELTER, n);
    // Pawns before the king (its file and the two beside it, up to three ranks ahead), and
    // enemy pawns coming at it.
    const int kf = file_of(ksq), kr = rank_of(ksq);
    Bitboard files = file_bb(File(kf));
    if (kf > 0) files |= file_bb(File(kf - 1));
    if (kf < 7) files |= file_bb(File(kf + 1));
    Bitboard ranks = 0;
    for (int d = 1; d <= 3; ++d) {
        const int r = Us == WHITE ? kr + d : kr - d;
        if (r >= 0 && r <= 7) ranks |= rank_bb(Rank(r));
    }
    out.add(Us, P_KING_PAWN_SHELTER + std::min(popcount(files & ranks & pawns), 3));
    if (int n = popcount(files & ranks & theirPawns)) out.add(Us, P_PAWN_STORM, n);
}

// Every term but the pawn-only ones, given Us's passed pawns.
template <class Sink>
void piece_terms(const Position& pos, Bitboard whitePassed, Bitboard blackPassed, Sink& sink) {
    // A local sink can live in registers; the caller's is memory that each term would
    // store to.
    Sink out = sink;
    Attacks white, black;
    gather<WHITE>(pos, white);
    gather<BLACK>(pos, black);
    side_terms<WHITE>(pos, white, black, whitePassed, out);
    side_terms<BLACK>(pos, black, white, blackPassed, out);
    out.add(pos.side_to_move(), P_TEMPO);
    sink = out;
}

template <class Sink>
void all_terms(const Position& pos, Sink& out) {
    const Bitboard whitePassed = pawn_terms<WHITE>(pos, out);
    const Bitboard blackPassed = pawn_terms<BLACK>(pos, out);
    piece_terms(pos, whitePassed, blackPassed, out);
}

// The pawn-only terms by pawn structure, one table per search thread. The key is the two
// pawn bitboards themselves and the weight set, so a hit is never a collision.
struct PawnEntry {
    Bitboard white = ~Bitboard(0), black = ~Bitboard(0); // no real structure matches
    WeightSet set = WeightSet::Makruk;
    Score score;
    Bitboard passed[COLOR_NB] = {0, 0};
};
constexpr int PawnTableBits = 13;
thread_local PawnEntry pawnTable[1 << PawnTableBits];

#ifndef NDEBUG
// A cached entry must be what the pawns give now: a pawn term that read anything but the
// pawns would make the cache return another position's score.
template <WeightSet S>
bool pawn_entry_ok(const Position& pos, const PawnEntry& e) {
    ScoreSink<S> sink{};
    const Bitboard white = pawn_terms<WHITE>(pos, sink), black = pawn_terms<BLACK>(pos, sink);
    return white == e.passed[WHITE] && black == e.passed[BLACK] && sink.s.mg == e.score.mg &&
           sink.s.eg == e.score.eg;
}
#endif

template <WeightSet S>
const PawnEntry& pawn_entry(const Position& pos) {
    const Bitboard w = pos.pieces(WHITE, PAWN), b = pos.pieces(BLACK, PAWN);
    PawnEntry& e = pawnTable[pawn_structure_hash(w, b) >> (64 - PawnTableBits)];
    if (e.white != w || e.black != b || e.set != S) {
        ScoreSink<S> sink{};
        e.passed[WHITE] = pawn_terms<WHITE>(pos, sink);
        e.passed[BLACK] = pawn_terms<BLACK>(pos, sink);
        e.score = sink.s;
        e.white = w, e.black = b, e.set = S;
    }
    assert(pawn_entry_ok<S>(pos, e));
    return e;
}

// Bare king against mating material: drive the king to the edge, bring ours closer.
int mop_up(const Position& pos, Color strong) {
    const Square wk = pos.king_square(~strong), sk = pos.king_square(strong);
    return 40 * (3 - edge_distance(wk)) + 20 * (3 - centre_distance(wk)) +
           12 * (7 - distance(wk, sk));
}

// Piece weights for judging whether a pawnless edge can win (Fairy-Stockfish's Makruk
// middlegame values: a knight is the largest edge that is still drawish).
constexpr int MatingWeight[PIECE_TYPE_NB] = {0, 0, 781, 660, 420, 1276, 2400, 0};
constexpr int MinorEdge = 825;

// In karouk a check wins and in makpong a cornered king may not flee: there a lone met
// or ma can still win.
bool lone_minor_can_win(const Position& pos) {
    return pos.variant().firstCheckWins || pos.variant().makpong;
}

int mating_weight(const Position& pos, Color c) {
    int w = 0;
    for (PieceType pt = KNIGHT; pt <= AIWOK; ++pt) w += MatingWeight[pt] * pos.count(c, pt);
    return w;
}

// Pieces that move as a ruea: rueas, and ai-wok's ai-wok.
int rueas(const Position& pos, Color c) { return pos.count(c, ROOK) + pos.count(c, AIWOK); }

// Plies a board's-honour count leaves, or a fresh count's worth when none runs yet.
constexpr int BoardHonourPlies = 128;

// Pawnless, and the side behind still has pieces: Makruk's board's-honour count.
bool board_honour(const Position& pos, Color strong) {
    const CountingRule c = pos.variant().counting;
    return !pos.pieces(PAWN) && !pos.variant().firstCheckWins &&
           (c == CountingRule::Makruk || c == CountingRule::Cambodian) &&
           mating_weight(pos, ~strong) > 0;
}

// The net's own score already holds how drawish such an ending is (it learnt that from
// the games' results): what it lacks is the count, so its score only fades over the last
// NetHonourPlies plies the count leaves (fitted on the net's games: docs/log/tuning.md,
// "Thirteenth round").
constexpr int NetHonourPlies = 80;

int board_honour_left(const Position& pos, int horizon) {
    if (!pos.count_limit()) return horizon;
    return std::clamp(pos.count_limit() - pos.count_ply(), 0, horizon);
}

// Mets and bia against a bare king where bia promote to mets: mets keep to the colour
// of their square, and only mets on both colours (three of them at least) can mate. The
// bia's colours are those of their promotion squares (Fairy-Stockfish's KFsPsK).
bool mets_cannot_mate(const Position& pos, Color strong) {
    if (more_than_one(pos.pieces(~strong))) return false; // not a bare king: the usual case
    const Variant& v = pos.variant();
    if (v.promotedTo != MET || v.promotionChoice || lone_minor_can_win(pos)) return false;
    const Bitboard mets = pos.pieces(strong, MET), pawns = pos.pieces(strong, PAWN);
    if ((pos.pieces(strong) & ~pos.pieces(KING)) != (mets | pawns)) return false;
    if (popcount(mets | pawns) < 3) return true;
    bool colour[2] = {false, false};
    for (Bitboard b = mets; b;) {
        const Square s = pop_lsb(b);
        colour[(file_of(s) + rank_of(s)) & 1] = true;
    }
    for (Bitboard b = pawns; b;) {
        const Square s = pop_lsb(b);
        colour[(file_of(s) + relative_rank(strong, v.promotionRank)) & 1] = true;
    }
    return !(colour[0] && colour[1]);
}

// A pawnless edge of more than a minor piece against a side that still has pieces, under
// a board's-honour count: how often it still ends in a draw depends on who has the
// rueas. Fitted on the results of 370,000 pawnless positions from Khun's games
// (docs/log/tuning.md, "Sixth round"): a ruea more than the defender wins most of them, equal
// rueas or minors against a ruea seldom.
int pawnless_edge_scale(const Position& pos, Color strong, int edge) {
    const int ours = rueas(pos, strong), theirs = rueas(pos, ~strong);
    if (ours > theirs) return 48;
    if (ours == 0 && theirs == 0) return edge > 1200 ? 48 : 32;
    return edge > 1200 ? 26 : 18;
}

} // namespace

int phase(const Position& pos) {
    int p = 0;
    for (PieceType pt = KNIGHT; pt <= AIWOK; ++pt) p += PhaseWeight[pt] * pos.count(pt);
    // A piece in hand is as much of the middlegame as one on the board (sittuyin's setup).
    if (pos.hand_count(WHITE) | pos.hand_count(BLACK))
        for (PieceType pt = KNIGHT; pt <= AIWOK; ++pt)
            p += PhaseWeight[pt] * (pos.in_hand(WHITE, pt) + pos.in_hand(BLACK, pt));
    return std::min(p, PhaseMax);
}

int scale(const Position& pos, Color strong, bool byNet) {
    if (mets_cannot_mate(pos, strong)) return 0;
    // A side without pawns that is at most a minor piece ahead in pieces seldom wins:
    // the defender trades toward a bare-king count or builds a fortress (Fairy-Stockfish
    // scales these endings the same way, measured on its own piece values).
    if (!pos.pieces(strong, PAWN) && !pos.variant().firstCheckWins) {
        const int ours = mating_weight(pos, strong), theirs = mating_weight(pos, ~strong);
        const bool boardHonour = board_honour(pos, strong);
        int s = 64;
        if (ours - theirs <= MinorEdge) {
            if (ours < MatingWeight[ROOK] && pos.count(strong) <= 2 && !lone_minor_can_win(pos))
                return 0;
            // (The net's score holds these shares already: only the count fades it.)
            s = byNet ? 64 : theirs <= MinorEdge && pos.count(strong) <= 3 ? 4 : 14;
        } else if (boardHonour && !byNet)
            s = pawnless_edge_scale(pos, strong, ours - theirs);
        // The count draws the game when it runs out, and the chance to win before that
        // shrinks with the plies it leaves (linearly, in the same games).
        if (boardHonour) {
            const int horizon = byNet ? NetHonourPlies : BoardHonourPlies;
            s = s * board_honour_left(pos, horizon) / horizon;
        }
        if (s < 64) return s;
    }
    if (pos.pieces(PAWN)) return 64;
    const int n = pos.count(strong) - 1;
    if (rueas(pos, strong)) return 64;
    if (n <= 1) return 4; // a lone met, khon or knight cannot mate
    if (n == 2 && pos.count(strong, KHON) == 0)
        // Two knights, two mets or knight+met: almost never a forced mate.
        return pos.count(strong, KNIGHT) == 1 && pos.count(strong, MET) == 1 ? 16 : 6;
    return 64;
}

namespace {

// The drop games: a piece in hand is worth its material, as on the board (it can be put
// anywhere its game allows, which the board's square tables cannot value).
template <class Sink>
void hand_terms(const Position& pos, Sink& out) {
    for (Color c : {WHITE, BLACK})
        if (pos.hand_count(c))
            for (PieceType pt = PAWN; pt < KING; ++pt)
                if (int n = pos.in_hand(c, pt)) out.add(c, P_MATERIAL + pt, n);
}

// The middlegame and endgame halves blended by the game phase.
int tapered(Score s, const Position& pos) {
    const int ph = phase(pos);
    return (s.mg * ph + s.eg * (PhaseMax - ph)) / PhaseMax;
}

bool kings_in_hand(const Position& pos) {
    return pos.variant().drops && (!pos.has_king(WHITE) || !pos.has_king(BLACK));
}

// Sittuyin's setup, while a king is still in hand: only material and the square tables,
// which every term about kings, attacks and pawn structure would need a king for.
template <class Sink>
void setup_terms(const Position& pos, Sink& out) {
    for (Bitboard b = pos.pieces(); b;) {
        const Square sq = pop_lsb(b);
        const Piece pc = pos.piece_on(sq);
        const PieceType pt = type_of(pc);
        const Color c = color_of(pc);
        if (pt != KING) out.add(c, P_MATERIAL + pt);
        out.add(c, P_PSQ + pt * 64 + (c == WHITE ? relative<WHITE>(sq) : relative<BLACK>(sq)));
    }
    hand_terms(pos, out);
    out.add(pos.side_to_move(), P_TEMPO);
}

} // namespace

void trace_terms(const Position& pos, int16_t* coef) {
    TraceSink sink{coef};
    if (kings_in_hand(pos)) return setup_terms(pos, sink);
    all_terms(pos, sink);
    hand_terms(pos, sink);
}

bool dead_draw(const Position& pos) {
    if (pos.pieces(PAWN) || lone_minor_can_win(pos)) return false;
    for (Color c : {WHITE, BLACK}) {
        Bitboard rest = pos.pieces(c) & ~pos.pieces(KING);
        if (more_than_one(rest)) return false;
        if (rest & (pos.pieces(ROOK) | pos.pieces(KHON) | pos.pieces(AIWOK))) return false;
    }
    // Each side has at most a lone met or knight: no mate can be forced or helped.
    return !(pos.pieces(WHITE) & ~pos.pieces(KING)) || !(pos.pieces(BLACK) & ~pos.pieces(KING));
}

namespace {

// What the counting rules and the drawish material make of a score from White's side,
// whichever evaluation gave it.
int on_top(const Position& pos, int v, bool byNet) {
    const Color strong = v > 0 ? WHITE : BLACK;
    const int sc = scale(pos, strong, byNet);
    assert(sc >= 0 && sc <= 64); // a share of 64: drawishness shrinks, never flips or grows
    v = v * sc / 64;
    // A running count that leaves too few moves to force mate pulls the score toward the
    // draw it will end in (the search sees the exact end; this gives it the way there).
    // (Under a board's-honour count, scale() has already faded it.)
    if (pos.count_limit()) {
        if (!board_honour(pos, strong)) {
            const int left = std::max(pos.count_limit() - pos.count_ply(), 0);
            if (left < CountingHorizon) v = v * left / CountingHorizon;
        }
    } else if (pos.rule50() > ProgressFadeStart) {
        // No count runs, so nothing ends a game that makes no progress: locked bia and
        // pieces shuffling behind them can go on for hundreds of moves while the score
        // stays the same (Khun, a ruea up, drew that way at Cute Chess's move
        // limit). Fading the score with the plies since the last capture or pawn move
        // makes a line that takes or pushes worth more than one that waits, as
        // Stockfish's fifty-move fade does.
        const int idle = std::min(pos.rule50() - ProgressFadeStart, ProgressFadeMax);
        v = v * (ProgressFadeSpan - idle) / ProgressFadeSpan;
    }
    return v;
}

bool bare_king_ending(const Position& pos) {
    return !pos.pieces(PAWN) &&
           (!more_than_one(pos.pieces(WHITE)) || !more_than_one(pos.pieces(BLACK)));
}

template <WeightSet S>
Value evaluate_with(const Position& pos) {
    if (kings_in_hand(pos)) {
        ScoreSink<S> sink{};
        setup_terms(pos, sink);
        const int v = tapered(sink.s, pos);
        return pos.side_to_move() == WHITE ? v : -v;
    }
    const PawnEntry& pe = pawn_entry<S>(pos);
    ScoreSink<S> sink{pe.score};
    piece_terms(pos, pe.passed[WHITE], pe.passed[BLACK], sink);
    // Pieces in hand: material, and no bare king while its side still holds pieces.
    if (pos.hand_count(WHITE) | pos.hand_count(BLACK)) {
        hand_terms(pos, sink);
        const int v = tapered(sink.s, pos);
        assert(std::abs(v) < VALUE_MATE_IN_MAX_PLY);
        return pos.side_to_move() == WHITE ? v : -v;
    }
    int v = tapered(sink.s, pos);

    // Endings against a bare king.
    if (!pos.pieces(PAWN))
        for (Color c : {WHITE, BLACK})
            if (!more_than_one(pos.pieces(~c)) && more_than_one(pos.pieces(c))) {
                int bonus = mop_up(pos, c);
                assert(bonus >= 0); // it helps the side with the pieces, never the bare king
                v += c == WHITE ? bonus : -bonus;
            }
    v = on_top(pos, v, false);
    // The search takes a score in the mate range for a mate it has proven.
    assert(std::abs(v) < VALUE_MATE_IN_MAX_PLY);
    return pos.side_to_move() == WHITE ? v : -v;
}

} // namespace

Value evaluate(const Position& pos) {
    static_assert(std::size(WeightSources) == 2, "a new weight set needs its case here");
    return pos.variant().weights == WeightSet::Sittuyin ? evaluate_with<WeightSet::Sittuyin>(pos)
                                                        : evaluate_with<WeightSet::Makruk>(pos);
}

// Whether `net` scores `pos`. The net knows the games it was trained on; the bare-king
// endings keep the hand-written mop-up, which drives the king to the corner the tables
// mate in.
static bool by_net(const Position& pos, const nnue::Network* net) {
    return net && pos.variant().net != GameNet::None && !bare_king_ending(pos);
}

Value evaluate(const Position& pos, const nnue::Network* net) {
    if (!by_net(pos, net)) return evaluate(pos);
    const int stmScore = std::clamp(nnue::evaluate(pos, *net), -VALUE_MATE_IN_MAX_PLY + 1,
                                    VALUE_MATE_IN_MAX_PLY - 1);
    const int v = on_top(pos, pos.side_to_move() == WHITE ? stmScore : -stmScore, true);
    assert(std::abs(v) < VALUE_MATE_IN_MAX_PLY);
    return pos.side_to_move() == WHITE ? v : -v;
}

std::string trace(const Position& pos, const nnue::Network* net, const std::string& netName) {
    std::ostringstream os;
    os << std::fixed << std::setprecision(2); // pawns to the hundredth, as Stockfish writes them
    auto white = [&](Value v) { return (pos.side_to_move() == WHITE ? v : -v) / 100.0; };
    const bool byNet = by_net(pos, net);
    if (byNet)
        os << "NNUE evaluation: " << std::showpos << white(nnue::evaluate(pos, *net))
           << " (white side, before the counting and material corrections"
           << (netName.empty() ? "" : "; " + netName) << ")\n"
           << "Hand-written evaluation: " << white(evaluate(pos)) << " (white side)\n"
           << std::noshowpos;
    const Value v = evaluate(pos, net);
    os << "Final evaluation: " << std::showpos << white(v) << std::noshowpos << " (white side"
       << (byNet ? ", NNUE" : "") << ") [" << v << " cp for the side to move]";
    return os.str();
}

} // namespace khun::eval
