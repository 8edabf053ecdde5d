#!/usr/bin/env python3
"""Check Khun's scores of pawnless endings against how those games ended.

usage: tools/pawnless_fit.py KHUN DATA [DATA...]

DATA are `khun unpack` outputs of tuner records ("FEN ; result ; score", results and
scores from White's side).
Takes every position without pawns where both sides still have a piece besides the king
(board's honour in Makruk), asks KHUN for its static evaluation (`eval`), and prints per
group (who holds the rueas, material edge on Fairy-Stockfish's piece values) the strong
side's mean result, Khun's mean score, and the multiplier on that score that best fits the
results (least squares through the tuner's sigmoid, K 0.539). A multiplier near 1 means
the scale in eval::scale() agrees with the games; the "left" table checks the fade with
the plies the count leaves. The last table takes the positions where only one side has
bia and the other still has a piece: the side with the bia, when it is more than a ma
ahead with each bia counted as the met it promotes to, by who holds the rueas and how
many bia it has (eval::scale()'s held-back bia).
"""
import collections
import subprocess
import sys

K = 0.539
WEIGHT = {'n': 781, 's': 660, 'm': 420, 'r': 1276, 'a': 2400}


def sigmoid(v):
    return 1 / (1 + 10 ** (-K * v / 400))


def positions(files, withheld=False):
    """Pawnless positions, or (withheld) those where exactly one side has bia."""
    for name in files:
        for line in open(name):
            f = line.split(' ; ')
            if len(f) < 3:
                continue
            fen = f[0].strip()
            fields = fen.split()
            board = fields[0]
            if withheld != (('p' in board) != ('P' in board)):
                continue
            left = 128
            if len(fields) >= 5 and fields[3] not in ('-', '0'):
                try:
                    left = min(int(fields[3]) - int(fields[4]), 128)
                except ValueError:
                    continue
            w = sum(WEIGHT.get(c.lower(), 0) for c in board if c.isupper())
            b = sum(WEIGHT.get(c.lower(), 0) for c in board if c.islower())
            if not w or not b:
                continue
            # A bia is a met to come.
            w += WEIGHT['m'] * board.count('P')
            b += WEIGHT['m'] * board.count('p')
            try:
                result = float(f[1])
            except ValueError:
                continue
            yield fen, result, w, b, left


def evaluations(khun, rows):
    script = ''.join(f'position fen {r[0]}\neval\n' for r in rows) + 'quit\n'
    out = subprocess.run([khun], input=script, capture_output=True, text=True).stdout
    evals = [round(float(l.split()[2]) * 100) for l in out.splitlines()
             if l.startswith('Final evaluation')]
    if len(evals) != len(rows):
        sys.exit(f'{len(rows)} positions but {len(evals)} evaluations')
    return evals


def report(key, v):
    best = min((sum((r - sigmoid(e * m / 50)) ** 2 for r, e in v), m / 50)
               for m in range(0, 151))[1]
    print(f'{key!s:32} n {len(v):7d}  result {sum(r for r, _ in v) / len(v):.3f}'
          f'  score {sum(e for _, e in v) / len(v):6.0f}  best multiplier {best:.2f}')


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = list(positions(sys.argv[2:]))
    evals = evaluations(sys.argv[1], rows)

    groups, by_left = collections.defaultdict(list), collections.defaultdict(list)
    for (fen, result, w, b, left), e in zip(rows, evals):
        board = fen.split()[0]
        rooks_w = board.count('R') + board.count('A')
        rooks_b = board.count('r') + board.count('a')
        if w >= b:
            r, v, ours, theirs = result, e, rooks_w, rooks_b
        else:
            r, v, ours, theirs = 1 - result, -e, rooks_b, rooks_w
        edge = abs(w - b)
        rooks = ('ruea up' if ours > theirs else 'no ruea' if ours == theirs == 0
                 else 'rueas even or down')
        bucket = next(x for x in (0, 400, 825, 1200, 10**6) if edge <= x)
        groups[(rooks, bucket)].append((r, v))
        if edge > 825:
            by_left[left // 20 * 20].append((r, v))

    print('group (rueas, edge up to)')
    for key in sorted(groups):
        if len(groups[key]) >= 300:
            report(key, groups[key])
    print('edge > 825, by plies the count leaves')
    for key in sorted(by_left):
        if len(by_left[key]) >= 300:
            report(key, by_left[key])

    rows = list(positions(sys.argv[2:], withheld=True))
    evals = evaluations(sys.argv[1], rows)
    held = collections.defaultdict(list)
    for (fen, result, w, b, left), e in zip(rows, evals):
        board = fen.split()[0]
        white_has = 'P' in board
        if (w - b if white_has else b - w) <= 825:
            continue
        bia = min(board.count('P' if white_has else 'p'), 3)
        r, v = (result, e) if white_has else (1 - result, -e)
        ours = board.count('R' if white_has else 'r') + board.count('A' if white_has else 'a')
        theirs = board.count('r' if white_has else 'R') + board.count('a' if white_has else 'A')
        held[('ruea up' if ours > theirs else 'rueas even or down', bia)].append((r, v))
    print('only one side has bia, it is more than a ma ahead (rueas, bia, 3 = 3 or more)')
    for key in sorted(held):
        if len(held[key]) >= 300:
            report(key, held[key])


if __name__ == '__main__':
    main()
