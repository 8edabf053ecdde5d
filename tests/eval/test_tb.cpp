// The bare-king tables: the generator against the reference summary and distances, every
// probe against its successors (found with the engine's own move generator) and against a
// plain mate search, either colour as the strong side, and a cache that never trusts a
// damaged file.
#include "khun/eval/tb.h"
#include "khun/rules/movegen.h"
#include "khun/rules/position.h"
#include "khun/rules/variant.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace khun;

namespace {

namespace fs = std::filesystem;

std::string data_file(const std::string& name) { return std::string(KHUN_TEST_DATA) + "/" + name; }

std::vector<char> read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

void write_bytes(const std::string& path, const std::vector<char>& b) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(b.data(), std::streamsize(b.size()));
}

// One cache for the whole test run, next to the test binary and emptied whenever the
// binary changes: each test process reads what the first one generated, and a table from
// an older generator is never checked in place of a new one.
std::string shared_cache() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return (fs::temp_directory_path() / "khun-tb-tests").string();
    fs::path dir = exe.parent_path() / "tb-test-cache";
    auto stamp = std::to_string(fs::last_write_time(exe, ec).time_since_epoch().count());
    fs::create_directories(dir, ec);
    std::ifstream in(dir / "stamp");
    std::string old;
    std::getline(in, old);
    if (old != stamp) {
        for (auto& e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".dtm") fs::remove(e.path(), ec);
        std::ofstream(dir / "stamp") << stamp << "\n";
    }
    return dir.string();
}

void setup() {
    static const bool done = [] {
        Position::init();
        eval::tb::set_cache_dir(shared_cache());
        return true;
    }();
    (void)done;
}

// A position from a FEN; fails the test if Khun refuses it.
struct Pos {
    Position pos;
    StateInfo st;
    explicit Pos(const std::string& fen) {
        auto err = pos.set(fen, default_variant(), &st);
        INFO("FEN " << fen << ": " << err.value_or(""));
        REQUIRE(!err);
    }
};

std::optional<eval::tb::Probe> probe_fen(const std::string& fen) {
    Pos p(fen);
    return eval::tb::probe(p.pos);
}

// The same game seen from the other side: ranks flipped, colours swapped.
std::string mirror_fen(const std::string& fen) {
    std::istringstream ss(fen);
    std::string board, side, rest, w;
    ss >> board >> side;
    while (ss >> w) rest += " " + w;
    std::vector<std::string> ranks;
    std::stringstream bs(board);
    for (std::string r; std::getline(bs, r, '/');) ranks.push_back(r);
    std::string out;
    for (auto it = ranks.rbegin(); it != ranks.rend(); ++it) {
        if (!out.empty()) out += '/';
        for (char c : *it) out += std::isupper(c) ? char(std::tolower(c)) : char(std::toupper(c));
    }
    return out + (side == "w" ? " b" : " w") + rest;
}

bool same(const std::optional<eval::tb::Probe>& a, const std::optional<eval::tb::Probe>& b) {
    if (!a || !b) return !a && !b;
    return a->result == b->result && a->moves == b->moves;
}

std::string show(const std::optional<eval::tb::Probe>& p) {
    if (!p) return "none";
    const char* r[] = {"draw", "win", "loss"};
    return std::string(r[p->result]) + " " + std::to_string(p->moves);
}

// The board field of a FEN from 64 characters, a1 first, '.' for an empty square.
std::string board_fen(const std::string& board) {
    std::string f;
    for (int r = 7; r >= 0; --r) {
        int empty = 0;
        for (int file = 0; file < 8; ++file) {
            char c = board[r * 8 + file];
            if (c == '.') {
                ++empty;
                continue;
            }
            if (empty) f += char('0' + empty), empty = 0;
            f += c;
        }
        if (empty) f += char('0' + empty);
        if (r) f += '/';
    }
    return f;
}

// Random placements of a material ("KSMK"): White strong unless `blackStrong`, the
// side to move as asked; only the legal ones come back.
struct Sampler {
    std::mt19937_64 rng{20240611};

