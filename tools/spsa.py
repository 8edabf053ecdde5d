#!/usr/bin/env python3
"""SPSA over the search's tunable parameters: each iteration plays the engine with every
parameter moved a step up or down at random against the engine moved the other way, and
moves the parameters towards the side that scored.

The parameters, their ranges and their end steps are the KHUN_TUNABLE lines of
include/khun/search/search_params.h; the engine is a tuning build (cmake -DKHUN_TUNE=ON),
which offers each of them as a UCI spin option. The games are played by cutechess-cli or
by tools/referee.py (any game of the family, no Qt: an xboard oracle holds the rules).
The state is written after every iteration and a run started again with the same --state
goes on where it stopped. The schedule is Fishtest's: c_k = c / k^gamma, a_k = a / (A +
k)^alpha, with c and a chosen so that the last iteration perturbs by each parameter's
step and moves it by r_end * step^2 per game point (docs/tuning.md, "Search parameters").
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

from engine_process import EngineError, EngineProcess

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = os.path.join(HERE, "..", "include", "khun", "search", "search_params.h")
TUNABLE = re.compile(r"^KHUN_TUNABLE\((\w+),\s*(-?\d+),\s*(-?\d+),\s*(-?\d+),\s*([0-9.]+)\);",
                     re.M)
SCORE = re.compile(r"Score of (\S+) vs (\S+): (\d+) - (\d+) - (\d+)")


def read_tunables(path=HEADER):
    """name -> {value, min, max, step}, in the header's order."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    out = {}
    for name, value, lo, hi, step in TUNABLE.findall(text):
        out[name] = {"value": int(value), "min": int(lo), "max": int(hi), "step": float(step)}
    if not out:
        raise ValueError("no KHUN_TUNABLE lines in " + path)
    return out


def engine_options(cmd):
    """The names of the options a UCI engine offers."""
    e = EngineProcess([cmd], cmd)
    try:
        e.send("uci")
        lines = e.until(lambda l: l == "uciok", 60)
    finally:
        e.close()
    return {m.group(1) for m in map(re.compile(r"option name (.+?) type ").match, lines) if m}


class Schedule:
    """Fishtest's SPSA gains for N iterations."""

    def __init__(self, iterations, alpha=0.602, gamma=0.101, a_ratio=0.1, r_end=0.002):
        self.n, self.alpha, self.gamma, self.r_end = iterations, alpha, gamma, r_end
        self.big_a = a_ratio * iterations

    def c(self, step, k):
        return step * self.n ** self.gamma / k ** self.gamma

    def r(self, step, k):
        """The learning rate at iteration k: a_k / c_k^2."""
        a_end = self.r_end * step ** 2
        a = a_end * (self.big_a + self.n) ** self.alpha
        return a / (self.big_a + k) ** self.alpha / self.c(step, k) ** 2


def perturb(params, theta, schedule, k, rng):
    """The two settings of iteration k and the signs that made them."""
    plus, minus, signs = {}, {}, {}
    for name, p in params.items():
        s = rng.choice((-1, 1))
        c = schedule.c(p["step"], k)
        signs[name] = s
        plus[name] = min(max(round(theta[name] + s * c), p["min"]), p["max"])
        minus[name] = min(max(round(theta[name] - s * c), p["min"]), p["max"])
    return plus, minus, signs


def update(params, theta, schedule, k, signs, result):
    """theta moved towards the side that scored `result` (plus's wins minus losses)."""
    out = {}
    for name, p in params.items():
        c = schedule.c(p["step"], k)
        t = theta[name] + schedule.r(p["step"], k) * c * result * signs[name]
        out[name] = min(max(t, p["min"]), p["max"])
    return out


def match_command(args, plus, minus, openings):
    def opts(setting):
        return ["option.%s=%d" % kv for kv in sorted(setting.items())] + args.option

    if args.runner == "cutechess":
        cmd = [args.cutechess, "-variant", args.variant,
               "-engine", "name=plus", "cmd=" + args.engine] + opts(plus)
        cmd += ["-engine", "name=minus", "cmd=" + args.engine] + opts(minus)
        cmd += ["-each", "proto=uci"] + (["tc=" + args.tc] if args.tc else
                                         ["tc=inf", "nodes=%d" % args.nodes])
        cmd += ["-games", "2", "-rounds", str(args.pairs), "-repeat",
                "-concurrency", str(args.concurrency),
                "-openings", "file=" + openings, "format=epd", "order=sequential",
                "-draw", "movenumber=60", "movecount=8", "score=5", "-maxmoves", "300"]
        return cmd
    cmd = [sys.executable, os.path.join(HERE, "referee.py"), "--variant", args.variant,
           "--oracle", "cmd=" + (args.oracle or args.engine)]
    cmd += ["--engine", "name=plus", "cmd=" + args.engine] + opts(plus)
    cmd += ["--engine", "name=minus", "cmd=" + args.engine] + opts(minus)
    cmd += ["--games", str(2 * args.pairs), "--openings", openings, "--maxplies", "600"]
    cmd += ["--tc", args.tc] if args.tc else ["--nodes", str(args.nodes)]
    return cmd


