#!/usr/bin/env python3
"""Match statistics from game pairs, and an SPRT, as Stockfish's fishtest computes them.

A match played with each opening twice, the colours swapped (cutechess-cli ... -openings
file=book.epd -games 2 -repeat, or tools/referee.py --openings), is a series of game
pairs. Much of a game's luck is its opening's, and that cancels within the pair, so the
pairs' scores can vary less than the games' do: the Elo error is then smaller for the
same games, and a test stops sooner.

    python3 tools/sprt.py games.pgn [more.pgn ...] [--engine NAME]
                          [--sprt ELO0 ELO1 [--alpha 0.05] [--beta 0.05]] [--json]

The engine whose results count is --engine, by default the first game's White player;
its games against any opponent count, from its side. Two games in a row of a file are a
pair when both are finished, the same two engines play them with the colours swapped,
and they start from the same opening: the same Variant and FEN tags, and the same
opening moves before the engines' own where the moves carry Cute Chess's statistics
comments (cutechess_pgn.opening_moves). A finished game in no pair counts in the games'
figures (trinomial) but not in the pairs' (pentanomial); the output says how many.

It prints the games' wins, losses and draws, the score, the Elo with its 95% error from
the games' variance and the draw rate; the pairs by their points from the engine's side,
[LL, LD, DD+WL, WD, WW] = 0, 0.5, 1, 1.5, 2, with the Elo and its 95% error from the
pairs' variance; and the two variances a game over the paired games (a pair's variance
is the variance of its mean score times two), whose ratio says how many times fewer
games the pairs need for the same error; fishtest's normalized Elo of the pairs (the
mean's distance from 1/2 in the pairs' standard deviations: for the same two engines, the
games a test needs go as 1/nElo^2, so it compares opening books); and the games whose
pairs would give a 95% error of +/- 10 Elo at the pairs' variance.

Formulas (fishtest, server/fishtest/stats/stat_util.py and LLRcalc.py):
  Elo: a sample is a game (score 0, 1/2, 1) or a pair (its points / 2: 0, 1/4, ..., 1);
  over n samples with mean m and variance v (divided by n), the error of m is
  se = sqrt(v / n), Elo = E(m) with E(s) = -400 log10(1/s - 1), and the 95% error is
  (E(m + 1.96 se) - E(m - 1.96 se)) / 2 (stat_util.get_elo, less its regularization:
  no Elo when every sample scores 0, or every one 1).
  SPRT (--sprt, bounds in logistic Elo, fishtest's "logistic" model; its default today is
  normalized Elo, which this does not offer): s0 = 1/(1 + 10^(-ELO0/400)), s1 likewise;
  the pentanomial counts, each 0 replaced by 1e-3 as fishtest's regularize() does, give
  N (their sum) and the pairs' distribution p_i over a_i = i/4. LLR is fishtest's
  LLR_logistic, the generalized log-likelihood ratio N * sum_i p_i log(q1_i / q0_i), where
  q_s is the distribution nearest p (maximum likelihood) whose mean is s:
  q_i = p_i / (1 + x (a_i - s)), x the root of sum_i p_i (a_i - s) / (1 + x (a_i - s)) = 0
  (LLRcalc.MLE_expected, solved here by bisection). The approximation
  LLR ~ N (s1 - s0) (2 m - s0 - s1) / (2 v), m and v the mean and variance of a pair's
  points / 2 (LLRcalc.LLR_alt2), is printed beside it. H1 is accepted when
  LLR >= log((1 - beta) / alpha), H0 when LLR <= log(beta / (1 - alpha)); otherwise the
  test goes on. (fishtest also corrects the bounds for the overshoot of the updates it
  has seen; a file read at once has none to correct.)

--json prints the figures as one JSON object instead (counts in fishtest's order:
trinomial [L, D, W], pentanomial [LL, LD, DD+WL, WD, WW]). Exit status 0; 2 for an
unreadable file, a file without games, no finished game of the engine, or bad
arguments. Python 3 standard library only.
"""

import argparse
import json
import math
import sys

from cutechess_pgn import games, opening_moves

RESULTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}
PENTANOMIAL = ("LL", "LD", "DD+WL", "WD", "WW")
PAIR_VALUES = tuple(i / 4 for i in range(5))  # a pair's points / 2, by pentanomial index
GAME_VALUES = (0, 0.5, 1)


def mean_variance(counts, values):
    """The number of samples, their mean and variance (divided by n) from counts[i]
    samples of values[i]."""
    n = sum(counts)
    m = sum(c * a for c, a in zip(counts, values)) / n
    return n, m, sum(c * (a - m) ** 2 for c, a in zip(counts, values)) / n