    std::optional<std::string> fen(const std::string& material, bool blackStrong, bool strongToMove,
                                   const std::string& counting = "- 0 1") {
        std::string board(64, '.');
        std::string men = "K" + material.substr(1, material.size() - 2) + "k";
        for (char c : men) {
            int s;
            do s = int(rng() % 64);
            while (board[s] != '.');
            board[s] = c;
        }
        std::string f = board_fen(board);
        f += strongToMove ? " w - " : " b - ";
        f += counting;
        if (blackStrong) f = mirror_fen(f);
        Position pos;
        StateInfo st;
        if (pos.set(f, default_variant(), &st)) return std::nullopt;
        return f;
    }
};

// What a probe must say, from the probes of the positions one legal move away: the
// engine's own move generator and make/unmake, nothing of the generator's.
std::optional<eval::tb::Probe> from_successors(Position& pos) {
    MoveList moves(pos);
    if (moves.size() == 0)
        return pos.in_check() ? eval::tb::Probe{eval::tb::Probe::Loss, 0}
                              : eval::tb::Probe{eval::tb::Probe::Draw, 0};
    const bool strong = pos.count(pos.side_to_move()) > 1;
    int best = 1000, worst = 0;
    StateInfo st;
    for (Move m : moves) {
        pos.do_move(m, st);
        auto c = eval::tb::probe(pos);
        bool bareKings = pos.count(WHITE) == 1 && pos.count(BLACK) == 1;
        pos.undo_move(m);
        if (!c && !bareKings) return std::nullopt; // a successor not covered: a bug
        eval::tb::Probe v = c ? *c : eval::tb::Probe{eval::tb::Probe::Draw, 0};
        if (strong && v.result == eval::tb::Probe::Loss) best = std::min(best, v.moves + 1);
        if (!strong && v.result != eval::tb::Probe::Win)
            return eval::tb::Probe{eval::tb::Probe::Draw, 0};
        if (!strong) worst = std::max(worst, v.moves);
    }
    if (strong)
        return best < 1000 ? eval::tb::Probe{eval::tb::Probe::Win, best}
                           : eval::tb::Probe{eval::tb::Probe::Draw, 0};
    return eval::tb::Probe{eval::tb::Probe::Loss, worst};
}

// A plain mate search. mates_within: the side to move mates with at most n of its own
// moves. mated_within: the side to move is mated now, or whatever it plays the other side
// mates within n moves.
bool mated_within(Position& pos, int n);

bool mates_within(Position& pos, int n) {
    if (n <= 0) return false;
    StateInfo st;
    for (Move m : MoveList(pos)) {
        pos.do_move(m, st);
        // A last move must check; looking no further saves the bulk of the work.
        bool ok = (n > 1 || pos.in_check()) && mated_within(pos, n - 1);
        pos.undo_move(m);
        if (ok) return true;
    }
    return false;
}

bool mated_within(Position& pos, int n) {
    MoveList moves(pos);
    if (moves.size() == 0) return pos.in_check();
    if (n <= 0) return false;
    StateInfo st;
    for (Move m : moves) {
        pos.do_move(m, st);
        bool ok = mates_within(pos, n);
        pos.undo_move(m);
        if (!ok) return false;
    }
    return true;
}

} // namespace

TEST_CASE("tb: the generator reproduces endings-summary.txt", "[tb][sweep]") {
    setup();
    std::ifstream in(data_file("eval/endings-summary.txt"));
    REQUIRE(in.good());
    const std::regex line(R"(# K([SNMR]+) vs K: (\d+) legal positions with White to move, )"
                          R"(([\d.]+)% won, longest mate (\d+) moves)");
    int rows = 0;
    for (std::string s; std::getline(in, s);) {
        std::smatch m;
        if (!std::regex_search(s, m, line)) continue;
        ++rows;
        auto stats = eval::tb::generate("K" + m[1].str() + "K");
        INFO(s);
        REQUIRE(stats);
        char share[16];
        std::snprintf(share, sizeof share, "%.1f", 100 * stats->wonShare);
        CHECK(std::to_string(stats->positions) == m[2].str());
        CHECK(share == m[3].str());
        CHECK(stats->longestMate == std::stoi(m[4].str()));
    }
    CHECK(rows == 13);
    // Not in the file: the lone ruea mates in at most 16, as in chess.
    auto krk = eval::tb::generate("KRK");
    REQUIRE(krk);
    CHECK(krk->longestMate == 16);
    CHECK(krk->wonShare == 1.0);
    // Pieces in any order name the same table; nonsense names none.
    CHECK(eval::tb::generate("KMSK")->name == "KSMK");
    CHECK(!eval::tb::generate("KQK"));
    CHECK(!eval::tb::generate("KSSSK"));
    CHECK(!eval::tb::generate("KPK"));
}

