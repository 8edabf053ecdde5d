#!/usr/bin/env python3
"""A stand-in for pychess.org's BOT API (gbtami/pychess-variants, server/bot_api.py) that
plays the other side of games against `khun bot` and checks every move it receives.

The shapes and units are the site's, not lichess's: the account is {"id", "username",
"title"}; the event stream needs the X-PyChess-Bot-Capabilities header; gameStart carries
only strings; the game stream's clocks are milliseconds (sometimes floats) and its
increments seconds, its status always "started", and gameEnd has no result. Moves are
UCI as Fairy-Stockfish writes them (b5b6m, a7a8q). As the site does, it ignores (with
200) a move posted out of turn, lets go of a game stream only some seconds after the bot
hung up (NOTICE_SECONDS) and answers a second stream for the game 200 then breaks it off
(a conflict), and answers a lost game's stream 200 and breaks it, for ever.

The other side is a second Khun speaking UCI (games.py), which also referees each move.

Standard library only. Used by run_scenario.py (import), or by hand:
    python3 standin.py --khun build/khun --token T --game makruk:white:60+1:40
prints the port, then serves until Ctrl-C (try it with curl or `khun bot`).
"""
import argparse
import collections
import http.server
import json
import os
import queue
import random
import select
import socket
import threading
import time
import urllib.parse

from games import NOTICE_SECONDS, PING_SECONDS, Game, Log, Spec, new_id

VARIANTS_KHUN = ("makruk", "makpong", "cambodian", "asean", "sittuyin", "makrukhouse")
RETRY_LATER = 5.0  # a challenger declined with "later" challenges again this much later


