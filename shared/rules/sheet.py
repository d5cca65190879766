"""The scoresheet of a match (R-PLAY-2): each player's points, innings, general average and
high run, per set and in total. Its wire form is built in ``shared.wireviews``."""

from __future__ import annotations

from dataclasses import dataclass

from shared.rules.state import MatchState, SetRecord
from shared.rules.verdict import GameOver, Seat


def average(points: int, innings: int) -> float:
    """R-PLAY-2: general average = points ÷ innings (0 before the first inning)."""
    return points / innings if innings else 0.0


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line on a scoresheet."""

    points: int
    innings: int
    average: float
    high_run: int


@dataclass(frozen=True, slots=True)
class SetSheet:
    number: int  # 1-based
    breaker: Seat
    lines: tuple[Line, Line]
    result: GameOver | None


@dataclass(frozen=True, slots=True)
class Scoresheet:
    sets: tuple[SetSheet, ...]
    match: tuple[Line, Line]  # totals over the sets: general average, best high run
    sets_won: tuple[int, int]
    result: GameOver | None


def _line(rec: SetRecord, seat: Seat) -> Line:
    return Line(
        rec.points[seat],
        rec.innings[seat],
        average(rec.points[seat], rec.innings[seat]),
        rec.high_run[seat],
    )


def scoresheet(state: MatchState) -> Scoresheet:
    sheets = tuple(
        SetSheet(i + 1, rec.breaker, (_line(rec, 0), _line(rec, 1)), rec.result)
        for i, rec in enumerate(state.sets)
    )
    totals = []
    for seat in (0, 1):
        points = sum(r.points[seat] for r in state.sets)
        innings = sum(r.innings[seat] for r in state.sets)
        high = max(r.high_run[seat] for r in state.sets)
        totals.append(Line(points, innings, average(points, innings), high))
    won = [0, 0]
    for rec in state.sets:
        if rec.result is not None and rec.result.winner is not None:
            won[rec.result.winner] += 1
    return Scoresheet(sheets, (totals[0], totals[1]), (won[0], won[1]), state.result)
