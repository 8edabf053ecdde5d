#include "khun/eval/nnue.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

#if defined(__AVX512BW__) || defined(__AVX2__)
#include <immintrin.h>
#endif

// The default net's bytes, built into the binary: CMakeLists.txt names the file as
// KHUN_NET_FILE (and rebuilds this file when it changes).
#ifndef KHUN_NET_FILE
#error "KHUN_NET_FILE must name the net file to embed (set by CMakeLists.txt)"
#endif
asm(".section .rodata\n"
    ".balign 64\n"
    ".global khunEmbeddedNet\n"
    "khunEmbeddedNet:\n"
    ".incbin \"" KHUN_NET_FILE "\"\n"
    ".global khunEmbeddedNetEnd\n"
    "khunEmbeddedNetEnd:\n"
    ".byte 0\n"
    ".previous\n");
extern "C" const unsigned char khunEmbeddedNet[];
extern "C" const unsigned char khunEmbeddedNetEnd[];

namespace khun {
namespace nnue {

namespace {

constexpr uint32_t HeaderFields[] = {FileVersion, InputSize, HiddenSize, OutputBuckets,
                                     QA,          QB,        OutputScale};
constexpr size_t HeaderSize = sizeof FileMagic + sizeof HeaderFields;
constexpr size_t FileSize =
    HeaderSize + 2 * (InputSize * HiddenSize + HiddenSize + output_offset(OutputBuckets)) +
    4 * OutputBuckets;

template <typename T>
void put(std::string& out, T v) {
    for (size_t i = 0; i < sizeof(T); ++i) out += char((uint64_t(v) >> (8 * i)) & 0xFF);
}

template <typename T>
T get(const unsigned char*& p) {
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(p[i]) << (8 * i);
    p += sizeof(T);
    return T(v);
}

// --- SHA-256 (FIPS 180-4), only to name nets ---------------------------------------
constexpr uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256_block(uint32_t h[8], const unsigned char* b) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
        w[i] = uint32_t(b[4 * i]) << 24 | uint32_t(b[4 * i + 1]) << 16 |
               uint32_t(b[4 * i + 2]) << 8 | uint32_t(b[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
        const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
        const uint32_t t1 =
            hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
        const uint32_t t2 =
            (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
        hh = g, g = f, f = e, e = d + t1, d = c, c = bb, bb = a, a = t1 + t2;
    }
    h[0] += a, h[1] += bb, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

// --- Inference ----------------------------------------------------------------------

// dst = src + the columns of `add` - the columns of `sub` (a move's changes on one side).
void apply_changes(const Network& net, const int16_t* src, int16_t* dst, const int* add, int nAdd,
                   const int* sub, int nSub) {
    // 16-bit sums throughout: the trainer bounds the weights so that no accumulator of a
    // real position overflows (train.h), and the loops vectorise to whole registers.
    int16_t acc[HiddenSize];
    std::memcpy(acc, src, sizeof acc);
    for (int k = 0; k < nAdd; ++k) {
        const int16_t* w = net.ftWeights + size_t(add[k]) * HiddenSize;
        for (int i = 0; i < HiddenSize; ++i) acc[i] = int16_t(acc[i] + w[i]);
    }
    for (int k = 0; k < nSub; ++k) {
        const int16_t* w = net.ftWeights + size_t(sub[k]) * HiddenSize;
        for (int i = 0; i < HiddenSize; ++i) acc[i] = int16_t(acc[i] - w[i]);
    }
    std::memcpy(dst, acc, sizeof acc);
}

// The sum over one side's units of clamp(x, 0, QA)^2 * w.
int32_t screlu_dot(const int16_t* x, const int16_t* w) {
#if defined(__AVX512BW__)
    const __m512i zero = _mm512_setzero_si512(), qa = _mm512_set1_epi16(QA);
    __m512i sum = _mm512_setzero_si512();
    for (int i = 0; i < HiddenSize; i += 32) {
        const __m512i v = _mm512_min_epi16(
            _mm512_max_epi16(_mm512_load_si512(reinterpret_cast<const void*>(x + i)), zero), qa);
        // v * w fits in 16 bits (|w| <= 127, v <= 255); madd then multiplies by v again
        // and adds pairs into 32 bits.
        const __m512i vw =
            _mm512_mullo_epi16(v, _mm512_load_si512(reinterpret_cast<const void*>(w + i)));
        sum = _mm512_add_epi32(sum, _mm512_madd_epi16(vw, v));
    }
    return _mm512_reduce_add_epi32(sum);
#elif defined(__AVX2__)
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(QA);
    __m256i sum = _mm256_setzero_si256();
    for (int i = 0; i < HiddenSize; i += 16) {
        const __m256i v = _mm256_min_epi16(
            _mm256_max_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(x + i)), zero), qa);
        const __m256i vw =
            _mm256_mullo_epi16(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(w + i)));
        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(vw, v));
    }
    __m128i s = _mm_add_epi32(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
    s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
    return _mm_cvtsi128_si32(s);
#else
    int32_t sum = 0;
    for (int i = 0; i < HiddenSize; ++i) {
        const int32_t v = std::clamp<int32_t>(x[i], 0, QA);
        sum += v * v * w[i];
    }
    return sum;
#endif
}

} // namespace

std::string serialise(const Network& net) {
    std::string out(FileMagic, sizeof FileMagic);
    for (uint32_t f : HeaderFields) put(out, f);
    for (int16_t v : net.ftWeights) put(out, uint16_t(v));
    for (int16_t v : net.ftBias) put(out, uint16_t(v));
    for (int16_t v : net.outWeights) put(out, uint16_t(v));
    for (int32_t v : net.outBias) put(out, uint32_t(v));
    assert(out.size() == FileSize);
    return out;
}

std::optional<std::string> parse(const std::string& bytes, Network& out) {
    if (bytes.size() < HeaderSize || std::memcmp(bytes.data(), FileMagic, sizeof FileMagic))
        return std::string("not a Khun net file (no KHUNNNUE header)");
    const unsigned char* p =
        reinterpret_cast<const unsigned char*>(bytes.data()) + sizeof FileMagic;
    const char* names[] = {"version", "input size", "hidden size", "output buckets",
                           "QA",      "QB",         "output scale"};
    for (size_t i = 0; i < std::size(HeaderFields); ++i)
        if (const uint32_t v = get<uint32_t>(p); v != HeaderFields[i])
            return std::string("net file has ") + names[i] + " " + std::to_string(v) +
                   ", this build needs " + std::to_string(HeaderFields[i]);
    if (bytes.size() != FileSize)
        return "net file is " + std::to_string(bytes.size()) + " bytes, expected " +
               std::to_string(FileSize) + " (damaged or truncated)";
    auto net = std::make_unique<Network>();
    for (int16_t& v : net->ftWeights) v = int16_t(get<uint16_t>(p));
    for (int16_t& v : net->ftBias) v = int16_t(get<uint16_t>(p));
    for (int16_t& v : net->outWeights) v = int16_t(get<uint16_t>(p));
    for (int32_t& v : net->outBias) v = int32_t(get<uint32_t>(p));
    // The output layer's 16-bit product v * w needs |w| <= 127 (screlu_dot).
    for (int16_t v : net->outWeights)
        if (v < -127 || v > 127) return std::string("net file has an output weight out of range");
    std::memcpy(&out, net.get(), sizeof out);
    return std::nullopt;
}

std::string sha256_hex(const std::string& bytes) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::string msg = bytes;
    const uint64_t bits = uint64_t(bytes.size()) * 8;
    msg += char(0x80);
    while (msg.size() % 64 != 56) msg += char(0);
    for (int i = 7; i >= 0; --i) msg += char((bits >> (8 * i)) & 0xFF);
    for (size_t i = 0; i < msg.size(); i += 64)
        sha256_block(h, reinterpret_cast<const unsigned char*>(msg.data()) + i);
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (uint32_t v : h)
        for (int i = 28; i >= 0; i -= 4) s += hex[(v >> i) & 15];
    return s;
}

