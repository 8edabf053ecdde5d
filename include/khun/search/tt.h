// The transposition table: a shared, lock-free cache of search results. Each entry is
// two 64-bit atomics with the key stored XOR the data, so a torn write from another
// thread reads back as a miss rather than as a wrong result.
#pragma once

#include "khun/rules/types.h"

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace khun::search {

enum Bound : uint8_t { BOUND_NONE, BOUND_UPPER, BOUND_LOWER, BOUND_EXACT = 3 };

struct TTData {
    Move move;
    Value value;
    Value eval;
    int depth;
    Bound bound;
};

class TranspositionTable {
  public:
    // A new table's size in MiB, also the Hash option's default.
    static constexpr int DefaultMb = 16;
    TranspositionTable() { resize(DefaultMb); }
    TranspositionTable(const TranspositionTable&) = delete;
    TranspositionTable& operator=(const TranspositionTable&) = delete;
    // Size in MiB; clears the table. Returns false (keeping the old table) when the
    // memory cannot be had. Linux backs it with huge pages where the system offers them.
    bool resize(size_t mb);
    // Zeroes every entry, a large table on several threads at once.
    void clear();
    void new_search() { generation = uint8_t(generation + 1); }
    // Fills `out` and returns true on a hit.
    [[nodiscard]] bool probe(Key key, TTData& out) const;
    void store(Key key, Value value, Bound b, int depth, Move m, Value eval);
    [[nodiscard]] int hashfull() const; // per mille of entries from the current search
    [[nodiscard]] size_t size_mb() const { return sizeMb; }
    void prefetch(Key key) const { __builtin_prefetch(clusters.get() + index(key)); }

  private:
    struct Entry {
        std::atomic<uint64_t> keyXorData{0};
        std::atomic<uint64_t> data{0};
    };
    static constexpr int ClusterSize = 4;
    struct alignas(64) Cluster {
        Entry entry[ClusterSize];
    };
    [[nodiscard]] size_t index(Key key) const {
        return size_t((unsigned __int128)key * clusterCount >> 64);
    }
    // The memory is raw (aligned for huge pages); clear() constructs the clusters in it.
    struct Free {
        void operator()(Cluster* p) const;
    };

    std::unique_ptr<Cluster, Free> clusters;
    size_t clusterCount = 0;
    size_t sizeMb = 0;
    uint8_t generation = 0;
};

// Mate scores are stored relative to the node, not the root.
[[nodiscard]] inline Value value_to_tt(Value v, int ply) {
    // VALUE_NONE, shifted like a mate, would read back as a score.
    assert(v != VALUE_NONE && 0 <= ply && ply < MAX_PLY);
    return v >= VALUE_MATE_IN_MAX_PLY ? v + ply : v <= VALUE_MATED_IN_MAX_PLY ? v - ply : v;
}
[[nodiscard]] inline Value value_from_tt(Value v, int ply) {
    if (v == VALUE_NONE) return VALUE_NONE;
    return v >= VALUE_MATE_IN_MAX_PLY ? v - ply : v <= VALUE_MATED_IN_MAX_PLY ? v + ply : v;
}

} // namespace khun::search
