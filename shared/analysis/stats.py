"""A player's statistics over recorded strokes (docs/analysis.md "Statistics").

The input is a list of ``MatchLog`` values: every stroke of each match, both players', in
order, with the points it scored, whether it was a foul, when it was played, how long the
shooter took and the route its cue ball followed. ``shared/analysis/records.py`` builds them
from replays; this module only counts.

Words used here: an *inning* is a player's turn at the table, the strokes from their first to
the first that does not score (or to the end of the match); its *run* is the points it scored.
The *general average* is points per inning (R-PLAY-2). An inning *opens* with the break, after
the other player's miss, after a foul, or (in practice, alone) after one's own miss.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum

from shared.analysis.patterns import Pattern


class Opening(Enum):
    """How an inning began."""

    BREAK = "break"
    AFTER_MISS = "after_miss"  # the other player missed
    AFTER_FOUL = "after_foul"  # the other player fouled
    AFTER_OWN_MISS = "after_own_miss"  # practice: the same player again

    @property
    def label(self) -> str:
        return OPENING_LABELS[self]


OPENING_LABELS: Mapping[Opening, str] = {
    Opening.BREAK: "Break",
    Opening.AFTER_MISS: "After the opponent's miss",
    Opening.AFTER_FOUL: "After the opponent's foul",
    Opening.AFTER_OWN_MISS: "After your own miss (practice)",
}


@dataclass(frozen=True, slots=True)
class StrokeLog:
    """One played stroke of a match."""

    n: int  # its number in the match's record
    seat: int
    points: int
    foul: bool
    played_ms: int  # server time of the strike
    think_ms: int | None  # from the table coming to rest (or the balls being placed) to the strike
    route: Pattern | None  # the route the cue ball followed (patterns.attempted)


@dataclass(frozen=True, slots=True)
class MatchLog:
    """Every stroke of one match, and which seat the player whose statistics these are sat in."""

    match_id: int
    discipline: str
    seat: int
    started_ms: int
    finished_ms: int | None
    strokes: tuple[StrokeLog, ...]


@dataclass(frozen=True, slots=True)
class Inning:
    match_id: int
    opening: Opening
    strokes: tuple[StrokeLog, ...]

    @property
    def run(self) -> int:
        return sum(s.points for s in self.strokes)


@dataclass(frozen=True, slots=True)
class MatchLine:
    """One match from the player's side: the points for the average-over-time plot."""

    match_id: int
    when_ms: int  # finished (or started, if unfinished)
    points: int
    innings: int
    cumulative_average: float  # general average of this and every earlier match

    @property
    def average(self) -> float:
        return self.points / self.innings if self.innings else 0.0


@dataclass(frozen=True, slots=True)
class PatternLine:
    """How often the player's cue ball followed a route and how often it scored."""

    pattern: Pattern
    attempts: int
    points: int

    @property
    def success(self) -> float:
        return self.points / self.attempts if self.attempts else 0.0


@dataclass(frozen=True, slots=True)
class OpeningLine:
    opening: Opening
    innings: int
    points: int

    @property
    def average(self) -> float:
        return self.points / self.innings if self.innings else 0.0


@dataclass(frozen=True, slots=True)
class PlayerStats:
    discipline: str
    matches: tuple[MatchLine, ...]  # oldest first
    strokes: int
    points: int
    innings: int
    high_run: int
    runs: Mapping[int, int]  # run length -> innings with that run
    patterns: tuple[PatternLine, ...]  # most attempted first
    openings: tuple[OpeningLine, ...]
    think_ms: tuple[int, ...]  # every measured stroke, in order

    @property
    def average(self) -> float:
        """The general average (R-PLAY-2): points per inning."""
        return self.points / self.innings if self.innings else 0.0

    @property
    def median_think_s(self) -> float | None:
        return statistics.median(self.think_ms) / 1000 if self.think_ms else None

    @property
    def mean_think_s(self) -> float | None:
        return statistics.fmean(self.think_ms) / 1000 if self.think_ms else None


def innings_of(log: MatchLog) -> list[Inning]:
    """The player's innings in one match, in order."""
    out: list[Inning] = []
    current: list[StrokeLog] = []
    opening = Opening.BREAK
    previous: StrokeLog | None = None
    for s in log.strokes:
        if s.seat == log.seat:
            if not current:
                opening = _opening(previous, log.seat)
            current.append(s)
            if s.points == 0:
                out.append(Inning(log.match_id, opening, tuple(current)))
                current = []
        elif current:  # the seat changed without a miss (a clock foul, say): the inning ended
            out.append(Inning(log.match_id, opening, tuple(current)))
            current = []
        previous = s
    if current:
        out.append(Inning(log.match_id, opening, tuple(current)))
    return out


def _opening(previous: StrokeLog | None, seat: int) -> Opening:
    if previous is None:
        return Opening.BREAK
    if previous.seat == seat:
        return Opening.AFTER_OWN_MISS
    return Opening.AFTER_FOUL if previous.foul else Opening.AFTER_MISS


def player_stats(logs: Sequence[MatchLog], discipline: str) -> PlayerStats:
    """The statistics of the player the logs were taken for, over that discipline's matches."""
    chosen = sorted(
        (m for m in logs if m.discipline == discipline),
        key=lambda m: (m.finished_ms or m.started_ms, m.match_id),
    )
    lines: list[MatchLine] = []
    all_innings: list[Inning] = []
    own: list[StrokeLog] = []
    total_points = total_innings = 0
    for m in chosen:
        innings = innings_of(m)
        all_innings += innings
        own += [s for s in m.strokes if s.seat == m.seat]
        points = sum(i.run for i in innings)
        total_points += points
        total_innings += len(innings)
        lines.append(
            MatchLine(
                m.match_id,
                m.finished_ms or m.started_ms,
                points,
                len(innings),
                total_points / total_innings if total_innings else 0.0,
            )
        )
    runs = Counter(i.run for i in all_innings)
    attempts: Counter[Pattern] = Counter()
    scored: Counter[Pattern] = Counter()
    for s in own:
        if s.route is not None:
            attempts[s.route] += 1
            scored[s.route] += s.points
    patterns = tuple(
        PatternLine(p, n, scored[p])
        for p, n in sorted(attempts.items(), key=lambda kv: (-kv[1], kv[0].value))
    )
    openings = tuple(
        OpeningLine(
            o,
            sum(1 for i in all_innings if i.opening is o),
            sum(i.run for i in all_innings if i.opening is o),
        )
        for o in Opening
        if any(i.opening is o for i in all_innings)
    )
    return PlayerStats(
        discipline=discipline,
        matches=tuple(lines),
        strokes=len(own),
        points=total_points,
        innings=total_innings,
        high_run=max(runs, default=0),
        runs=dict(sorted(runs.items())),
        patterns=patterns,
        openings=openings,
        think_ms=tuple(s.think_ms for s in own if s.think_ms is not None),
    )