std::string net_name(const std::string& bytes) {
    return "nn-" + sha256_hex(bytes).substr(0, 12) + ".nnue";
}

namespace {
const std::string& embedded_bytes() {
    static const std::string bytes(reinterpret_cast<const char*>(khunEmbeddedNet),
                                   size_t(khunEmbeddedNetEnd - khunEmbeddedNet));
    return bytes;
}
} // namespace

std::shared_ptr<const Network> embedded() {
    static const std::shared_ptr<const Network> net = [] {
        auto n = std::make_shared<Network>();
        const auto error = parse(embedded_bytes(), *n);
        assert(!error); // the build embeds a file this build wrote
        return error ? nullptr : std::shared_ptr<const Network>(n);
    }();
    return net;
}

const std::string& embedded_name() {
    static const std::string name = net_name(embedded_bytes());
    return name;
}

Loaded load_file(const std::string& path) {
    Loaded r;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        r.error = "cannot open net file " + path;
        return r;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    auto n = std::make_shared<Network>();
    if (auto e = parse(bytes, *n)) {
        r.error = path + ": " + *e;
        return r;
    }
    r.net = n;
    r.name = net_name(bytes);
    return r;
}

void refresh(const Position& pos, const Network& net, Accumulator& acc) {
    for (Color persp : {WHITE, BLACK}) {
        int features[SQUARE_NB];
        int n = 0;
        for (Bitboard b = pos.pieces(); b;) {
            const Square s = pop_lsb(b);
            features[n++] = feature_index(persp, pos.piece_on(s), s);
        }
        apply_changes(net, net.ftBias, acc.values[persp], features, n, nullptr, 0);
        acc.computed[persp] = true;
    }
}

