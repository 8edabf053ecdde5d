#include "khun/eval/nnue.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#if defined(__AVX512BW__) || defined(__AVX2__)
#include <immintrin.h>
#endif

// The built-in nets' bytes: CMakeLists.txt names the files as KHUN_NET_FILE (makruk's),
// and KHUN_NET_FILE_<GAME> for each game's own (KHUN_NETS there; it rebuilds this file when
// one changes).
#if !defined(KHUN_NET_FILE) || !defined(KHUN_NET_FILE_ASEAN) || !defined(KHUN_NET_FILE_MAKPONG) || \
    !defined(KHUN_NET_FILE_SITTUYIN) || !defined(KHUN_NET_FILE_MAKRUKHOUSE) ||                     \
    !defined(KHUN_NET_FILE_KAROUK) || !defined(KHUN_NET_FILE_AIWOK)
#error "KHUN_NET_FILE and KHUN_NET_FILE_<GAME> must name the nets to embed"
#endif
#define KHUN_INCBIN(symbol, file)                                                                  \
    asm(".section .rodata\n"                                                                       \
        ".balign 64\n"                                                                             \
        ".global " #symbol "\n" #symbol ":\n"                                                      \
        ".incbin \"" file "\"\n"                                                                   \
        ".global " #symbol "End\n" #symbol "End:\n"                                                \
        ".byte 0\n"                                                                                \
        ".previous\n");                                                                            \
    extern "C" const unsigned char symbol[];                                                       \
    extern "C" const unsigned char symbol##End[];
KHUN_INCBIN(khunNetMakruk, KHUN_NET_FILE)
KHUN_INCBIN(khunNetAsean, KHUN_NET_FILE_ASEAN)
KHUN_INCBIN(khunNetMakpong, KHUN_NET_FILE_MAKPONG)
KHUN_INCBIN(khunNetSittuyin, KHUN_NET_FILE_SITTUYIN)
KHUN_INCBIN(khunNetMakrukhouse, KHUN_NET_FILE_MAKRUKHOUSE)
KHUN_INCBIN(khunNetKarouk, KHUN_NET_FILE_KAROUK)
KHUN_INCBIN(khunNetAiwok, KHUN_NET_FILE_AIWOK)

