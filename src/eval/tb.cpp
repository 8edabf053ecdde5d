// Probing the bare-king tables, and keeping them: in memory once loaded, on disk in a
// cache directory between runs, regenerated whenever a cache file is missing or damaged.
#include "khun/eval/tb.h"

#include "tb_internal.h"

#include <array>
#include <atomic>
#include <cassert>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace khun::eval::tb {

using namespace detail;

namespace {

constexpr int TableCount = 14;

// Cache file: a 48-byte header, then the table's bytes. Bump Version whenever the layout
// or the generator's meaning changes, so that old files are regenerated.
constexpr char Magic[8] = {'K', 'H', 'U', 'N', 'D', 'T', 'M', '\n'};
constexpr uint32_t Version = 1;
constexpr size_t HeaderSize = 48;

struct Table {
    std::vector<uint8_t> dtm;
};

struct Registry {
    std::array<std::atomic<const uint8_t*>, TableCount> data{};
    std::array<std::mutex, TableCount> building;
    std::mutex owned;                           // guards `tables`
    std::vector<std::unique_ptr<Table>> tables; // every table ever published, until unload
    std::mutex dirMutex;
    std::string dir;
    bool dirSet = false;
};

// Never destroyed: a table loader thread of an engine that is never torn down (a fuzz
// target's, one that exits mid-load) may still use it while static objects are destroyed.
Registry& registry() {
    static Registry& r = *new Registry;
    return r;
}

std::string default_cache_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x == '/')
        return std::string(x) + "/khun";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/khun";
    return "";
}

uint64_t checksum(const uint8_t* p, size_t n) {
    // FNV-1a over 64-bit words, then the tail: cheap next to reading the file.
    uint64_t h = 1469598103934665603ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ULL;
    }
    for (; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

void put_u64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

std::array<uint8_t, HeaderSize> make_header(const Material& m, const std::vector<uint8_t>& dtm) {
    std::array<uint8_t, HeaderSize> h{};
    // The name has 8 bytes of the header: a longer one would be cut, and two tables
    // could share a header.
    assert(m.name.size() <= 8);
    std::memcpy(h.data(), Magic, 8);
    put_u64(h.data() + 8, Version);
    std::memcpy(h.data() + 16, m.name.data(), std::min<size_t>(m.name.size(), 8));
    put_u64(h.data() + 24, dtm.size());
    put_u64(h.data() + 32, checksum(dtm.data(), dtm.size()));
    put_u64(h.data() + 40, 0); // reserved
    return h;
}

std::string file_path(const std::string& dir, const Material& m) {
    return dir + "/" + m.name + ".dtm";
}

// The table from its cache file, or nullopt when the file is missing, short, long, from
// another version or material, or fails its checksum.
std::optional<std::vector<uint8_t>> read_cache(const std::string& dir, const Material& m) {
    if (dir.empty()) return std::nullopt;
    std::ifstream in(file_path(dir, m), std::ios::binary);
    if (!in) return std::nullopt;
    std::array<uint8_t, HeaderSize> h{};
    if (!in.read(reinterpret_cast<char*>(h.data()), HeaderSize)) return std::nullopt;
    std::vector<uint8_t> dtm(m.size);
    if (!in.read(reinterpret_cast<char*>(dtm.data()), std::streamsize(dtm.size())))
        return std::nullopt;
    if (in.peek() != std::char_traits<char>::eof()) return std::nullopt;
    if (make_header(m, dtm) != h) return std::nullopt;
    return dtm;
}

// Writes through a temporary file and a rename, so a reader (another process sharing
// the cache) never sees half a file. Failure only means the table stays uncached, and
// an empty path is returned.
std::string write_cache(const std::string& dir, const Material& m,
                        const std::vector<uint8_t>& dtm) {
    if (dir.empty()) return "";
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    const std::string path = file_path(dir, m);
    const std::string tmp =
        path + ".tmp" +
        std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()) ^
                       uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) return "";
        auto h = make_header(m, dtm);
        out.write(reinterpret_cast<const char*>(h.data()), HeaderSize);
        out.write(reinterpret_cast<const char*>(dtm.data()), std::streamsize(dtm.size()));
        if (!out.flush()) {
            out.close();
            fs::remove(tmp, ec);
            return "";
        }
    }
    fs::rename(tmp, path, ec);
    if (!ec) return path;
    fs::remove(tmp, ec);
    return "";
}