class StandIn:
    """The server's state: the challenges to send, the games, and what the bot did."""

    def __init__(self, khun, token, specs, log_path=None, parallel=1, bot_name="KhunBot",
                 refuse_events=False, title="BOT"):
        self.khun, self.token, self.bot_name = khun, token, bot_name
        self.title = title                  # the account's title: "BOT" once upgraded
        self.log = Log(log_path)
        self.todo = collections.deque(specs)
        self.parallel = parallel            # challenges out or games running at once
        self.refuse_events = refuse_events  # 403 on the event stream only (a revoked token)
        self.started = time.time()
        self.lock = threading.Condition()
        self.challenges = {}  # id -> [spec, sent/accepted/declined, challenger's colour]
        self.declines = []                  # (id, variant key, reason)
        self.games = {}
        self.failures = []                  # not tied to a game
        self.capabilities = []              # the variants lists the bot advertised
        self.events = collections.deque()   # lines waiting for the event stream
        self.event_gen = 0                  # the newest event stream; older ones stop
        self.event_opens = 0
        self.event_refusals_left = 0        # 502s for the next event stream connections
        self.event_refused = 0
        self.resent = 0                     # gameStart re-sent on a reconnection
        self.auth_failures = 0
        self.stopping = False
        self.held = 0                       # challenges held back after a "later" decline
        self.held_since = 0.0
        self.last_end = None

    # -- the director: challenges, one slot at a time ----------------------------------------
    def push_event(self, obj):
        self.events.append(json.dumps(obj))
        self.lock.notify_all()

    def direct(self):
        """Send the next challenge while fewer than `parallel` are out or in play (called
        with the lock held, whenever that may have changed)."""
        if not self.capabilities:
            return  # the bot has not said what it plays yet
        if self.held and time.monotonic() - self.held_since >= RETRY_LATER:
            self.held = 0
        busy = sum(1 for c in self.challenges.values() if c[1] == "sent")
        busy += sum(1 for g in self.games.values() if not g.over)
        while self.todo and busy < self.parallel - self.held:
            spec = self.todo[0]
            if spec.when_idle and busy:
                return
            self.todo.popleft()
            cid = new_id()
            if spec.unchallenged:
                # A rematch: the game is made with no challenge, and gameStart says so.
                self.log("UNCHALLENGED game %s (%s)" % (cid, spec.variant))
                self.challenges[cid] = [spec, "unchallenged", None]
                self.games[cid] = Game(self, cid, spec, spec.bot != "black")
                self.push_event({"type": "gameStart", "game": {
                    "id": cid, "skill_level": "6", "chess960": "False"}})
                busy += 1
                continue
            color = {"white": "black", "black": "white"}.get(spec.bot, "random")
            final = color if color != "random" else random.choice(("white", "black"))
            self.challenges[cid] = [spec, "sent", final]
            est = spec.limit + 40 * spec.inc
            speed = "bullet" if est < 180 else "blitz" if est < 480 else "rapid"
            self.push_event({"type": "challenge", "challenge": {
                "id": cid, "challenger": {"name": spec.opponent, "rating": 1500, "title": ""},
                "variant": {"key": spec.key}, "rated": False,
                "timeControl": {"type": "clock", "limit": spec.limit, "increment": spec.inc},
                "color": color, "finalColor": final, "speed": speed,
                "perf": {"name": spec.key}, "level": 6, "chess960": False}})
            busy += 1

    def accept(self, cid):
        with self.lock:
            c = self.challenges.get(cid)
            if not c or c[1] != "sent":
                return False
            spec = c[0]
            c[1] = "accepted"
            if spec.expect == "swallow":
                # Accepted, but the game never starts (a custom FEN the server could not
                # set up, a gameStart lost): the bot must give the slot back by itself.
                self.log("SWALLOW challenge %s: accepted, no game will start" % cid)
                return True
            if spec.expect not in ("play", "abort") or spec.variant not in VARIANTS_KHUN:
                self.failures.append("challenge %s (%s) accepted; expected a decline (%s)"
                                     % (cid, spec.key, spec.expect))
                self.direct()
                return True
            # The challenger's colour, as the challenge said: the bot has the other.
            bot_white = c[2] == "black"
            self.games[cid] = Game(self, cid, spec, bot_white)
            start = {"type": "gameStart", "game": {"id": cid, "skill_level": "6",
                                                   "chess960": "False"}}
            self.push_event(start)
            if spec.dup_start:
                self.push_event(start)  # the site may send it twice
            return True

    def decline(self, cid, reason):
        with self.lock:
            c = self.challenges.get(cid)
            if not c or c[1] != "sent":
                return False
            c[1] = "declined"
            self.declines.append((cid, c[0].key, reason))
            if reason == "later" and c[0].expect == "play":
                # Busy: challenge again once a game has ended.
                self.todo.appendleft(c[0])
                self.held += 1
                self.held_since = time.monotonic()
            elif c[0].expect != reason:
                self.failures.append("challenge %s (%s) declined with reason %r; expected %s"
                                     % (cid, c[0].key, reason, c[0].expect))
            self.direct()
            return True

    def game_ended(self, game):
        """Called by a game (its lock held) when it ends."""
        with self.lock:
            self.last_end = game.ended_at
            self.held = 0
            self.direct()

    def ply_played(self, game, ply):
        """The planned stream drops (called with the game's lock held)."""
        what = game.spec.drops.get(ply)
        if not what:
            return
        self.log("DROP at ply %d of %s: %s" % (ply, game.id, what))
        if what in ("game", "both"):
            # A clean end of the response for "game"; the abrupt close for "both" (the
            # server holds that stream until it notices), the bot's next try refused, and
            # the event stream's first two reconnections refused, so that it comes back
            # after the server let go of the game stream: the server then re-sends
            # gameStart (as it does for a game without a game stream).
            for q in game.streams:
                q.put("__close__" if what == "game" else "__cut__")
            game.refuse_streams = 1 if what == "both" else 0
        if what in ("event", "both"):
            with self.lock:
                self.event_gen += 1  # the current event stream cuts its connection
                self.event_refusals_left = 2
                self.lock.notify_all()

    def done(self):
        with self.lock:
            return (not self.todo and all(c[1] != "sent" for c in self.challenges.values())
                    and all(g.over for g in self.games.values()))

    def stop(self):
        self.stopping = True
        with self.lock:
            self.lock.notify_all()
        for g in list(self.games.values()):
            with g.cond:
                g.cond.notify_all()
        if getattr(self, "httpd", None):
            self.httpd.shutdown()
            self.httpd.server_close()

    def serve(self, port=0):
        handler = type("Handler", (Handler,), {"standin": self})
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.log("listening on 127.0.0.1:%d" % self.httpd.server_address[1])
        return self.httpd.server_address[1]


