#!/usr/bin/env python3
"""tools/sprt.py: its formulas on cases worked by hand and on the LLRs fastchess's SPRT
tests expect of fishtest's method, its figures on tests/data/tools/games-pairs.pgn, and
its errors. Usage: test_sprt.py (ctest runs it; exit status 0 when all pass)."""
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
DATA = os.path.join(HERE, "..", "data", "tools")
sys.path.insert(0, TOOLS)
import referee  # noqa: E402
import sprt  # noqa: E402

PAIR_VALUES = [i / 4 for i in range(5)]


def run(*args):
    p = subprocess.run([sys.executable, os.path.join(TOOLS, "sprt.py"), *args],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


class Formulas(unittest.TestCase):
    def test_exact_llr_of_two_outcomes_is_the_classical_sprt(self):
        # Only LL and WW pairs: the likeliest distribution with mean s is (1 - s, s), so
        # LLR = WW log(s1/s0) + LL log((1-s1)/(1-s0)); s0 = 1/2 (0 Elo), s1 = 3/4
        # (400 log10 3 Elo): 3 log 1.5 + log 0.5.
        s1 = sprt.logistic(400 * math.log10(3))
        self.assertAlmostEqual(s1, 0.75)
        self.assertAlmostEqual(sprt.llr_exact([1, 0, 0, 0, 3], PAIR_VALUES, 0.5, s1),
                               3 * math.log(1.5) + math.log(0.5))

    def test_approximate_llr_by_hand(self):
        # Pairs scoring 0, 1/4, 1/2, 3/4: mean 3/8, variance 7/32 - 9/64 = 5/64;
        # 4 * (1/4) * (3/4 - 5/4) / (2 * 5/64) = -3.2.
        self.assertAlmostEqual(sprt.llr_approx([1, 1, 1, 1, 0], PAIR_VALUES, 0.5, 0.75), -3.2)

    def test_symmetric_results_and_bounds_give_zero(self):
        self.assertAlmostEqual(sprt.llr_exact([5, 3, 9, 3, 5], PAIR_VALUES,
                                              sprt.logistic(-5), sprt.logistic(5)), 0)

    def test_fastchess_reference_values(self):
        # fastchess's SPRT tests ("logistic pentanomial 1, 2", "logistic trinomial 1, 2").
        for penta, bounds, want in (([223, 9863, 21279, 10037, 246], (0.5, 2.5), -3.07),
                                    ([871, 26175, 55983, 26678, 821], (0, 2), -4.98)):
            self.assertAlmostEqual(sprt.sprt(penta, *bounds, 0.05, 0.05)["llr"], want, 2)
        for ldw, bounds, want in (([21184, 40708, 21404], (0.5, 2.5), -1.57),
                                  ([57030, 106593, 57433], (0, 2), -2.59)):
            s0, s1 = (sprt.logistic(e) for e in bounds)
            self.assertAlmostEqual(sprt.llr_exact(ldw, (0, 0.5, 1), s0, s1), want, 2)

    def test_bounds(self):
        t = sprt.sprt([0, 1, 2, 1, 1], 0, 5, 0.05, 0.05)
        self.assertAlmostEqual(t["lower"], math.log(0.05 / 0.95))
        self.assertAlmostEqual(t["upper"], math.log(0.95 / 0.05))

    def test_elo(self):
        # One win, one draw: mean 3/4, Elo 400 log10 3; all wins has none.
        self.assertAlmostEqual(sprt.elo_error([0, 1, 1], (0, 0.5, 1))[0], 400 * math.log10(3))
        self.assertIsNone(sprt.elo_error([0, 0, 2], (0, 0.5, 1)))
        self.assertEqual(referee.elo(2, 1, 1), sprt.elo_error([1, 1, 2], (0, 0.5, 1)))

    def test_normalized_elo(self):
        # Half the pairs score 1/2, half 3/4: mean 5/8, sd 1/8, t = 1; two equal point
        # masses have skewness 0 and excess kurtosis -2, so var_t = 1 (the empty outcomes
        # count 1e-3 each, hence the tolerance).
        nelo, err = sprt.normalized_elo([0, 0, 50, 50, 0])
        coeff = 800 / math.log(10) / math.sqrt(2)
        self.assertAlmostEqual(nelo, coeff, delta=0.5)
        self.assertAlmostEqual(err, coeff * 1.96 / 10, delta=0.5)
        # Even pairs on both sides of 1/2 give 0; no pairs give none.
        self.assertAlmostEqual(sprt.normalized_elo([10, 0, 0, 0, 10])[0], 0)
        self.assertIsNone(sprt.normalized_elo([0, 0, 0, 0, 0]))

    def test_games_for_error(self):
        # sd 1/8 a pair: (1.96 / 8 * 1600 / ln 10 / 10)^2 = 289.8 pairs, so 290 pairs.
        self.assertEqual(sprt.games_for_error([0, 0, 50, 50, 0], 10), 580)
        # Four times the error wanted, a sixteenth of the pairs (rounded up).
        self.assertEqual(sprt.games_for_error([0, 0, 50, 50, 0], 40), 2 * 19)


class Pairs(unittest.TestCase):
    """games-pairs.pgn, from Khun's side: pairs on opening A (W, D), C (L, W), D (D, D),
    B (L, D) and the start with the same book moves (W, W); B once before its pair, two
    games from the start with other book moves, unpaired; one unfinished game and one
    between Base and Other."""

    def figures(self, *args):
        rc, out, err = run(os.path.join(DATA, "games-pairs.pgn"), "--json", *args)
        self.assertEqual((rc, err), (0, ""))
        return json.loads(out)

    def test_counts(self):
        f = self.figures()
        self.assertEqual(f["engine"], "Khun")
        self.assertEqual(f["trinomial"], [2, 7, 4])  # L, D, W
        self.assertEqual(f["pentanomial"], [0, 1, 2, 1, 1])
        self.assertEqual((f["pairs"], f["unpaired"], f["unfinished"], f["without_engine"]),
                         (5, 3, 1, 1))
        self.assertAlmostEqual(f["score"], 7.5 / 13)
        self.assertAlmostEqual(f["pair_score"], 0.6)
        # Paired games: 4 W, 4 D, 2 L, mean 0.6, variance 0.14; pairs' means 1/4, 1/2,
        # 1/2, 3/4, 1: variance 0.065, a game's 0.13.
        self.assertAlmostEqual(f["variance_games"], 0.14)
        self.assertAlmostEqual(f["variance_pairs"], 0.13)

    def test_other_side(self):
        f = self.figures("--engine", "Base")
        self.assertEqual(f["pentanomial"], [1, 1, 2, 1, 0])
        self.assertEqual(f["trinomial"], [4, 7, 3])
        self.assertEqual(f["unpaired"], 4)

    def test_verdicts(self):
        for bounds, verdict in ((("0", "5"), "continue"), (("-100", "0"), "H1 accepted"),
                                (("0", "300"), "H0 accepted")):
            f = self.figures("--sprt", *bounds, "--alpha", "0.25", "--beta", "0.25")
            self.assertEqual(f["sprt"]["verdict"], verdict)

    def test_cutechess_games_in_no_pair(self):
        rc, out, _ = run(os.path.join(DATA, "games-cutechess.pgn"), "--sprt", "0", "5")
        self.assertEqual(rc, 0)
        self.assertIn("Khun 0.1.0 against Fairy-Stockfish 211126: 4 games, 0 pairs\n"
                      "  4 games in no pair", out)
        self.assertIn("SPRT: no pairs to test", out)


class Errors(unittest.TestCase):
    def check(self, rc, out, err, message):
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn(message, err)
        self.assertNotIn("Traceback", err)

    def test_missing_file(self):
        self.check(*run("no-such-file.pgn"), "error: no-such-file.pgn: No such file or directory")

    def test_damaged_file(self):
        with tempfile.NamedTemporaryFile("wb", suffix=".pgn", delete=False) as f:
            f.write(b"\x7fELF\x02\x01\x00\xff\xfe garbage, no tags\n\x00\x01")
        try:
            self.check(*run(f.name), "no PGN games in it")
        finally:
            os.unlink(f.name)

    def test_unknown_engine(self):
        self.check(*run(os.path.join(DATA, "games-pairs.pgn"), "--engine", "Nobody"),
                   "error: no finished game of Nobody")


if __name__ == "__main__":
    unittest.main()