const uint8_t* publish(int id, std::vector<uint8_t> dtm) {
    Registry& r = registry();
    auto t = std::make_unique<Table>();
    t->dtm = std::move(dtm);
    const uint8_t* p = t->dtm.data();
    {
        std::lock_guard<std::mutex> lk(r.owned);
        r.tables.push_back(std::move(t));
    }
    r.data[id].store(p, std::memory_order_release);
    return p;
}

const uint8_t* ensure(int id);

// The tables a capture leads to, loaded first: a table is published only once the ones
// its probes may need are.
std::array<const uint8_t*, 2> dependencies(const Material& m) {
    std::array<const uint8_t*, 2> s{nullptr, nullptr};
    for (int i = 0; i < m.n; ++i)
        if (m.sub[i] >= 0) s[i] = ensure(m.sub[i]);
    return s;
}

const uint8_t* ensure(int id) {
    assert(id >= 0 && id < TableCount && all_materials().size() == size_t(TableCount));
    Registry& r = registry();
    if (const uint8_t* p = r.data[id].load(std::memory_order_acquire)) return p;
    const Material& m = all_materials()[id];
    auto subs = dependencies(m);
    std::lock_guard<std::mutex> lk(r.building[id]);
    if (const uint8_t* p = r.data[id].load(std::memory_order_acquire)) return p;
    const std::string dir = cache_dir();
    if (auto cached = read_cache(dir, m)) return publish(id, std::move(*cached));
    auto dtm = generate_table(m, subs[0], subs[1]);
    write_cache(dir, m, dtm);
    return publish(id, std::move(dtm));
}

const Material* find_material(const std::string& name) {
    // "K" + one or two letters + "K", the letters in any order.
    if (name.size() < 3 || name.size() > 4 || name.front() != 'K' || name.back() != 'K')
        return nullptr;
    PieceType t[2] = {NO_PIECE_TYPE, NO_PIECE_TYPE};
    for (size_t i = 1; i + 1 < name.size(); ++i) {
        switch (name[i]) {
        case 'S': t[i - 1] = KHON; break;
        case 'N': t[i - 1] = KNIGHT; break;
        case 'M': t[i - 1] = MET; break;
        case 'R': t[i - 1] = ROOK; break;
        default: return nullptr;
        }
    }
    int id = material_id(t[0], t[1]);
    return id < 0 ? nullptr : &all_materials()[id];
}

// A covered position seen with the strong side as White: squares flipped top to bottom
// when Black is strong, pieces in naming order.
struct View {
    const Material* m = nullptr;
    Square wk, bk, p[2] = {SQ_NONE, SQ_NONE};
    bool strongToMove;
    Color strong;
};

std::optional<View> view_of(const Position& pos) {
    if (pos.pieces(PAWN) || pos.pieces(AIWOK)) return std::nullopt;
    const int cw = pos.count(WHITE), cb = pos.count(BLACK);
    Color strong;
    if (cb == 1 && cw >= 2 && cw <= 3)
        strong = WHITE;
    else if (cw == 1 && cb >= 2 && cb <= 3)
        strong = BLACK;
    else
        return std::nullopt;
    const int flip = strong == WHITE ? 0 : 56;
    View v;
    v.strong = strong;
    v.strongToMove = pos.side_to_move() == strong;
    v.wk = Square(pos.king_square(strong) ^ flip);
    v.bk = Square(pos.king_square(~strong) ^ flip);
    Bitboard b = pos.pieces(strong) & ~pos.pieces(KING);
    PieceType t[2] = {NO_PIECE_TYPE, NO_PIECE_TYPE};
    for (int i = 0; b; ++i) {
        assert(i < 2); // three men at most on the strong side, its king among them
        Square s = pop_lsb(b);
        t[i] = type_of(pos.piece_on(s));
        v.p[i] = Square(s ^ flip);
    }
    int id = material_id(t[0], t[1]);
    if (id < 0) return std::nullopt;
    v.m = &all_materials()[id];
    if (v.m->n == 2 && kind_rank(t[0]) > kind_rank(t[1])) std::swap(v.p[0], v.p[1]);
    return v;
}

} // namespace

