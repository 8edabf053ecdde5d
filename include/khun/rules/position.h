// A position of the Makruk family: placement, side to move, Zobrist key, the counting
// state, the first-move rights and check counters of the related games, and the chain of
// StateInfo records that makes unmake cheap and repetition detectable.
#pragma once

#include "khun/rules/attacks.h"
#include "khun/rules/bitboard.h"
#include "khun/rules/nnue_arch.h"
#include "khun/rules/types.h"
#include "khun/rules/variant.h"

#include <cassert>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace khun {

namespace zobrist {
extern Key psq[PIECE_NB][SQUARE_NB];
extern Key side;
extern Key countLeft[1024];
// The drop games: a piece kind's count in a hand, one key per count (count 0: key 0).
constexpr int MAX_HAND = 32;
extern Key hand[PIECE_NB][MAX_HAND + 1];
} // namespace zobrist

// What a move changes that cannot be recomputed cheaply when it is taken back.
struct StateInfo {
    // Copied from the previous state by do_move.
    int rule50;        // plies since the last capture or pawn move
    int pliesFromNull; // plies since the last null move (bounds repetition search)
    int countLimit;    // counting limit in plies; 0 when no count runs
    int countPly;      // counting ply
    Bitboard rights;   // squares of unmoved pieces with a first-move right (FEN field 3)
    // Makrukhouse: mets that were pawns (go back to hand as pawns). Beside `rights`: after
    // checksLeft its padding moved the fields below and cost makruk's perft some 7%.
    Bitboard promoted;
    uint8_t checksLeft[COLOR_NB]; // karouk: checks each side still needs to win
    // Recomputed by do_move.
    Key key;
    Bitboard checkers;
    Piece captured;
    Move move;
    StateInfo* previous;
    // For the network (nnue.h): the pieces this state's move changed (count -1 for a root,
    // whose sums cannot come from a parent), and the first layer's sums, a cache filled
    // in when the position is evaluated.
    nnue::DirtyPieces dirty;
    mutable nnue::Accumulator accumulator;
};

// Why the game is over, if it is.
enum class Outcome {
    None,
    Checkmate, // the side to move is mated
    Stalemate, // draw
    CountingDraw,
    Repetition, // threefold (or, inside the search, a repeat after the root)
    Checked,    // karouk: the side to move has been checked and so has lost
    MoveRule,   // asean: fifty moves without a capture or a pawn move (draw)
};

const char* outcome_name(Outcome o);
// True for the outcomes that lose for the side to move.
[[nodiscard]] inline bool is_loss(Outcome o) {
    return o == Outcome::Checkmate || o == Outcome::Checked;
}
[[nodiscard]] inline bool is_draw(Outcome o) { return o != Outcome::None && !is_loss(o); }

// The piece a promotion move creates: the kind it names, else the variant's default.
[[nodiscard]] constexpr PieceType promotion_type(Move m, const Variant& v) {
    switch (m.kind()) {
    case PROMO_ROOK: return ROOK;
    case PROMO_KNIGHT: return KNIGHT;
    case PROMO_KHON: return KHON;
    default: return v.promotedTo;
    }
}

// The order in which Fairy-Stockfish writes a hand (FEN "[...]", SFEN): its kinds from
// the king down.
inline constexpr PieceType HandOrder[] = {KING, AIWOK, KHON, MET, ROOK, KNIGHT, PAWN};

// FEN field 1 for a board (indexed by square) in the letters of game `v`, with
// Fairy-Stockfish's '~' after each piece on `promoted` (makrukhouse); the hands are not
// part of it.
[[nodiscard]] std::string board_fen(const Piece board[SQUARE_NB], const Variant& v,
                                    Bitboard promoted = 0);

class Position {
  public:
    static void init(); // attack tables and Zobrist keys; idempotent

    Position() = default;
    Position(const Position&) = delete;
    Position& operator=(const Position&) = delete;

