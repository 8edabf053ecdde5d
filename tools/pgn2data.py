#!/usr/bin/env python3
"""Tuner data from Cute Chess Makruk PGNs (see docs/log/tuning.md, "Fifth round").

usage: pgn2data.py [--khun PATH] [--ignore NAME]... OUT PGN...

Appends one 32-byte record (include/khun/tools/packed.h) per quiet position of each game to OUT:
the position, the game's result and the score in centipawns (White's view), the format
`khun datagen` writes and `khun tune` and `khun train` read. A position is
kept when the side to move is not in check, the move played from it is neither a
capture nor a promotion, it is at least 8 plies past the opening, and a Khun score for
it is known: the score of the move played from it, or, when the opponent moved from it,
minus the score of the Khun move that led to it. Scores of engines named with --ignore
(default: fsf) are never used; mate scores and |score| >= 1000 are skipped. Each
position (board and side to move) is written once, the first time it is met.

Khun itself (`d`, `go perft 1`) turns the SAN moves into positions.
"""
import argparse
import re
import struct
import subprocess
import sys

from cutechess_pgn import games, score

START = "rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1"
KINDS = {"p": 1, "n": 2, "s": 3, "m": 4, "r": 5, "k": 7}  # makruk's letters, PieceType order


def pack(fen, white_result, white_score):
    """The 32-byte record of include/khun/tools/packed.h for a makruk FEN (game index 0)."""
    f = fen.split()
    occ, nibbles = 0, []
    squares = {}
    for ri, row in enumerate(f[0].split("/")):
        file = 0
        for c in row:
            if c.isdigit():
                file += int(c)
            elif c != "~":
                squares[(7 - ri) * 8 + file] = (8 if c.islower() else 0) | KINDS[c.lower()]
                file += 1
    for sq in sorted(squares):
        occ |= 1 << sq
        nibbles.append(squares[sq])
    data = bytearray(16)
    for i, n in enumerate(nibbles):
        data[i // 2] |= n << (4 * (i % 2))
    limit = int(f[3]) if len(f) > 3 and f[3].isdigit() else 0
    count_ply = int(f[4]) if limit and len(f) > 4 else 0
    fullmove = int(f[5]) if len(f) > 5 else 1
    return struct.pack("<Q16shBBBBBB", occ, bytes(data), max(-32000, min(32000, white_score)),
                       round(white_result * 2), 1 if f[1] == "b" else 0, min(limit, 255),
                       min(count_ply, 255), 0, min(fullmove, 255))


class Khun:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.ask("uci", "uciok")

    def ask(self, cmd, until):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        out = []
        for line in self.p.stdout:
            out.append(line.rstrip())
            if line.startswith(until):
                break
        return out

    def state(self, fen, moves):
        """FEN (with counting fields) and legal UCI moves after `moves` from `fen`."""
        self.p.stdin.write("position fen " + fen + (" moves " + " ".join(moves) if moves else "") + "\n")
        cur = [l[5:].strip() for l in self.ask("d", "Checkers") if l.startswith("Fen:")][0]
        legal = [l.split(":")[0] for l in self.ask("go perft 1", "Nodes searched")
                 if re.match(r"^[a-h][1-8][a-h][1-8]", l)]
        return cur, legal


def board_of(fen):
    b = {}
    for ri, row in enumerate(fen.split()[0].split("/")):
        f = 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
            else:
                b["abcdefgh"[f] + str(8 - ri)] = ch
                f += 1
    return b


def san_to_uci(san, cur, legal):
    m = re.match(r"^([KMSNR])?([a-h])?([1-8])?x?([a-h][1-8])(=?[A-Z])?$", san.rstrip("+#"))
    if not m:
        return None
    pc, ff, fr, to, _ = m.groups()
    pc = pc or "P"
    b = board_of(cur)
    cands = [u for u in legal if u[2:4] == to and b.get(u[:2], "?").upper() == pc
             and (not ff or u[0] == ff) and (not fr or u[1] == fr)]
    return cands[0] if len(cands) == 1 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--khun", default="./build/khun")
    ap.add_argument("--ignore", action="append", default=None)
    ap.add_argument("out")
    ap.add_argument("pgn", nargs="+")
    a = ap.parse_args()
    ignore = set(a.ignore or ["fsf"])
    k = Khun(a.khun)
    seen = set()
    n = 0
    with open(a.out, "ab") as out:
        for f in a.pgn:
            for tags, body in games(open(f).read()):
                tag = tags.get
                result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(tag("Result"))
                if result is None:
                    continue
                fen = tag("FEN") or START
                pairs = re.findall(r"(?:\d+\.+\s*)?([A-Za-z][^\s{]*)\s*\{([^}]*)\}", body)
                sans = [p[0] for p in pairs]
                notes = [p[1] for p in pairs]
                white_first = fen.split()[1] == "w"
                moves = []
                for i, san in enumerate(sans):
                    cur, legal = k.state(fen, moves)
                    white = white_first == (i % 2 == 0)
                    mover, other = (tag("White"), tag("Black")) if white else (tag("Black"), tag("White"))
                    quiet = i >= 8 and not sans[i - 1].endswith("+") and "x" not in san and "=" not in san
                    if quiet:
                        sc = None
                        if mover not in ignore:
                            sc = score(notes[i])
                        elif other not in ignore:
                            sc = score(notes[i - 1])
                            sc = None if sc is None else -sc
                        key = " ".join(cur.split()[:2])
                        if sc is not None and abs(sc) < 1000 and key not in seen:
                            seen.add(key)
                            out.write(pack(cur, result, int(sc if white else -sc)))
                            n += 1
                    u = san_to_uci(san, cur, legal)
                    if u is None:
                        break  # a move Khun cannot read: the rest of the game is dropped
                    moves.append(u)
            print(f, n, file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
