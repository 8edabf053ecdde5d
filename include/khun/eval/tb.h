// Distance-to-mate tables for the pawnless bare-king endings: a king and one or two of
// ruea, khon, met, ma (any mix) against a lone king, either colour strong. Built by a
// retrograde generator in seconds, cached on disk, and probed by the search.
//
// The tables are pure DTM under plain Makruk rules (stalemate draws, no counting): the
// counting rules are the caller's, with mate_fits() / counted() below.
#pragma once

#include "khun/rules/position.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace khun::eval::tb {

struct Probe {
    enum Result { Draw, Win, Loss } result;
    // Win: the side to move mates in `moves` moves (its mating move is ply 2*moves-1).
    // Loss: the side to move is mated after `moves` moves of the other side (ply
    // 2*moves; 0 = checkmated now). Draw: 0. As a search score at distance `ply` from
    // the root: mate_in(ply + 2*moves - 1), mated_in(ply + 2*moves).
    int moves;
};

// The position is one the tables answer: no pawn and no ai-wok, one side a bare king,
// the other its king and one or two of R, S, M, N.
bool covers(const Position& pos);

// A set of tables, one bit per table (by its place in materials()).
using TableSet = uint32_t;
inline constexpr TableSet AllTables = ~TableSet(0);

// The table of `material` ("KRSK") with those its probes may read (the smaller ones a
// capture leads to): the tables load() loads for it. Empty for an unknown name.
TableSet tables_of(const std::string& material);

// The exact value of a covered position; nullopt when not covered (or not legal).
// With `build` the needed tables (and the smaller ones a capture leads to) are loaded
// from the cache, or generated and cached, which may block for seconds the first time;
// without it only tables already in memory answer, lock-free and never blocking.
// Thread-safe. Once loaded a probe costs one table read with the strong side to move,
// one per legal king step (at most 8) with the bare side to move. A table outside
// `allowed` does not answer.
std::optional<Probe> probe(const Position& pos, bool build = true, TableSet allowed = AllTables);

// A mate in `moves` for the side to move at counting ply `countPly` lands before the
// count runs out: the mating move is made from ply countPly + 2*moves - 2, which must
// not exceed `countLimit` (0: no count runs, always fits).
bool mate_fits(int moves, int countPly, int countLimit);

// The probe's result under pos's counting state: a Win or Loss whose mate does not fit
// becomes a Draw. With no count running yet, the count that starts when the bare side
// is next to move (pieces' honour, docs/rules.md#counting) is taken into account.
Probe::Result counted(const Probe& p, const Position& pos);

// Where tables are cached: the default is $XDG_CACHE_HOME/khun, else ~/.cache/khun. An
// empty string, or a directory that cannot be created or written, keeps tables in memory
// only. Affects tables loaded afterwards.
void set_cache_dir(const std::string& dir);
std::string cache_dir();

// Every material the tables cover, White strong, in generation order ("KSK", ... "KRRK").
const std::vector<std::string>& materials();

// The material name of a covered position (strong side written first as if White), or
// an empty string.
std::string material_of(const Position& pos);

// Loads (or generates and caches) one table and the ones it depends on. False for an
// unknown name. Thread-safe; the way to warm the tables up before a search.
bool load(const std::string& material);

struct GenStats {
    std::string name;
    uint64_t positions; // legal positions with White (strong) to move, on the full board
    double wonShare;    // share of them White wins
    int longestMate;    // in moves, White to move
    double seconds;     // generation time (dependencies excluded)
    size_t bytes;       // size of the table (in memory and in its cache file's data)
    std::string file;   // the cache file written, empty if none could be
};

// Generates `material` ("KSSK", "KRK", pieces in any order) afresh, replaces the table in
// memory (the old copy stays allocated, for probes that may still read it, until
// unload_all()), and writes the cache file if a cache directory is usable. Dependencies
// come from memory or the cache as usual. nullopt for an unknown name.
std::optional<GenStats> generate(const std::string& material);

// Frees every table. Only when no probe can run concurrently (tests, shutdown).
void unload_all();

} // namespace khun::eval::tb