namespace khun {
namespace nnue {

namespace {

// The header after the magic; the version and, from version 3, the king buckets vary.
constexpr uint32_t HeaderFields[] = {2, InputSize, HiddenSize, OutputBuckets, QA, QB, OutputScale};
constexpr size_t HeaderSize = sizeof FileMagic + sizeof HeaderFields;
// The king buckets' count and map (from version 3).
constexpr size_t LayoutSize = 4 + SQUARE_NB;
constexpr size_t HeadBytes =
    2 * HeadW1Size + 4 * (2 * size_t(OutputBuckets) * HeadSize + OutputBuckets);
// Version 5's parts.
constexpr uint32_t PartHead = 1, PartHand = 2, PartPromoted = 4;
// The first layer's rows of a net.
[[nodiscard]] constexpr size_t ft_rows(int kingBuckets, bool hand) {
    return size_t(kingBuckets) * InputSize + (hand ? HandInputs : 0);
}
[[nodiscard]] constexpr size_t file_size(uint32_t version, int kingBuckets, bool head, bool hand) {
    return HeaderSize + (version >= 3 ? LayoutSize : 0) + (version >= 5 ? 4 : 0) +
           2 * (ft_rows(kingBuckets, hand) * HiddenSize + HiddenSize +
                output_offset(OutputBuckets)) +
           4 * OutputBuckets + (head ? HeadBytes : 0);
}
// The version a net is written as: the oldest that holds it, so that a net without hand
// inputs, a head, or of one king bucket, is byte for byte the file it was before those
// came.
[[nodiscard]] uint32_t version_of(const Network& net) {
    if (net.hasHand || net.hasPromoted) return 5;
    if (net.hasHead) return 4;
    const KingLayout& k = net.kings;
    const bool plain = k.buckets == 1 && std::all_of(std::begin(k.of), std::end(k.of),
                                                     [](uint8_t b) { return b == 0; });
    return plain ? 2 : 3;
}

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

// --- Inference ----------------------------------------------------------------------

// dst = src + the columns of `add` - the columns of `sub` (a move's changes on one side,
// or every piece from the bias when computed afresh). A tile of the sums stays in
// registers while every row is added, so that each is loaded and stored once: a loop over
// the rows that each walks the whole accumulator in memory is one the compiler may leave
// scalar, and a fresh computation adds 20-30 rows.
void apply_changes(const Network& net, const int16_t* src, int16_t* dst, const int* add, int nAdd,
                   const int* sub, int nSub) {
    // 16-bit sums throughout: the trainer bounds the weights so that no accumulator of a
    // real position overflows (train.h). They wrap as int16_t does, so the order of the
    // rows does not change them.
    const auto row = [&net](int feature) {
        assert(feature >= 0 && size_t(feature) < ft_rows(net.kings.buckets, net.hasHand));
        return net.ftWeights + size_t(feature) * HiddenSize;
    };
#if defined(__AVX512BW__) || defined(__AVX2__)
#if defined(__AVX512BW__)
    using Vec = __m512i;
    const auto load = [](const int16_t* p) { return _mm512_load_si512(p); };
    const auto store = [](int16_t* p, Vec v) { _mm512_store_si512(p, v); };
    const auto plus = [](Vec a, Vec b) { return _mm512_add_epi16(a, b); };
    const auto minus = [](Vec a, Vec b) { return _mm512_sub_epi16(a, b); };
#else
    using Vec = __m256i;
    const auto load = [](const int16_t* p) {
        return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
    };
    const auto store = [](int16_t* p, Vec v) {
        _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
    };
    const auto plus = [](Vec a, Vec b) { return _mm256_add_epi16(a, b); };
    const auto minus = [](Vec a, Vec b) { return _mm256_sub_epi16(a, b); };
#endif
    constexpr int Lanes = int(sizeof(Vec) / sizeof(int16_t));
    constexpr int Regs = 8; // of 16 (AVX2) or 32 (AVX-512): the rest for the rows' loads
    constexpr int Tile = Lanes * Regs;
    static_assert(HiddenSize % Tile == 0, "whole tiles");
    for (int t = 0; t < HiddenSize; t += Tile) {
        Vec r[Regs];
        for (int j = 0; j < Regs; ++j) r[j] = load(src + t + j * Lanes);
        for (int k = 0; k < nAdd; ++k) {
            const int16_t* w = row(add[k]) + t;
            for (int j = 0; j < Regs; ++j) r[j] = plus(r[j], load(w + j * Lanes));
        }
        for (int k = 0; k < nSub; ++k) {
            const int16_t* w = row(sub[k]) + t;
            for (int j = 0; j < Regs; ++j) r[j] = minus(r[j], load(w + j * Lanes));
        }
        for (int j = 0; j < Regs; ++j) store(dst + t + j * Lanes, r[j]);
    }
#else
    int16_t acc[HiddenSize];
    std::memcpy(acc, src, sizeof acc);
    for (int k = 0; k < nAdd; ++k) {
        const int16_t* w = row(add[k]);
        for (int i = 0; i < HiddenSize; ++i) acc[i] = int16_t(acc[i] + w[i]);
    }
    for (int k = 0; k < nSub; ++k) {
        const int16_t* w = row(sub[k]);
        for (int i = 0; i < HiddenSize; ++i) acc[i] = int16_t(acc[i] - w[i]);
    }
    std::memcpy(dst, acc, sizeof acc);
#endif
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

// The head's activations of one side's units: clamp(x, 0, QA)^2 >> HeadActShift.
void head_activations(const int16_t* x, int16_t* a) {
#if defined(__AVX512BW__)
    const __m512i zero = _mm512_setzero_si512(), qa = _mm512_set1_epi16(QA);
    for (int i = 0; i < HiddenSize; i += 32) {
        const __m512i v = _mm512_min_epi16(
            _mm512_max_epi16(_mm512_load_si512(reinterpret_cast<const void*>(x + i)), zero), qa);
        // v * v < 2^16: the low 16 bits are the square, read unsigned by the shift.
        _mm512_store_si512(reinterpret_cast<void*>(a + i),
                           _mm512_srli_epi16(_mm512_mullo_epi16(v, v), HeadActShift));
    }
#elif defined(__AVX2__)
    const __m256i zero = _mm256_setzero_si256(), qa = _mm256_set1_epi16(QA);
    for (int i = 0; i < HiddenSize; i += 16) {
        const __m256i v = _mm256_min_epi16(
            _mm256_max_epi16(_mm256_load_si256(reinterpret_cast<const __m256i*>(x + i)), zero), qa);
        _mm256_store_si256(reinterpret_cast<__m256i*>(a + i),
                           _mm256_srli_epi16(_mm256_mullo_epi16(v, v), HeadActShift));
    }
#else
    for (int i = 0; i < HiddenSize; ++i) {
        const int32_t v = std::clamp<int32_t>(x[i], 0, QA);
        a[i] = int16_t((v * v) >> HeadActShift);
    }
#endif
}

#if defined(__AVX512BW__) || defined(__AVX2__)
// For each byte, the positions of its set bits, in order (the rest 0): one lookup and one
// store turn 8 bits of a mask into indices, without a branch.
struct SetBits {
    alignas(16) uint16_t of[256][8] = {};
    constexpr SetBits() {
        for (int m = 0; m < 256; ++m)
            for (int bit = 0, k = 0; bit < 8; ++bit)
                if (m >> bit & 1) of[m][k++] = uint16_t(bit);
    }
};
constexpr SetBits setBits;

// Appends to `list` (at `count`) the indices base..base + 7 whose bit is set in `mask`.
inline void append_set_bits(uint32_t mask, uint16_t base, uint16_t* list, int& count) {
    const __m128i idx =
        _mm_add_epi16(_mm_set1_epi16(int16_t(base)),
                      _mm_load_si128(reinterpret_cast<const __m128i*>(setBits.of[mask & 0xFF])));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(list + count), idx);
    count += __builtin_popcount(mask & 0xFF);
}
#endif

// What the head adds to the output of bucket `bucket`, in centipawns. Its first layer is
// the costly part (2 * HiddenSize x HeadSize): it reads the activations in pairs and only
// the pairs that are not both 0, which a squared clipped ReLU leaves in numbers; their
// list is made first, without branches, so that the loop over them mispredicts once.
// Integers throughout, so every instruction set gives the same score (and the same bench).
int head(const Accumulator& acc, Color stm, int bucket, const Network& net) {
    static_assert(HeadSize == 16, "one 512-bit or two 256-bit registers of int32 sums");
    alignas(64) int16_t a[2 * HiddenSize];
    head_activations(acc.values[stm], a);
    head_activations(acc.values[~stm], a + HiddenSize);
    const int16_t* w = net.headW1 + head_w1_index(bucket, 0, 0);
    const int32_t* b1 = net.headB1 + bucket * HeadSize;
    alignas(64) int32_t h[HeadSize];
    // The pair starting at activation 2p as one int32 (a[2p] low, a[2p + 1] high); it is
    // positive unless both are 0.
    const auto pair = [&](int p) {
        int32_t v;
        std::memcpy(&v, a + 2 * p, sizeof v);
        return v;
    };
#if defined(__AVX512BW__) || defined(__AVX2__)
    alignas(16) uint16_t active[HiddenSize + 8]; // + 8: a store writes 8 indices
    int count = 0;
#if defined(__AVX512BW__)
    for (int c = 0; c < HiddenSize; c += 16) { // 16 pairs a register
        const __m512i v = _mm512_load_si512(reinterpret_cast<const void*>(a + 2 * c));
        const uint32_t mask = _mm512_test_epi32_mask(v, v);
        append_set_bits(mask, uint16_t(c), active, count);
        append_set_bits(mask >> 8, uint16_t(c + 8), active, count);
    }
    // Two sums, so that each multiply-add waits on the one before the last, not the last.
    __m512i sum[2] = {_mm512_loadu_si512(reinterpret_cast<const void*>(b1)),
                      _mm512_setzero_si512()};
    active[count] = active[count + 1] = 0; // the pair a lone last step adds 0 times
    for (int k = 0; k < count; k += 2)
        for (int u = 0; u < 2; ++u) {
            const int p = active[k + u];
            const __m512i both = _mm512_set1_epi32(k + u < count ? pair(p) : 0);
            const __m512i wp =
                _mm512_load_si512(reinterpret_cast<const void*>(w + p * 2 * HeadSize));
#if defined(__AVX512VNNI__)
            sum[u] = _mm512_dpwssd_epi32(sum[u], both, wp);
#else
            sum[u] = _mm512_add_epi32(sum[u], _mm512_madd_epi16(both, wp));
#endif
        }
    _mm512_store_si512(reinterpret_cast<void*>(h), _mm512_add_epi32(sum[0], sum[1]));
#else
    const __m256i zero = _mm256_setzero_si256();
    for (int c = 0; c < HiddenSize; c += 8) { // 8 pairs a register
        const __m256i v = _mm256_load_si256(reinterpret_cast<const __m256i*>(a + 2 * c));
        append_set_bits(
            uint32_t(_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(v, zero)))),
            uint16_t(c), active, count);
    }
    __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b1)),
            hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b1 + 8));
    for (int k = 0; k < count; ++k) {
        const int p = active[k];
        const __m256i both = _mm256_set1_epi32(pair(p));
        const auto* wp = reinterpret_cast<const __m256i*>(w + p * 2 * HeadSize);
        lo = _mm256_add_epi32(lo, _mm256_madd_epi16(both, _mm256_load_si256(wp)));
        hi = _mm256_add_epi32(hi, _mm256_madd_epi16(both, _mm256_load_si256(wp + 1)));
    }
    _mm256_store_si256(reinterpret_cast<__m256i*>(h), lo);
    _mm256_store_si256(reinterpret_cast<__m256i*>(h + 8), hi);
