"""The games of the pychess.org stand-in (standin.py): the other side, played by a second
Khun over UCI, which also referees every move the bot posts and keeps the clocks.

A game ends as the rules end it (mate, stalemate, an expired count, asean's move rule,
threefold repetition: the positions in which the bot, knowing the rules, will not move),
or at the scenario's ply cap, applied only right after the bot's own move so that the
bot is never searching a position the server is about to end.
"""
import collections
import json
import os
import queue
import random
import string
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from engine_process import EngineProcess  # noqa: E402

PING_SECONDS = 2.0  # the real server pings every 6 s; faster here keeps the tests short
# The real server lets go of a game stream whose bot hung up only when its next write
# fails, at its next ping: up to 6 s later. Until then a new game stream for the same game
# is answered 200 and broken off (a conflict, server/bot_api.py).
NOTICE_SECONDS = 6.0


class Log:
    """Every request and every streamed line, with seconds since the start, to one file
    that the scenario prints when it fails."""

    def __init__(self, path):
        self.t0 = time.monotonic()
        self.f = open(path, "w", encoding="utf-8") if path else None
        self.lock = threading.Lock()

    def __call__(self, text):
        line = "%8.3f %s" % (time.monotonic() - self.t0, text)
        with self.lock:
            if self.f:
                self.f.write(line + "\n")
                self.f.flush()
            else:
                print(line, file=sys.stderr, flush=True)


class Uci(EngineProcess):
    """A Khun process spoken to in UCI (tools/engine_process.py), so that every wait has a
    timeout and a dead engine fails the game instead of hanging the test."""

    def __init__(self, khun, variant):
        super().__init__([khun], "khun (UCI)")
        self.send("uci")
        self.until(lambda l: l == "uciok")
        self.send("setoption name UCI_Variant value " + variant)
        self.sync()

    def until(self, done, timeout=30.0):
        """As EngineProcess.until; an `info string error` on the way is an error (the
        position was refused)."""
        return super().until(done, timeout, lambda l: l.startswith("info string error"))

    def sync(self):
        self.send("isready")
        self.until(lambda l: l == "readyok")

    def position(self, fen, moves):
        cmd = "position " + ("fen " + fen if fen else "startpos")
        self.send(cmd + (" moves " + " ".join(moves) if moves else ""))
        self.sync()  # an error about the position arrives before readyok

    def legal(self):
        self.send("go perft 1")
        lines = self.until(lambda l: l.startswith("Nodes searched"))
        # "b5b6m: 1" per legal move, then "Nodes searched: N".
        return {l.split(": ")[0] for l in lines[:-1] if l.split(": ")[-1].isdigit()}

    def board(self):
        """(FEN, hash key, in check) of the current position, from `d`."""
        self.send("d")
        lines = self.until(lambda l: l.startswith("Checkers:"))
        fen = next(l[5:] for l in lines if l.startswith("Fen: "))
        key = next(l[5:] for l in lines if l.startswith("Key: "))
        return fen, key, lines[-1][len("Checkers:"):].strip() != ""

    def bestmove(self, nodes):
        self.send("go nodes %d" % nodes)
        words = self.until(lambda l: l.startswith("bestmove"))[-1].split()
        return words[1] if len(words) > 1 and words[1] not in ("(none)", "0000") else None

class Spec:
    """One challenge the stand-in sends, and what it does to the game if accepted."""

    def __init__(self, variant, bot="white", limit=60, inc=1, fen="", plies=60, nodes=300,
                 expect="play", key=None, opponent="alice", drops=None, fail_move=None,
                 dup_start=False, fen_text=None, takeback=None, stall=None, stall_left=0.5,
                 lose=None, server_ignores=(), unchallenged=False, when_idle=False):
        self.variant = variant      # pychess.org's name (the engine's UCI_Variant)
        self.key = key or variant   # the challenge's variant key (declines: "standard"...)
        self.bot = bot              # the bot's colour: white, black or random
        self.limit, self.inc = limit, inc  # seconds, as the challenge says
        self.fen, self.plies, self.nodes = fen, plies, nodes
        self.expect = expect        # "play" or the decline reason expected
        self.opponent = opponent
        self.drops = drops or {}    # ply -> "event", "game" or "both": streams closed
        #                              after that ply (standin.StandIn.ply_played)
        self.fail_move = fail_move  # (n, "a"/"b"): the bot's n-th move POST gets a 502,
        #                              (a) not played, (b) played
        self.dup_start = dup_start  # gameStart sent twice
        self.fen_text = fen_text    # gameFull's initialFen when not `fen` ("None": a game
        #                              the server restored after a restart)
        self.takeback = takeback    # ply: right after the opponent's move makes it, the
        #                              opponent takes back two plies (the bot's last move too)
        self.stall = stall          # ply: after it the game stream goes silent (no pings)
        #                              until the bot opens another; the opponent's reply is
        #                              then played as if it came during the silence, leaving
        #                              the bot `stall_left` seconds
        self.stall_left = stall_left
        self.lose = lose            # ply: after it the server ends the game but sends no
        #                              gameEnd, and its game stream answers 200 and breaks
        self.server_ignores = set(server_ignores)  # endings the server does not apply (it
        #                              decides by Fairy-Stockfish, where Khun's rules may differ)
        self.unchallenged = unchallenged  # gameStart with no challenge first (a rematch)
        self.when_idle = when_idle  # sent only once no other game is in play
        # expect: "play", a decline reason, "abort" (the bot must abort the game at once),
        # or "swallow" (accepted, but the server never starts the game)


