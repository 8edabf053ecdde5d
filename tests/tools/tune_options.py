#!/usr/bin/env python3
"""The tuning build's options reach the search: a fixed-depth search counts other nodes
once a reduction or a margin moves, and the same nodes again once it is set back (the
reduction table is rebuilt both ways). Usage: tune_options.py KHUN"""
import re
import subprocess
import sys


def nodes(khun, settings):
    """The nodes of a depth-9 search from the start after each setting, in turn."""
    p = subprocess.Popen([khun], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    counts = []
    for name, value in settings:
        p.stdin.write("setoption name %s value %d\nucinewgame\nposition startpos\n"
                      "go depth 9\n" % (name, value))
        p.stdin.flush()
        last = None
        for line in p.stdout:
            m = re.search(r" nodes (\d+)", line)
            if m:
                last = int(m.group(1))
            if line.startswith("bestmove"):
                break
        counts.append(last)
    p.stdin.write("quit\n")
    p.stdin.close()
    p.wait(timeout=30)
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