TEST_CASE("tb: every distance in endings-makruk.txt", "[tb][sweep]") {
    setup();
    std::ifstream in(data_file("eval/endings-makruk.txt"));
    REQUIRE(in.good());
    int rows = 0;
    for (std::string s; std::getline(in, s);) {
        if (s.empty() || s[0] == '#') continue;
        std::vector<std::string> f;
        std::stringstream ss(s);
        for (std::string x; std::getline(ss, x, ';');) {
            x.erase(0, x.find_first_not_of(' '));
            x.erase(x.find_last_not_of(' ') + 1);
            f.push_back(x);
        }
        INFO(s);
        REQUIRE(f.size() == 4);
        ++rows;
        const int dist = std::stoi(f[1]), left = std::stoi(f[2]);
        const bool mate = f[3] == "mate";
        Pos p(f[0]);
        auto r = eval::tb::probe(p.pos);
        INFO("probe: " << show(r));
        REQUIRE(r);
        CHECK(r->result == eval::tb::Probe::Win);
        CHECK(r->moves == dist);
        // The count leaves exactly `left` moves, and decides the result.
        const int ply = p.pos.count_ply(), limit = p.pos.count_limit();
        CHECK(eval::tb::mate_fits(left, ply, limit));
        CHECK(!eval::tb::mate_fits(left + 1, ply, limit));
        CHECK(eval::tb::mate_fits(dist, ply, limit) == mate);
        CHECK(eval::tb::counted(*r, p.pos) ==
              (mate ? eval::tb::Probe::Win : eval::tb::Probe::Draw));
        // Black strong: the same values.
        Pos q(mirror_fen(f[0]));
        auto rq = eval::tb::probe(q.pos);
        INFO("mirrored: " << mirror_fen(f[0]) << " probe: " << show(rq));
        CHECK(same(r, rq));
        CHECK(eval::tb::counted(*rq, q.pos) == eval::tb::counted(*r, p.pos));
    }
    CHECK(rows == 40);
}

TEST_CASE("tb: every probe follows from its successors", "[tb][sweep]") {
    setup();
    Sampler sampler;
    for (const std::string& material : eval::tb::materials()) {
        int checked = 0, won = 0;
        for (int i = 0; i < 6000; ++i) {
            const bool blackStrong = i & 1, strongToMove = i & 2;
            auto fen = sampler.fen(material, blackStrong, strongToMove);
            if (!fen) continue;
            Pos p(*fen);
            auto r = eval::tb::probe(p.pos);
            auto expected = from_successors(p.pos);
            INFO(*fen << "  probe: " << show(r) << "  from successors: " << show(expected));
            REQUIRE(same(r, expected));
            ++checked;
            won += r->result != eval::tb::Probe::Draw;
        }
        INFO(material << ": " << checked << " positions, " << won << " decisive");
        CHECK(checked > 3000);
    }
}

TEST_CASE("tb: the small tables follow from their successors everywhere", "[tb][sweep]") {
    setup();
    const char* letters = "SNMR";
    for (int k = 0; k < 4; ++k)
        for (int side = 0; side < 2; ++side) {
            int checked = 0;
            for (int wk = 0; wk < 64; ++wk)
                for (int bk = 0; bk < 64; ++bk)
                    for (int s = 0; s < 64; ++s) {
                        if (wk == bk || s == wk || s == bk) continue;
                        std::string board(64, '.');
                        board[wk] = 'K', board[bk] = 'k', board[s] = letters[k];
                        std::string fen = board_fen(board) + (side ? " b - - 0 1" : " w - - 0 1");
                        Position pos;
                        StateInfo st;
                        if (pos.set(fen, default_variant(), &st)) continue;
                        auto r = eval::tb::probe(pos);
                        auto expected = from_successors(pos);
                        if (!same(r, expected)) {
                            INFO(fen << "  probe: " << show(r)
                                     << "  successors: " << show(expected));
                            REQUIRE(same(r, expected));
                        }
                        ++checked;
                    }
            CHECK(checked > 100000);
        }
}

