#!/usr/bin/env python3
"""The net's speed against the hand-written evaluation's in one binary (issue #81: nps with
a net >= 0.8x): each run searches a fixed node count from each of a book's first
positions, once with `Use NNUE` true and once false, alternating, and prints the nodes a
second of each and their ratio; then the median ratio over the runs. Both evaluations see
the same positions in the same binary, so the ratio holds on a shared, noisy machine where
the nodes a second alone do not. Python 3 standard library only."""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from book import Engine  # noqa: E402
from engine_process import EngineError  # noqa: E402
from referee import read_openings  # noqa: E402


def search_all(engine, variant, fens, nodes, use_nnue):
    """Nodes and milliseconds summed over the searches, from each search's last info line."""
    e = Engine(engine, variant)
    try:
        e.send("setoption name Use NNUE value " + use_nnue)
        total_nodes = total_ms = 0
        for fen in fens:
            e.send("ucinewgame")
            e.position(fen)
            last = [l.split() for l in e.search(nodes)
                    if l.startswith("info") and " nodes " in l and " time " in l]
            if not last:
                raise EngineError("no info line with nodes and time for " + fen)
            words = last[-1]
            total_nodes += int(words[words.index("nodes") + 1])
            total_ms += int(words[words.index("time") + 1])
        return total_nodes, total_ms
    finally:
        e.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", required=True, help="the UCI engine's command")
    ap.add_argument("--variant", default="makruk")
    ap.add_argument("--book", required=True, help="FEN/EPD file")
    ap.add_argument("--positions", type=int, default=12, help="the book's first N positions")
    ap.add_argument("--nodes", type=int, default=150000, help="nodes a search")
    ap.add_argument("--runs", type=int, default=3, help="alternating pairs of runs")
    args = ap.parse_args()
    try:
        fens = read_openings(args.book)[:args.positions]
    except (OSError, ValueError) as e:
        sys.exit("nps: error: %s" % e)
    ratios = []
    try:
        for run in range(1, args.runs + 1):
            net = search_all([args.engine], args.variant, fens, args.nodes, "true")
            hce = search_all([args.engine], args.variant, fens, args.nodes, "false")
            nps = [n * 1000 / max(ms, 1) for n, ms in (net, hce)]
            ratios.append(nps[0] / nps[1])
            print("run %d: net %d nodes in %d ms, %.0f nps; hand-written %d nodes in %d ms, "
                  "%.0f nps; ratio %.2f" % (run, net[0], net[1], nps[0], hce[0], hce[1],
                                            nps[1], ratios[-1]), flush=True)
    except EngineError as e:
        sys.exit("nps: error: %s" % e)
    print("%s, %d positions, %d nodes each: median ratio %.2f (%.2f-%.2f) over %d runs" %
          (args.variant, len(fens), args.nodes, statistics.median(ratios), min(ratios),
           max(ratios), len(ratios)))


if __name__ == "__main__":
    main()
