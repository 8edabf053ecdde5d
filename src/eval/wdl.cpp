#include "khun/eval/wdl.h"

#include "khun/eval/evaluate.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>

namespace khun::eval::wdl {

namespace {

// Bia units, indexed by PieceType; see the header.
constexpr int MaterialValue[PIECE_TYPE_NB] = {0, 1, 3, 3, 2, 5, 8, 0};

// a(x) and b(x), x = material / 64, coefficients of x^3, x^2, x, 1, by Model: fitted by
// tools/wdl_fit.py (maximum likelihood over the W/D/L result of each position) to the
// quiet positions without a running count of self-play games (docs/wdl.md has the
// commands and figures; the positions under a count are the check on CountHorizon below).
struct Cubics {
    double a[4], b[4];
};
constexpr Cubics Fits[] = {
    // Classical: 52,150 positions, 400 games of commit ba1e6d1's hand-written evaluation.
    {{-2270.1148, 5557.6001, -4434.3748, 1548.4558}, {83.5390, 169.1201, -238.3285, 230.0198}},
    // Net: 455,410 positions, 3,555 games of nn-5d2b84097041; docs/wdl.md checks it on each
    // net trained further from it.
    {{-89.3675, 729.3600, -1052.0544, 769.5647}, {78.6579, -3.8689, -15.0861, 174.0286}},
    // AseanNet: 453,275 positions, 4,000 asean games of the built-in net nn-27561de1e03b.
    {{-2352.8792, 5577.4313, -4359.6787, 1325.5634}, {187.7862, -23.4037, -213.5699, 260.5909}},
    // MakpongNet: 265,087 positions, 4,000 makpong games of the built-in net nn-28f78125a435.
    {{-1068.8689, 2474.5517, -1881.4941, 531.1507}, {-376.7727, 671.9682, -174.5826, 154.4515}},
    // SittuyinNet: 504,828 positions, 3,084 sittuyin games of its first net nn-f32065a54ce6.
    {{-435.2030, 1887.8597, -2164.8109, 1139.6238}, {218.9042, -128.1496, -89.9062, 184.2999}},
};
static_assert(std::size(Fits) == std::size(Models), "a fit for each model");

// The material range the data covered; the polynomials are not trusted outside it.
constexpr int MaterialMin = 10, MaterialMax = 64;
constexpr double Anchor = 64.0; // the start position's material: x = 1 there

// A win fades toward the draw a running count will end in over the evaluation's horizon.
constexpr int CountHorizon = eval::CountingHorizon;

double poly(const double (&c)[4], double x) { return ((c[0] * x + c[1]) * x + c[2]) * x + c[3]; }

// The chance, under the fitted logistic, that a side scored v wins.
double win_rate(double v, const Params& p) { return 1.0 / (1.0 + std::exp((p.a - v) / p.b)); }

} // namespace

int material(const Position& pos) {
    int m = 0;
    // A piece in hand (the drop games) is material too: sittuyin's setup starts at 64.
    for (PieceType pt = PAWN; pt < KING; ++pt)
        m += MaterialValue[pt] * (pos.count(pt) + pos.in_hand(WHITE, pt) + pos.in_hand(BLACK, pt));
    return m;
}

Params params(int material, Model m) {
    const double x = std::clamp(material, MaterialMin, MaterialMax) / Anchor;
    const Cubics& c = Fits[int(m)];
    // b must stay positive for the model to grow with the score; the fit keeps it far
    // above 1 over the clamped range, this only guards against a bad refit.
    return {poly(c.a, x), std::max(poly(c.b, x), 1.0)};
}

WDL from_score(Value v, int material, int countPliesLeft, Model m) {
    assert(v >= -VALUE_MATE && v <= VALUE_MATE); // a score, not VALUE_NONE or a window edge
    assert(countPliesLeft == NoCount || countPliesLeft >= 0);
    if (v >= VALUE_MATE_IN_MAX_PLY) return {1000, 0, 0};
    if (v <= VALUE_MATED_IN_MAX_PLY) return {0, 0, 1000};

    // Far beyond any score the data holds the logistic is already 0 or 1; the clamp
    // keeps exp() finite.
    const double s = std::clamp(double(v), -4000.0, 4000.0);
    const Params p = params(material, m);
    double w = win_rate(s, p), l = win_rate(-s, p);

    // A count that is running draws the game when it ends: the fewer plies it leaves, the
    // less any advantage short of a found mate is worth.
    if (countPliesLeft != NoCount) {
        const double f = std::clamp(countPliesLeft, 0, CountHorizon) / double(CountHorizon);
        w *= f;
        l *= f;
    }

    // Rounded on their own, so that from_score(-v) is from_score(v) with win and loss
    // swapped; the draw takes what is left.
    int win = int(std::lround(1000.0 * w)), loss = int(std::lround(1000.0 * l));
    if (win + loss > 1000) { // only if a refit ever gave a < 0; cut both alike
        const int cut = (win + loss - 1000 + 1) / 2;
        win -= cut;
        loss -= cut;
    }
    // The three are per mille of one whole: the draw, what is left, must not go negative.
    assert(win >= 0 && loss >= 0 && win + loss <= 1000);
    return {win, 1000 - win - loss, loss};
}

WDL from_position(const Position& pos, Value v, Model m) {
    const int left = pos.count_limit() ? std::max(pos.count_limit() - pos.count_ply(), 0) : NoCount;
    return from_score(v, material(pos), left, m);
}

} // namespace khun::eval::wdl