TEST_CASE("tb: probes agree with a plain search on short mates", "[tb][sweep]") {
    setup();
    Sampler sampler;
    // KRRK: mates in 1 to 3 with the strong side to move, in 1 to 2 with the bare side to
    // move, checked to be exact; longer ones checked to take more than 2 moves.
    int found[4] = {0, 0, 0, 0}, lost[3] = {0, 0, 0}, longer = 0;
    for (int i = 0; i < 200000 && (found[1] + found[2] + found[3] < 240 || lost[1] + lost[2] < 80);
         ++i) {
        const bool strongToMove = i % 3 != 0;
        auto fen = sampler.fen("KRRK", i & 1, strongToMove);
        if (!fen) continue;
        Pos p(*fen);
        auto r = eval::tb::probe(p.pos);
        REQUIRE(r);
        INFO(*fen << "  probe: " << show(r));
        const int n = r->moves;
        if (r->result == eval::tb::Probe::Win && n <= 3 && found[n] < 80) {
            ++found[n];
            CHECK(mates_within(p.pos, n));
            CHECK(!mates_within(p.pos, n - 1));
        } else if (r->result == eval::tb::Probe::Loss && n >= 1 && n <= 2 && lost[n] < 40) {
            ++lost[n];
            CHECK(mated_within(p.pos, n));
            CHECK(!mated_within(p.pos, n - 1));
        } else if (r->result == eval::tb::Probe::Win && n > 2 && longer < 40) {
            ++longer;
            CHECK(!mates_within(p.pos, 2));
        }
    }
    CHECK(found[1] == 80);
    CHECK(found[2] == 80);
    CHECK(found[3] == 80);
    CHECK(lost[1] == 40);
    CHECK(lost[2] == 40);

    // Every other material: short mates exact, and draws or long mates not mated in 2.
    for (const std::string& material : eval::tb::materials()) {
        if (material == "KRRK") continue;
        int mates = 0, others = 0;
        for (int i = 0; i < 100000 && (mates < 12 || others < 6); ++i) {
            auto fen = sampler.fen(material, i & 1, true);
            if (!fen) continue;
            Pos p(*fen);
            auto r = eval::tb::probe(p.pos);
            REQUIRE(r);
            INFO(*fen << "  probe: " << show(r));
            if (r->result == eval::tb::Probe::Win && r->moves <= 3 && mates < 12) {
                ++mates;
                CHECK(mates_within(p.pos, r->moves));
                CHECK(!mates_within(p.pos, r->moves - 1));
            } else if ((r->result == eval::tb::Probe::Draw || r->moves > 2) && others < 6) {
                ++others;
                CHECK(!mates_within(p.pos, 2));
            }
        }
        INFO(material);
        CHECK(others == 6);
        // Mates are too rare to meet by chance with a lone met or knight, two knights or
        // two mets.
        if (material != "KMK" && material != "KNK" && material != "KNNK" && material != "KMMK")
            CHECK(mates > 0);
    }
}

TEST_CASE("tb: either colour can be the strong side", "[tb][sweep]") {
    setup();
    Sampler sampler;
    for (const std::string& material : eval::tb::materials()) {
        for (int i = 0; i < 3000; ++i) {
            auto fen = sampler.fen(material, false, i & 1);
            if (!fen) continue;
            auto m = mirror_fen(*fen);
            auto a = probe_fen(*fen), b = probe_fen(m);
            INFO(*fen << " -> " << show(a) << "; " << m << " -> " << show(b));
            REQUIRE(same(a, b));
            Pos p(m);
            CHECK(eval::tb::material_of(p.pos) == material);
        }
    }
}