    // Parses a FEN into this position. On error returns the reason and leaves this
    // position exactly as it was.
    std::optional<std::string> set(const std::string& fen, const Variant& v, StateInfo* si);
    // Copies `other` into this position with a fresh state record `si` (for threads).
    void copy_from(const Position& other, StateInfo* si);
    [[nodiscard]] std::string fen() const;

    // Placement
    [[nodiscard]] Bitboard pieces() const { return byColor[WHITE] | byColor[BLACK]; }
    [[nodiscard]] Bitboard pieces(Color c) const { return byColor[c]; }
    [[nodiscard]] Bitboard pieces(PieceType pt) const { return byType[pt]; }
    [[nodiscard]] Bitboard pieces(Color c, PieceType pt) const { return byColor[c] & byType[pt]; }
    [[nodiscard]] Bitboard pieces(PieceType a, PieceType b) const { return byType[a] | byType[b]; }
    [[nodiscard]] Piece piece_on(Square s) const {
        assert(khun::is_ok(s));
        return board[s];
    }
    [[nodiscard]] bool empty(Square s) const { return board[s] == NO_PIECE; }
    // The piece a move moves: from its square, or from the hand for a drop.
    [[nodiscard]] Piece moved_piece(Move m) const {
        return m.is_drop() ? make_piece(sideToMove, m.drop_type()) : piece_on(m.from());
    }
    [[nodiscard]] Square king_square(Color c) const { return lsb(pieces(c, KING)); }
    // Sittuyin's setup phase may have a king still in hand.
    [[nodiscard]] bool has_king(Color c) const { return pieces(c, KING) != 0; }
    [[nodiscard]] int count(Color c) const { return popcount(byColor[c]); }
    [[nodiscard]] int count(Color c, PieceType pt) const { return popcount(pieces(c, pt)); }
    [[nodiscard]] int count(PieceType pt) const { return popcount(byType[pt]); }
    [[nodiscard]] Color side_to_move() const { return sideToMove; }
    // The drop games: pieces in hand, by kind and in all.
    [[nodiscard]] int in_hand(Color c, PieceType pt) const { return hand[c][pt]; }
    [[nodiscard]] int hand_count(Color c) const { return handCount[c]; }
    // Makrukhouse: the mets on the board that were pawns.
    [[nodiscard]] Bitboard promoted() const { return st->promoted; }
    [[nodiscard]] const Variant& variant() const { return *var; }

    // State
    [[nodiscard]] Key key() const { return st->key; }
    // The key the search caches results under: with a count running, the plies it has
    // left decide the result, so they are part of what makes two positions the same.
    [[nodiscard]] Key search_key() const {
        return with_count(st->key, st->countLimit - st->countPly);
    }
    // The search key do_move(m) will leave, known before the move is made so that the
    // search can fetch the child's TT entry from memory while it makes the move. Exact
    // unless the move changes a first-move right or a karouk check counter, starts or
    // restarts a count, puts a captured piece in the hand, or is a drop or a sutra move:
    // a wrong key costs a useless prefetch, never a wrong result.
    [[nodiscard]] Key search_key_after(Move m) const;
    [[nodiscard]] Bitboard checkers() const { return st->checkers; }
    [[nodiscard]] bool in_check() const { return st->checkers != 0; }
    int rule50() const { return st->rule50; }
    [[nodiscard]] int count_limit() const { return st->countLimit; }
    [[nodiscard]] int count_ply() const { return st->countPly; }
    [[nodiscard]] int game_ply() const { return gamePly; }
    [[nodiscard]] Bitboard rights() const { return st->rights; }
    [[nodiscard]] int checks_left(Color c) const { return st->checksLeft[c]; }
    // Whether move generation must take the general path: a variant rule that applies
    // everywhere, or first-move rights still on the board.
    [[nodiscard]] bool general_movegen() const { return (generalGen | st->rights) != 0; }
    [[nodiscard]] Piece captured_piece() const { return st->captured; }
    [[nodiscard]] Move last_move() const { return st->move; }
    [[nodiscard]] const StateInfo* state() const { return st; }

