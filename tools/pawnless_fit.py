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
MINOR_EDGE = 825  # eval::scale()'s MinorEdge: at most a ma ahead
MIN_GROUP = 300   # smaller groups are not reported


def rueas(board, white):
    """Pieces that move as a ruea (rueas, ai-wok's ai-wok) of one side in a FEN board."""
    return board.count('R' if white else 'r') + board.count('A' if white else 'a')


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
            white_bia, black_bia = 'P' in board, 'p' in board
            if (white_bia == black_bia) if withheld else (white_bia or black_bia):
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


def report(title, groups):
    """Per group of (result, score) pairs: the mean result and score and the multiplier on
    the score that fits the results best."""
    print(title)
    for key in sorted(groups):
        v = groups[key]
        if len(v) < MIN_GROUP:
            continue
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
        white = w >= b
        r, v = (result, e) if white else (1 - result, -e)
        ours, theirs = rueas(board, white), rueas(board, not white)
        edge = abs(w - b)
        rooks = ('ruea up' if ours > theirs else 'no ruea' if ours == theirs == 0
                 else 'rueas even or down')
        bucket = next(x for x in (0, 400, MINOR_EDGE, 1200, 10**6) if edge <= x)
        groups[(rooks, bucket)].append((r, v))
        if edge > MINOR_EDGE:
            by_left[left // 20 * 20].append((r, v))

    report('group (rueas, edge up to)', groups)
    report(f'edge > {MINOR_EDGE}, by plies the count leaves', by_left)

    rows = list(positions(sys.argv[2:], withheld=True))
    evals = evaluations(sys.argv[1], rows)
    held = collections.defaultdict(list)
    for (fen, result, w, b, left), e in zip(rows, evals):
        board = fen.split()[0]
        white = 'P' in board  # the side with the bia
        if (w - b if white else b - w) <= MINOR_EDGE:
            continue
        bia = min(board.count('P' if white else 'p'), 3)
        r, v = (result, e) if white else (1 - result, -e)
        up = rueas(board, white) > rueas(board, not white)
        held[('ruea up' if up else 'rueas even or down', bia)].append((r, v))
    report('only one side has bia, it is more than a ma ahead (rueas, bia, 3 = 3 or more)',
           held)


if __name__ == '__main__':
    main()