#endif
#else
    std::copy_n(b1, HeadSize, h);
    for (int p = 0; p < HiddenSize; ++p) {
        if (!pair(p)) continue;
        const int16_t* wp = w + p * 2 * HeadSize;
        for (int j = 0; j < HeadSize; ++j)
            h[j] += a[2 * p] * wp[2 * j] + a[2 * p + 1] * wp[2 * j + 1];
    }
#endif
    int64_t sum2 = 0;
    for (int j = 0; j < HeadSize; ++j)
        sum2 += int64_t(std::clamp(h[j], 0, HeadOne)) * net.headW2[bucket * HeadSize + j];
    return int((sum2 / HeadOne + net.headB2[bucket]) * OutputScale / QH2);
}

} // namespace

std::string serialise(const Network& net) {
    const uint32_t version = version_of(net);
    assert(net.kings.buckets >= 1 && net.kings.buckets <= MaxKingBuckets);
    std::string out(FileMagic, sizeof FileMagic);
    put(out, version);
    for (size_t i = 1; i < std::size(HeaderFields); ++i) put(out, HeaderFields[i]);
    if (version >= 3) {
        put(out, uint32_t(net.kings.buckets));
        for (uint8_t b : net.kings.of) put(out, b);
    }
    if (version >= 5)
        put(out, (net.hasHead ? PartHead : 0) | (net.hasHand ? PartHand : 0) |
                     (net.hasPromoted ? PartPromoted : 0));
    const size_t rows = ft_rows(net.kings.buckets, net.hasHand) * HiddenSize;
    for (size_t i = 0; i < rows; ++i) put(out, uint16_t(net.ftWeights[i]));
    for (int16_t v : net.ftBias) put(out, uint16_t(v));
    for (int16_t v : net.outWeights) put(out, uint16_t(v));
    for (int32_t v : net.outBias) put(out, uint32_t(v));
    if (net.hasHead) {
        for (int16_t v : net.headW1) put(out, uint16_t(v));
        for (int32_t v : net.headB1) put(out, uint32_t(v));
        for (int32_t v : net.headW2) put(out, uint32_t(v));
        for (int32_t v : net.headB2) put(out, uint32_t(v));
    }
    assert(out.size() == file_size(version, net.kings.buckets, net.hasHead, net.hasHand));
    return out;
}