def new_id():
    return "".join(random.choice(string.ascii_letters + string.digits) for _ in range(8))


class Game:
    """One game: its moves and clocks (the site's units), its open game streams, and a
    worker thread that referees each new position and plays the other side. The bot's
    requests come in on the server's threads; self.cond guards the lot."""

    def __init__(self, server, gid, spec, bot_white):
        self.server, self.id, self.spec, self.log = server, gid, spec, server.log
        self.bot_white = bot_white
        self.moves = []
        self.clock = [spec.limit * 1000, spec.limit * 1000]  # ms, white and black
        self.turn_start = None    # when the side to move's clock started (monotonic)
        self.full_sent = None     # when the first gameFull went out (the clock's start)
        self.analysed = -1        # len(moves) for which legal/fen are known
        self.legal, self.fen_now = set(), ""
        self.keys = collections.Counter()
        self.key_at = {}          # ply -> the position key counted in self.keys
        self.over = None          # why the game ended
        self.ended_at = None
        self.failures = []        # what the bot did wrong (illegal, forfeit, double move)
        self.bot_posts = 0        # move POSTs received (for fail_move)
        self.failed_posts = []    # (n, flavour) 502s served
        self.streams = {}         # open game streams: queue -> its request handler
        self.stream_opens = 0
        self.hold_until = 0.0     # the opponent waits until then (see fail_move b)
        self.refuse_streams = 0   # game stream opens to answer with 502
        self.late = []            # moves posted after the end (ignored, as the site does)
        self.conflicts = 0        # game streams opened while the server held another
        self.out_of_turn = []     # moves posted out of turn (ignored, as the site does)
        self.history = []         # (clocks, position key) before each ply, for takebacks
        self.stalled = None       # when the stream went silent (spec.stall)
        self.held_move = None     # the opponent's reply during the silence
        self.lost = False         # spec.lose: the server no longer has the game
        self.lost_bound = None    # then: the clocks, an increment and 60 s (seconds)
        self.took_back = False
        self.created = time.monotonic()
        self.cond = threading.Condition()
        threading.Thread(target=self.work, daemon=True).start()

    # -- state (called with self.cond held) ----------------------------------------------
    def white_to_move(self):
        base = self.spec.fen.split()[1] == "b" if self.spec.fen else False
        return (len(self.moves) % 2 == 0) != base

    def bot_to_move(self):
        return self.white_to_move() == self.bot_white

    def state(self):
        s = self.spec
        return {"type": "gameState", "moves": " ".join(self.moves), "wtime": self.clock[0],
                "btime": self.clock[1], "winc": s.inc, "binc": s.inc, "wdraw": False,
                "bdraw": False, "wtakeback": False, "btakeback": False, "status": "started"}

    def full(self):
        names = (self.server.bot_name, self.spec.opponent)
        white, black = names if self.bot_white else names[::-1]
        fen = self.spec.fen if self.spec.fen_text is None else self.spec.fen_text
        return {"type": "gameFull", "id": self.id, "variant": {"name": self.spec.variant},
                "white": {"name": white}, "black": {"name": black},
                "initialFen": fen, "createdAt": int(self.server.started),
                "state": self.state()}

    def send(self, obj):
        line = json.dumps(obj)
        self.log("game %s >> %s" % (self.id, line))
        for q in self.streams:
            q.put(line)

    def fail(self, text):
        self.failures.append(text)
        self.log("FAILURE game %s: %s" % (self.id, text))

    def end(self, why, tell=True):
        if self.over:
            return
        self.over, self.ended_at = why, time.monotonic()
        self.log("game %s over after %d plies: %s" % (self.id, len(self.moves), why))
        if tell:
            self.send({"type": "gameEnd", "game": {"id": self.id}})
        self.cond.notify_all()
        self.server.game_ended(self)

    def bot_left_ms(self, now):
        i = 0 if self.bot_white else 1
        return self.clock[i] - (now - self.turn_start) * 1000

    def apply(self, move, now):
        """Play a move already found legal: charge the mover's clock, add the increment,
        tell the streams, then let the worker referee the new position."""
        i = 0 if self.white_to_move() else 1
        self.history.append(list(self.clock))
        if self.turn_start is not None:
            self.clock[i] = round(self.clock[i] - (now - self.turn_start) * 1000, 1)
        self.clock[i] += self.spec.inc * 1000
        self.moves.append(move)
        # The clock runs from the position's arrival, but not before the bot had its
        # first gameFull (the site does not run a clock before the game is on screen).
        self.turn_start = now if self.full_sent else None
        self.send(self.state())
        self.server.ply_played(self, len(self.moves))
        n = len(self.moves)
        if self.spec.takeback == n and self.bot_to_move() and not self.took_back:
            self.take_back(2)
        if self.spec.stall == n and not self.bot_to_move():
            self.stalled = time.monotonic()
            self.log("STALL game %s after ply %d: the stream goes silent" % (self.id, n))
        if self.spec.lose == n:
            self.log("LOSE game %s after ply %d: no gameEnd, the stream breaks" % (self.id, n))
            self.lost = True
            self.lost_bound = (max(self.clock) / 1000 + self.spec.inc + 60)
            self.end("lost by the server", tell=False)
            for q in self.streams:
                q.put("__close__")
        self.cond.notify_all()

    def take_back(self, plies):
        """The opponent takes back its move and the bot's before it, as the site lets a
        human do in a casual game without asking: the clocks as they were, the position
        keys of the plies taken back forgotten, a gameState with the shorter list."""
        for n in range(len(self.moves) - plies, len(self.moves) + 1):
            if n in self.key_at:
                self.keys[self.key_at.pop(n)] -= 1
        for _ in range(plies):
            self.moves.pop()
            self.clock = self.history.pop()
        self.analysed = -1  # the worker referees the position again
        self.took_back = True
        self.turn_start = time.monotonic()
        self.log("TAKEBACK game %s: back to ply %d" % (self.id, len(self.moves)))
        self.send(self.state())

    # -- the bot's requests ----------------------------------------------------------------
    def open_stream(self, handler):
        """The new stream's queue, with gameFull in it; None when the server still holds
        another stream for the game (the handler then breaks the answer off)."""
        q = queue.Queue()
        with self.cond:
            if self.streams:
                self.conflicts += 1
                self.log("CONFLICT game %s: a game stream opened while the server holds one"
                         % self.id)
                return None
            self.stream_opens += 1
            if self.stalled is not None:
                self.end_stall()
            self.streams[q] = handler
            if self.full_sent is None:
                self.full_sent = time.monotonic()
                if self.turn_start is None:
                    self.turn_start = self.full_sent
            line = json.dumps(self.full())
            self.log("game %s >> %s" % (self.id, line))
            q.put(line)
            if self.over:
                q.put(json.dumps({"type": "gameEnd", "game": {"id": self.id}}))
            self.cond.notify_all()
        return q

    def end_stall(self):
        """A new stream after the silence: the opponent's reply is played as if it had come
        during the silence, when the bot had spec.stall_left seconds more than it has now,
        so that a bot that takes the fresh gameFull's clock at face value overspends."""
        now = time.monotonic()
        move, self.held_move = self.held_move, None
        if move is not None and not self.over:
            bot = 0 if self.bot_white else 1
            bot_clock = self.clock[bot] / 1000  # the bot's clock as it will stand
            at = max(self.stalled + 0.1, now - (bot_clock - self.spec.stall_left))
            self.log("STALL game %s over after %.1f s: the reply %s played %.1f s ago"
                     % (self.id, now - self.stalled, move, now - at))
            self.stalled = None
            self.apply(move, at)
        self.stalled = None

    def streamed(self):
        """Whether the server holds a game stream for the game (as it does for up to
        NOTICE_SECONDS after the bot hung up)."""
        with self.cond:
            return bool(self.streams)

    def close_stream(self, q):
        with self.cond:
            self.streams.pop(q, None)

    def post_move(self, move):
        """The answer's status (200 or the planned 502) for POST .../move/{move}."""
        now = time.monotonic()
        with self.cond:
            if self.lost:
                self.log("game %s: move %s to a game the server lost, ignored" % (self.id, move))
                return 200
            if self.over:
                self.log("game %s: move %s after the end ignored" % (self.id, move))
                self.late.append(move)
                return 200
            # The worker referees each position right after it arises; a fast bot may
            # beat it by a few milliseconds.
            self.cond.wait_for(lambda: self.analysed == len(self.moves) or self.over, 10)
            if self.over:
                return 200
            if not self.bot_to_move():
                # The site ignores it and answers 200. After a takeback it can happen (the
                # move answered the longer list); anywhere else it is a double move.
                self.out_of_turn.append(move)
                if not self.spec.takeback:
                    self.fail("move %s posted out of turn after %s (a double move?)"
                              % (move, " ".join(self.moves[-2:]) or "the start"))
                return 200
            self.bot_posts += 1
            plan = self.spec.fail_move
            if move not in self.legal:
                self.fail("ILLEGAL move %s after [%s] (legal: %s)" % (
                    move, " ".join(self.moves), " ".join(sorted(self.legal))))
                self.end("bot loses by an illegal move")
                return 200
            left = self.bot_left_ms(now) if self.turn_start is not None else 1
            if left < 0:
                self.fail("lost on time: move %s came %.0f ms after its clock ran out"
                          % (move, -left))
                self.end("bot forfeits on time")
                return 200
            if plan and plan[0] == self.bot_posts and plan[1] == "a":
                self.failed_posts.append((self.bot_posts, "a"))
                self.log("game %s: 502 for %s, NOT played" % (self.id, move))
                return 502
            self.apply(move, now)
            if plan and plan[0] == self.bot_posts and plan[1] == "b":
                self.failed_posts.append((self.bot_posts, "b"))
                # The opponent waits, so that a move posted again blindly lands while it
                # is not the bot's turn and shows as a double move.
                self.hold_until = time.monotonic() + 1.5
                self.log("game %s: 502 for %s, played" % (self.id, move))
                return 502
            return 200

    def stop_by_bot(self, what):
        with self.cond:
            if not self.over:
                if not (what == "abort" and self.spec.expect == "abort"):
                    self.fail("the bot sent %s at ply %d" % (what, len(self.moves)))
                self.end("bot " + what)

    # -- the worker: referee and opponent --------------------------------------------------
    def ending(self, fen, key, check):
        """Why the position after the last move ends the game, or None (as Khun's
        Position::outcome does, so that the bot and the stand-in agree)."""
        if not self.legal:
            return "checkmate" if check else "stalemate"
        f = fen.split()
        limit, ply = f[-3], int(f[-2])
        ignored = self.spec.server_ignores
        if limit != "-" and ply > int(limit) and "counting rule" not in ignored:
            return "counting rule"
        if limit == "-" and self.spec.variant == "asean" and ply >= 100:
            return "asean fifty-move rule"
        if self.keys[key] >= 3 and "threefold repetition" not in ignored:
            return "threefold repetition"
        if len(self.moves) >= self.spec.plies and not self.bot_to_move():
            return "ply cap (%d)" % self.spec.plies
        return None

    def work(self):
        if self.spec.expect == "abort":
            return  # a position the referee (Khun) refuses too: the bot must abort the game
        eng = None
        try:
            eng = Uci(self.server.khun, self.spec.variant)
            while True:
                with self.cond:
                    if self.over or self.server.stopping:
                        return
                    n, moves = len(self.moves), list(self.moves)
                    if self.analysed != n:
                        job = "referee"
                    elif self.bot_to_move():
                        # The flag falls even if the bot never answers.
                        if self.turn_start is not None:
                            left = self.bot_left_ms(time.monotonic())
                            if left < 0:
                                self.fail("lost on time: no move in %.1f s (clock %.0f ms)" % (
                                    time.monotonic() - self.turn_start, self.bot_left_ms(
                                        self.turn_start)))
                                self.end("bot forfeits on time")
                                return
                            self.cond.wait(min(0.5, left / 1000 + 0.01))
                        else:
                            self.cond.wait(0.5)
                        continue
                    elif (self.full_sent is None or time.monotonic() < self.hold_until
                          or self.held_move is not None):
                        self.cond.wait(0.1)
                        continue
                    else:
                        job = "opponent"
                eng.position(self.spec.fen, moves)
                if job == "referee":
                    legal = eng.legal()
                    fen, key, check = eng.board()
                    with self.cond:
                        if self.moves != moves:
                            continue  # taken back meanwhile: referee the new position
                        self.legal, self.fen_now = legal, fen
                        self.keys[key] += 1
                        self.key_at[n] = key
                        self.analysed = n
                        why = self.ending(fen, key, check)
                        if why:
                            self.end(why)
                        self.cond.notify_all()
                else:
                    move = eng.bestmove(self.spec.nodes)
                    with self.cond:
                        if self.over or len(self.moves) != n:
                            continue
                        if move is None or move not in self.legal:
                            self.end("the stand-in's engine gave %s" % move)
                        elif self.stalled is not None:
                            self.held_move = move  # played when the bot opens a stream
                        else:
                            self.apply(move, time.monotonic())
        except Exception as e:  # the stand-in's own trouble: the scenario must fail
            with self.cond:
                self.fail("stand-in error: %r" % e)
                self.end("stand-in error")
        finally:
            if eng:
                eng.close()
