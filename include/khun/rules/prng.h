// The one pseudo-random generator: xorshift64*. Small and fast, and the same sequence
// from the same seed on every machine, which the magics and the Zobrist keys rely on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace khun {

class Prng {
  public:
    // xorshift64* never leaves 0: a zero seed takes a fixed non-zero one instead.
    explicit constexpr Prng(uint64_t seed) : s(seed ? seed : 0x9E3779B97F4A7C15ull) {}
    uint64_t next() {
        s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
        return s * 2685821657736338717ull;
    }
    // Few bits set: good magic candidates.
    uint64_t sparse() { return next() & next() & next(); }

  private:
    uint64_t s;
};

// Fisher-Yates with the project's generator (std::shuffle's result differs between
// standard libraries).
template <typename T>
void shuffle(std::vector<T>& v, Prng& rng) {
    for (size_t i = v.size(); i > 1; --i) {
        const size_t j = size_t((unsigned __int128)rng.next() * i >> 64);
        std::swap(v[i - 1], v[j]);
    }
}

} // namespace khun