std::optional<std::string> parse(const std::string& bytes, Network& out) {
    if (bytes.size() < HeaderSize || std::memcmp(bytes.data(), FileMagic, sizeof FileMagic))
        return std::string("not a Khun net file (no KHUNNNUE header)");
    const unsigned char* p =
        reinterpret_cast<const unsigned char*>(bytes.data()) + sizeof FileMagic;
    const uint32_t version = get<uint32_t>(p);
    if (version < 2 || version > FileVersion)
        return "net file has version " + std::to_string(version) + ", this build reads 2 to " +
               std::to_string(FileVersion);
    const char* names[] = {"version", "input size", "hidden size", "output buckets",
                           "QA",      "QB",         "output scale"};
    for (size_t i = 1; i < std::size(HeaderFields); ++i)
        if (const uint32_t v = get<uint32_t>(p); v != HeaderFields[i])
            return std::string("net file has ") + names[i] + " " + std::to_string(v) +
                   ", this build needs " + std::to_string(HeaderFields[i]);
    auto net = std::make_unique<Network>();
    if (version >= 3) {
        if (bytes.size() < HeaderSize + LayoutSize)
            return std::string("net file ends inside its king buckets (damaged or truncated)");
        const uint32_t k = get<uint32_t>(p);
        if (k < 1 || k > uint32_t(MaxKingBuckets))
            return "net file has " + std::to_string(k) + " king buckets, this build reads 1 to " +
                   std::to_string(MaxKingBuckets);
        net->kings.buckets = int(k);
        for (uint8_t& b : net->kings.of)
            if ((b = get<uint8_t>(p)) >= k)
                return std::string("net file has a king square in a bucket it does not have");
    }
    net->hasHead = version == 4;
    if (version >= 5) {
        if (bytes.size() < HeaderSize + LayoutSize + 4)
            return std::string("net file ends inside its list of parts (damaged or truncated)");
        const uint32_t parts = get<uint32_t>(p);
        if (parts & ~(PartHead | PartHand | PartPromoted))
            return "net file has parts " + std::to_string(parts) + " this build does not know";
        net->hasHead = parts & PartHead;
        net->hasHand = parts & PartHand;
        net->hasPromoted = parts & PartPromoted;
    }
    if (const size_t expected = file_size(version, net->kings.buckets, net->hasHead, net->hasHand);
        bytes.size() != expected)
        return "net file is " + std::to_string(bytes.size()) + " bytes, expected " +
               std::to_string(expected) + " (damaged or truncated)";
    const size_t rows = ft_rows(net->kings.buckets, net->hasHand) * HiddenSize;
    for (size_t i = 0; i < rows; ++i) net->ftWeights[i] = int16_t(get<uint16_t>(p));
    for (int16_t& v : net->ftBias) v = int16_t(get<uint16_t>(p));
    for (int16_t& v : net->outWeights) v = int16_t(get<uint16_t>(p));
    for (int32_t& v : net->outBias) v = int32_t(get<uint32_t>(p));
    // The output layer's 16-bit product v * w needs |w| <= 127 (screlu_dot).
    for (int16_t v : net->outWeights)
        if (v < -127 || v > 127) return std::string("net file has an output weight out of range");
    if (net->hasHead) {
        for (int16_t& v : net->headW1) v = int16_t(get<uint16_t>(p));
        for (int32_t& v : net->headB1) v = int32_t(get<uint32_t>(p));
        for (int32_t& v : net->headW2) v = int32_t(get<uint32_t>(p));
        for (int32_t& v : net->headB2) v = int32_t(get<uint32_t>(p));
        // Past the bounds a unit's int32 sum could overflow (nnue_arch.h).
        const auto outside = [](const auto& a, int32_t bound) {
            return std::any_of(std::begin(a), std::end(a),
                               [&](int32_t v) { return v < -bound || v > bound; });
        };
        if (outside(net->headW1, HeadW1Max) || outside(net->headB1, HeadB1Max) ||
            outside(net->headW2, HeadW2Max) || outside(net->headB2, HeadB2Max))
            return std::string("net file has a head weight out of range");
    }
    std::memcpy(&out, net.get(), sizeof out);
    return std::nullopt;
}

