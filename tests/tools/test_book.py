#!/usr/bin/env python3
"""tools/book.py with Khun at tiny node counts: every position written is one Khun takes,
its score searched again at the same nodes (a new game, as the book searches) lies in
the band, the count is the one reported, the book is the same with one job and with two,
a line is read back as the FEN it was written from (makruk's and karouk's), and bad
arguments are a one-line error with exit status 2.

    test_book.py KHUN OPENINGS.epd WORKDIR
"""
import os
import re
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)
from book import Engine, epd, white_score  # noqa: E402
from referee import epd_to_fen, read_openings  # noqa: E402

NODES, LO, HI, COUNT = 3000, 30, 300, 6


def run_book(khun, openings, out, jobs, *extra):
    cmd = [sys.executable, os.path.join(TOOLS, "book.py"), "--engine", khun,
           "--openings", openings, "--plies", "2", "--nodes", str(NODES),
           "--band", str(LO), str(HI), "--count", str(COUNT), "--seed", "5",
           "--jobs", str(jobs), "--out", out] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def main():
    khun, openings, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    failures = []
    out2, out1 = os.path.join(work, "book2.epd"), os.path.join(work, "book1.epd")

    r = run_book(khun, openings, out2, 2)
    m = re.search(r"(\d+) positions out of (\d+) candidates", r.stdout)
    if r.returncode != 0 or not m:
        print("book.py failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
        return 1
    lines = [l for l in open(out2, encoding="utf-8").read().splitlines() if l.strip()]
    if int(m.group(1)) != COUNT or len(lines) != COUNT:
        failures.append("reported %s positions, asked %d, wrote %d" % (m.group(1), COUNT, len(lines)))
    fens = read_openings(out2)  # as the referee reads the book
    if len(set(fens)) != len(fens):
        failures.append("repeated positions")

    engine = Engine([khun], "makruk")
    try:
        for fen in fens:
            score = white_score(engine, fen, NODES)  # an `info string error` raises
            if score is None or not LO <= abs(score) <= HI:
                failures.append("%s: score %s outside [%d, %d]" % (fen, score, LO, HI))
    finally:
        engine.close()

    # A book line gives the referee back the FEN it was made from, counters included, in a
    # game whose FEN has a field more (karouk's checks left) as in makruk.
    for variant in ("makruk", "karouk"):
        engine = Engine([khun], variant)
        try:
            engine.position(None, ["e3e4", "g8e7", "b1d2"])
            fen = engine.fen()
        finally:
            engine.close()
        if epd_to_fen(epd(fen)) != fen:
            failures.append("%s: %s is read back from %r as %s" % (variant, fen, epd(fen),
                                                                 epd_to_fen(epd(fen))))

    r = run_book(khun, openings, out1, 1)
    if r.returncode != 0 or open(out1).read() != open(out2).read():
        failures.append("--jobs 1 writes another book than --jobs 2")

    for extra, why in (((("--band", "9", "3")), "bad band"),
                       (("--openings", os.path.join(work, "no-such.epd")), "missing file")):
        r = run_book(khun, openings, os.path.join(work, "x.epd"), 1, *extra)
        if r.returncode != 2 or len(r.stderr.strip().splitlines()) != 1 or "Traceback" in r.stderr:
            failures.append("%s: exit %d, %r" % (why, r.returncode, r.stderr))

    for f in failures:
        print("FAIL: " + f)
    print("%d positions checked, %d failures" % (len(fens), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
