#!/usr/bin/env python3
"""An unbalanced opening book, as fishtest's: positions in which one side is ahead by a
fixed band according to a deeper search, to be played twice with the colours swapped
(tools/referee.py --openings, or Cute Chess's -openings file=... format=epd -repeat).
The pair's result then measures the engines, and fewer games are drawn than from
balanced openings (issue #81).

    python3 tools/book.py --engine build/khun --openings openings.epd --plies 6 \\
        --nodes 200000 --band 330 450 --playout 20000 --count 200 --out book.epd

(docs/tuning.md, "Unbalanced openings", has the exact command of each book in books/ and
how its band and playout were chosen.)

Each candidate is the start position (or a line of --openings, chosen at random) after
--plies random legal moves (from the engine's `go perft 1`); a candidate whose game is
over (no legal move) is skipped. The engine (Threads 1, Hash 16, a new game each time)
searches it to --nodes; the last `score cp` of its `info` lines, from the side to move,
is turned to White's view, and the candidate is kept when the absolute score lies within
--band LO HI (centipawns, both ends included; a mate score is outside any band). With
--playout NODES a position in the band is kept only when the side the score puts ahead
wins a game the engine then plays against itself from it at NODES a move (a new game;
the rules end it as `d`'s Outcome line names them, and --playout-plies, default 400, is a
draw): positions where being ahead is not enough to win, mostly bare material that the
count draws, are the ones an unbalanced book has least use for. The
kept positions, without repeats (by FEN), are written to --out as EPD lines (board, side,
castling, en passant, `hmvc H; fmvn F;`), in the candidates' order, which depends only on
--seed: candidate i draws its moves from its own generator, seeded with (seed, i), so
--jobs (engine processes searching candidates side by side) changes the speed, not the
book: a search to a node count after ucinewgame does not depend on what the engine
searched before (Khun: tests/search/test_nodes.cpp). It stops after --count positions, or
after --max-candidates candidates.

A progress line goes to stderr; the last line on stdout says how many positions were
written out of how many candidates (and, with --playout, how many were in the band).
Exit status 0; 2 for bad arguments or an unreadable --openings file (a one-line error);
1 when the engine fails. Python 3 standard library only.
"""
import argparse
import os
import random
import sys
import threading

from engine_process import EngineError, EngineProcess
from referee import read_board, read_openings

TIMEOUT = 60.0  # seconds an engine may stay silent


class Engine(EngineProcess):
    """A UCI engine set up for the book's searches."""

    def __init__(self, argv, variant):
        super().__init__(argv, argv[0])
        self.send("uci")
        self.until(lambda l: l == "uciok", TIMEOUT)
        for name, value in (("Threads", "1"), ("Hash", "16"), ("UCI_Variant", variant)):
            self.send("setoption name %s value %s" % (name, value))
        self.sync()

    def until(self, done, timeout=TIMEOUT, fail=None):
        # A refused position or option is an error, not a silent search of another one.
        return super().until(done, timeout, lambda l: l.startswith("info string error"))

    def sync(self):
        self.send("isready")
        self.until(lambda l: l == "readyok")

    def position(self, fen, moves=()):
        cmd = "position " + ("fen " + fen if fen else "startpos")
        self.send(cmd + (" moves " + " ".join(moves) if moves else ""))
        self.sync()

    def legal(self):
        """The legal moves of the current position."""
        self.send("go perft 1")
        lines = self.until(lambda l: l.startswith("Nodes searched"))
        # "b5b6m: 1" per legal move, then "Nodes searched: N" (as tests/bot/games.py).
        return sorted(l.split(": ")[0] for l in lines[:-1] if l.split(": ")[-1].isdigit())

    def board(self):
        """The current position's FEN and, when its game is over by the rules, the result
        `d` names (Khun's `Outcome: 1-0 {checkmate}`: "1-0", "0-1" or "1/2-1/2"), else None."""
        self.send("d")
        self.send("isready")
        fen, ended = read_board(self.until(lambda l: l == "readyok"))
        if fen is None:
            raise EngineError("%s does not show its position (d)" % self.name)
        return fen, ended[0] if ended else None

    def fen(self):
        return self.board()[0]

    def search(self, nodes):
        """The lines of a search of the current position to `nodes`, bestmove last."""
        self.send("go nodes %d" % nodes)
        return self.until(lambda l: l.startswith("bestmove"))

    def score(self, nodes):
        """The last `score cp` of a search of the current position, from the side to move;
        None for a mate score."""
        score = None
        for line in self.search(nodes):
            words = line.split()
            if words[0] == "info" and "score" in words:
                i = words.index("score")
                score = int(words[i + 2]) if words[i + 1] == "cp" else None
        return score


def white_score(engine, fen, nodes):
    """The search's score of fen from White's side (None for a mate)."""
    engine.send("ucinewgame")
    engine.position(fen)
    score = engine.score(nodes)
    if score is None:
        return None
    return score if fen.split()[1] == "w" else -score


def playout(engine, fen, nodes, max_plies):
    """The result, from White's side (1, 0 or -1), of a game the engine plays against
    itself from fen at `nodes` a move, as the rules end it (`d`'s Outcome line: mate, the
    count, the fifty-move rule, repetition); a game that reaches max_plies is a draw."""
    engine.send("ucinewgame")
    moves = []
    while True:
        engine.position(fen, moves)
        result = engine.board()[1]
        if result:
            return {"1-0": 1, "0-1": -1}.get(result, 0)
        if len(moves) >= max_plies:
            return 0
        move = engine.search(nodes)[-1].split()[1]
        if move in ("(none)", "0000"):  # an engine whose `d` does not name the end
            raise EngineError("%s has no move, and its `d` no Outcome line" % engine.name)
        moves.append(move)