def to_elo(s):
    """The logistic Elo of score s, clamped to 1e-6 from 0 and 1 (as referee.py did)."""
    s = min(max(s, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / s - 1)


def elo_error(counts, values):
    """Elo and its 95% error from counts[i] samples scoring values[i] (0 to 1), or None
    when there are none, or all score 0 or all 1."""
    if sum(counts) == 0:
        return None
    n, m, v = mean_variance(counts, values)
    if m in (0.0, 1.0):
        return None
    se = math.sqrt(v / n)
    return to_elo(m), (to_elo(m + 1.96 * se) - to_elo(m - 1.96 * se)) / 2


def normalized_elo(penta):
    """fishtest's normalized Elo of the pairs and its 95% error, or None without pairs:
    over a pair's points / 2 (pentanomial counts regularized),
    t = (m - 0.5) / sqrt(v), nElo = 800 / ln 10 / sqrt 2 * t, and the error
    1.96 * 800 / ln 10 / sqrt 2 * sqrt(var_t / N) with
    var_t = 1 - t * skewness + t^2 / 4 * (excess kurtosis + 2)
    (fishtest's elo_results.mak, t_conf and LLRcalc.stats_ex)."""
    if not sum(penta):
        return None
    counts = regularize(penta)
    n, m, v = mean_variance(counts, PAIR_VALUES)
    sd = math.sqrt(v)
    probs = [c / n for c in counts]
    skew = sum(p * (a - m) ** 3 for p, a in zip(probs, PAIR_VALUES)) / sd ** 3
    exkurt = sum(p * (a - m) ** 4 for p, a in zip(probs, PAIR_VALUES)) / v ** 2 - 3
    t = (m - 0.5) / sd
    var_t = max(1 - t * skew + 0.25 * t ** 2 * (exkurt + 2), 0)
    coeff = 800 / math.log(10) / math.sqrt(2)
    return coeff * t, coeff * 1.96 * math.sqrt(var_t / sum(penta))


def games_for_error(penta, elo_error_wanted):
    """The games (two a pair) whose pairs give a 95% Elo error of elo_error_wanted at
    these pairs' variance, near an even score: dElo/ds = 1600 / ln 10 there, so
    pairs = (1.96 * sqrt(v) * 1600 / ln 10 / error)^2."""
    v = mean_variance(penta, PAIR_VALUES)[2]
    return 2 * math.ceil((1.96 * math.sqrt(v) * 1600 / math.log(10) / elo_error_wanted) ** 2)


def logistic(elo):
    return 1 / (1 + 10 ** (-elo / 400))


def regularize(counts):
    """fishtest's regularize(): each empty outcome counts 1e-3, so no likelihood is 0."""
    return [c if c else 1e-3 for c in counts]


def mle_expected(probs, values, s):
    """The distribution over values nearest probs (most likely) whose mean is s, for
    min(values) < s < max(values), over the outcomes probs gives weight."""
    pv = [(p, a - s) for p, a in zip(probs, values) if p > 0]
    lo, hi = -1 / max(d for _, d in pv), -1 / min(d for _, d in pv)
    # f(x) = sum p d / (1 + x d) falls from +inf at lo to -inf at hi.
    for _ in range(200):
        x = (lo + hi) / 2
        if x in (lo, hi):
            break
        if sum(p * d / (1 + x * d) for p, d in pv) > 0:
            lo = x
        else:
            hi = x
    return [p / (1 + x * (a - s)) if p > 0 else 0.0 for p, a in zip(probs, values)]


def llr_exact(counts, values, s0, s1):
    """The generalized log-likelihood ratio of mean s1 against s0 (fishtest's LLR with
    the "expectation" statistic), for counts[i] samples of values[i]; no regularization."""
    n = sum(counts)
    probs = [c / n for c in counts]
    q0, q1 = (mle_expected(probs, values, s) for s in (s0, s1))
    return n * sum(p * math.log(b / a) for p, a, b in zip(probs, q0, q1) if p > 0)


def llr_approx(counts, values, s0, s1):
    """fishtest's LLR_alt2 times N: N (s1 - s0) (2 m - s0 - s1) / (2 v)."""
    n, m, v = mean_variance(counts, values)
    return n * (s1 - s0) * (2 * m - s0 - s1) / (2 * v)


def sprt(penta, elo0, elo1, alpha, beta):
    """fishtest's SPRT on pentanomial counts with logistic Elo bounds."""
    counts = regularize(penta)
    s0, s1 = logistic(elo0), logistic(elo1)
    llr = llr_exact(counts, PAIR_VALUES, s0, s1)
    lower, upper = math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)
    verdict = "H1 accepted" if llr >= upper else "H0 accepted" if llr <= lower else "continue"
    return {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "llr": llr,
            "llr_approx": llr_approx(counts, PAIR_VALUES, s0, s1), "lower": lower,
            "upper": upper, "verdict": verdict}


