#!/usr/bin/env python3
"""Fit Khun's win/draw/loss model (src/eval/wdl.cpp) to its own games.

Reads `khun datagen` records as text (`khun unpack data.bin > data.txt`): lines
`FEN ; result ; score` (result 1 / 0.5 / 0 and the search
score, both from White's side, the score in Khun's internal units, which are also what
it prints as `cp`), and fits

    win(v, m)  = 1 / (1 + exp((a(m) - v) / b(m)))
    loss(v, m) = 1 / (1 + exp((a(m) + v) / b(m)))
    draw       = 1 - win - loss

with a and b cubic polynomials in x = clamp(m, MLO, MHI) / 64, m the material count of
src/eval/wdl.cpp (bia 1, met 2, khon 3, ma 3, ruea 5, ai-wok 8, both sides; 64 at the start),
by maximum likelihood over the W/D/L outcome of every position, as Stockfish's WDL_model
does: first a and b alone for each material count, then a cubic through them (weighted
by positions) as the start of a direct fit of the eight coefficients.

Positions with a count running (FEN field 4 is not `-`) are left out of the fit: the
model scales their win and loss by the plies left (see src/eval/wdl.cpp); the script reports
how that does on them.

Only the standard library: the data is binned by (material, score) and the fits use
Nelder-Mead, which is fast enough for a few hundred thousand positions.

usage: tools/wdl_fit.py DATA.txt [DATA2.txt ...] [--mlo 10] [--mhi 64] [--horizon 40]
                        [--model A3 A2 A1 A0 B3 B2 B1 B0]
"""

import argparse
import math
import sys
from collections import defaultdict

# Makruk's letters, asean's chess letters for the same pieces (b the khon, q the met) and
# sittuyin's general (f, the met). A drop game's hands ("[...]") count: they are material.
VALUES = {'p': 1, 'm': 2, 's': 3, 'n': 3, 'r': 5, 'a': 8, 'b': 3, 'q': 2, 'f': 2}
ANCHOR = 64.0
VCLAMP = 4000


def material(board):
    return sum(VALUES.get(c.lower(), 0) for c in board if c.isalpha())


def read(paths, vbin):
    """Binned counts {(m, v): [W, D, L]} for the fit, and the counted positions."""
    bins = defaultdict(lambda: [0, 0, 0])
    counted = []
    total = 0
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split(';')
                if len(parts) != 3:
                    continue
                fen = parts[0].split()
                res = float(parts[1])
                v = max(-VCLAMP, min(VCLAMP, int(parts[2])))
                m = material(fen[0])
                k = 0 if res == 1 else 1 if res == 0.5 else 2
                total += 1
                if len(fen) > 4 and fen[3] != '-':
                    left = int(fen[3]) - int(fen[4])
                    counted.append((m, v, k, left))
                    continue
                bins[(m, vbin * round(v / vbin))][k] += 1
    return bins, counted, total


def sigmoid(t):
    if t >= 0:
        return 1.0 / (1.0 + math.exp(-t))
    e = math.exp(t)
    return e / (1.0 + e)


def probs(v, a, b):
    w = sigmoid((v - a) / b)
    l = sigmoid((-v - a) / b)
    return w, max(1e-12, 1.0 - w - l), l


def nll(items, a, b):
    """Negative log-likelihood of [(v, W, D, L)] under one (a, b)."""
    if b <= 1e-6:
        return 1e300
    s = 0.0
    for v, cw, cd, cl in items:
        w, d, l = probs(v, a, b)
        s -= cw * math.log(max(w, 1e-12)) + cd * math.log(d) + cl * math.log(max(l, 1e-12))
    return s


