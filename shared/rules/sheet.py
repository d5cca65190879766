"""The scoresheet of a match (R-PLAY-2): each side's points, innings, general average and
high run, per set and in total, and in a team match each player's own points, innings and
average (R-TEAM-5). Its wire form is built in ``shared.wireviews``."""

from __future__ import annotations

from dataclasses import dataclass

from shared.rules import lineup
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
class PlayerLine:
    """One player's own figures (R-TEAM-5): the points the player scored and the innings of
    the side in which the player struck. A high run belongs to the side."""

    side: Seat
    slot: int  # the player's place in the side's line-up
    points: int
    innings: int
    average: float


@dataclass(frozen=True, slots=True)
class SetSheet:
    number: int  # 1-based
    breaker: Seat
    lines: tuple[Line, Line]  # per side
    result: GameOver | None
    players: tuple[PlayerLine, ...] = ()  # per player index; singles: as the sides' lines


@dataclass(frozen=True, slots=True)
class Scoresheet:
    sets: tuple[SetSheet, ...]
    match: tuple[Line, Line]  # totals over the sets: general average, best high run
    sets_won: tuple[int, int]
    result: GameOver | None
    players: tuple[PlayerLine, ...] = ()  # totals over the sets, per player index


def _line(rec: SetRecord, seat: Seat) -> Line:
    return Line(
        rec.points[seat],
        rec.innings[seat],
        average(rec.points[seat], rec.innings[seat]),
        rec.high_run[seat],
    )


def _players(points: tuple[int, ...], innings: tuple[int, ...]) -> tuple[PlayerLine, ...]:
    return tuple(
        PlayerLine(lineup.side_of(p), lineup.slot_of(p), pts, inn, average(pts, inn))
        for p, (pts, inn) in enumerate(zip(points, innings, strict=True))
    )


def scoresheet(state: MatchState) -> Scoresheet:
    sheets = tuple(
        SetSheet(
            i + 1,
            rec.breaker,
            (_line(rec, 0), _line(rec, 1)),
            rec.result,
            _players(rec.player_points, rec.player_innings),
        )
        for i, rec in enumerate(state.sets)
    )
    n = state.options.players
    player_totals = _players(
        tuple(sum(r.player_points[p] for r in state.sets) for p in range(n)),
        tuple(sum(r.player_innings[p] for r in state.sets) for p in range(n)),
    )
    totals = []
    for seat in lineup.SIDES:
        points = sum(r.points[seat] for r in state.sets)
        innings = sum(r.innings[seat] for r in state.sets)
        high = max(r.high_run[seat] for r in state.sets)
        totals.append(Line(points, innings, average(points, innings), high))
    won = [0, 0]
    for rec in state.sets:
        if rec.result is not None and rec.result.winner is not None:
            won[rec.result.winner] += 1
    return Scoresheet(sheets, (totals[0], totals[1]), (won[0], won[1]), state.result, player_totals)