const Accumulator& accumulator(const Position& pos, const Network& net) {
    const StateInfo* st = pos.state();
    if (st->accumulator.computed[WHITE]) return st->accumulator;
    // Back to the nearest state whose sums are known, at most MaxWalk moves: past that a
    // fresh computation is cheaper. A state with no record of its move (a root) stops it.
    constexpr int MaxWalk = 16;
    const StateInfo* path[MaxWalk];
    int n = 0;
    const StateInfo* s = st;
    while (!s->accumulator.computed[WHITE]) {
        if (n == MaxWalk || s->dirty.count < 0 || !s->previous) {
            refresh(pos, net, st->accumulator);
            return st->accumulator;
        }
        path[n++] = s;
        s = s->previous;
    }
    for (int k = n - 1; k >= 0; --k) {
        const StateInfo* next = path[k];
        const DirtyPieces& d = next->dirty;
        for (Color persp : {WHITE, BLACK}) {
            int add[3], sub[3], nAdd = 0, nSub = 0;
            for (int i = 0; i < d.count; ++i) {
                if (d.from[i] != SQ_NONE) sub[nSub++] = feature_index(persp, d.piece[i], d.from[i]);
                if (d.to[i] != SQ_NONE) add[nAdd++] = feature_index(persp, d.piece[i], d.to[i]);
            }
            apply_changes(net, s->accumulator.values[persp], next->accumulator.values[persp], add,
                          nAdd, sub, nSub);
            next->accumulator.computed[persp] = true;
        }
        s = next;
    }
    return st->accumulator;
}

int output(const Accumulator& acc, Color stm, int pieces, const Network& net) {
    const int bucket = output_bucket(pieces);
    const int16_t* w = net.outWeights + output_offset(bucket);
    const int64_t sum =
        int64_t(screlu_dot(acc.values[stm], w)) + screlu_dot(acc.values[~stm], w + HiddenSize);
    return int((sum / QA + net.outBias[bucket]) * OutputScale / (QA * QB));
}

int evaluate(const Position& pos, const Network& net) {
    return output(accumulator(pos, net), pos.side_to_move(), popcount(pos.pieces()), net);
}

} // namespace nnue
} // namespace khun
