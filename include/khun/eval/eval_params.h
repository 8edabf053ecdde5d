// The evaluation's weights as one flat, tunable table. Every term of the evaluation is
// a count of some feature times one of these (middlegame, endgame) pairs, so the tuner
// (`khun tune`) can fit them all to game results and write them back to
// src/eval/eval_weights.cpp.
#pragma once

#include "khun/rules/types.h"
#include "khun/rules/variant.h"

namespace khun::eval {
struct Score {
    int mg = 0, eg = 0;
    constexpr Score() = default;
    constexpr Score(int m, int e) : mg(m), eg(e) {}
    Score& operator+=(Score o) {
        mg += o.mg, eg += o.eg;
        return *this;
    }
    Score& operator-=(Score o) {
        mg -= o.mg, eg -= o.eg;
        return *this;
    }
};
inline Score operator*(Score s, int k) { return Score(s.mg * k, s.eg * k); }

constexpr int MobilityMax = 28; // the most squares a piece (an ai-wok) can reach

// Index layout of Weights[].
enum Param : int {
    P_MATERIAL = 0,                          // [PieceType]
    P_PSQ = P_MATERIAL + PIECE_TYPE_NB,      // [PieceType][relative square]
    P_MOBILITY = P_PSQ + PIECE_TYPE_NB * 64, // [PieceType][squares reached]
    P_ROOK_OPEN = P_MOBILITY + PIECE_TYPE_NB * MobilityMax,
    P_ROOK_HALF_OPEN,
    P_PAWN_ISOLATED,
    P_PAWN_DOUBLED,
    P_PAWN_SUPPORTED,
    P_PAWN_PHALANX,
    P_PAWN_PASSED,                                    // [relative rank]
    P_KING_SHELTER = P_PAWN_PASSED + 8,               // per met/khon next to the king
    P_KING_ATTACK,                                    // [attacker PieceType], per zone square
    P_THREAT_BY_PAWN = P_KING_ATTACK + PIECE_TYPE_NB, // [attacked PieceType]
    P_THREAT_BY_MINOR = P_THREAT_BY_PAWN + PIECE_TYPE_NB,
    P_HANGING = P_THREAT_BY_MINOR + PIECE_TYPE_NB,
    P_TEMPO,
    // Added after the first fits, appended so that the older weights keep their
    // places:
    P_KING_DANGER,                                       // [attack units, capped at 15]
    P_SAFE_CHECK = P_KING_DANGER + 16,                   // [checking PieceType]
    P_KING_PAWN_SHELTER = P_SAFE_CHECK + PIECE_TYPE_NB,  // [own pawns before the king, 0..3]
    P_PAWN_STORM = P_KING_PAWN_SHELTER + 4,              // per enemy pawn near our king
    P_THREAT_BY_ROOK,                                    // [attacked PieceType]
    P_THREAT_BY_KING = P_THREAT_BY_ROOK + PIECE_TYPE_NB, // per undefended piece
    P_PAIR,                                              // [PieceType], two or more
    P_OUTPOST = P_PAIR + PIECE_TYPE_NB,                  // [PieceType], pawn-backed, advanced
    P_PAWN_BLOCKED = P_OUTPOST + PIECE_TYPE_NB,          // per pawn with a piece in front
    P_PAWN_CONNECTED,                                    // [relative rank], supported/phalanx
    P_PAWN_BACKWARD = P_PAWN_CONNECTED + 8,              // its stop square held by a pawn
    P_PASSED_OUR_KING,                                   // [king distance to its stop square]
    P_PASSED_THEIR_KING = P_PASSED_OUR_KING + 8,         // [king distance to its stop square]
    P_PASSED_FREE = P_PASSED_THEIR_KING + 8,             // stop square empty and unattacked
    PARAM_NB
};

// One weight set per WeightSet, each in a source file that `khun tune` writes.
extern Score Weights[PARAM_NB];
extern Score SittuyinWeights[PARAM_NB];

struct WeightSource {
    Score* weights;
    const char* array; // its name in the source
    const char* file;  // the source, from the repository's root
};
// Indexed by WeightSet; constexpr, so that evaluate() is compiled once per set with the
// set's address known.
inline constexpr WeightSource WeightSources[] = {
    {Weights, "Weights", "src/eval/eval_weights.cpp"},
    {SittuyinWeights, "SittuyinWeights", "src/eval/eval_weights_sittuyin.cpp"},
};

[[nodiscard]] constexpr const WeightSource& weight_source(WeightSet set) {
    return WeightSources[int(set)];
}
[[nodiscard]] constexpr Score* weights(WeightSet set) { return weight_source(set).weights; }

// Game phase from the pieces besides pawns and kings: PhaseMax at the start, 0 when bare.
constexpr int PhaseWeight[PIECE_TYPE_NB] = {0, 0, 1, 1, 1, 3, 4, 0};
constexpr int PhaseMax = 2 * (2 * 1 + 2 * 1 + 1 + 2 * 3);

} // namespace khun::eval
