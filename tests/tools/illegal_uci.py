#!/usr/bin/env python3
"""A UCI engine that answers every `go` with a1a5, a move no side may play from the start
(White's rook is blocked by its own pawn on a3, and Black has no piece there): the referee
test checks that tools/referee.py gives the game to the other side and says why."""
import sys

for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name illegal\nuciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        print("bestmove a1a5", flush=True)
    elif words[0] == "quit":
        break