bool covers(const Position& pos) { return view_of(pos).has_value(); }

std::string material_of(const Position& pos) {
    auto v = view_of(pos);
    return v ? v->m->name : std::string();
}

std::optional<Probe> probe(const Position& pos, bool build, TableSet allowed) {
    auto v = view_of(pos);
    if (!v) return std::nullopt;
    const Material& m = *v->m;
    if (!(allowed >> m.id & 1)) return std::nullopt;
    const uint8_t* t = build ? ensure(m.id) : registry().data[m.id].load(std::memory_order_acquire);
    if (!t) return std::nullopt;
    if (v->strongToMove) {
        if (bare_king_attacked(m, v->wk, v->bk, v->p)) return std::nullopt;
        int d = t[index(m, v->wk, v->bk, v->p[0], v->p[1])];
        return d ? Probe{Probe::Win, d} : Probe{Probe::Draw, 0};
    }
    if (attacks::king(v->wk) & square_bb(v->bk)) return std::nullopt;
    // The bare side: its longest road to mate, or a draw if any move escapes.
    BareMoves bm = bare_moves(m, v->wk, v->bk, v->p);
    int worst = 0;
    bool any = bm.quiet != 0;
    for (Bitboard b = bm.quiet; b;) {
        int d = t[index(m, v->wk, pop_lsb(b), v->p[0], v->p[1])];
        if (!d) return Probe{Probe::Draw, 0};
        worst = std::max(worst, d);
    }
    for (int i = 0; i < m.n; ++i) {
        if (!bm.capture[i]) continue;
        any = true;
        if (m.sub[i] < 0) return Probe{Probe::Draw, 0};
        // Published only after its dependencies, so this is loaded (but for unload_all).
        const uint8_t* s = registry().data[m.sub[i]].load(std::memory_order_acquire);
        if (!s) return std::nullopt;
        int d = s[index(all_materials()[m.sub[i]], v->wk, v->p[i], v->p[1 - i], SQ_NONE)];
        if (!d) return Probe{Probe::Draw, 0};
        worst = std::max(worst, d);
    }
    if (!any) return bm.inCheck ? Probe{Probe::Loss, 0} : Probe{Probe::Draw, 0};
    return Probe{Probe::Loss, worst};
}

bool mate_fits(int moves, int countPly, int countLimit) {
    assert(moves >= 0 && countPly >= 0 && countLimit >= 0);
    return countLimit == 0 || countPly + 2 * moves - 2 <= countLimit;
}

namespace {

// The count the bare side gets against m (pieces' honour, docs/rules.md#counting), in moves.
int honour_limit(const Material& m) {
    int rooks = 0, khons = 0, knights = 0;
    for (int i = 0; i < m.n; ++i)
        rooks += m.type[i] == ROOK, khons += m.type[i] == KHON, knights += m.type[i] == KNIGHT;
    return rooks > 1 ? 8 : rooks ? 16 : khons > 1 ? 22 : knights > 1 ? 32 : khons ? 44 : 64;
}

// Whether the strong side, to move with no count running, mates in `moves` within the
// count that its first move starts: the bare side then counts from twice the pieces on
// the board, and the strong side's next turn is one ply later.
bool fits_before_count(int moves, const Material& m) {
    return moves == 1 ||
           (moves > 1 && mate_fits(moves - 1, 2 * (m.n + 2) + 1, 2 * honour_limit(m)));
}

} // namespace

