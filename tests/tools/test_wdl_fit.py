#!/usr/bin/env python3
"""tools/wdl_fit.py on games drawn from a known model: the fit finds that model's a and b
again, and `--model` scores the known model within a hair of the fresh fit, which, being
the data's maximum likelihood, may only be the lower.

    test_wdl_fit.py WORKDIR
"""
import math
import os
import random
import re
import subprocess
import sys

TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
sys.path.insert(0, TOOLS)
from wdl_fit import ANCHOR, poly, probs  # noqa: E402

# The model the games are drawn from, a's cubic then b's: any model in the range Khun's
# fits take (these are the values of the makruk net's fit when this test was written).
AS = [-89.3675, 729.3600, -1052.0544, 769.5647]
BS = [78.6579, -3.8689, -15.0861, 174.0286]
MATERIALS = (16, 24, 32, 40, 48, 56, 64)
POSITIONS = 60000


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    data = os.path.join(work, "wdl-synthetic.txt")
    rng = random.Random(7)
    with open(data, "w") as f:
        for _ in range(POSITIONS):
            m = rng.choice(MATERIALS)
            x = m / ANCHOR
            v = rng.randrange(-600, 601)
            w, d, _l = probs(v, poly(AS, x), poly(BS, x))
            r = rng.random()
            result = "1" if r < w else "0.5" if r < w + d else "0"
            # The script reads the material from the board's letters: two kings and m bia.
            board = "k" + "p" * (m // 2) + "/K" + "P" * (m - m // 2)
            f.write("%s w - - 0 1 ; %s ; %d\n" % (board, result, v))

    r = subprocess.run([sys.executable, os.path.join(TOOLS, "wdl_fit.py"), data,
                        "--model"] + [str(c) for c in AS + BS],
                       capture_output=True, text=True, timeout=600)
    failures = []
    given = re.search(r"the given model: -log L [\d.]+ over (\d+) positions \(([\d.]+) a position\)",
                      r.stdout)
    fresh = re.search(r"direct fit: -log L [\d.]+ -> [\d.]+ over \d+ positions \(([\d.]+) a position\)",
                      r.stdout)
    if r.returncode != 0 or not given or not fresh:
        print("wdl_fit.py failed (%d): %s %s" % (r.returncode, r.stdout, r.stderr))
        return 1
    if int(given.group(1)) != POSITIONS:
        failures.append("fitted %s positions of %d" % (given.group(1), POSITIONS))
    g, f = float(given.group(2)), float(fresh.group(1))
    if not f - 1e-5 <= g <= f * 1.003:
        failures.append("the known model scores %.5f a position, the fresh fit %.5f" % (g, f))
    for m, a, b in re.findall(r"m (\d+): a +(-?[\d.]+) b +([\d.]+)", r.stdout):
        x = int(m) / ANCHOR
        ta, tb = poly(AS, x), poly(BS, x)
        if int(m) in MATERIALS and (abs(float(a) - ta) > 30 or abs(math.log(float(b) / tb)) > 0.15):
            failures.append("material %s: a %s b %s, drawn from a %.1f b %.1f" % (m, a, b, ta, tb))
    for fail in failures:
        print("FAIL: " + fail)
    print("known model %.5f a position, fresh fit %.5f; %d failures" % (g, f, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
