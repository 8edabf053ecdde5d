// The trainer tests' shared fixtures: synthetic records scored by material, a briefly
// trained net, a scratch directory, and file writing and reading.
#pragma once

#include "helpers.h"

#include "khun/eval/nnue.h"
#include "khun/rules/prng.h"
#include "khun/tools/packed.h"
#include "khun/tools/train.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace traintest {

using namespace khun;
using namespace khun::tools;
namespace fs = std::filesystem;

// Material from White's side, in centipawns: the synthetic data's score, a target any
// net of this shape can fit.
constexpr int MaterialValue[PIECE_TYPE_NB] = {0, 100, 300, 250, 200, 500, 0, 0};
inline int material(const Position& pos) {
    int sum = 0;
    for (Bitboard b = pos.pieces(); b;) {
        const Piece pc = pos.piece_on(pop_lsb(b));
        sum += color_of(pc) == WHITE ? MaterialValue[type_of(pc)] : -MaterialValue[type_of(pc)];
    }
    return sum;
}

// Calls f(pos) for the positions of random games from the start, `count` in all, each
// game at most `plies` long.
template <typename F>
void random_positions(int count, uint64_t seed, F&& f, size_t plies = 199) {
    testutil::init();
    Prng rng(seed);
    std::vector<StateInfo> states(plies + 1);
    Position pos;
    for (int done = 0; done < count;) {
        REQUIRE(!pos.set(testutil::StartFen, testutil::makruk(), &states[0]));
        for (size_t ply = 1; ply < states.size() && done < count; ++ply) {
            const MoveList moves(pos);
            if (moves.size() == 0) break;
            pos.do_move(*(moves.begin() + rng.next() % moves.size()), states[ply]);
            f(pos);
            ++done;
        }
    }
}

// Records scored by material, the result its sign.
inline std::vector<PackedPosition> material_data(int count, uint64_t seed, size_t plies = 199) {
    std::vector<PackedPosition> data;
    random_positions(
        count, seed,
        [&](const Position& pos) {
            const int m = material(pos);
            data.push_back(PackedPosition::pack(pos, m, m > 150 ? 1.0 : m < -150 ? 0.0 : 0.5));
        },
        plies);
    return data;
}

inline train::Options small_options() {
    train::Options opt;
    opt.epochs = 8;
    opt.batch = 256;
    opt.lr = 0.005f;
    opt.threads = 2;
    opt.seed = 7;
    return opt;
}

// A net trained briefly on material (weights of the size training gives them), and the
// records it was trained on.
struct Trained {
    std::vector<PackedPosition> data;
    train::FloatNet net;
};
inline const Trained& trained() {
    static const Trained t = [] {
        Trained r;
        r.data = material_data(3000, 11);
        const auto val = train::hold_out(r.data, 0.1, 3);
        r.net = train::FloatNet::random(5);
        std::ostringstream log;
        (void)train::fit(r.net, r.data, val, small_options(), log);
        return r;
    }();
    return t;
}

// A fresh directory for the test's files, removed at the end.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string p = (fs::temp_directory_path() / "khun-train-XXXXXX").string();
        REQUIRE(mkdtemp(p.data()));
        path = p;
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

inline void write(const std::string& file, const void* data, size_t size) {
    std::ofstream out(file, std::ios::binary);
    out.write(static_cast<const char*>(data), std::streamsize(size));
    REQUIRE(out.good());
}

inline void write(const std::string& file, const std::vector<PackedPosition>& data) {
    write(file, data.data(), data.size() * sizeof(PackedPosition));
}

inline std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace traintest
