#include "khun/search/tt.h"

#include "khun/search/thread.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <new>
#include <thread>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace khun::search {

namespace {

// data layout: move 16 | value 16 | eval 16 | depth 8 | generation 5, a spare bit, bound 2
[[nodiscard]] uint64_t pack(Move m, Value v, Value e, int depth, uint8_t gen, Bound b) {
    return uint64_t(m.raw()) | uint64_t(uint16_t(int16_t(v))) << 16 |
           uint64_t(uint16_t(int16_t(e))) << 32 | uint64_t(uint8_t(depth + 8)) << 48 |
           uint64_t((gen & 31) << 3 | b) << 56;
}
[[nodiscard]] int depth_of(uint64_t d) { return int((d >> 48) & 0xFF) - 8; }
[[nodiscard]] uint8_t gen_of(uint64_t d) { return uint8_t((d >> 59) & 31); }

} // namespace

namespace {

// Transparent huge pages come in 2 MiB: a table aligned to them and advised to use them
// costs a TLB miss per 2 MiB instead of per 4 KiB, and is zeroed with 512 times fewer
// page faults.
constexpr size_t HugePage = size_t(2) << 20;

void* alloc_table(size_t bytes) {
#ifdef __linux__
    if (bytes >= HugePage) {
        const size_t rounded = (bytes + HugePage - 1) / HugePage * HugePage;
        void* p = std::aligned_alloc(HugePage, rounded);
        if (p) madvise(p, rounded, MADV_HUGEPAGE); // a hint: without THP it is a no-op
        return p;
    }
#endif
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}

} // namespace

void TranspositionTable::Free::operator()(Cluster* p) const { std::free(p); }

bool TranspositionTable::resize(size_t mb) {
    if (mb < 1) mb = 1;
    const size_t count = mb * 1024 * 1024 / sizeof(Cluster);
    auto* mem = static_cast<Cluster*>(alloc_table(count * sizeof(Cluster)));
    if (!mem) return false;
    clusters.reset(mem);
    clusterCount = count;
    sizeMb = mb;
    clear();
    return true;
}

void TranspositionTable::clear() {
    // Construct (zero) the clusters: a gigabyte table takes seconds on one thread, most of
    // it in page faults, so a large one is split over the machine's threads.
    constexpr size_t PerThreadMin = (size_t(64) << 20) / sizeof(Cluster);
    const size_t hw = std::max(1u, std::thread::hardware_concurrency());
    const size_t n = std::clamp<size_t>(clusterCount / PerThreadMin, 1, hw);
    Cluster* table = clusters.get();
    auto zero = [this, table, n](size_t i) {
        const size_t begin = clusterCount * i / n, end = clusterCount * (i + 1) / n;
        for (size_t c = begin; c < end; ++c) new (table + c) Cluster();
    };
    if (n == 1)
        zero(0);
    else
        ThreadPool(n).for_each(zero);
    generation = 0;
}

bool TranspositionTable::probe(Key key, TTData& out) const {
    const Cluster& c = clusters.get()[index(key)];
    for (const Entry& e : c.entry) {
        uint64_t d = e.data.load(std::memory_order_relaxed);
        uint64_t k = e.keyXorData.load(std::memory_order_relaxed);
        if ((k ^ d) != key || d == 0) continue;
        out.move = Move::from_raw(uint16_t(d));
        out.value = int16_t(d >> 16);
        out.eval = int16_t(d >> 32);
        out.depth = depth_of(d);
        out.bound = Bound((d >> 56) & 3);
        // Key and data match, so store() wrote this entry whole, with a bound.
        assert(out.bound != BOUND_NONE);
        return true;
    }
    return false;
}

void TranspositionTable::store(Key key, Value value, Bound b, int depth, Move m, Value eval) {
    // What pack() can hold: 8 bits of depth from -8, 16-bit scores, a bound that means one.
    assert(depth >= -8 && depth < 248);
    assert(b == BOUND_UPPER || b == BOUND_LOWER || b == BOUND_EXACT);
    assert(value >= -VALUE_MATE && value <= VALUE_MATE);
    assert(eval == VALUE_NONE || std::abs(eval) < VALUE_MATE_IN_MAX_PLY);
    Cluster& c = clusters.get()[index(key)];
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
    uint64_t d = pack(m, value, eval, depth, generation, b);
    replace->data.store(d, std::memory_order_relaxed);
    replace->keyXorData.store(key ^ d, std::memory_order_relaxed);
}

int TranspositionTable::hashfull() const {
    int cnt = 0;
    for (size_t i = 0; i < 1000 / ClusterSize && i < clusterCount; ++i)
        for (const Entry& e : clusters.get()[i].entry) {
            uint64_t d = e.data.load(std::memory_order_relaxed);
            cnt += d && gen_of(d) == (generation & 31);
        }
    return cnt * 1000 / (1000 / ClusterSize * ClusterSize);
}

} // namespace khun::search