def read_games(paths):
    """Every game of the files as (file's index, tags, movetext); OSError and ValueError
    say which file failed."""
    out = []
    for k, path in enumerate(paths):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError as e:
            raise ValueError("%s: %s" % (path, e.strerror)) from None
        found = [(k, tags, body) for tags, body in games(text) if tags]
        if not found:
            raise ValueError("%s: no PGN games in it" % path)
        out += found
    return out


def is_pair(a, b, engine):
    """Whether games a and b, consecutive in one file, are an opening's pair for engine."""
    (ka, ta, ba), (kb, tb, bb) = a, b
    if ka != kb or ta.get("Result") not in RESULTS or tb.get("Result") not in RESULTS:
        return False
    players = (ta.get("White"), ta.get("Black"))
    if engine not in players or (tb.get("White"), tb.get("Black")) != players[::-1]:
        return False
    if any(ta.get(t) != tb.get(t) for t in ("Variant", "FEN")):
        return False
    oa, ob = opening_moves(ba), opening_moves(bb)
    return oa is None or ob is None or oa == ob


def engine_score(tags, engine):
    """The engine's points in a finished game it plays on one side, else None."""
    if tags.get("Result") not in RESULTS or tags.get("White") == tags.get("Black"):
        return None
    side = {tags.get("White"): 0, tags.get("Black"): 1}.get(engine)
    return None if side is None else RESULTS[tags["Result"]][side]


def tally(all_games, engine):
    """The engine's figures: trinomial [L, D, W] over every finished game, pentanomial
    [LL, LD, DD+WL, WD, WW] over the pairs, the paired games' trinomial, and the counts
    of games out of the pairs (unpaired) and out of every figure (unfinished, without the
    engine, the engine on both sides)."""
    tri, tri_paired, penta = [0, 0, 0], [0, 0, 0], [0] * 5
    unpaired = unfinished = other = both = 0
    opponents = set()
    i = 0
    while i < len(all_games):
        tags = all_games[i][1]
        score = engine_score(tags, engine)
        if score is None:
            players = (tags.get("White"), tags.get("Black"))
            if engine not in players:
                other += 1
            elif players[0] == players[1]:
                both += 1
            else:
                unfinished += 1
            i += 1
            continue
        opponents.add(tags["Black"] if tags["White"] == engine else tags["White"])
        tri[int(score * 2)] += 1
        if i + 1 < len(all_games) and is_pair(all_games[i], all_games[i + 1], engine):
            second = engine_score(all_games[i + 1][1], engine)
            tri[int(second * 2)] += 1
            tri_paired[int(score * 2)] += 1
            tri_paired[int(second * 2)] += 1
            penta[int((score + second) * 2)] += 1
            i += 2
        else:
            unpaired += 1
            i += 1
    return {"opponents": sorted(opponents), "trinomial": tri, "paired_trinomial": tri_paired,
            "pentanomial": penta, "unpaired": unpaired, "unfinished": unfinished,
            "without_engine": other, "both_sides": both}


def figures(t):
    """The statistics of a tally, as a dict for --json and the printout."""
    tri, penta, tri_paired = t["trinomial"], t["pentanomial"], t["paired_trinomial"]
    games_n, pairs = sum(tri), sum(penta)
    out = dict(t)
    out.update({"games": games_n, "pairs": pairs,
                "wins": tri[2], "losses": tri[0], "draws": tri[1],
                "score": (tri[2] + tri[1] / 2) / games_n,
                "draw_rate": tri[1] / games_n, "elo": None, "elo_error": None,
                "pair_score": None, "pair_elo": None, "pair_elo_error": None,
                "variance_games": None, "variance_pairs": None, "variance_ratio": None,
                "nelo": None, "nelo_error": None, "games_for_10_elo": None})
    e = elo_error(tri, GAME_VALUES)
    if e:
        out["elo"], out["elo_error"] = e
    if pairs:
        out["pair_score"] = mean_variance(penta, PAIR_VALUES)[1]
        e = elo_error(penta, PAIR_VALUES)
        if e:
            out["pair_elo"], out["pair_elo_error"] = e
        e = normalized_elo(penta)
        if e:
            out["nelo"], out["nelo_error"] = e
        out["games_for_10_elo"] = games_for_error(penta, 10)
        # Per game: a pair's mean score has the variance of two games' mean, v / 2.
        v3 = mean_variance(tri_paired, GAME_VALUES)[2]
        v5 = 2 * mean_variance(penta, PAIR_VALUES)[2]
        out["variance_games"], out["variance_pairs"] = v3, v5
        if v5 > 0:
            out["variance_ratio"] = v3 / v5
    return out


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def elo_text(elo, err):
    return "n/a" if elo is None else "%.1f +/- %.1f" % (elo, err)


