// Legal move generation. Every list holds legal moves only: in Makruk only the rook
// slides, so pins lie on ranks and files and are cheap to honour during generation.
// The related games' extra rules (first-move rights, sutras, makpong, karouk, asean's
// promotion choice) take a separate instance of the generator, so plain makruk pays
// one branch for them.
#pragma once

#include "khun/rules/position.h"

#include <cstddef>
#include <string>

namespace khun {

// Makrukhouse with full hands can drop five kinds on some sixty empty squares.
constexpr int MAX_MOVES = 512;

enum GenType {
    CAPTURES, // captures and promotions (what quiescence searches)
    QUIETS,   // everything else: CAPTURES + QUIETS == LEGAL, with no overlap
    EVASIONS, // all legal moves when in check (same set as LEGAL there)
    LEGAL,
};

template <GenType T>
Move* generate(const Position& pos, Move* list);

// The number of legal moves, counted without building the list (perft leaves).
[[nodiscard]] int count_legal(const Position& pos);

// Whether the legal generator lists `m`: MoveList(pos).contains(m) without the debug
// build's check of each listed move, which makes moves itself, so that do_move can
// assert with it.
[[nodiscard]] bool generates(const Position& pos, Move m);

// Whether the side to move has a legal move that gives check. In karouk such a move
// wins on the spot, so a search can score the position mate_in(ply + 1) without trying
// the moves one by one.
[[nodiscard]] bool has_checking_move(const Position& pos);

struct MoveList {
    template <GenType T = LEGAL>
    static MoveList of(const Position& pos) {
        MoveList ml;
        ml.last = generate<T>(pos, ml.moves);
        return ml;
    }
    explicit MoveList(const Position& pos) : last(generate<LEGAL>(pos, moves)) {}

    const Move* begin() const { return moves; }
    const Move* end() const { return last; }
    size_t size() const { return size_t(last - moves); }
    bool contains(Move m) const {
        for (Move x : *this)
            if (x == m) return true;
        return false;
    }

  private:
    MoveList() {}
    // A union's member is left uninitialised: zeroing MAX_MOVES moves (Move() is none)
    // cost every node that lists its moves a kilobyte of stores.
    union {
        Move moves[MAX_MOVES];
    };
    Move* last = moves;
};

// UCI move text: "e3e4", "e5e6m" (the suffix is the promotion piece's letter). Cambodian
// first moves and sutra moves are plain from-to: "d1b2", "e1e3", "b1c3". Drops are
// "R@a1" (upper case for both sides); sittuyin's promotions "e5e5f" and "e5f6f".
[[nodiscard]] std::string to_uci(Move m, const Position& pos);
// The legal move that `text` names in `pos`, or Move::none(). A promotion may omit its
// suffix when only one promotion piece exists.
[[nodiscard]] Move parse_uci_move(const Position& pos, const std::string& text);

} // namespace khun