def nelder_mead(f, x0, step, iters=4000, tol=1e-9):
    n = len(x0)
    pts = [list(x0)]
    for i in range(n):
        p = list(x0)
        p[i] += step[i]
        pts.append(p)
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts = [pts[i] for i in order]
        vals = [vals[i] for i in order]
        if abs(vals[-1] - vals[0]) <= tol * (abs(vals[0]) + 1e-12):
            break
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [c[j] + (c[j] - pts[-1][j]) for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [c[j] + 2 * (c[j] - pts[-1][j]) for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [c[j] + 0.5 * (pts[-1][j] - c[j]) for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    vals[i] = f(pts[i])
    i = min(range(n + 1), key=lambda i: vals[i])
    return pts[i], vals[i]


def polyfit3(xs, ys, ws):
    """Weighted least-squares cubic: coefficients of x^3, x^2, x, 1."""
    A = [[0.0] * 4 for _ in range(4)]
    r = [0.0] * 4
    for x, y, w in zip(xs, ys, ws):
        phi = [x ** 3, x ** 2, x, 1.0]
        for i in range(4):
            r[i] += w * phi[i] * y
            for j in range(4):
                A[i][j] += w * phi[i] * phi[j]
    for i in range(4):  # Gaussian elimination with partial pivoting
        p = max(range(i, 4), key=lambda k: abs(A[k][i]))
        A[i], A[p], r[i], r[p] = A[p], A[i], r[p], r[i]
        for k in range(i + 1, 4):
            f = A[k][i] / A[i][i]
            for j in range(i, 4):
                A[k][j] -= f * A[i][j]
            r[k] -= f * r[i]
    c = [0.0] * 4
    for i in range(3, -1, -1):
        c[i] = (r[i] - sum(A[i][j] * c[j] for j in range(i + 1, 4))) / A[i][i]
    return c


def poly(c, x):
    return ((c[0] * x + c[1]) * x + c[2]) * x + c[3]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('data', nargs='+')
    ap.add_argument('--mlo', type=int, default=10, help='lowest material the model is fitted for')
    ap.add_argument('--mhi', type=int, default=64, help='highest material')
    ap.add_argument('--horizon', type=int, default=40, help="count horizon in plies (src/eval/wdl.cpp)")
    ap.add_argument('--min-decisive', type=int, default=300,
                    help='decisive games a material range needs for its own (a, b) fit')
    ap.add_argument('--vbin', type=int, default=4, help='scores are binned to this width')
    ap.add_argument('--model', type=float, nargs=8, metavar='C',
                    help="also score a fitted model on the data: a's four coefficients, then "
                    "b's, as src/eval/wdl.cpp lists them (the check that a new net's games "
                    "still fit the model: its -log L against the fresh fit's)")
    args = ap.parse_args()

    bins, counted, total = read(args.data, args.vbin)
    fitted = sum(sum(c) for c in bins.values())
    outcomes = [0, 0, 0]
    for c in bins.values():
        for k in range(3):
            outcomes[k] += c[k]
    print(f'positions: {total} read, {fitted} fitted (no count running), {len(counted)} under a count')
    print(f'outcomes (White): W {outcomes[0]}  D {outcomes[1]}  L {outcomes[2]}')

    clampm = lambda m: min(max(m, args.mlo), args.mhi)
    by_m = defaultdict(list)
    for (m, v), c in bins.items():
        by_m[clampm(m)].append((v, c[0], c[1], c[2]))

    # 1. a and b for each material range alone: neighbouring counts are merged until the
    # range holds enough decisive games to say where the win rate rises (a range of
    # draws alone would send b to infinity).
    print('\nper material range (clamped to [%d, %d]):' % (args.mlo, args.mhi))
    print('  range positions  decisive        a        b')
    xs, as_, bs, ws = [], [], [], []
    group, lo = [], None
    ms = sorted(by_m)
    for i, m in enumerate(ms):
        lo = m if lo is None else lo
        group += by_m[m]
        decisive = sum(i[1] + i[3] for i in group)
        if decisive < args.min_decisive and i + 1 < len(ms):
            continue
        items, group = group, []
        n = sum(i[1] + i[2] + i[3] for i in items)
        mean_m = (lo + m) / 2

        def f(p):
            a, b = p[0], math.exp(p[1])
            if not (-500 < a < 4000 and 10 < b < 2000):
                return 1e300
            return nll(items, a, b)

        (a, lb), _ = nelder_mead(f, [400.0, math.log(150.0)], [100.0, 0.3])
        b = math.exp(lb)
        edge = not (-490 < a < 3990 and 11 < b < 1990)
        print(f'{lo:3d}-{m:<3d} {n:9d} {decisive:9d} {a:8.1f} {b:8.1f}' +
              ('  (at a bound: the score says little here; left out of the cubic)' if edge else ''))
        lo = None
        if edge:
            continue
        xs.append(mean_m / ANCHOR)
        as_.append(a)
        bs.append(b)
        ws.append(n)

    pa = polyfit3(xs, as_, ws)
    pb = polyfit3(xs, bs, ws)
    print('\ncubic through them: as =', ['%.3f' % c for c in pa], ' bs =', ['%.3f' % c for c in pb])

    # 2. The eight coefficients directly, from that start.
    items = [(clampm(m) / ANCHOR, v, c[0], c[1], c[2]) for (m, v), c in bins.items()]

    def total_nll(p):
        s = 0.0
        for x, v, cw, cd, cl in items:
            a = poly(p[0:4], x)
            b = poly(p[4:8], x)
            if b <= 1.0:
                return 1e300
            w, d, l = probs(v, a, b)
            s -= cw * math.log(max(w, 1e-12)) + cd * math.log(d) + cl * math.log(max(l, 1e-12))
        return s

    if args.model:
        given = total_nll(args.model)
        print(f'\nthe given model: -log L {given:.1f} over {fitted} positions '
              f'({given / fitted:.5f} a position)')

    start = pa + pb
    nll0 = total_nll(start)
    if nll0 >= 1e299:  # the cubic leaves the valid range somewhere: start flat instead
        start = [0, 0, 0, sum(a * w for a, w in zip(as_, ws)) / sum(ws),
                 0, 0, 0, sum(b * w for b, w in zip(bs, ws)) / sum(ws)]
        nll0 = total_nll(start)
    best, val = start, nll0
    for _ in range(4):  # restarts: Nelder-Mead stalls in eight dimensions
        best, val = nelder_mead(total_nll, best, [max(1.0, abs(c) * 0.1) for c in best], iters=3000)
    pa, pb = best[0:4], best[4:8]
    print(f'\ndirect fit: -log L {nll0:.1f} -> {val:.1f} over {fitted} positions '
          f'({val / fitted:.5f} a position)')

    # The null model: the outcome frequencies alone.
    f = [o / fitted for o in outcomes]
    null = -sum(o * math.log(p) for o, p in zip(outcomes, f) if o)
    print(f'outcome frequencies alone: -log L {null:.1f} ({null / fitted:.5f} a position)')

    print('\nconstexpr double As[] = {%s};' % ', '.join('%.4f' % c for c in pa))
    print('constexpr double Bs[] = {%s};' % ', '.join('%.4f' % c for c in pb))
    print(f'material clamped to [{args.mlo}, {args.mhi}], x = m / {ANCHOR:g}')

    print('\nmodel at a few materials: a, b, W/D/L per mille at v = 0, 50, 100, 200, 400')
    for m in (64, 48, 32, 20, 10):
        x = clampm(m) / ANCHOR
        a, b = poly(pa, x), poly(pb, x)
        row = []
        for v in (0, 50, 100, 200, 400):
            w, d, l = probs(v, a, b)
            row.append('%d/%d/%d' % (round(1000 * w), 1000 - round(1000 * w) - round(1000 * l),
                                     round(1000 * l)))
        print(f'  m {m:2d}: a {a:7.1f} b {b:6.1f}  ' + '  '.join(row))

    # Calibration: predicted against observed, by score band, over the fitted positions.
    print('\ncalibration (fitted positions, White side): score band, n, observed W/D/L %, model W/D/L %')
    bands = [(-4000, -400), (-400, -200), (-200, -100), (-100, -40), (-40, 40), (40, 100), (100, 200),
             (200, 400), (400, 4001)]
    for lo, hi in bands:
        obs = [0, 0, 0]
        pred = [0.0, 0.0, 0.0]
        for x, v, cw, cd, cl in items:
            if lo <= v < hi:
                n = cw + cd + cl
                obs[0] += cw
                obs[1] += cd
                obs[2] += cl
                p = probs(v, poly(pa, x), poly(pb, x))
                for k in range(3):
                    pred[k] += n * p[k]
        n = sum(obs)
        if n:
            print(f'  [{lo:5d}, {hi:5d}) {n:7d}  ' + '/'.join('%.1f' % (100 * o / n) for o in obs) +
                  '   ' + '/'.join('%.1f' % (100 * p / n) for p in pred))

    if counted:
        print(f'\nunder a count ({len(counted)} positions): observed W/D/L % against the model '
              f'without and with the count factor (left / {args.horizon})')
        for lo, hi in ((0, 10), (10, 20), (20, 40), (40, 80), (80, 129)):
            sel = [c for c in counted if lo <= c[3] < hi]
            if not sel:
                continue
            obs = [0, 0, 0]
            p0 = [0.0] * 3
            p1 = [0.0] * 3
            for m, v, k, left in sel:
                obs[k] += 1
                x = clampm(m) / ANCHOR
                w, d, l = probs(v, poly(pa, x), poly(pb, x))
                fct = min(1.0, max(0, left) / args.horizon)
                for i, p in enumerate((w, d, l)):
                    p0[i] += p
                p1[0] += w * fct
                p1[2] += l * fct
                p1[1] += 1 - (w + l) * fct
            n = len(sel)
            fmt = lambda a: '/'.join('%.1f' % (100 * t / n) for t in a)
            print(f'  left [{lo:3d}, {hi:3d}) {n:6d}  observed {fmt(obs)}  model {fmt(p0)}  with count {fmt(p1)}')


if __name__ == '__main__':
    sys.exit(main())