// SHA-256 (FIPS 180-4), only to name nets: the name is what `sha256sum` shows. Written
// here rather than taken from a crypto library, so that the engine needs none.
std::string sha256_hex(const std::string& bytes) {
    static constexpr uint32_t K[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
    // The message, a 1 bit, zeros to 56 bytes modulo 64, and its length in bits.
    std::string m = bytes;
    m += char(0x80);
    while (m.size() % 64 != 56) m += char(0);
    const uint64_t bits = uint64_t(bytes.size()) * 8;
    for (int i = 7; i >= 0; --i) m += char((bits >> (8 * i)) & 0xff);
    for (size_t block = 0; block < m.size(); block += 64) {
        uint32_t w[64];
        for (int i = 0; i < 16; ++i) {
            const auto* p = reinterpret_cast<const unsigned char*>(m.data() + block + 4 * i);
            w[i] = uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
        }
        for (int i = 16; i < 64; ++i) {
            const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
        for (int i = 0; i < 64; ++i) {
            const uint32_t t1 =
                k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
            const uint32_t t2 =
                (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
            k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
    }
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (uint32_t word : h)
        for (int shift = 28; shift >= 0; shift -= 4) s += hex[(word >> shift) & 15];
    return s;
}

std::string net_name(const std::string& bytes) {
    return "nn-" + sha256_hex(bytes).substr(0, 12) + ".nnue";
}

namespace {
// A built-in net: its name and the parsed net, made on first use from the file's bytes.
struct Embedded {
    std::string name;
    std::shared_ptr<const Network> net;
    Embedded(const unsigned char* begin, const unsigned char* end) {
        const std::string bytes(reinterpret_cast<const char*>(begin), size_t(end - begin));
        name = net_name(bytes);
        auto n = std::make_shared<Network>();
        [[maybe_unused]] const auto error = parse(bytes, *n);
        assert(!error); // the build embeds files this build wrote
        if (!error) net = std::move(n);
    }
};

const Embedded& built_in(GameNet which) {
    assert(which != GameNet::None);
    static const Embedded makruk(khunNetMakruk, khunNetMakrukEnd);
    static const Embedded asean(khunNetAsean, khunNetAseanEnd);
    static const Embedded makpong(khunNetMakpong, khunNetMakpongEnd);
    static const Embedded sittuyin(khunNetSittuyin, khunNetSittuyinEnd);
    static const Embedded makrukhouse(khunNetMakrukhouse, khunNetMakrukhouseEnd);
    static const Embedded karouk(khunNetKarouk, khunNetKaroukEnd);
    static const Embedded aiwok(khunNetAiwok, khunNetAiwokEnd);
    static_assert(std::size(BuiltInNets) == 7, "a new net needs its KHUN_INCBIN and case here");
    switch (which) {
    case GameNet::Asean: return asean;
    case GameNet::Makpong: return makpong;
    case GameNet::Sittuyin: return sittuyin;
    case GameNet::Makrukhouse: return makrukhouse;
    case GameNet::Karouk: return karouk;
    case GameNet::Aiwok: return aiwok;
    default: return makruk;
    }
}
} // namespace

std::shared_ptr<const Network> embedded(GameNet which) { return built_in(which).net; }

const std::string& embedded_name(GameNet which) { return built_in(which).name; }

GameNet embedded_named(const std::string& name) {
    for (GameNet g : BuiltInNets)
        if (name == embedded_name(g)) return g;
    return GameNet::None;
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

int king_bucket(const Position& pos, const KingLayout& kings, Color c) {
    return kings.buckets == 1 ? 0 : kings.bucket(c, pos.has_king(c) ? pos.king_square(c) : SQ_NONE);
}

namespace {

// One side's first layer from scratch.
void refresh_side(const Position& pos, const Network& net, Color persp, Accumulator& acc) {
    const int bucket = king_bucket(pos, net.kings, persp);
    int features[SQUARE_NB + HandInputs];
    int n = 0;
    const Bitboard promoted = net.hasPromoted ? pos.promoted() : 0;
    for (Bitboard b = pos.pieces(); b;) {
        const Square s = pop_lsb(b);
        const Piece pc = input_piece(pos.piece_on(s), promoted & square_bb(s));
        features[n++] = feature_index(persp, bucket, pc, s);
    }
    if (net.hasHand)
        for (Color c : {WHITE, BLACK})
            for (PieceType pt = PAWN; pt <= KING; ++pt)
                for (int k = 0; k < std::min(pos.in_hand(c, pt), HandSlots); ++k)
                    features[n++] =
                        hand_feature_index(persp, net.kings.buckets, make_piece(c, pt), k);
    apply_changes(net, net.ftBias, acc.values[persp], features, n, nullptr, 0);
    acc.computed[persp] = true;
}

// Whether the move recorded in `d` took `persp`'s king to another bucket: every input of
// that side changes then, and its sums are computed afresh.
bool changes_bucket(const DirtyPieces& d, const Network& net, Color persp) {
    if (net.kings.buckets == 1) return false;
    // A king placed on the board (sittuyin) comes from SQ_NONE, bucket 0.
    for (int i = 0; i < d.count; ++i)
        if (d.piece[i] == make_piece(persp, KING) &&
            net.kings.bucket(persp, d.from[i]) != net.kings.bucket(persp, d.to[i]))
            return true;
    return false;
}
} // namespace

void refresh(const Position& pos, const Network& net, Accumulator& acc) {
    for (Color persp : {WHITE, BLACK}) refresh_side(pos, net, persp, acc);
}

const Accumulator& accumulator(const Position& pos, const Network& net) {
    const StateInfo* st = pos.state();
    // Each side separately: a king's move to another bucket makes its own side's sums
    // afresh and leaves the other side's to the update.
    for (Color persp : {WHITE, BLACK}) {
        if (st->accumulator.computed[persp]) continue;
        // Back to the nearest state whose sums are known, at most MaxWalk moves: past that
        // a fresh computation is cheaper. A state with no record of its move (a root), or
        // a king's move to another bucket, stops it.
        constexpr int MaxWalk = 16;
        const StateInfo* path[MaxWalk];
        int n = 0;
        const StateInfo* s = st;
        bool afresh = false;
        while (!s->accumulator.computed[persp]) {
            if (n == MaxWalk || s->dirty.count < 0 || !s->previous ||
                changes_bucket(s->dirty, net, persp)) {
                afresh = true;
                break;
            }
            path[n++] = s;
            s = s->previous;
        }
        if (afresh) {
            refresh_side(pos, net, persp, st->accumulator);
            continue;
        }
        // No king's move on the path changed its bucket: the bucket is the position's.
        const int bucket = king_bucket(pos, net.kings, persp);
        for (int k = n - 1; k >= 0; --k) {
            const StateInfo* next = path[k];
            const DirtyPieces& d = next->dirty;
            assert(d.count >= 0 && d.count <= 3); // a root's -1 stops the walk before here
            int add[4], sub[4], nAdd = 0, nSub = 0;
            // A piece was promoted on `from` by the state before the move, on `to` by the
            // state after it (a promotion marks its met, a capture takes the mark away).
            const Bitboard wasPromoted = net.hasPromoted ? s->promoted : 0;
            const Bitboard isPromoted = net.hasPromoted ? next->promoted : 0;
            for (int i = 0; i < d.count; ++i) {
                if (d.from[i] != SQ_NONE)
                    sub[nSub++] = feature_index(
                        persp, bucket, input_piece(d.piece[i], wasPromoted & square_bb(d.from[i])),
                        d.from[i]);
                if (d.to[i] != SQ_NONE)
                    add[nAdd++] = feature_index(
                        persp, bucket, input_piece(d.piece[i], isPromoted & square_bb(d.to[i])),
                        d.to[i]);
            }
            if (net.hasHand && d.handPiece != NO_PIECE && d.handSlot < HandSlots) {
                const int f = hand_feature_index(persp, net.kings.buckets, d.handPiece, d.handSlot);
                (d.toHand ? add[nAdd++] : sub[nSub++]) = f;
            }
            apply_changes(net, s->accumulator.values[persp], next->accumulator.values[persp], add,
                          nAdd, sub, nSub);
            next->accumulator.computed[persp] = true;
            s = next;
        }
    }
    return st->accumulator;
}

int output(const Accumulator& acc, Color stm, int pieces, const Network& net) {
    const int bucket = output_bucket(pieces);
    const int16_t* w = net.outWeights + output_offset(bucket);
    const int64_t sum =
        int64_t(screlu_dot(acc.values[stm], w)) + screlu_dot(acc.values[~stm], w + HiddenSize);
    const int linear = int((sum / QA + net.outBias[bucket]) * OutputScale / (QA * QB));
    return net.hasHead ? linear + head(acc, stm, bucket, net) : linear;
}

#ifndef NDEBUG
namespace {
// The sums brought up to date move by move must be the sums computed afresh: a change a
// move leaves out of its DirtyPieces, or a stale ancestor, shows only here.
bool matches_refresh(const Position& pos, const Network& net, const Accumulator& acc) {
    Accumulator full;
    refresh(pos, net, full);
    return std::memcmp(acc.values, full.values, sizeof acc.values) == 0;
}
} // namespace
#endif

int evaluate(const Position& pos, const Network& net) {
    const Accumulator& acc = accumulator(pos, net);
    assert(matches_refresh(pos, net, acc));
    return output(acc, pos.side_to_move(), piece_count(pos), net);
}

} // namespace nnue
} // namespace khun