TEST_CASE("tb: covers only pawnless bare-king endings", "[tb]") {
    setup();
    auto covered = [](const std::string& fen) {
        Pos p(fen);
        return eval::tb::covers(p.pos);
    };
    CHECK(covered("8/8/8/8/8/2k5/8/R3K3 w - - 0 1"));
    CHECK(covered("8/8/8/8/8/2K5/8/r3k3 b - - 0 1"));
    CHECK(covered("8/8/8/3m4/8/2K5/8/r3k3 w - - 0 1"));
    CHECK(!covered("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"));
    CHECK(!covered("8/8/8/8/8/2k5/8/4K3 w - - 0 1"));    // bare kings
    CHECK(!covered("8/8/8/8/2P5/2k5/8/R3K3 w - - 0 1")); // a pawn
    CHECK(!covered("8/8/8/8/8/2k5/8/RRS1K3 w - - 0 1")); // three pieces
    CHECK(!covered("8/8/8/8/8/2k1m3/8/R3K3 w - - 0 1")); // both sides have pieces
    Pos p("8/8/8/8/8/2k5/8/R3K3 w - - 0 1");
    CHECK(!eval::tb::probe(Pos("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1").pos));
    CHECK(eval::tb::material_of(p.pos) == "KRK");
    // Without `build`, only tables already in memory answer.
    eval::tb::unload_all();
    CHECK(!eval::tb::probe(p.pos, false));
    CHECK(eval::tb::probe(p.pos));
    CHECK(eval::tb::probe(p.pos, false));
}

TEST_CASE("tb: mate_fits and counted follow the counting rule", "[tb]") {
    setup();
    // The mating move may be made from ply L at the latest.
    CHECK(eval::tb::mate_fits(1, 16, 16));
    CHECK(!eval::tb::mate_fits(1, 17, 16));
    CHECK(eval::tb::mate_fits(5, 8, 16));
    CHECK(!eval::tb::mate_fits(5, 9, 16));
    CHECK(eval::tb::mate_fits(50, 0, 0)); // no count
    // KRRK, the bare king counts 8 moves from ply 8: counted() on a position and on its
    // successors after the engine's own counting agree.
    Sampler sampler;
    int checked = 0;
    for (int i = 0; i < 4000; ++i) {
        const char* counts[] = {"- 0 1", "16 9 1", "16 13 1", "44 9 1", "16 15 1"};
        const std::string material = i % 2 ? "KRRK" : "KSSK";
        auto fen = sampler.fen(material, i & 4, i & 8, counts[(i / 16) % 5]);
        if (!fen) continue;
        Pos p(*fen);
        auto r = eval::tb::probe(p.pos);
        REQUIRE(r);
        if (r->result == eval::tb::Probe::Draw || r->moves == 0) continue;
        // The strong side wins under the count iff one of its moves leaves the bare side
        // lost under the count; the bare side loses iff all of its moves do.
        bool strong = r->result == eval::tb::Probe::Win;
        bool any = false, all = true;
        StateInfo st;
        for (Move m : MoveList(p.pos)) {
            p.pos.do_move(m, st);
            auto c = eval::tb::probe(p.pos);
            bool keeps = c && c->result != eval::tb::Probe::Draw &&
                         eval::tb::counted(*c, p.pos) ==
                             (strong ? eval::tb::Probe::Loss : eval::tb::Probe::Win);
            p.pos.undo_move(m);
            any |= keeps, all &= keeps;
        }
        INFO(*fen << "  probe: " << show(r));
        CHECK((eval::tb::counted(*r, p.pos) != eval::tb::Probe::Draw) == (strong ? any : all));
        ++checked;
    }
    CHECK(checked > 1000);
}

