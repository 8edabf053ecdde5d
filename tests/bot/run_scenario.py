#!/usr/bin/env python3
"""Runs one scenario of `khun bot` against the pychess.org stand-in (standin.py): starts
the stand-in on a free port of 127.0.0.1, starts `khun bot` against it, waits (bounded),
then judges from what the SERVER saw -- moves, declines, game ends, clocks -- and from the
bot's exit code and output. Exits 0 when every check holds, else 1 with the failures,
the bot's output and the tail of the stand-in's request log.

    python3 run_scenario.py --khun build/khun drops [--keep DIR] [--list]
"""
import argparse
import os
import random
import shutil
import string
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin import Spec, StandIn  # noqa: E402

ALL = ["makruk", "makpong", "cambodian", "asean", "sittuyin", "makrukhouse"]

# Clocks and ply caps are chosen so that a scenario's games cannot take longer than the
# bot's clock allows (limit + increment x its moves), well inside ctest's 100 s: 15+1
# (pychess.org's shortest base is a quarter minute) over a cap of 40 plies is at most 35 s
# of the bot's thinking, games run two at a time.
SCENARIOS = {
    # 1. A whole game of each variant, the bot white in some and black in others.
    "variants_a": dict(
        games=[Spec("makruk", bot="black", limit=15, inc=1, plies=40, dup_start=True),
               Spec("makpong", bot="white", limit=15, inc=1, plies=40, opponent="bob")],
        parallel=2, args=["--max-games", "2", "--concurrency", "2"]),
    "variants_b": dict(
        games=[Spec("cambodian", bot="random", limit=15, inc=1, plies=40),
               Spec("asean", bot="black", limit=15, inc=1, plies=40, opponent="carol")],
        parallel=2, args=["--max-games", "2", "--concurrency", "2"], token_via="env"),
    # The drop games: sittuyin's setup drops and makrukhouse's captures to hand.
    "variants_c": dict(
        games=[Spec("sittuyin", bot="white", limit=15, inc=1, plies=40),
               Spec("makrukhouse", bot="black", limit=15, inc=1, plies=40, opponent="dave")],
        parallel=2, args=["--max-games", "2", "--concurrency", "2"]),
    # 2. Set-up positions with a running count: board's honour (limit 128 plies, 79 left),
    #    the bot moving first; then a bare king's count with 5 plies left, which runs out
    #    with the bot to move (unless it mates first): the server ends the game there. The
    #    same again where the server (Fairy-Stockfish) does not end it: the bot moves on.
    "count": dict(
        games=[Spec("makruk", bot="white", limit=15, inc=1, plies=30,
                    fen="8/8/4k3/8/2nM4/8/2m5/K1m5 w - 128 49 91"),
               Spec("makruk", bot="black", limit=15, inc=1, plies=40,
                    fen="8/8/4k3/8/2n5/8/2m5/K1m5 w - 64 60 91"),
               Spec("makruk", bot="black", limit=15, inc=1, plies=16, opponent="bob",
                    fen="8/8/4k3/8/2n5/8/2m5/K1m5 w - 64 60 91",
                    server_ignores=("counting rule", "threefold repetition"))],
        parallel=2, args=["--max-games", "3", "--concurrency", "2"], token_via="env",
        ends={1: ("counting rule", "checkmate", "stalemate"),
              2: ("ply cap (16)", "checkmate", "stalemate")}),
    # 3. Challenges in games the bot does not play (chess, shogi, and one left out by
    #    --variants) are declined with reason "variant"; then it plays an accepted game.
    "decline": dict(
        games=[Spec("standard", key="standard", expect="variant"),
               Spec("shogi", key="shogi", expect="variant", opponent="dave"),
               Spec("cambodian", expect="variant"),
               Spec("asean", bot="white", limit=15, inc=1, plies=40)],
        parallel=1, args=["--max-games", "1", "--variants", "makruk,asean"],
        advertised=["makruk", "asean"]),
    # 4. The event stream cut mid-game (and two reconnections refused with 502), the game
    #    stream ended by the server, then both cut at once (two event stream reconnections
    #    and the game stream's first reopening refused: the event stream is back after the
    #    server let go of the cut game stream, so it re-sends gameStart): the game goes on
    #    each time. A cut game stream is reopened only after 8 s, and the clock of 30 s
    #    leaves the bot enough for the ten it is blind after the double cut.
    "drops": dict(
        games=[Spec("makruk", bot="white", limit=30, inc=1, plies=26,
                    drops={4: "event", 10: "game", 16: "both"})],
        parallel=1, args=["--max-games", "1"], check="drops"),
    # 5. A 502 answers the bot's 3rd move POST: (a) the move was not played, (b) it was.
    "move502": dict(
        games=[Spec("makruk", bot="black", limit=15, inc=1, plies=30, fail_move=(3, "a")),
               Spec("cambodian", bot="white", limit=15, inc=1, plies=30, fail_move=(3, "b"),
                    opponent="bob")],
        parallel=2, args=["--max-games", "2", "--concurrency", "2"], check="move502"),
    #    The bot killed mid-game and started again once the server has let go of its game
    #    stream (README: wait before restarting): the server re-sends gameStart for the
    #    game in progress on the new event stream, and the new bot plays it to the end.
    "restart": dict(
        games=[Spec("makruk", bot="black", limit=15, inc=1, plies=40)],
        parallel=1, args=["--max-games", "1"], restart_at=10, restart_wait=7,
        check="restart"),
    # 6. A token the server refuses (403 on /api/account): exit 1, one error line.
    "badtoken": dict(games=[Spec("makruk")], args=["--max-games", "1"], token_via="env",
                     wrong_token=True, rc=1, max_lines=1),
    #    A token refused on the event stream only (revoked after /api/account): exit 1.
    "refused": dict(games=[Spec("makruk")], args=["--max-games", "1"], refuse_events=True,
                    rc=1, max_lines=3),
    #    Bad arguments: exit 2 before any request.
    "badargs": dict(games=[], args=["--concurrency", "0"], rc=2, max_lines=None),
    #    A token of an account not yet upgraded to BOT (/api/account answers, the BOT
    #    endpoints refuse it): exit 1, saying to upgrade the account.
    "notbot": dict(games=[Spec("makruk")], args=["--max-games", "1"], title="", rc=1,
                   max_lines=1, says="upgrade the account to BOT"),
    # 7. The server's edge cases (gbtami/pychess-variants, server/). A game the server
    #    restored after a restart says initialFen "None" for the start position; a set-up
    #    position Khun refuses is aborted at once, not lost on time.
    "restored": dict(
        games=[Spec("makruk", bot="white", limit=15, inc=1, plies=30, fen_text="None"),
               Spec("makruk", bot="black", limit=15, inc=1, expect="abort", opponent="bob",
                    fen="4k3/8/P7/8/8/8/8/4K3 w - - 0 1")],
        parallel=2, args=["--max-games", "2", "--concurrency", "2"]),
    #    The opponent takes back its move and the bot's (casual games allow it without
    #    asking): the list is again the one the bot answered, and the bot moves again.
    "takeback": dict(
        games=[Spec("makruk", bot="white", limit=15, inc=1, plies=30, takeback=10)],
        parallel=1, args=["--max-games", "1"], check="takeback"),
    #    The game stream goes silent after the bot's move (no pings): the bot drops it after
    #    20 s and reopens it only once the server has let go of it (no conflict). The
    #    opponent's reply came during the silence, leaving the bot half a second: a bot that
    #    trusted the fresh gameFull's clock would overspend and lose on time.
    "stale": dict(
        games=[Spec("makruk", bot="white", limit=15, inc=1, plies=24, stall=9)],
        parallel=1, args=["--max-games", "1"], check="stale"),
    #    The server ends the game but its gameEnd never comes, and the game stream answers
    #    200 and breaks from then on: the bot's watchdog ends the game after the clocks,
    #    an increment and 60 s, and --max-games 1 then lets it exit.
    "lost": dict(
        games=[Spec("makruk", bot="white", limit=15, inc=1, plies=40, lose=6)],
        parallel=1, args=["--max-games", "1"], timeout=125, check="lost"),
    #    An accepted challenge whose game never starts holds the only slot (--concurrency 1):
    #    the next challenge is declined "later" until the bot gives the slot back (30 s),
    #    then accepted and played.
    "nostart": dict(
        games=[Spec("makruk", expect="swallow"),
               Spec("makruk", bot="black", limit=15, inc=1, plies=30, opponent="bob")],
        parallel=2, args=["--max-games", "1"], check="nostart"),
    #    Games that come without a challenge (rematches) take slots too: one that comes
    #    while the only slot is taken is aborted, one that comes when it is free is played.
    "rematch": dict(
        games=[Spec("makruk", bot="white", limit=15, inc=1, plies=30),
               Spec("makruk", bot="black", unchallenged=True, expect="abort"),
               Spec("makruk", bot="black", limit=15, inc=1, plies=30, unchallenged=True,
                    when_idle=True)],
        parallel=2, args=["--max-games", "2"]),
}