def candidate(engine, index, args, openings):
    """Candidate index: (fen, in_band, kept), or None when its game is over. in_band: the
    search's score lies in the band; kept: that and, with --playout, the side it puts
    ahead won the playout."""
    rng = random.Random("%d:%d" % (args.seed, index))
    start = rng.choice(openings)
    moves = []
    for _ in range(args.plies):
        engine.position(start, moves)
        legal = engine.legal()
        if not legal:
            return None
        moves.append(rng.choice(legal))
    engine.position(start, moves)
    if not engine.legal():
        return None
    fen = engine.fen()
    score = white_score(engine, fen, args.nodes)
    lo, hi = args.band
    in_band = score is not None and lo <= abs(score) <= hi
    kept = in_band and (not args.playout or playout(
        engine, fen, args.playout, args.playout_plies) == (1 if score > 0 else -1))
    return fen, in_band, kept


def epd(fen):
    """The FEN as an EPD line: the position's fields (board, side, castling, en passant and,
    in karouk, the checks left, `1+1`), then the last two, the counters, as hmvc and fmvn."""
    f = fen.split()
    return "%s hmvc %s; fmvn %s;" % (" ".join(f[:-2]), f[-2], f[-1])


class Book:
    """The candidates' results, handed out and gathered by index so that the book is the
    same with any number of jobs."""

    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.next = 0
        self.results = {}   # index -> (fen, in_band, kept) or None
        self.done = 0       # candidates 0 .. done-1 all have results
        self.kept = []      # their fens in the band, without repeats, in order
        self.in_band = 0    # candidates whose score is in the band, played out or not
        self.seen = set()
        self.error = None

    def take(self):
        """The next candidate's index, or None when the book is complete."""
        with self.lock:
            if (self.error or len(self.kept) >= self.args.count
                    or self.next >= self.args.max_candidates):
                return None
            self.next += 1
            return self.next - 1

    def put(self, index, result):
        with self.lock:
            self.results[index] = result
            while self.done in self.results:
                r = self.results.pop(self.done)
                self.done += 1
                if r and r[1]:
                    self.in_band += 1
                if r and r[2] and r[0] not in self.seen and len(self.kept) < self.args.count:
                    self.seen.add(r[0])
                    self.kept.append(r[0])
            print("\rbook: %d of %d positions, %d candidates" % (
                len(self.kept), self.args.count, self.done), end="", file=sys.stderr, flush=True)

    def work(self, openings):
        try:
            engine = Engine(self.args.engine, self.args.variant)
        except EngineError as e:
            self.error = str(e)
            return
        try:
            while True:
                index = self.take()
                if index is None:
                    break
                self.put(index, candidate(engine, index, self.args, openings))
        except EngineError as e:
            self.error = str(e)
        finally:
            engine.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", default="build/khun", help="the UCI engine's command")
    ap.add_argument("--variant", default="makruk")
    ap.add_argument("--openings", help="FEN/EPD file to start from (default: the start)")
    ap.add_argument("--plies", type=int, default=4, help="random moves from the start")
    ap.add_argument("--nodes", type=int, default=200000, help="nodes a search")
    ap.add_argument("--band", type=int, nargs=2, metavar=("LO", "HI"), default=[80, 150],
                    help="centipawns, White's score's absolute value")
    ap.add_argument("--playout", type=int, metavar="NODES",
                    help="keep only positions the side ahead wins, the engine playing itself "
                    "at NODES a move")
    ap.add_argument("--playout-plies", type=int, default=400,
                    help="a playout this long is a draw")
    ap.add_argument("--count", type=int, default=100, help="positions to write")
    ap.add_argument("--max-candidates", type=int, help="default: 100 x --count")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1, help="engine processes at once")
    ap.add_argument("--out", required=True, help="the EPD file to write")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return 2 if e.code else 0
    try:
        lo, hi = args.band
        if lo < 0 or hi < lo:
            raise ValueError("bad --band %d %d: 0 <= LO <= HI please" % (lo, hi))
        if args.plies < 0 or args.nodes < 1 or args.count < 1 or args.jobs < 1:
            raise ValueError("--plies must be >= 0; --nodes, --count and --jobs >= 1")
        if args.playout is not None and (args.playout < 1 or args.playout_plies < 1):
            raise ValueError("--playout and --playout-plies must be >= 1")
        if args.max_candidates is None:
            args.max_candidates = 100 * args.count
        if args.max_candidates < 1:
            raise ValueError("--max-candidates must be >= 1")
        openings = read_openings(args.openings) if args.openings else [""]
        args.engine = [args.engine]
        if not os.access(args.engine[0], os.X_OK):
            raise ValueError("no engine at " + args.engine[0])
    except (ValueError, OSError) as e:
        print("book: " + str(e), file=sys.stderr)
        return 2
    book = Book(args)
    threads = [threading.Thread(target=book.work, args=(openings,)) for _ in range(args.jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(file=sys.stderr)
    if book.error:
        print("book: " + book.error, file=sys.stderr)
        return 1
    try:
        with open(args.out, "w", encoding="utf-8") as f:
            for fen in book.kept:
                f.write(epd(fen) + "\n")
    except OSError as e:
        print("book: " + str(e), file=sys.stderr)
        return 2
    played = (", %d in the band" % book.in_band) if args.playout else ""
    print("book: %d positions out of %d candidates%s written to %s" % (
        len(book.kept), book.done, played, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
