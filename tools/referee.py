#!/usr/bin/env python3
"""A match referee for games Cute Chess does not know (makrukhouse): two UCI engines play,
and a third engine, the oracle, spoken to in CECP (xboard), holds the game and its rules.

Every move an engine plays is sent to the oracle as `usermove`; "Illegal move" loses the
game for the engine that played it. Before each move the oracle is asked to `go` at depth 1
(then `undo`): a CECP engine that knows the game answers a finished game with its result
instead of a move (Fairy-Stockfish does for mate, stalemate, the count and repetition,
which is how pychess.org ends them). Khun answers mate and stalemate so, and leaves the
draws by rule to the GUI, as Cute Chess wants; its `d` names them (`Outcome:`), and the
referee reads that line first. The referee keeps the clocks (a flag loses), forfeits
an engine that dies or stops answering, and draws a game that reaches --maxplies.

    tools/referee.py --variant makrukhouse \\
        --oracle cmd=fairy-stockfish option.VariantPath=makrukhouse.ini \\
        --engine name=khun cmd=build/khun \\
        --engine name=fsf cmd=fairy-stockfish option.VariantPath=makrukhouse.ini \\
        --openings openings.epd --games 100 --tc 10+0.1 --pgnout games.pgn

Colours alternate game by game and each opening is played twice, once with each engine
as White. Exit status: 0 when every move was legal and no engine crashed, 1 otherwise,
2 for bad arguments. Python 3 standard library only.
"""
import argparse
import re
import shlex
import sys
import time

from engine_process import EngineError, EngineProcess
from sprt import elo_error


class Process(EngineProcess):
    """An engine from its --engine/--oracle settings."""

    def __init__(self, spec):
        super().__init__(shlex.split(spec["cmd"]), spec.get("name", spec["cmd"]), spec.get("dir"))
        self.options = spec["options"]