TIMEOUT = 85  # seconds for a whole scenario (or its `timeout`); ctest allows 15 s more
EXIT_GRACE = 5  # the bot must exit this soon after the last gameEnd (--max-games)


def secret():
    return "kbt_" + "".join(random.choice(string.ascii_letters + string.digits)
                            for _ in range(24))


class Bot:
    """`khun bot` as a subprocess, its stdout and stderr collected (and echoed, so that
    `ctest -V` shows the bot's log as it happens)."""

    def __init__(self, argv, env):
        self.out, self.err = [], []
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env, text=True, errors="replace")
        self.readers = [threading.Thread(target=self.read, args=(self.p.stdout, self.out)),
                        threading.Thread(target=self.read, args=(self.p.stderr, self.err))]
        for t in self.readers:
            t.daemon = True
            t.start()
        self.exited = None

    def read(self, stream, into):
        for line in stream:
            into.append(line.rstrip("\n"))
            print("  | " + line.rstrip("\n"), flush=True)

    def wait(self, deadline, until=None):
        """Wait for the exit, or for until() to hold for EXIT_GRACE s (then stop waiting:
        the caller judges), or for the deadline; returns the exit code or None."""
        ok_since = None
        while time.monotonic() < deadline:
            rc = self.p.poll()
            if rc is not None:
                self.exited = time.monotonic()
                for t in self.readers:
                    t.join(timeout=2)
                return rc
            if until and until():
                ok_since = ok_since or time.monotonic()
                if time.monotonic() - ok_since > EXIT_GRACE + 5:
                    return None
            time.sleep(0.05)
        return None

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()