class Handler(http.server.BaseHTTPRequestHandler):
    """The routes of server/bot_api.py. HTTP/1.1 with keep-alive; the streams are chunked,
    one JSON line per chunk, as aiohttp's StreamResponse sends them."""
    protocol_version = "HTTP/1.1"
    standin = None

    def log_message(self, fmt, *args):
        pass  # every request is logged by route() instead

    def reply(self, code, body, ctype="application/json; charset=utf-8"):
        data = (json.dumps(body) if not isinstance(body, str) else body).encode()
        self.standin.log("  -> %d %s" % (code, data[:200].decode(errors="replace")))
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def text(self, code, body):
        self.reply(code, body, "text/plain; charset=utf-8")

    def chunk(self, line):
        data = (line + "\n").encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def start_stream(self):
        self.standin.log("  -> 200 (stream)")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def route(self):
        s = self.standin
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n).decode(errors="replace") if n else ""
        s.log("%s %s%s" % (self.command, self.path, " [" + body[:200] + "]" if body else ""))
        parts = urllib.parse.urlsplit(self.path).path.strip("/").split("/")
        routes = {
            ("GET", "api/account"): self.account, ("GET", "api/account/playing"): self.playing,
            ("GET", "api/stream/event"): self.event_stream,
            ("POST", "api/challenge/*/accept"): self.accept,
            ("POST", "api/challenge/*/decline"): self.decline,
            ("GET", "api/bot/game/stream/*"): self.game_stream,
            ("POST", "api/bot/game/*/move/*"): self.move,
            ("POST", "api/bot/game/*/abort"): self.abort,
            ("POST", "api/bot/game/*/resign"): self.resign}
        for (method, pattern), fn in routes.items():
            pat = pattern.split("/")
            if method == self.command and len(pat) == len(parts) and all(
                    p == "*" or p == q for p, q in zip(pat, parts)):
                break
        else:
            return self.text(404, "404: Not Found")
        auth = self.headers.get("Authorization", "")
        if auth != "Bearer " + s.token:
            with s.lock:
                s.auth_failures += 1
            return self.text(403, "403: Forbidden")
        if s.title != "BOT" and pattern not in ("api/account", "api/account/playing"):
            return self.text(403, "403: Forbidden")  # the BOT endpoints want a BOT account
        args = [p for p, q in zip(parts, pattern.split("/")) if q == "*"]
        try:
            fn(body, *args)
        except OSError as e:  # the bot hung up: nothing to do
            s.log("%s %s: connection lost (%s)" % (self.command, self.path, e))
            self.close_connection = True

    def account(self, body):
        name = self.standin.bot_name
        self.reply(200, {"id": name, "username": name, "title": self.standin.title})

    def playing(self, body):
        self.reply(200, {"nowPlaying": []})

    def event_stream(self, body):
        s = self.standin
        raw = self.headers.get("X-PyChess-Bot-Capabilities")
        if raw is None:
            return self.text(400, "Missing required X-PyChess-Bot-Capabilities header.")
        try:
            caps = json.loads(raw)
            assert isinstance(caps, dict) and isinstance(caps.get("variants", []), list)
        except (ValueError, AssertionError):
            return self.text(400, "Invalid BOT capability header.")
        if caps.get("version") != 1:
            return self.text(400, "Unsupported BOT capability version.")
        if s.refuse_events:
            return self.text(403, "403: Forbidden")
        # Games in progress with a move played and no game stream open get gameStart
        # again, so that a bot that lost track of them resumes them. (Found before taking
        # the server's lock: a game holding its own lock may be waiting for it.)
        resume = [g.id for g in list(s.games.values())
                  if not g.over and g.moves and not g.streamed()]
        with s.lock:
            if s.event_refusals_left > 0:  # a proxy in front of a restarting server
                s.event_refusals_left -= 1
                s.event_refused += 1
                return self.text(502, "<html><body><h1>502 Bad Gateway</h1></body></html>")
            s.event_gen += 1
            gen = s.event_gen
            s.event_opens += 1
            s.capabilities.append(list(caps.get("variants", [])))
            for gid in resume:
                s.resent += 1
                s.events.append(json.dumps({"type": "gameStart", "game": {
                    "id": gid, "skill_level": "6", "chess960": "False"}}))
            s.direct()
        self.start_stream()
        last = time.monotonic()
        while True:
            with s.lock:
                s.lock.wait_for(lambda: s.events or s.event_gen != gen or s.stopping,
                                timeout=0.2)
                if s.held:
                    s.direct()  # a challenge declined "later" may be due again
                if s.event_gen != gen or s.stopping:
                    break
                if not s.events and self.gone():
                    s.log("event stream: the bot hung up")
                    return
                line = s.events.popleft() if s.events else None
            if line is None and time.monotonic() - last >= PING_SECONDS:
                line = '{"type": "ping"}'
            if line is not None:
                if line != '{"type": "ping"}':
                    s.log("event >> " + line)
                try:
                    self.chunk(line)
                except OSError:
                    with s.lock:
                        s.events.appendleft(line)  # not delivered: keep it for the next
                    raise
                last = time.monotonic()
        self.cut("event stream")

    def gone(self):
        """True when the bot closed its end: the socket reads as end of file. Noticed in
        0.2 s, not at the next ping, so that a restarted bot finds its game without a
        game stream (and gets gameStart again)."""
        try:
            if select.select([self.connection], [], [], 0)[0]:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True
        return False

    def cut(self, what):
        """Close the connection without ending the chunked body: a dropped connection."""
        self.standin.log("%s %s: connection cut" % (what, self.path))
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def game_stream(self, body, gid):
        s = self.standin
        g = s.games.get(gid)
        if g is None:
            return self.text(404, "404: Not Found")
        with g.cond:
            refuse = g.refuse_streams > 0
            g.refuse_streams -= refuse
        if refuse:
            return self.text(502, "<html><body><h1>502 Bad Gateway</h1></body></html>")
        if g.lost:
            # A game the server lost (or whose gameEnd was missed): the handler answers 200
            # and fails before the first line, for ever.
            self.start_stream()
            return self.cut("game stream of a lost game")
        q = g.open_stream(self)
        self.start_stream()
        if q is None:
            return self.cut("game stream (conflict)")
        last = time.monotonic()
        hung = None  # when the bot hung up (or the connection was cut)
        try:
            while not s.stopping:
                if hung is None and self.gone():
                    hung = time.monotonic()
                    s.log("game stream %s: the bot hung up" % gid)
                if hung is not None:
                    # Noticed at the server's next write: until then it holds the stream.
                    if time.monotonic() - hung >= NOTICE_SECONDS:
                        return s.log("game stream %s: let go" % gid)
                    time.sleep(0.2)
                    continue
                if g.stalled is not None:
                    time.sleep(0.2)  # silent: no line, no ping
                    continue
                try:
                    line = q.get(timeout=0.2)
                except queue.Empty:
                    if time.monotonic() - last < PING_SECONDS:
                        continue
                    line = '{"type": "ping"}'
                if line == "__cut__":
                    self.cut("game stream")
                    hung = time.monotonic()
                    continue
                if line == "__close__":
                    s.log("game stream %s: closed by the server" % gid)
                    self.wfile.write(b"0\r\n\r\n")
                    self.close_connection = True
                    return
                self.chunk(line)
                last = time.monotonic()
            self.cut("game stream")
        finally:
            g.close_stream(q)

    def accept(self, body, cid):
        if self.standin.accept(cid):
            return self.reply(200, {"ok": True})
        self.text(404, "404: Not Found")

    def decline(self, body, cid):
        reason = urllib.parse.parse_qs(body).get("reason", ["generic"])[0]
        if self.standin.decline(cid, reason):
            return self.reply(200, {"ok": True})
        self.text(404, "404: Not Found")

    def move(self, body, gid, mv):
        g = self.standin.games.get(gid)
        if g is None:
            return self.text(404, "404: Not Found")
        if g.post_move(mv) == 502:
            return self.text(502, "<html><body><h1>502 Bad Gateway</h1></body></html>")
        self.reply(200, {"ok": True})

    def abort(self, body, gid):
        g = self.standin.games.get(gid)
        if g:
            g.stop_by_bot("abort")
        self.reply(200, {"ok": True})

    def resign(self, body, gid):
        g = self.standin.games.get(gid)
        if g:
            g.stop_by_bot("resign")
        self.reply(200, {"ok": True})


def parse_game(text):
    """VARIANT[:BOTCOLOUR[:LIMIT+INC[:PLIES]]], e.g. makruk:black:60+1:40."""
    f = text.split(":")
    limit, inc = (f[2].split("+") if len(f) > 2 else ("60", "1"))
    return Spec(f[0], bot=f[1] if len(f) > 1 else "white", limit=int(limit), inc=int(inc),
                plies=int(f[3]) if len(f) > 3 else 60)


def main():
    ap = argparse.ArgumentParser(description="pychess.org BOT API stand-in (by hand)")
    ap.add_argument("--khun", required=True, help="the khun binary (plays the other side)")
    ap.add_argument("--token", default="test-token")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--game", action="append", default=[], help="VARIANT[:COLOUR[:L+I[:PLIES]]]")
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--log", help="request log file (default: stderr)")
    a = ap.parse_args()
    s = StandIn(os.path.abspath(a.khun), a.token, [parse_game(g) for g in a.game] or
                [Spec("makruk")], a.log, a.parallel)
    print("http://127.0.0.1:%d" % s.serve(a.port), flush=True)
    try:
        while True:
            time.sleep(1)
    except KeyboardInterrupt:
        s.stop()


if __name__ == "__main__":
    main()
