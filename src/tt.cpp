#include "khun/tt.h"

#include <new>

namespace khun {

namespace {

// data layout: move 16 | value 16 | eval 16 | depth 8 | generation 6, pv 1... bound 2
uint64_t pack(Move m, Value v, Value e, int depth, uint8_t gen, bool pv, Bound b) {
    return uint64_t(m.raw()) | uint64_t(uint16_t(int16_t(v))) << 16 |
           uint64_t(uint16_t(int16_t(e))) << 32 | uint64_t(uint8_t(depth + 8)) << 48 |
           uint64_t((gen & 31) << 3 | pv << 2 | b) << 56;
}
int depth_of(uint64_t d) { return int((d >> 48) & 0xFF) - 8; }
uint8_t gen_of(uint64_t d) { return uint8_t((d >> 59) & 31); }

} // namespace

bool TranspositionTable::resize(size_t mb) {
    if (mb < 1) mb = 1;
    size_t count = mb * 1024 * 1024 / sizeof(Cluster);
    std::unique_ptr<Cluster[]> fresh(new (std::nothrow) Cluster[count]);
    if (!fresh) return false;
    clusters = std::move(fresh);
    clusterCount = count;
    sizeMb = mb;
    generation = 0;
    return true;
}

void TranspositionTable::clear() {
    for (size_t i = 0; i < clusterCount; ++i)
        for (Entry& e : clusters[i].entry) {
            e.keyXorData.store(0, std::memory_order_relaxed);
            e.data.store(0, std::memory_order_relaxed);
        }
    generation = 0;
}

bool TranspositionTable::probe(Key key, TTData& out) const {
    const Cluster& c = clusters[index(key)];
    for (const Entry& e : c.entry) {
        uint64_t d = e.data.load(std::memory_order_relaxed);
        uint64_t k = e.keyXorData.load(std::memory_order_relaxed);
        if ((k ^ d) != key || d == 0) continue;
        out.move = Move::from_raw(uint16_t(d));
        out.value = int16_t(d >> 16);
        out.eval = int16_t(d >> 32);
        out.depth = depth_of(d);
        out.pv = (d >> 58) & 1;
        out.bound = Bound((d >> 56) & 3);
        return true;
    }
    return false;
}

void TranspositionTable::store(Key key, Value value, bool pv, Bound b, int depth, Move m,
                               Value eval) {
    Cluster& c = clusters[index(key)];
    Entry* replace = &c.entry[0];
    int worst = 1 << 30;
    for (Entry& e : c.entry) {
        uint64_t d = e.data.load(std::memory_order_relaxed);
        uint64_t k = e.keyXorData.load(std::memory_order_relaxed);
        if ((k ^ d) == key && d) {
            // Same position: keep the old move when the new result has none, and keep a
            // deeper result unless this one is exact.
            if (!m) m = Move::from_raw(uint16_t(d));
            if (b != BOUND_EXACT && depth + 4 < depth_of(d) && gen_of(d) == (generation & 31))
                return;
            replace = &e;
            break;
        }
        // Prefer to overwrite shallow entries from old searches.
        int age = (32 + (generation & 31) - gen_of(d)) & 31;
        int worth = d ? depth_of(d) - 8 * age : -1000;
        if (worth < worst) worst = worth, replace = &e;
    }
    uint64_t d = pack(m, value, eval, depth, generation, pv, b);
    replace->data.store(d, std::memory_order_relaxed);
    replace->keyXorData.store(key ^ d, std::memory_order_relaxed);
}

int TranspositionTable::hashfull() const {
    int cnt = 0;
    for (size_t i = 0; i < 1000 / ClusterSize && i < clusterCount; ++i)
        for (const Entry& e : clusters[i].entry) {
            uint64_t d = e.data.load(std::memory_order_relaxed);
            cnt += d && gen_of(d) == (generation & 31);
        }
    return cnt * 1000 / (1000 / ClusterSize * ClusterSize);
}

} // namespace khun