def run(name, khun, keep):
    sc = SCENARIOS[name]
    work = keep or tempfile.mkdtemp(prefix="khun-bot-" + name + "-")
    os.makedirs(work, exist_ok=True)
    log_path = os.path.join(work, "standin.log")
    token = secret()
    server_token = secret() if sc.get("wrong_token") else token
    s = StandIn(khun, server_token, sc["games"], log_path, sc.get("parallel", 1),
                refuse_events=sc.get("refuse_events", False), title=sc.get("title", "BOT"))
    timeout = sc.get("timeout", TIMEOUT)
    port = s.serve()
    url = "http://127.0.0.1:%d" % port
    env = dict(os.environ)
    env.pop("KHUN_BOT_TOKEN", None)
    argv = [khun, "bot", "--server", url] + sc["args"]
    if sc.get("token_via") == "env":
        env["KHUN_BOT_TOKEN"] = token
    else:
        argv += ["--token", token]
    print("scenario %s: %s (log %s)" % (name, " ".join(
        a if a != token else "<token>" for a in argv), log_path), flush=True)

    t0 = time.monotonic()
    bot = Bot(argv, env)
    bots = [bot]
    if sc.get("restart_at"):
        while time.monotonic() < t0 + timeout and bot.p.poll() is None and not any(
                len(g.moves) >= sc["restart_at"] for g in list(s.games.values())):
            time.sleep(0.02)
        bot.kill()
        s.log("RESTART: the bot was killed; starting it again in %d s" % sc["restart_wait"])
        print("scenario %s: bot killed; starting it again" % name, flush=True)
        time.sleep(sc["restart_wait"])
        bot = Bot(argv, env)
        bots.append(bot)
    # A bot that must end a game by itself (check "lost") is waited for to the end.
    until = s.done if sc["games"] and sc.get("check") != "lost" else None
    rc = bot.wait(t0 + timeout, until=until)
    bot.kill()
    s.stop()
    elapsed = time.monotonic() - t0

    failures = []
    want_rc = sc.get("rc", 0)
    if rc is None:
        failures.append("khun bot did not exit (killed after %.0f s; expected exit %d)"
                        % (elapsed, want_rc))
    elif rc != want_rc:
        failures.append("khun bot exited %d, expected %d" % (rc, want_rc))
    everything = "\n".join(sum((b.out + b.err for b in bots), []))
    for t in {token, server_token}:
        if t in everything:
            failures.append("the token appears in the bot's output")
    stray = [l for b in bots for l in b.err if not l.startswith("bot: ")]
    if stray and want_rc != 2:
        failures.append("stderr lines without the 'bot: ' prefix: %r" % stray[:3])

    if want_rc != 0:
        # The refusals: quick, short, and nothing played.
        if elapsed > 15:
            failures.append("took %.0f s to give up" % elapsed)
        lines = [l for l in bot.err if l.strip()]
        if sc.get("max_lines") and not 1 <= len(lines) <= sc["max_lines"]:
            failures.append("expected 1..%d lines on stderr, got %d" % (sc["max_lines"], len(lines)))
        if sc.get("says") and not any(sc["says"] in l for l in lines):
            failures.append("no line on stderr says %r" % sc["says"])
        if want_rc == 1 and sc.get("wrong_token") and s.auth_failures == 0:
            failures.append("the server never refused the token")
        if s.games:
            failures.append("a game was played")
    else:
        failures += judge_games(s, sc, bot)

    for f in s.failures:
        failures.append(f)
    print("scenario %s: %.1f s, exit %s" % (name, elapsed, rc), flush=True)
    for g in s.games.values():
        print("  game %s (%s, bot %s): %d plies, %s; bot clock left %.1f s; %s" % (
            g.id, g.spec.variant, "white" if g.bot_white else "black", len(g.moves), g.over,
            (g.clock[0] if g.bot_white else g.clock[1]) / 1000,
            "stream opened %d times" % g.stream_opens))
        if g.late:
            print("    (moves posted after the end, ignored: %s)" % " ".join(g.late))
    if s.last_end is not None and bot.exited is not None:
        print("  the bot exited %.1f s after the last gameEnd" % (bot.exited - s.last_end))
    for cid, reason in [(d[0], d[2]) for d in s.declines]:
        print("  challenge %s declined: %s" % (cid, reason))
    if failures:
        print("FAILED: scenario %s" % name)
        for f in failures:
            print("  - " + f)
        print("---- stand-in log (last 60 lines of %s) ----" % log_path)
        with open(log_path, encoding="utf-8") as f:
            print("".join(f.readlines()[-60:]).replace(token, "<token>"), end="")
        print("(the stand-in's log and folder are kept: %s)" % work)
        return 1
    print("PASSED: scenario %s" % name)
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def judge_games(s, sc, bot):
    f = []
    want_caps = sc.get("advertised", ALL)
    if not s.capabilities:
        f.append("the event stream was never opened with the capabilities header")
    for caps in s.capabilities:
        if sorted(caps) != sorted(want_caps):
            f.append("advertised variants %s, expected %s" % (caps, want_caps))
    for cid, (spec, state, _) in s.challenges.items():
        if state == "sent":
            f.append("challenge %s (%s) was never answered" % (cid, spec.key))
    if s.todo:
        f.append("%d challenge(s) never sent" % len(s.todo))
    made = [sp for sp in sc["games"] if sp.expect in ("play", "abort")]
    if len(s.games) != len(made):
        f.append("%d games started, expected %d" % (len(s.games), len(made)))
    for i, g in enumerate(s.games.values()):
        f += ["game %s: %s" % (g.id, x) for x in g.failures]
        if g.conflicts:
            f.append("game %s: %d game stream(s) opened while the server still held one "
                     "(answered 200, then broken off)" % (g.id, g.conflicts))
        if not g.over:
            f.append("game %s (%s) never finished: %d plies" % (g.id, g.spec.variant, len(g.moves)))
            continue
        if g.spec.expect == "abort":
            if g.over != "bot abort":
                f.append("game %s ended by %s; expected the bot to abort it" % (g.id, g.over))
            elif g.ended_at - g.created > 10:
                f.append("game %s aborted %.0f s after it began, not at once"
                         % (g.id, g.ended_at - g.created))
            continue
        want = sc.get("ends", {}).get(i)
        if want and g.over not in want:
            f.append("game %s ended by %s, expected one of %s" % (g.id, g.over, want))
        # Without a planned drop, 502 or restart one game stream is enough; a second one
        # means the bot started the game twice (gameStart can come twice).
        quiet = not (g.spec.drops or g.spec.fail_move or g.spec.stall or g.spec.lose
                     or sc.get("restart_at"))
        if quiet and g.stream_opens != 1:
            f.append("game %s: game stream opened %d times, with no reason to reopen it"
                     % (g.id, g.stream_opens))
        black_first = bool(g.spec.fen) and g.spec.fen.split()[1] == "b"
        first = 0 if g.bot_white != black_first else 1  # the index of the bot's first move
        if len(g.moves) <= first:
            f.append("game %s: the bot never moved" % g.id)
    if s.last_end is not None and bot.exited is not None:
        after = bot.exited - s.last_end
        if sc.get("check") == "lost":
            # The watchdog: not before the clocks could have run out, and not much later
            # than the clocks, an increment and 60 s (game.lost_bound).
            g = next(iter(s.games.values()))
            if not 60 <= after <= g.lost_bound + EXIT_GRACE:
                f.append("the bot ended the lost game %.1f s after the server did (expected "
                         "60 to %.0f s)" % (after, g.lost_bound + EXIT_GRACE))
        elif after > EXIT_GRACE:
            f.append("the bot exited %.1f s after the last gameEnd (more than %d s)"
                     % (after, EXIT_GRACE))
    check = sc.get("check")
    g = next(iter(s.games.values()), None)
    if check == "takeback" and g and not g.took_back:
        f.append("the game ended at ply %d, before the planned takeback" % len(g.moves))
    if check == "stale" and g and (g.stalled is not None or len(g.moves) <= g.spec.stall + 1):
        f.append("the game did not get past the silence (ply %d)" % len(g.moves))
    if check == "nostart" and not any(d[2] == "later" for d in s.declines):
        f.append("no challenge was declined 'later' while the accepted one held the slot")
    if check == "drops":
        g = next(iter(s.games.values()), None)
        # 3 event streams at least (first, after the cut, after the double cut), the two
        # refusals served, gameStart re-sent once, 3 game streams (first, after the clean
        # end, after the cut and the refused try).
        if s.event_opens < 3:
            f.append("event stream opened %d times, expected 3 or more" % s.event_opens)
        if s.event_refused < 2:
            f.append("%d event stream reconnections refused, expected 2" % s.event_refused)
        if s.resent < 1:
            f.append("gameStart was never re-sent (the game stream came back first?)")
        if g and g.stream_opens < 3:
            f.append("game stream opened %d times, expected 3 or more" % g.stream_opens)
        if g and len(g.moves) <= max(g.spec.drops):
            f.append("the game stopped at ply %d, before the last drop" % len(g.moves))
    if check == "restart":
        g = next(iter(s.games.values()), None)
        if s.resent < 1:
            f.append("gameStart was never re-sent to the restarted bot")
        if g and g.stream_opens < 2:
            f.append("game stream opened %d times, expected 2 or more" % g.stream_opens)
    if check == "move502":
        for g in s.games.values():
            if g.failed_posts != [g.spec.fail_move]:
                f.append("game %s: 502s served %s, planned %s"
                         % (g.id, g.failed_posts, g.spec.fail_move))
            if len(g.moves) < 2 * g.spec.fail_move[0] + 2:
                f.append("game %s stopped at ply %d, right after the 502" % (g.id, len(g.moves)))
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--khun", required=False, help="the khun binary")
    ap.add_argument("--keep", help="folder for the stand-in's log (default: a temp folder)")
    ap.add_argument("--list", action="store_true", help="list the scenarios")
    ap.add_argument("scenario", nargs="?", choices=sorted(SCENARIOS))
    a = ap.parse_args()
    if a.list or not a.scenario:
        print("\n".join(sorted(SCENARIOS)))
        return 0
    if not a.khun or not os.access(a.khun, os.X_OK):
        print("no khun binary: --khun %s" % a.khun)
        return 1
    return run(a.scenario, os.path.abspath(a.khun), a.keep)


if __name__ == "__main__":
    sys.exit(main())
