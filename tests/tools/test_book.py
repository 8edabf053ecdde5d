#!/usr/bin/env python3
"""tools/book.py with Khun at tiny node counts: every position written is one Khun takes,
its score searched again at the same nodes (a new game, as the book searches) lies in
the band, the count is the one reported, the book is the same with one job and with two,
a line is read back as the FEN it was written from (makruk's and karouk's), --playout
keeps exactly the band's positions that the side ahead wins when they are played out
again, and bad arguments are a one-line error with exit status 2.

    test_book.py KHUN OPENINGS.epd WORKDIR
"""
import os
import re
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)
from book import Engine, epd, playout, white_score  # noqa: E402
from referee import epd_to_fen, read_openings  # noqa: E402

NODES, LO, HI, COUNT = 3000, 30, 300, 6
PLAYOUT, PLAYOUT_PLIES = 400, 300  # nodes a move and the plies that make a draw


def run_book(khun, openings, out, jobs, *extra, timeout=60):
    cmd = [sys.executable, os.path.join(TOOLS, "book.py"), "--engine", khun,
           "--openings", openings, "--plies", "2", "--nodes", str(NODES),
           "--band", str(LO), str(HI), "--count", str(COUNT), "--seed", "5",
           "--jobs", str(jobs), "--out", out] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


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

    # --playout: the book is the plain book's candidates (the same seed) less those the
    # side ahead does not win when Khun plays them out again (fixed nodes from a new game
    # replay the same way), so its first positions are the plain book's winners in order.
    outp = os.path.join(work, "book-playout.epd")
    r = run_book(khun, openings, outp, 2, "--playout", str(PLAYOUT),
                 "--playout-plies", str(PLAYOUT_PLIES), timeout=240)
    m = re.search(r"(\d+) positions out of \d+ candidates, (\d+) in the band", r.stdout)
    if r.returncode != 0 or not m:
        failures.append("--playout failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
    else:
        played = read_openings(outp)
        engine = Engine([khun], "makruk")
        try:
            def won(fen):
                score = white_score(engine, fen, NODES)
                return playout(engine, fen, PLAYOUT, PLAYOUT_PLIES) == (1 if score > 0 else -1)
            expected = [fen for fen in fens if won(fen)]
            lost = [fen for fen in played if not won(fen)]
        finally:
            engine.close()
        if len(played) != COUNT or int(m.group(2)) < COUNT:
            failures.append("--playout wrote %d positions, %s in the band" % (len(played), m.group(2)))
        if played[:len(expected)] != expected:
            failures.append("--playout kept %s, the plain book's winners are %s" % (played, expected))
        if lost:
            failures.append("--playout kept positions the side ahead does not win: %s" % lost)

    for extra, why in (((("--band", "9", "3")), "bad band"), (("--playout", "0"), "bad playout"),
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
