// libFuzzer target: the FEN parser of every game. The first byte picks the game ('A'
// makruk, 'B' cambodian, 'C' makpong, 'D' karouk, 'E' ai-wok, 'F' asean, 'G' sittuyin,
// 'H' makrukhouse, 'I'-'O' makruk with sutras); the rest is the FEN. A FEN the parser takes must
// give a consistent position whose written FEN reads back to the same position, and whose moves can
// be generated, played and taken back.
#include "fuzz_common.h"

#include "khun/rules/movegen.h"
#include "khun/rules/variant.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace khun;
    using namespace khun::protocol;
    fuzz::init();
    if (size == 0) return 0;
    static const std::vector<Variant> games = [] {
        std::vector<Variant> v;
        for (const std::string& n : variant_names()) v.push_back(*find_variant(n));
        for (int s = 1; s < 8; ++s)
            v.push_back(with_sutras(default_variant(), s & 1, s & 2, s & 4));
        return v;
    }();
    const Variant& var = games[uint8_t(data[0] - 'A') % games.size()];
    const std::string fen = fuzz::text(data + 1, size - 1);

    StateInfo si{};
    Position pos;
    if (pos.set(fen, var, &si)) return 0; // refused: nothing else to check
    std::string why;
    if (!pos.is_ok(&why)) fuzz::fail("inconsistent position from '" + fen + "': " + why);

    // What the engine writes, it must read back as the same position.
    const std::string written = pos.fen();
    StateInfo si2{};
    Position again;
    if (auto err = again.set(written, var, &si2))
        fuzz::fail("written FEN '" + written + "' (from '" + fen + "') refused: " + *err);
    if (again.fen() != written || again.key() != pos.key())
        fuzz::fail("FEN '" + written + "' reads back as '" + again.fen() + "'");

    // Every legal move can be made, checked and taken back; the split lists agree.
    const MoveList legal(pos);
    const size_t split =
        pos.in_check() ? MoveList::of<EVASIONS>(pos).size()
                       : MoveList::of<CAPTURES>(pos).size() + MoveList::of<QUIETS>(pos).size();
    if (split != legal.size() || size_t(count_legal(pos)) != legal.size())
        fuzz::fail("move lists disagree in '" + written + "'");
    for (Move m : legal) {
        if (!pos.is_legal(m)) fuzz::fail("generated move not legal in '" + written + "'");
        const bool check = pos.gives_check(m);
        StateInfo st{};
        pos.do_move(m, st);
        if (check != pos.in_check())
            fuzz::fail("gives_check wrong for " + to_uci(m, again) + " in '" + written + "'");
        if (!pos.is_ok(&why))
            fuzz::fail("after " + to_uci(m, again) + " in '" + written + "': " + why);
        (void)pos.outcome();
        pos.undo_move(m);
    }
    if (pos.fen() != written) fuzz::fail("do/undo changed '" + written + "'");
    (void)pos.outcome();
    (void)pos.pretty();
    return 0;
}