def report(engine, f, test):
    lines = ["%s against %s: %s, %s" % (engine, ", ".join(f["opponents"]),
                                         plural(f["games"], "game"), plural(f["pairs"], "pair"))]
    left = []
    if f["unpaired"]:
        left.append("%s in no pair (in the games' figures, not the pairs')"
                    % plural(f["unpaired"], "game"))
    if f["unfinished"]:
        left.append("%s unfinished, left out" % plural(f["unfinished"], "game"))
    if f["both_sides"]:
        left.append("%s with %s on both sides, left out" % (plural(f["both_sides"], "game"),
                                                             engine))
    if f["without_engine"]:
        left.append("%s without %s, left out" % (plural(f["without_engine"], "game"), engine))
    lines += ["  " + x for x in left]
    lines.append("games: %d - %d - %d (W-L-D), score %.3f, Elo %s, draws %.1f%%" % (
        f["wins"], f["losses"], f["draws"], f["score"], elo_text(f["elo"], f["elo_error"]),
        100 * f["draw_rate"]))
    if f["pairs"]:
        lines.append("pairs: pentanomial %s (%s), score %.3f, Elo %s" % (
            "-".join(map(str, f["pentanomial"])), "-".join(PENTANOMIAL), f["pair_score"],
            elo_text(f["pair_elo"], f["pair_elo_error"])))
        ratio = f["variance_ratio"]
        lines.append("variance a game (paired games): games %.4f, pairs %.4f, ratio %s" % (
            f["variance_games"], f["variance_pairs"],
            "n/a" if ratio is None else "%.2f (the same error in 1/%.2f as many games)"
            % (ratio, ratio)))
        lines.append("normalized Elo (pairs) %s; games for a 95%% error of +/- 10 Elo at the pairs' "
                     "variance: %d" % (elo_text(f["nelo"], f["nelo_error"]), f["games_for_10_elo"]))
    else:
        lines.append("pairs: none (no two games in a row from one opening, colours swapped)")
    if test is False:
        lines.append("SPRT: no pairs to test")
    elif test:
        lines.append("SPRT [%g, %g] logistic Elo, alpha %g, beta %g: LLR %.2f (approx. %.2f), "
                     "bounds [%.2f, %.2f]: %s" % (
                         test["elo0"], test["elo1"], test["alpha"], test["beta"], test["llr"],
                         test["llr_approx"], test["lower"], test["upper"], test["verdict"]))
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pgn", nargs="+")
    ap.add_argument("--engine", help="the engine whose results count (default: the first "
                    "game's White)")
    ap.add_argument("--sprt", nargs=2, type=float, metavar=("ELO0", "ELO1"),
                    help="H0 and H1 in logistic Elo")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--json", action="store_true", help="one JSON object")
    args = ap.parse_args(argv)  # bad arguments exit 2
    try:
        if not (0 < args.alpha < 1 and 0 < args.beta < 1 and args.alpha + args.beta < 1):
            raise ValueError("--alpha and --beta must be in (0, 1), with a sum under 1")
        if args.sprt and not -1000 < args.sprt[0] < args.sprt[1] < 1000:
            raise ValueError("--sprt ELO0 ELO1 wants -1000 < ELO0 < ELO1 < 1000")
        all_games = read_games(args.pgn)
        engine = args.engine or all_games[0][1].get("White")
        t = tally(all_games, engine)
        if not sum(t["trinomial"]):
            raise ValueError("no finished game of %s in %s" % (engine, ", ".join(args.pgn)))
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    f = figures(t)
    test = None
    if args.sprt and f["pairs"]:
        test = sprt(f["pentanomial"], args.sprt[0], args.sprt[1], args.alpha, args.beta)
    if args.json:
        f["engine"] = engine
        if args.sprt:
            f["sprt"] = test  # null without pairs
        print(json.dumps(f, sort_keys=True))
    else:
        print(report(engine, f, False if args.sprt and not test else test))
    return 0


if __name__ == "__main__":
    sys.exit(main())
