"""Reading Cute Chess PGNs, for the tools that learn from match games (pgn2data.py,
pgnstats.py, sprt.py): the games of a file, the tokens of a game's movetext, the score,
depth and time Cute Chess writes as each move's comment ({+0.19/17 0.43s}, {-M3/12 5ms}),
and the opening's moves that precede the engines' own. Standard library only.
"""

import re

# score/depth time: the score a signed decimal in pawns or a mate (M5, -M3), the time in
# s or ms; a comment without the time still gives the score.
STATS = re.compile(r"^\s*([+-]?)(M?)(\d+(?:\.\d+)?)/(\d+)(?: (\d+(?:\.\d+)?)(ms|s)\b)?")

# A movetext token: a comment, a move number ("12." or "12..."), a result, or a move.
TOKEN = re.compile(r"\{([^}]*)\}|(\d+\.+)|(1-0|0-1|1/2-1/2|\*)|(\S+)")


def games(text):
    """Yields (tags, movetext) for each game in a PGN file's text."""
    tags, body = {}, []
    for line in text.splitlines():
        m = re.match(r'^\[(\w+) "(.*)"\]\s*$', line)
        if m:
            if body:
                yield tags, "\n".join(body)
                tags, body = {}, []
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            body.append(line)
    if body:
        yield tags, "\n".join(body)


def stats(comment):
    """(centipawns from the mover's side or None for a mate, depth, seconds or None) from a
    move's comment, or None when it holds no statistics (the result's reason, a book move)."""
    m = STATS.match(comment)
    if not m:
        return None
    sign, mate, value, depth, time, unit = m.groups()
    cp = None if mate else float(value) * 100 * (-1 if sign == "-" else 1)
    seconds = None if time is None else float(time) / (1000 if unit == "ms" else 1)
    return cp, int(depth), seconds


def score(comment):
    """The comment's score in centipawns from the mover's side; None for a mate or none."""
    st = stats(comment)
    return st[0] if st else None


def mate_sign(comment):
    """+1 when the comment's score is a mate for the mover (M5), -1 a mate against it (-M3),
    0 for any other score or none."""
    m = STATS.match(comment)
    if not m or not m.group(2):
        return 0
    return -1 if m.group(1) == "-" else 1


def opening_moves(movetext):
    """The moves played before the engines' own, as a tuple: those before the first move
    whose comment holds statistics (an opening suite's moves have none, or {book}). None
    when no move has statistics (referee.py's games, Cute Chess's pgnout min), where the
    opening cannot be told from the engines' moves."""
    moves = []
    for comment, _number, _result, move in TOKEN.findall(movetext):
        if move:
            moves.append(move)
        elif comment and stats(comment) and moves:
            return tuple(moves[:-1])
    return None