    // Attacks
    [[nodiscard]] Bitboard attackers_to(Square s, Bitboard occupied) const;
    [[nodiscard]] Bitboard attackers_to(Square s, Color c, Bitboard occupied) const {
        return attackers_to(s, occupied) & byColor[c];
    }
    // Our pieces that alone stand between our king and an enemy rook.
    [[nodiscard]] Bitboard pinned(Color us) const;

    // Moves
    [[nodiscard]] bool is_legal(Move m) const; // for any 16-bit value, e.g. from the TT
    // A move onto an enemy piece. A sutra move and sittuyin's promotion in place land on
    // their own pawn; a drop lands on an empty square.
    [[nodiscard]] bool is_capture(Move m) const {
        const Piece pc = board[m.to()];
        return pc != NO_PIECE && color_of(pc) != sideToMove;
    }
    [[nodiscard]] bool gives_check(Move m) const;
    void do_move(Move m, StateInfo& newSt);
    void undo_move(Move m);
    void do_null_move(StateInfo& newSt);
    void undo_null_move();

    // Game end. `ply` is the distance from the search root: a position that repeats one
    // already seen after the root counts as a draw at once, otherwise it takes three.
    [[nodiscard]] Outcome outcome(int ply = 0) const;
    // Karouk: the opponent has given the check it needed, so the side to move has lost.
    // Such a position has no legal moves; the search should score it mated_in(ply)
    // before any draw test. Always false in the other games.
    [[nodiscard]] bool lost_by_check() const {
        return var->firstCheckWins && st->checksLeft[~sideToMove] == 0;
    }
    // The draws of outcome() that need no move generation unless the side to move is in
    // check (so the search can call it at every node): repetition, the counting rule,
    // and asean's fifty-move rule.
    [[nodiscard]] bool is_draw(int ply) const;
    [[nodiscard]] bool is_repetition(int ply) const;
    // Sittuyin: a king and one pawn, not in check, whose only moves are promotions.
    [[nodiscard]] bool promotion_stalemate() const {
        return var->sittuyinPromotion && lone_pawn_must_promote();
    }
    [[nodiscard]] bool counting_expired() const {
        return st->countLimit && st->countPly > st->countLimit;
    }
    // The count limit (in moves, 0 = none) the side c would get (docs/rules.md#counting).
    [[nodiscard]] int counting_limit_for(Color c) const;

    // Pretty board with the `d` lines (Fen, Key, Checkers).
    [[nodiscard]] std::string pretty() const;

    // Internal consistency and a legal position (the side that just moved is not in
    // check): for tests.
    [[nodiscard]] bool is_ok(std::string* why = nullptr) const;

  private:
    void put_piece(Piece pc, Square s);
    void remove_piece(Square s);
    void move_piece(Square from, Square to);
    void add_to_hand(Piece pc, Key& k);
    void take_from_hand(Piece pc, Key& k);
    void update_counting(Piece captured, bool promotion);
    template <bool General>
    void do_move_impl(Move m, StateInfo& newSt);
    // key with the plies a running count has `left` (none when no count runs).
    [[nodiscard]] Key with_count(Key key, int left) const {
        if (!st->countLimit) return key;
        return key ^ zobrist::countLeft[left < 0 ? 0 : left > 1023 ? 1023 : left];
    }
    void do_move_general(Move m, StateInfo& newSt);
    // is_ok() less the legality test: what do_move/undo_move assert in debug builds, as
    // test oracles also make pseudo-legal moves to find out whether they are legal.
    [[nodiscard]] bool consistent(std::string* why = nullptr) const;
    [[nodiscard]] bool gives_check_special(Move m) const;
    [[nodiscard]] bool lone_pawn_must_promote() const;
    [[nodiscard]] Key compute_key() const;

