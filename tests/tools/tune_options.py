#!/usr/bin/env python3
"""The tuning build's options reach the search: a fixed-depth search counts other nodes
once a reduction or a margin moves, and the same nodes again once it is set back (the
reduction table is rebuilt both ways). Usage: tune_options.py KHUN"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from engine_process import EngineProcess  # noqa: E402


def nodes(khun, settings):
    """The nodes of a depth-9 search from the start after each setting, in turn."""
    e = EngineProcess([khun], "khun")
    counts = []
    for name, value in settings:
        e.send("setoption name %s value %d\nucinewgame\nposition startpos\ngo depth 9"
               % (name, value))
        lines = e.until(lambda l: l.startswith("bestmove"), 60)
        counts.append([int(n) for l in lines for n in re.findall(r" nodes (\d+)", l)][-1])
    e.close()
    return counts


def main():
    khun = sys.argv[1]
    defaults = nodes(khun, [("LmrBase", 60)])
    moved = nodes(khun, [("LmrBase", 60), ("LmrBase", 150), ("LmrBase", 60),
                         ("RfpMargin", 40), ("RfpMargin", 90)])
    print("default %s, then %s" % (defaults, moved))
    ok = (moved[0] == defaults[0] and moved[1] != moved[0] and moved[2] == moved[0]
          and moved[3] != moved[0] and moved[4] == moved[0])
    print("tunables reach the search" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