class UciPlayer(Process):
    def __init__(self, spec, variant):
        super().__init__(spec)
        self.send("uci")
        self.until(lambda l: l == "uciok", 10)
        # The engine's own options first: Fairy-Stockfish needs its VariantPath before
        # the variant that file defines.
        for name, value in self.options:
            self.send("setoption name %s value %s" % (name, value))
        self.send("setoption name UCI_Variant value " + variant)
        self.sync()

    def sync(self, timeout=10):
        self.send("isready")
        self.until(lambda l: l == "readyok", timeout)

    def new_game(self):
        self.send("ucinewgame")
        self.sync()

    def go(self, fen, moves, limits, clocks, white):
        """The engine's move and the seconds it took to answer."""
        pos = "position " + ("fen " + fen if fen else "startpos")
        self.send(pos + (" moves " + " ".join(moves) if moves else ""))
        if limits.tc:
            inc = int(limits.inc * 1000)
            go = "go wtime %d btime %d winc %d binc %d" % (
                max(1, clocks[0] * 1000), max(1, clocks[1] * 1000), inc, inc)
            if limits.moves:
                go += " movestogo %d" % limits.moves_to_go(len(moves) // 2)
            wait = clocks[0 if white else 1] + 5.0
        elif limits.nodes:
            go, wait = "go nodes %d" % limits.nodes, 60.0
        else:
            go, wait = "go movetime %d" % limits.movetime, limits.movetime / 1000 + 5.0
        start = time.monotonic()
        self.send(go)
        line = self.until(lambda l: l.startswith("bestmove"), wait)[-1]
        used = time.monotonic() - start
        words = line.split()
        if len(words) < 2 or words[1] in ("(none)", "0000", "null"):
            raise EngineError("%s gave no move (%s)" % (self.name, line))
        return words[1], used


def split_result(text):
    """(result, reason) from a result line, `1/2-1/2 {counting rule}`; None if it is not one."""
    result, _, reason = text.partition(" ")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    return result, reason.strip("{} ") or "game over"


def read_board(lines):
    """(FEN, (result, reason) or None) from Khun's `d` lines: its `Fen:` line and, when the
    game is over by a rule, its `Outcome: 1/2-1/2 {counting rule}` line. CECP's comment
    marks ("# ") are dropped; the FEN is None when no line gives it."""
    fen, ended = None, None
    for l in lines:
        l = l.lstrip("# ")
        if l.startswith("Fen: ") and fen is None:
            fen = l.split("Fen: ", 1)[1]
        elif l.startswith("Outcome: ") and ended is None:
            ended = split_result(l.split("Outcome: ", 1)[1])
    return fen, ended


class XboardOracle(Process):
    """The game's rules, from a CECP engine in force mode."""

    def __init__(self, spec, variant):
        super().__init__(spec)
        self.variant = variant
        self.pings = 0
        self.send("xboard")
        self.send("protover 2")
        self.until(lambda l: "done=1" in l, 10)
        for name, value in self.options:
            self.send("option %s=%s" % (name, value))
        self.sync()

    def sync(self, timeout=10):
        """The lines the oracle wrote since the last sync."""
        self.pings += 1
        tag = "pong %d" % self.pings
        self.send("ping %d" % self.pings)
        return self.until(lambda l: l == tag, timeout)[:-1]

    def new_game(self, fen):
        self.send("new")
        self.send("variant " + self.variant)
        self.send("force")
        self.send("sd 1")  # `new` clears the depth limit
        if fen:
            self.send("setboard " + fen)
        errors = [l for l in self.sync() if l.startswith(("Error", "Illegal", "tellusererror"))]
        if errors:
            raise EngineError("the oracle refuses the position %s: %s" % (fen, errors[0]))

    def play(self, move):
        """False when the oracle refuses the move: "Illegal move", or (Khun in force mode,
        which Cute Chess needs) "Error (illegal move in force mode)"."""
        self.send("usermove " + move)
        return not any(l.startswith(("Illegal move", "Error")) for l in self.sync())

    def board(self):
        """The oracle's position and, when the game is over by a rule its `d` names
        (Khun's `Outcome: 1/2-1/2 {counting rule}`), (result, reason); else None. Khun
        writes its `d` lines as CECP comments."""
        self.send("d")
        fen, ended = read_board(self.sync())
        if fen is None:
            raise EngineError("the oracle does not show its position (d)")
        return fen, ended

    def fen(self):
        return self.board()[0]

    def result(self):
        """(result, reason) when the game is over, else None."""
        before, ended = self.board()
        # Mates and stalemates come from `go` below, in the words of the CECP result line.
        if ended and ended[0] == "1/2-1/2":
            return ended
        self.send("go")
        line = self.until(lambda l: l.startswith(("move ", "1-0", "0-1", "1/2-1/2")), 30)[-1]
        self.send("force")
        if not line.startswith("move "):
            self.sync()
            return split_result(line)
        # Take the oracle's move back, if it made it: Fairy-Stockfish writes `move` before
        # it plays the move on its board, and a search that ends before `go` has returned
        # leaves the board as it was.
        if self.fen() != before:
            self.send("undo")
            if self.fen() != before:
                raise EngineError("the oracle lost the game's position")
        return None


class Limits:
    def __init__(self, args):
        self.tc = self.moves = self.base = self.inc = 0
        self.nodes, self.movetime = args.nodes, args.movetime
        if args.tc:
            # Cute Chess's form: [moves/]seconds[+increment]
            text = args.tc
            if "/" in text:
                moves, text = text.split("/", 1)
                self.moves = int(moves)
            base, _, inc = text.partition("+")
            self.base, self.inc = float(base), float(inc or 0)
            if self.base <= 0 or self.inc < 0 or self.moves < 0:
                raise ValueError("bad --tc " + args.tc)
            self.tc = args.tc

    def moves_to_go(self, full_moves):
        return self.moves - full_moves % self.moves


def parse_engine(tokens):
    spec = {"options": []}
    for t in tokens:
        key, eq, value = t.partition("=")
        if not eq:
            raise ValueError("engine setting without '=': " + t)
        if key.startswith("option."):
            spec["options"].append((key[len("option."):], value))
        elif key in ("name", "cmd", "dir"):
            spec[key] = value
        else:
            raise ValueError("unknown engine setting " + key)
    if "cmd" not in spec:
        raise ValueError("an engine needs cmd=")
    return spec


def epd_to_fen(line):
    """An EPD line's position as a FEN: its four fields (the board with any holdings, side,
    castling, en passant, and karouk's checks left as `W+B` where written), then the hmvc and
    fmvn operations' counters. Makruk's EPD files write no en passant square, some a
    placeholder number: it becomes '-'."""
    tokens = line.split()
    fields = tokens[:4] + ["-"] * (4 - len(tokens[:4]))
    if fields[3][:1].isdigit():
        fields[3] = "-"
    if len(tokens) > 4 and re.fullmatch(r"\d+\+\d+", tokens[4]):
        fields.append(tokens.pop(4))
    ops = dict(op.split(None, 1) for op in " ".join(tokens[4:]).split(";") if len(op.split()) > 1)
    return " ".join(fields + [ops.get("hmvc", "0").strip(), ops.get("fmvn", "1").strip()])


def read_openings(path):
    """FENs, one per line, or EPD lines (with a ';'); '#' starts a comment line."""
    fens = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if ";" in line:
                fens.append(epd_to_fen(line))
            else:
                fields = line.split()
                fens.append(" ".join(fields if len(fields) >= 6 else fields[:4] + ["0", "1"]))
    if not fens:
        raise ValueError("no positions in " + path)
    return fens


def white_moves_first(fen):
    return not fen or fen.split()[1] == "w"


def play_game(players, oracle, fen, limits, maxplies):
    """(result, reason, moves, illegal) with players = (white, black)."""
    for p in players:
        p.new_game()
    oracle.new_game(fen)
    moves, clocks = [], [limits.base, limits.base]
    white_first = white_moves_first(fen)
    while True:
        ended = oracle.result()
        if ended:
            return ended + (moves, False)
        if len(moves) >= maxplies:
            return "1/2-1/2", "adjudicated after %d plies" % maxplies, moves, False
        white = (len(moves) % 2 == 0) == white_first
        side = 0 if white else 1
        mover = players[side]
        loss = "0-1" if white else "1-0"
        try:
            move, used = mover.go(fen, moves, limits, clocks, white)
        except EngineError as e:
            return loss, "%s forfeits: %s" % (mover.name, e), moves, False
        if limits.tc:
            clocks[side] -= used
            if clocks[side] < -limits.margin:
                return loss, "%s loses on time" % mover.name, moves, False
            clocks[side] += limits.inc
        if not oracle.play(move):
            return loss, "%s plays an illegal move %s" % (mover.name, move), moves, True
        moves.append(move)


def pgn(game, variant, event, fen, white, black, result, reason, moves, tc):
    tags = [("Event", event), ("Site", "referee.py"), ("Round", str(game)),
            ("White", white), ("Black", black), ("Result", result), ("Variant", variant)]
    if tc:
        tags.append(("TimeControl", tc))
    if fen:
        tags += [("FEN", fen), ("SetUp", "1")]
    tags.append(("Termination", reason))
    out = "".join('[%s "%s"]\n' % (k, v.replace('"', "'")) for k, v in tags) + "\n"
    # The moves in the engines' own (UCI) notation.
    number = int(fen.split()[-1]) if fen else 1
    words, black_first = [], not white_moves_first(fen)
    for i, m in enumerate(moves):
        if i == 0 and black_first:
            words.append("%d..." % number)
        elif (i % 2 == 0) != black_first:
            words.append("%d." % number)
        words.append(m)
        if (i % 2 == 1) != black_first:
            number += 1
    words.append("{%s} %s" % (reason, result))
    lines, line = [], ""
    for w in words:
        if len(line) + len(w) + 1 > 79:
            lines.append(line)
            line = w
        else:
            line = (line + " " + w).strip()
    lines.append(line)
    return out + "\n".join(lines) + "\n\n"


def elo(w, l, d):
    """Elo and its 95% error from the trinomial (win/draw/loss) score variance; sprt.py
    gives the game pairs' figures too."""
    return elo_error([l, d, w], (0, 0.5, 1))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", required=True)
    ap.add_argument("--oracle", nargs="+", required=True, metavar="KEY=VALUE",
                    help="the CECP engine that holds the rules: cmd=, option.NAME=VALUE")
    ap.add_argument("--engine", nargs="+", action="append", required=True,
                    metavar="KEY=VALUE", help="twice: name=, cmd=, dir=, option.NAME=VALUE")
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--openings", help="FEN/EPD file, used in order, each twice")
    ap.add_argument("--tc", help="seconds[+increment] per game, as Cute Chess writes it")
    ap.add_argument("--nodes", type=int, default=0)
    ap.add_argument("--movetime", type=int, default=0, help="milliseconds a move")
    ap.add_argument("--timemargin", type=int, default=50,
                    help="milliseconds a flag may overrun before it loses (pipe latency)")
    ap.add_argument("--maxplies", type=int, default=600)
    ap.add_argument("--pgnout")
    ap.add_argument("--event", default="referee match")
    args = ap.parse_args(argv)
    try:
        if len(args.engine) != 2:
            raise ValueError("two --engine please")
        if sum(bool(x) for x in (args.tc, args.nodes, args.movetime)) != 1:
            raise ValueError("one of --tc, --nodes, --movetime")
        if args.games < 1 or args.maxplies < 1:
            raise ValueError("--games and --maxplies must be positive")
        limits = Limits(args)
        limits.margin = args.timemargin / 1000
        specs = [parse_engine(e) for e in args.engine]
        oracle_spec = parse_engine(args.oracle)
        oracle_spec.setdefault("name", "oracle")
        openings = read_openings(args.openings) if args.openings else [""]
    except (ValueError, OSError) as e:
        print("referee: " + str(e), file=sys.stderr)
        return 2

    names = [s.get("name", s["cmd"]) for s in specs]
    score = {"w": 0, "l": 0, "d": 0}  # for the first engine
    faults = 0
    out = open(args.pgnout, "w", encoding="utf-8") if args.pgnout else None
    try:
        oracle = XboardOracle(oracle_spec, args.variant)
        engines = [UciPlayer(s, args.variant) for s in specs]
    except EngineError as e:
        print("referee: " + str(e), file=sys.stderr)
        return 1
    for g in range(args.games):
        first_white = g % 2 == 0
        white, black = (engines[0], engines[1]) if first_white else (engines[1], engines[0])
        fen = openings[(g // 2) % len(openings)]
        print("Started game %d of %d (%s vs %s)" % (g + 1, args.games, white.name, black.name),
              flush=True)
        try:
            result, reason, moves, illegal = play_game((white, black), oracle, fen, limits,
                                                       args.maxplies)
        except EngineError as e:  # the oracle itself failed: the match cannot go on
            print("referee: " + str(e), file=sys.stderr)
            return 1
        if illegal or "forfeits" in reason:
            faults += 1
            # A dead engine is restarted for the next game.
            for i, e in enumerate(engines):
                if e.p.poll() is not None:
                    engines[i] = UciPlayer(specs[i], args.variant)
        first_won = (result == "1-0") == first_white
        key = "d" if result == "1/2-1/2" else ("w" if first_won else "l")
        score[key] += 1
        print("Finished game %d (%s vs %s): %s {%s}" % (g + 1, white.name, black.name, result,
                                                       reason), flush=True)
        n = g + 1
        print("Score of %s vs %s: %d - %d - %d  [%.3f] %d" % (
            names[0], names[1], score["w"], score["l"], score["d"],
            (score["w"] + score["d"] / 2) / n, n), flush=True)
        if out:
            out.write(pgn(g + 1, args.variant, args.event, fen, white.name, black.name, result,
                          reason, moves, args.tc))
            out.flush()
    e = elo(score["w"], score["l"], score["d"])
    print("Elo difference: " + ("%.1f +/- %.1f" % e if e else "n/a"))
    print("Illegal moves or forfeits: %d" % faults)
    for p in engines + [oracle]:
        p.close()
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