    Piece board[SQUARE_NB] = {};
    Bitboard byType[PIECE_TYPE_NB] = {};
    Bitboard byColor[COLOR_NB] = {};
    uint8_t hand[COLOR_NB][PIECE_TYPE_NB] = {};
    int handCount[COLOR_NB] = {};
    Color sideToMove = WHITE;
    int gamePly = 0;
    StateInfo* st = nullptr;
    const Variant* var = nullptr;
    // The only copies of Variant fields: movegen and do_move test them at every node,
    // and as masks they join st->rights in one OR and one branch instead of a load
    // through `var` and a second test (see general_movegen() and do_move()).
    Bitboard generalGen = 0;  // all ones when var->general_movegen()
    Bitboard generalMake = 0; // all ones when var->general_make()

    // How many states of the chain, back to its start, have a key in each slot: a key
    // whose slot holds only itself has no repeat to look for, and is_repetition() then
    // skips the walk back, a load per state that waits on the one before (in endings
    // without a capture, up to a hundred plies at every node). 32-bit counts: a `position`
    // command's move list has no length limit, and a 16-bit count wraps after 65,536.
    static constexpr int SeenBits = 12;
    [[nodiscard]] static size_t seen_slot(Key k) { return size_t(k >> (64 - SeenBits)); }
    uint32_t seen[size_t(1) << SeenBits] = {};
};

// Placement, inline here so that FEN reading (fen.cpp) and make/unmake share it.

inline void Position::put_piece(Piece pc, Square s) {
    assert(!board[s]); // the bits of a piece overwritten would stay behind
    board[s] = pc;
    byType[type_of(pc)] |= square_bb(s);
    byColor[color_of(pc)] |= square_bb(s);
}

inline void Position::remove_piece(Square s) {
    assert(board[s]); // XOR would put a phantom piece on the square instead
    Piece pc = board[s];
    byType[type_of(pc)] ^= square_bb(s);
    byColor[color_of(pc)] ^= square_bb(s);
    board[s] = NO_PIECE;
}

inline void Position::add_to_hand(Piece pc, Key& k) {
    const Color c = color_of(pc);
    const int n = hand[c][type_of(pc)]++;
    assert(n < zobrist::MAX_HAND);
    ++handCount[c];
    k ^= zobrist::hand[pc][n] ^ zobrist::hand[pc][n + 1];
}

inline void Position::take_from_hand(Piece pc, Key& k) {
    const Color c = color_of(pc);
    const int n = hand[c][type_of(pc)]--;
    assert(n > 0);
    --handCount[c];
    k ^= zobrist::hand[pc][n] ^ zobrist::hand[pc][n - 1];
}

inline void Position::move_piece(Square from, Square to) {
    assert(board[from] && !board[to]); // a capture removes its victim first
    Piece pc = board[from];
    Bitboard fromTo = square_bb(from) | square_bb(to);
    byType[type_of(pc)] ^= fromTo;
    byColor[color_of(pc)] ^= fromTo;
    board[from] = NO_PIECE;
    board[to] = pc;
}

// A Position together with the records of the moves that led to it, as the protocol
// keeps a game. Replacing it happens as a whole or not at all.
struct Game {
    Position pos;
    std::deque<StateInfo> states;
    std::vector<Move> moves; // played since the set-up position, for undo

    // Sets up `fen` then plays `moves` (UCI strings); nullptr and `error` set on failure,
    // so a caller replaces its game only with one that is whole.
    static std::unique_ptr<Game> make(const std::string& fen, const std::vector<std::string>& moves,
                                      const Variant& v, std::string& error);
    void play(Move m);
    // Takes back the last move played; false when there is none.
    bool undo();
    // The first-layer sums kept in the records are one net's: another net recomputes them.
    void forget_accumulators();
};

} // namespace khun
