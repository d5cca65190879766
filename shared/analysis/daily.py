"""The daily problem: a position from real play, the same for everyone on a given day
(docs/analysis.md "Daily problem").

Positions come from recorded three-cushion matches: the balls as they stood before a stroke that
did not score (a position a player actually faced and missed). ``pick`` chooses one by the date,
so every player gets the same problem that day; the bot's best answer is found by the client
(``client/bot/daily.py``) with the hints' search.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass

from shared.analysis.reading import balls_before
from shared.protocol.to_client import Replay, StrokePlayed
from shared.table import BALLS, BallName, Point


@dataclass(frozen=True, slots=True)
class Position:
    """Where the balls stood before a stroke of a recorded match, and whose ball was to play."""

    match_id: int
    n: int  # the stroke's number in the match
    discipline: str
    table: str
    cue: BallName
    balls: tuple[Point, Point, Point]  # white, yellow, red


def missed_positions(replay: Replay) -> list[Position]:
    """Every three-cushion position of the replay whose stroke did not score (no foul either:
    the position was a fair problem)."""
    if replay.room.discipline != "three_cushion":
        return []
    table = replay.room.options.table or "match"
    out: list[Position] = []
    for entry in replay.strokes:
        body = entry.body
        if not isinstance(body, StrokePlayed) or body.result.points or body.result.foul:
            continue
        before = balls_before(body.trajectory.segments())
        if any(b not in before for b in BALLS):
            continue
        w, y, r = (before[b] for b in BALLS)
        cue = body.stroke.ball
        out.append(Position(replay.match_id, entry.n, "three_cushion", table, cue, (w, y, r)))
    return out


def pick(positions: Sequence[Position], day: datetime.date) -> Position | None:
    """The day's problem: the same choice for everyone with the same positions on that date."""
    if not positions:
        return None
    ordered = sorted(positions, key=lambda p: (p.match_id, p.n))
    return ordered[day.toordinal() % len(ordered)]
