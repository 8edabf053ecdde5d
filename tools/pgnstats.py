#!/usr/bin/env python3
"""Time use and depth by stage of the game, per engine, from Cute Chess PGNs.

Cute Chess writes each move's score, depth and time as a comment ({+0.19/17 0.43s}).
This sums them by ranges of move numbers for every engine in the files, to see where
each engine spends its clock and how deep it gets there (TUNING.md, "Ninth round"):

    python3 tools/pgnstats.py games.pgn [more.pgn ...] [--bucket 20]

For each engine and range: the moves counted, the median depth, the mean time a move;
then the median of the whole game's thinking time. Moves without a depth and time
comment (book moves, a forfeit) are skipped. Standard library only.
"""

import argparse
import re
import statistics
import sys
from collections import defaultdict

from cutechess_pgn import games, stats

# A movetext token: a comment, a move number ("12." or "12..."), a result, or a move.
TOKEN = re.compile(r"\{([^}]*)\}|(\d+\.+)|(1-0|0-1|1/2-1/2|\*)|(\S+)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--bucket", type=int, default=20, help="moves a range (default 20)")
    args = ap.parse_args(argv)
    if args.bucket < 1:
        ap.error("--bucket must be at least 1")

    depth = defaultdict(lambda: defaultdict(list))
    time = defaultdict(lambda: defaultdict(list))
    total = defaultdict(list)
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
                    _cp, d, seconds = st
                    bucket = (move_number - 1) // args.bucket
                    depth[engine][bucket].append(d)
                    time[engine][bucket].append(seconds)
                    thought[engine] += seconds
            for engine, seconds in thought.items():
                total[engine].append(seconds)

    for engine in sorted(depth):
        print(engine)
        for b in sorted(depth[engine]):
            lo, hi = b * args.bucket + 1, (b + 1) * args.bucket
            d, t = depth[engine][b], time[engine][b]
            print(f"  moves {lo:3d}-{hi:3d}: {len(d):5d} moves, median depth "
                  f"{statistics.median(d):4.1f}, mean time {statistics.mean(t):.3f} s")
        print(f"  thinking time a game: median {statistics.median(total[engine]):.2f} s "
              f"over {len(total[engine])} games")
    return 0


if __name__ == "__main__":
    sys.exit(main())