TEST_CASE("tb: a damaged cache file is rebuilt and never trusted", "[tb]") {
    setup();
    const std::string shared = eval::tb::cache_dir();
    const std::string dir = shared + "/damaged";
    std::error_code ec;
    fs::remove_all(dir, ec);
    eval::tb::set_cache_dir(dir);
    eval::tb::unload_all();
    REQUIRE(eval::tb::generate("KRK"));
    REQUIRE(eval::tb::generate("KRRK"));
    const std::string krk = dir + "/KRK.dtm", krrk = dir + "/KRRK.dtm";
    const auto good = read_bytes(krk), goodRR = read_bytes(krrk);
    REQUIRE(good.size() > 48);
    // Values read from the files: KRK; KRRK; KRRK where the lone king may take the
    // ruea on b1, which reads KRK too.
    const std::string fens[] = {"8/8/8/3k4/8/8/8/R3K3 w - - 0 1",
                                "8/8/8/8/8/8/2k5/1R1RK3 b - - 0 1",
                                "8/8/8/8/8/8/1k6/1R2K2R b - - 0 1"};
    std::vector<std::string> expected;
    for (auto& f : fens) expected.push_back(show(probe_fen(f)));
    for (auto& e : expected) CHECK(e != "draw 0");

    auto check_rebuilt = [&](const char* what) {
        INFO(what);
        eval::tb::unload_all();
        for (size_t i = 0; i < std::size(fens); ++i) CHECK(show(probe_fen(fens[i])) == expected[i]);
        CHECK(read_bytes(krk) == good);
        CHECK(read_bytes(krrk) == goodRR);
    };
    auto damaged = good;
    damaged[good.size() / 2] ^= 0x10;
    write_bytes(krk, damaged);
    check_rebuilt("one byte flipped");
    // Every value shifted by the same amount: a checksum of sums would miss this.
    damaged = good;
    for (size_t i = 48; i < damaged.size(); ++i) damaged[i] = char(damaged[i] ? damaged[i] + 1 : 0);
    write_bytes(krk, damaged);
    check_rebuilt("every value changed");
    write_bytes(krk, std::vector<char>(good.begin(), good.begin() + long(good.size() / 3)));
    check_rebuilt("truncated");
    write_bytes(krk, std::vector<char>(good.begin(), good.begin() + 20));
    check_rebuilt("header cut");
    damaged = good;
    damaged.push_back(0);
    write_bytes(krk, damaged);
    check_rebuilt("one byte too many");
    damaged = good;
    damaged[8] ^= 1; // the format version
    write_bytes(krk, damaged);
    check_rebuilt("another version");
    damaged = goodRR;
    damaged[16 + 1] = 'S'; // KSRK's name in the KRRK file
    write_bytes(krrk, damaged);
    check_rebuilt("another material");
    write_bytes(krk, {});
    check_rebuilt("empty");
    fs::remove(krk, ec);
    check_rebuilt("missing");

    // A directory that cannot hold files: tables still work, from memory.
    eval::tb::set_cache_dir(krk + "/not-a-dir");
    eval::tb::unload_all();
    CHECK(show(probe_fen(fens[0])) == expected[0]);
    auto stats = eval::tb::generate("KRK");
    REQUIRE(stats);
    CHECK(stats->file.empty());
    eval::tb::set_cache_dir("");
    CHECK(show(probe_fen(fens[1])) == expected[1]);

    eval::tb::set_cache_dir(shared);
    eval::tb::unload_all();
    fs::remove_all(dir, ec);
}

TEST_CASE("tb: threads probing at once agree with one thread", "[tb]") {
    setup();
    Sampler sampler;
    std::vector<std::string> fens;
    for (const char* material : {"KSRK", "KNMK", "KSK"})
        for (int n = 0; n < 300;)
            if (auto f = sampler.fen(material, n & 1, n & 2)) fens.push_back(*f), ++n;
    std::vector<std::string> serial;
    for (auto& f : fens) serial.push_back(show(probe_fen(f)));
    // All start with nothing loaded: they meet in the loading of the same tables.
    eval::tb::unload_all();
    std::vector<std::vector<std::string>> seen(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (size_t i = 0; i < fens.size(); ++i) {
                size_t k = (i + t * fens.size() / 4) % fens.size();
                Position pos;
                StateInfo st;
                pos.set(fens[k], default_variant(), &st);
                auto r = eval::tb::probe(pos);
                seen[t].push_back(std::to_string(k) + " " + show(r));
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t)
        for (auto& s : seen[t]) {
            size_t k = std::stoul(s);
            CHECK(s.substr(s.find(' ') + 1) == serial[k]);
        }
}
