#!/usr/bin/env python3
"""Time use and depth by stage of the game, per engine, from Cute Chess PGNs.

Cute Chess writes each move's score, depth and time as a comment ({+0.19/17 0.43s}).
This sums them by ranges of move numbers for every engine in the files, to see where
each engine spends its clock and how deep it gets there (docs/log/tuning.md, "Ninth
round"):

    python3 tools/pgnstats.py games.pgn [more.pgn ...] [--bucket 20]

For each engine and range: the moves counted, the median depth, the mean time a move;
then the median of the whole game's thinking time. Moves without a depth and time
comment (book moves, a forfeit) are skipped.

With --leads it also says, per engine, where its score came from (docs/log/tuning.md,
"Sixteenth round"): the games in which it led first (its own score at least +2.00, or a
mate for it, on five of its moves in a row, before the other engine did), those the
other led first, and those neither did, each with the engine's wins, losses and draws. A
score that shrinks as the clock grows is then fewer leads, or leads less often won.
Standard library only.
"""

import argparse
import statistics
import sys
from collections import defaultdict

from cutechess_pgn import TOKEN, games, mate_sign, stats

# A lead: the engine's own score at least LEAD centipawns (or a mate for it) on
# LEAD_MOVES of its moves in a row (docs/log/tuning.md, "Fifteenth round", counted them so).
LEAD = 200
LEAD_MOVES = 5


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--bucket", type=int, default=20, help="moves a range (default 20)")
    ap.add_argument("--leads", action="store_true",
                    help="also each engine's games by who led first, with its results")
    args = ap.parse_args(argv)
    if args.bucket < 1:
        ap.error("--bucket must be at least 1")

    depth = defaultdict(lambda: defaultdict(list))
    time = defaultdict(lambda: defaultdict(list))
    total = defaultdict(list)
    # engine -> "first" / "other" / "neither" -> [wins, losses, draws]
    leads = defaultdict(lambda: {k: [0, 0, 0] for k in ("first", "other", "neither")})
    for path in args.pgn:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            print(f"error: {path}: {e.strerror}", file=sys.stderr)
            return 1
        for tags, body in games(text):
            names = (tags.get("White", "?"), tags.get("Black", "?"))
            thought = defaultdict(float)  # only engines with a counted move in this game
            # The movetext's own numbers say whose move and which (a game from a FEN starts
            # where the FEN does); a comment belongs to the move before it. Other comments
            # (the result's reason) match no statistics.
            number, black, last = 1, False, None
            run = [0, 0]  # each side's moves in a row at LEAD or better
            led = None  # the side (0 White, 1 Black) that led first
            for comment, numbered, _result, move in TOKEN.findall(body):
                if numbered:
                    number, black = int(numbered.rstrip(".")), numbered.endswith("...")
                elif move:
                    last = (number, black)
                    number, black = number + black, not black
                elif last and (st := stats(comment)) and st[2] is not None:
                    move_number, by_black = last
                    last = None
                    engine = names[by_black]
                    cp, d, seconds = st
                    ahead = mate_sign(comment) > 0 if cp is None else cp >= LEAD
                    run[by_black] = run[by_black] + 1 if ahead else 0
                    if led is None and run[by_black] >= LEAD_MOVES:
                        led = int(by_black)
                    bucket = (move_number - 1) // args.bucket
                    depth[engine][bucket].append(d)
                    time[engine][bucket].append(seconds)
                    thought[engine] += seconds
            for engine, seconds in thought.items():
                total[engine].append(seconds)
            result = {"1-0": 0, "0-1": 1, "1/2-1/2": 2}.get(tags.get("Result"))
            if result is not None and names[0] != names[1]:
                for side, engine in enumerate(names):
                    kind = "neither" if led is None else "first" if led == side else "other"
                    # wins, losses, draws from this engine's side
                    leads[engine][kind][2 if result == 2 else int(result != side)] += 1

    for engine in sorted(depth):
        print(engine)
        for b in sorted(depth[engine]):
            lo, hi = b * args.bucket + 1, (b + 1) * args.bucket
            d, t = depth[engine][b], time[engine][b]
            print(f"  moves {lo:3d}-{hi:3d}: {len(d):5d} moves, median depth "
                  f"{statistics.median(d):4.1f}, mean time {statistics.mean(t):.3f} s")
        print(f"  thinking time a game: median {statistics.median(total[engine]):.2f} s "
              f"over {len(total[engine])} games")
        if args.leads:
            for kind, what in (("first", "led first"), ("other", "the other led first"),
                               ("neither", "neither led")):
                w, l, d = leads[engine][kind]
                n = w + l + d
                print(f"  {what}: {n} game{'' if n == 1 else 's'}, +{w} -{l} ={d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