Probe::Result counted(const Probe& p, const Position& pos) {
    if (p.result == Probe::Draw) return Probe::Draw;
    const int ply = pos.count_ply(), limit = pos.count_limit();
    if (limit) {
        if (p.result == Probe::Win)
            return mate_fits(p.moves, ply, limit) ? Probe::Win : Probe::Draw;
        return p.moves == 0 || mate_fits(p.moves, ply + 1, limit) ? Probe::Loss : Probe::Draw;
    }
    auto v = view_of(pos);
    if (!v) return p.result;
    const Material& m = *v->m;
    if (p.result == Probe::Win) return fits_before_count(p.moves, m) ? Probe::Win : Probe::Draw;
    if (p.moves == 0) return Probe::Loss;
    // The bare side moves first and no count starts until it is to move again; a
    // capture changes the count it will get, so each of its moves is looked at.
    const uint8_t* t = registry().data[m.id].load(std::memory_order_acquire);
    if (!t) return p.result;
    BareMoves bm = bare_moves(m, v->wk, v->bk, v->p);
    for (Bitboard b = bm.quiet; b;)
        if (!fits_before_count(t[index(m, v->wk, pop_lsb(b), v->p[0], v->p[1])], m))
            return Probe::Draw;
    for (int i = 0; i < m.n; ++i) {
        if (!bm.capture[i]) continue;
        if (m.sub[i] < 0) return Probe::Draw; // not a loss after all: `p` is not pos's
        const Material& sm = all_materials()[m.sub[i]];
        const uint8_t* s = registry().data[sm.id].load(std::memory_order_acquire);
        if (!s) return p.result;
        if (!fits_before_count(s[index(sm, v->wk, v->p[i], v->p[1 - i], SQ_NONE)], sm))
            return Probe::Draw;
    }
    return Probe::Loss;
}

void set_cache_dir(const std::string& dir) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lk(r.dirMutex);
    r.dir = dir;
    r.dirSet = true;
}

std::string cache_dir() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lk(r.dirMutex);
    if (!r.dirSet) r.dir = default_cache_dir(), r.dirSet = true;
    return r.dir;
}

const std::vector<std::string>& materials() {
    // Never destroyed, as the registry (a loader thread may outlive static destruction).
    static const std::vector<std::string>& names = *new std::vector<std::string>([] {
        std::vector<std::string> v;
        for (auto& m : all_materials()) v.push_back(m.name);
        return v;
    }());
    return names;
}

namespace {

TableSet with_dependencies(const Material& m) {
    TableSet s = TableSet(1) << m.id;
    for (int i = 0; i < m.n; ++i)
        if (m.sub[i] >= 0) s |= with_dependencies(all_materials()[m.sub[i]]);
    return s;
}

} // namespace

TableSet tables_of(const std::string& material) {
    static_assert(TableCount <= 32, "a TableSet holds a bit per table");
    const Material* m = find_material(material);
    return m ? with_dependencies(*m) : 0;
}

bool load(const std::string& material) {
    const Material* m = find_material(material);
    if (!m) return false;
    Position::init();
    ensure(m->id);
    return true;
}

std::optional<GenStats> generate(const std::string& material) {
    const Material* m = find_material(material);
    if (!m) return std::nullopt;
    Position::init();
    Registry& r = registry();
    auto subs = dependencies(*m);
    std::lock_guard<std::mutex> lk(r.building[m->id]);
    auto t0 = std::chrono::steady_clock::now();
    auto dtm = generate_table(*m, subs[0], subs[1]);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    GenStats s = table_stats(*m, dtm);
    s.seconds = secs;
    s.file = write_cache(cache_dir(), *m, dtm);
    publish(m->id, std::move(dtm));
    return s;
}

void unload_all() {
    Registry& r = registry();
    for (auto& d : r.data) d.store(nullptr, std::memory_order_release);
    std::lock_guard<std::mutex> lk(r.owned);
    r.tables.clear();
}

} // namespace khun::eval::tb
