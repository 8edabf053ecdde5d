// The trainer's records: a record's features, the king bucket layouts, reading the files
// and holding out whole games for validation (train.h).
#include "khun/rules/prng.h"
#include "khun/tools/train.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <fstream>
#include <numeric>
#include <utility>

namespace khun::tools {
namespace train {

int features(const PackedPosition& p, int white[MaxPieces], int black[MaxPieces], bool mirror,
             const nnue::KingLayout& kings, bool hand, bool promoted) {
    int bw = 0, bb = 0;
    if (kings.buckets > 1)
        p.for_each_piece([&](Piece pc, Square s) {
            if (type_of(pc) != KING) return;
            if (mirror) s = flip_file(s);
            (color_of(pc) == WHITE ? bw : bb) = kings.bucket(color_of(pc), s);
        });
    int n = 0;
    p.for_each_piece([&](Piece pc, Square s, bool isPromoted) {
        assert(n < MaxPieces);
        if (mirror) s = flip_file(s);
        pc = nnue::input_piece(pc, promoted && isPromoted);
        white[n] = nnue::feature_index(WHITE, bw, pc, s);
        black[n] = nnue::feature_index(BLACK, bb, pc, s);
        ++n;
    });
    // Board and hands hold 32 pieces at most, so the list holds them all.
    if (hand)
        p.for_each_in_hand([&](Piece pc, int k) {
            if (k >= nnue::HandSlots) return;
            assert(n < MaxPieces);
            white[n] = nnue::hand_feature_index(WHITE, kings.buckets, pc, k);
            black[n] = nnue::hand_feature_index(BLACK, kings.buckets, pc, k);
            ++n;
        });
    return n;
}

bool king_layout(const std::string& name, nnue::KingLayout& out) {
    // Squares from the king's own side: rank 0 is its first rank.
    const auto make = [&](int buckets, auto bucketOf) {
        out.buckets = buckets;
        for (int s = 0; s < SQUARE_NB; ++s)
            out.of[s] = uint8_t(bucketOf(rank_of(Square(s)), file_of(Square(s))));
        return true;
    };
    if (name == "none") return make(1, [](Rank, File) { return 0; });
    // At home on the first two ranks, or out.
    if (name == "home") return make(2, [](Rank r, File) { return r <= RANK_2 ? 0 : 1; });
    // The first rank, the second, further up.
    if (name == "ranks")
        return make(3, [](Rank r, File) { return r == RANK_1 ? 0 : r == RANK_2 ? 1 : 2; });
    // The home ranks or out, on the king's starting half (files a-d) or the other.
    if (name == "quarters")
        return make(4,
                    [](Rank r, File f) { return (r <= RANK_2 ? 0 : 2) + (f <= FILE_D ? 0 : 1); });
    return false;
}

std::optional<std::string> load(const std::string& file, std::vector<PackedPosition>& out) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    if (!in) return "cannot open " + file;
    const auto size = uint64_t(in.tellg());
    constexpr uint64_t Record = sizeof(PackedPosition);
    if (size % Record)
        return file + ": " + std::to_string(size) + " bytes is not a whole number of " +
               std::to_string(Record) + "-byte records (damaged, or not a training file)";
    const size_t first = out.size();
    out.resize(first + size / Record);
    in.seekg(0);
    if (!in.read(reinterpret_cast<char*>(out.data() + first), std::streamsize(size))) {
        out.resize(first);
        return "cannot read " + file;
    }
    for (size_t i = first; i < out.size(); ++i)
        if (auto why = out[i].damage()) {
            const size_t index = i - first;
            out.resize(first);
            return file + ": record " + std::to_string(index) + " (byte " +
                   std::to_string(index * Record) + ") is damaged: " + *why;
        }
    return std::nullopt;
}

std::vector<PackedPosition> hold_out(std::vector<PackedPosition>& data, double share,
                                     uint64_t seed) {
    // Positions of one game are alike; held out one by one, the validation set would hold
    // neighbours of training positions and hide overfitting. So whole games are held out.
    // datagen writes a game's records together, its move number never going back.
    std::vector<size_t> starts{0};
    for (size_t i = 1; i < data.size(); ++i)
        if (data[i].fullmove < data[i - 1].fullmove || data[i].variant != data[i - 1].variant)
            starts.push_back(i);
    starts.push_back(data.size());
    std::vector<size_t> games(starts.size() - 1);
    std::iota(games.begin(), games.end(), size_t(0));
    Prng rng(seed);
    shuffle(games, rng);
    const auto target = size_t(std::llround(std::clamp(share, 0.0, 1.0) * double(data.size())));
    std::vector<char> held(games.size(), 0);
    size_t count = 0;
    for (size_t k = 0; k < games.size() && count < target; ++k) {
        held[games[k]] = 1;
        count += starts[games[k] + 1] - starts[games[k]];
    }
    std::vector<PackedPosition> val, rest;
    val.reserve(count);
    rest.reserve(data.size() - count);
    for (size_t g = 0; g + 1 < starts.size(); ++g) {
        auto& to = held[g] ? val : rest;
        to.insert(to.end(), data.begin() + std::ptrdiff_t(starts[g]),
                  data.begin() + std::ptrdiff_t(starts[g + 1]));
    }
    data = std::move(rest);
    return val;
}

} // namespace train
} // namespace khun::tools