def play(args, plus, minus, openings):
    """plus's (wins, losses, draws) over the iteration's games."""
    p = subprocess.run(match_command(args, plus, minus, openings), capture_output=True,
                       text=True)
    scores = [m for m in SCORE.findall(p.stdout) if m[0] == "plus"]
    if not scores:
        raise RuntimeError("the match printed no score (exit %d): %s" %
                           (p.returncode, (p.stderr or p.stdout).strip()[-500:]))
    w, l, d = (int(x) for x in scores[-1][2:])
    if w + l + d != 2 * args.pairs:
        raise RuntimeError("the match ended after %d of %d games" % (w + l + d, 2 * args.pairs))
    return w, l, d


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, help="the tuning build of khun")
    ap.add_argument("--runner", choices=("cutechess", "referee"), default="cutechess")
    ap.add_argument("--cutechess", default="cutechess-cli")
    ap.add_argument("--oracle", help="the referee's xboard engine (default: --engine)")
    ap.add_argument("--variant", default="makruk")
    ap.add_argument("--openings", required=True, help="FEN/EPD lines, drawn at random")
    ap.add_argument("--tc", help="a time control, as Cute Chess writes it")
    ap.add_argument("--nodes", type=int, default=0, help="or nodes a move")
    ap.add_argument("--pairs", type=int, default=4, help="game pairs an iteration")
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=1, help="cutechess-cli's games at once")
    ap.add_argument("--params", help="comma-separated names (default: every tunable)")
    ap.add_argument("--option", action="append", default=[], metavar="option.NAME=VALUE",
                    help="an engine option for both sides, as Cute Chess writes it")
    ap.add_argument("--r-end", type=float, default=0.002)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--state", default="spsa-state.json")
    args = ap.parse_args(argv)

    try:
        if bool(args.tc) == bool(args.nodes):
            raise ValueError("one of --tc and --nodes")
        if args.pairs < 1 or args.iterations < 1:
            raise ValueError("--pairs and --iterations must be positive")
        params = read_tunables()
        if args.params:
            names = args.params.split(",")
            unknown = [n for n in names if n not in params]
            if unknown:
                raise ValueError("not tunable: " + ", ".join(unknown))
            params = {n: params[n] for n in names}
        offered = engine_options(args.engine)
        missing = [n for n in params if n not in offered]
        if missing:
            raise ValueError("%s offers no option %s: not a tuning build (cmake -DKHUN_TUNE=ON)?"
                             % (args.engine, missing[0]))
        with open(args.openings, encoding="utf-8") as f:
            lines = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        if not lines:
            raise ValueError("no positions in " + args.openings)
    except (ValueError, OSError, EngineError) as e:
        print("spsa: " + str(e), file=sys.stderr)
        return 2

    state = {"k": 0, "theta": {n: float(p["value"]) for n, p in params.items()}, "games": [0, 0, 0]}
    if os.path.exists(args.state):
        with open(args.state, encoding="utf-8") as f:
            saved = json.load(f)
        if set(saved["theta"]) != set(params):
            print("spsa: %s tunes other parameters; another --state?" % args.state, file=sys.stderr)
            return 2
        state = saved
    schedule = Schedule(args.iterations, r_end=args.r_end)

    while state["k"] < args.iterations:
        k = state["k"] + 1
        rng = random.Random(args.seed * 1000003 + k)
        plus, minus, signs = perturb(params, state["theta"], schedule, k, rng)
        with tempfile.NamedTemporaryFile("w", suffix=".epd", delete=False) as f:
            f.write("\n".join(rng.choice(lines) for _ in range(args.pairs)) + "\n")
            openings = f.name
        try:
            w, l, d = play(args, plus, minus, openings)
        except RuntimeError as e:
            print("spsa: iteration %d: %s" % (k, e), file=sys.stderr)
            return 1
        finally:
            os.unlink(openings)
        state["theta"] = update(params, state["theta"], schedule, k, signs, w - l)
        state["k"] = k
        state["games"] = [a + b for a, b in zip(state["games"], (w, l, d))]
        with open(args.state + ".tmp", "w", encoding="utf-8") as f:
            json.dump(state, f, indent=1)
        os.replace(args.state + ".tmp", args.state)
        print("iteration %d: plus %d - %d - %d; %s" % (
            k, w, l, d, " ".join("%s=%.1f" % kv for kv in state["theta"].items())), flush=True)

    print("games (plus's side): %d - %d - %d" % tuple(state["games"]))
    for name, p in params.items():
        t = round(state["theta"][name])
        mark = "" if t == p["value"] else "  (was %d)" % p["value"]
        print("KHUN_TUNABLE(%s, %d, %d, %d, %g);%s" % (name, t, p["min"], p["max"], p["step"], mark))
    return 0


if __name__ == "__main__":
    sys.exit(main())
