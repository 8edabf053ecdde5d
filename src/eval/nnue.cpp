#include "khun/eval/nnue.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include <openssl/evp.h>

#if defined(__AVX512BW__) || defined(__AVX2__)
#include <immintrin.h>
#endif

// The built-in nets' bytes: CMakeLists.txt names the files as KHUN_NET_FILE (makruk's),
// KHUN_NET_FILE_ASEAN and KHUN_NET_FILE_MAKPONG (and rebuilds this file when one changes).
#if !defined(KHUN_NET_FILE) || !defined(KHUN_NET_FILE_ASEAN) || !defined(KHUN_NET_FILE_MAKPONG)
#error "KHUN_NET_FILE, KHUN_NET_FILE_ASEAN and KHUN_NET_FILE_MAKPONG must name the nets to embed"
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

namespace khun {
namespace nnue {

namespace {

// The header after the magic; the version and, from version 3, the king buckets vary.
constexpr uint32_t HeaderFields[] = {2, InputSize, HiddenSize, OutputBuckets, QA, QB, OutputScale};
constexpr size_t HeaderSize = sizeof FileMagic + sizeof HeaderFields;
// The king buckets' count and map (version 3 only).
constexpr size_t LayoutSize = 4 + SQUARE_NB;
[[nodiscard]] constexpr size_t file_size(uint32_t version, int kingBuckets) {
    return HeaderSize + (version >= 3 ? LayoutSize : 0) +
           2 * (size_t(kingBuckets) * InputSize * HiddenSize + HiddenSize +
                output_offset(OutputBuckets)) +
           4 * OutputBuckets;
}
// A layout of one bucket is written as version 2, byte for byte the file of a net made
// before king buckets.
[[nodiscard]] bool plain(const KingLayout& k) {
    return k.buckets == 1 &&
           std::all_of(std::begin(k.of), std::end(k.of), [](uint8_t b) { return b == 0; });
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

// dst = src + the columns of `add` - the columns of `sub` (a move's changes on one side).
void apply_changes(const Network& net, const int16_t* src, int16_t* dst, const int* add, int nAdd,
                   const int* sub, int nSub) {
    // 16-bit sums throughout: the trainer bounds the weights so that no accumulator of a
    // real position overflows (train.h), and the loops vectorise to whole registers.
    int16_t acc[HiddenSize];
    std::memcpy(acc, src, sizeof acc);
    for (int k = 0; k < nAdd; ++k) {
        assert(add[k] >= 0 && add[k] < net.kings.buckets * InputSize); // a row of ftWeights
        const int16_t* w = net.ftWeights + size_t(add[k]) * HiddenSize;
        for (int i = 0; i < HiddenSize; ++i) acc[i] = int16_t(acc[i] + w[i]);
    }
    for (int k = 0; k < nSub; ++k) {
        assert(sub[k] >= 0 && sub[k] < net.kings.buckets * InputSize);
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
    const bool v2 = plain(net.kings);
    assert(net.kings.buckets >= 1 && net.kings.buckets <= MaxKingBuckets);
    std::string out(FileMagic, sizeof FileMagic);
    put(out, uint32_t(v2 ? 2 : FileVersion));
    for (size_t i = 1; i < std::size(HeaderFields); ++i) put(out, HeaderFields[i]);
    if (!v2) {
        put(out, uint32_t(net.kings.buckets));
        for (uint8_t b : net.kings.of) put(out, b);
    }
    const size_t rows = size_t(net.kings.buckets) * InputSize * HiddenSize;
    for (size_t i = 0; i < rows; ++i) put(out, uint16_t(net.ftWeights[i]));
    for (int16_t v : net.ftBias) put(out, uint16_t(v));
    for (int16_t v : net.outWeights) put(out, uint16_t(v));
    for (int32_t v : net.outBias) put(out, uint32_t(v));
    assert(out.size() == file_size(v2 ? 2 : FileVersion, net.kings.buckets));
    return out;
}

std::optional<std::string> parse(const std::string& bytes, Network& out) {
    if (bytes.size() < HeaderSize || std::memcmp(bytes.data(), FileMagic, sizeof FileMagic))
        return std::string("not a Khun net file (no KHUNNNUE header)");
    const unsigned char* p =
        reinterpret_cast<const unsigned char*>(bytes.data()) + sizeof FileMagic;
    const uint32_t version = get<uint32_t>(p);
    if (version != 2 && version != FileVersion)
        return "net file has version " + std::to_string(version) + ", this build reads 2 and " +
               std::to_string(FileVersion);
    const char* names[] = {"version", "input size", "hidden size", "output buckets",
                           "QA",      "QB",         "output scale"};
    for (size_t i = 1; i < std::size(HeaderFields); ++i)
        if (const uint32_t v = get<uint32_t>(p); v != HeaderFields[i])
            return std::string("net file has ") + names[i] + " " + std::to_string(v) +
                   ", this build needs " + std::to_string(HeaderFields[i]);
    auto net = std::make_unique<Network>();
    if (version == FileVersion) {
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
    if (const size_t expected = file_size(version, net->kings.buckets); bytes.size() != expected)
        return "net file is " + std::to_string(bytes.size()) + " bytes, expected " +
               std::to_string(expected) + " (damaged or truncated)";
    const size_t rows = size_t(net->kings.buckets) * InputSize * HiddenSize;
    for (size_t i = 0; i < rows; ++i) net->ftWeights[i] = int16_t(get<uint16_t>(p));
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
    // OpenSSL's digest, only to name nets: the name is what `sha256sum` shows.
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr))
        throw std::runtime_error("SHA-256 failed (OpenSSL)");
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (unsigned int i = 0; i < length; ++i) {
        s += hex[digest[i] >> 4];
        s += hex[digest[i] & 15];
    }
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
    static_assert(std::size(BuiltInNets) == 3, "a new net needs its KHUN_INCBIN and case here");
    switch (which) {
    case GameNet::Asean: return asean;
    case GameNet::Makpong: return makpong;
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
    int features[SQUARE_NB];
    int n = 0;
    for (Bitboard b = pos.pieces(); b;) {
        const Square s = pop_lsb(b);
        features[n++] = feature_index(persp, bucket, pos.piece_on(s), s);
    }
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
            int add[3], sub[3], nAdd = 0, nSub = 0;
            for (int i = 0; i < d.count; ++i) {
                if (d.from[i] != SQ_NONE)
                    sub[nSub++] = feature_index(persp, bucket, d.piece[i], d.from[i]);
                if (d.to[i] != SQ_NONE)
                    add[nAdd++] = feature_index(persp, bucket, d.piece[i], d.to[i]);
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
    return int((sum / QA + net.outBias[bucket]) * OutputScale / (QA * QB));
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
    return output(acc, pos.side_to_move(), popcount(pos.pieces()), net);
}

} // namespace nnue
} // namespace khun
