"""The frozen match state. Every transition builds a new one (``dataclasses.replace``).

Theory of operation: a match is WAITING until both seats are filled; ``Start`` opens the LAG
(RULES.md §2), whose winner makes the BREAK_CHOICE (R-LAG-7); then PLAY alternates innings until
the game ends (§4), with TIMEOUT as a pause inside PLAY (R-TIMEOUT-1). In set play a finished set
goes straight back to PLAY from the break position with the other breaker (R-END-4). OVER is
final (a ``Rematch`` from both seats starts a fresh match).

Between actions the balls are always at rest on the table: a ball that left it has already been
re-spotted. ``resting_at_ms`` says when the last stroke's animation ends, which is when the balls
are at rest for the players (R-PLAY-4) and when the shot clock starts (R-CLOCK-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from shared.physics.types import Stroke
from shared.rules.options import MatchOptions
from shared.rules.verdict import GameOver, Seat
from shared.seats import ball_of
from shared.table import BALLS, BallName, Point


class Phase(StrEnum):
    WAITING = "waiting"
    LAG = "lag"
    BREAK_CHOICE = "break_choice"
    PLAY = "play"
    TIMEOUT = "timeout"
    OVER = "over"


Pair = tuple[int, int]


@dataclass(frozen=True, slots=True)
class SetRecord:
    """One game (a set in set play): the scoresheet lines of R-PLAY-2."""

    breaker: Seat
    points: Pair = (0, 0)
    innings: Pair = (0, 0)
    high_run: Pair = (0, 0)
    timeouts_left: Pair = (1, 1)
    result: GameOver | None = None


@dataclass(frozen=True, slots=True)
class MatchState:
    options: MatchOptions
    phase: Phase
    balls: tuple[Point, Point, Point]  # m, in BALLS order: white, yellow, red
    sets: tuple[SetRecord, ...]  # the last one is the game being played
    white_seat: Seat | None = None  # R-LAG-7: the match breaker plays white throughout
    shooter: Seat | None = None
    current_run: int = 0  # points in the shooter's current inning
    visit_strokes: int = 0  # strokes played in the current inning (0 = start of an inning)
    deadline_ms: int | None = None  # running deadline of the phase, None when paused or none
    paused_ms: int | None = None  # remaining clock while paused (time-out, disconnection)
    resting_at_ms: int = 0  # the balls are at rest from this server time on (R-PLAY-4)
    break_shot: bool = False  # the next stroke is a break: R-BREAK-2 applies
    spot_choice: bool = False  # cue ball on a starting spot: left or right is the shooter's
    equalizing: bool = False  # the current inning is the equalizing inning (R-END-2)
    zone_counts: tuple[tuple[str, int], ...] = ()  # caroms in a row per zone, this run
    lag_strokes: tuple[Stroke | None, Stroke | None] = (None, None)
    lag_repeats: int = 0  # R-LAG-6: lags repeated so far in this match (a coin toss cuts them)
    lag_winner: Seat | None = None
    lag_reason: str | None = None
    connected: tuple[bool, bool] = (True, True)
    grace_deadline: tuple[int | None, int | None] = (None, None)
    rematch: tuple[bool, bool] = (False, False)
    strokes_played: int = 0
    result: GameOver | None = None  # the match result once OVER

    # Convenience views ------------------------------------------------------------------
    def ball(self, name: BallName) -> Point:
        return self.balls[BALLS.index(name)]

    @property
    def positions(self) -> dict[BallName, Point]:
        return dict(zip(BALLS, self.balls, strict=True))

    @property
    def current(self) -> SetRecord:
        return self.sets[-1]

    def ball_of(self, seat: Seat) -> BallName:
        """R-LAG-7 / R-PLAY-3: the match breaker's ball is white, the other player's yellow.
        Before the break choice seat 0 is taken as white (used for the lag and practice)."""
        return ball_of(self.white_seat, seat)  # the one written rule
