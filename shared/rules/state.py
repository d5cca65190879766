"""The frozen match state. Every transition builds a new one (``dataclasses.replace``).

Theory of operation: a match is WAITING until both seats are filled; ``Start`` opens the LAG
(RULES.md §2), whose winner makes the BREAK_CHOICE (R-LAG-7); then PLAY alternates innings until
the game ends (§4), with TIMEOUT as a pause inside PLAY (R-TIMEOUT-1). In set play a finished set
goes straight back to PLAY from the break position with the other breaker (R-END-4). OVER is
final (a ``Rematch`` from both seats starts a fresh match).

Sides and line-ups (R-TEAM-1, ``lineup.py``): ``shooter`` is the side to play and
``shooter_slot`` the partner who strikes; per-side figures are pairs indexed by side, per-player
ones (``connected``, ``grace_deadline``, the players' own points and innings) are indexed by
player (``side + 2 * slot``), two entries in singles and four in doubles.

Between actions the balls are always at rest on the table: a ball that left it has already been
re-spotted. ``resting_at_ms`` says when the last stroke's animation ends, which is when the balls
are at rest for the players (R-PLAY-4) and when the shot clock starts (R-CLOCK-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from shared.physics.types import Stroke
from shared.rules import lineup
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


Pair = tuple[int, int]  # one value per side


@dataclass(frozen=True, slots=True)
class SetRecord:
    """One game (a set in set play): the scoresheet lines of R-PLAY-2, per side, and each
    player's own points and innings (R-TEAM-5; in singles they equal the side's)."""

    breaker: Seat
    points: Pair = (0, 0)
    innings: Pair = (0, 0)  # a side's inning counts once, however many partners shot in it
    high_run: Pair = (0, 0)
    timeouts_left: Pair = (1, 1)  # per side (R-TIMEOUT-1, R-TEAM-6)
    result: GameOver | None = None
    player_points: tuple[int, ...] = (0, 0)  # per player index
    player_innings: tuple[int, ...] = (0, 0)  # innings of the side in which the player struck


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
    connected: tuple[bool, ...] = (True, True)  # per player index
    grace_deadline: tuple[int | None, ...] = (None, None)  # per player index
    rematch: tuple[bool, bool] = (False, False)  # per side
    strokes_played: int = 0
    result: GameOver | None = None  # the match result once OVER
    # R-TEAM-2/3: per side, the partner (slot) due to strike the side's next stroke
    slot_up: tuple[int, int] = (0, 0)
    retired: tuple[int, ...] = ()  # R-TEAM-7: players out for good (sorted player indices)
    struck: tuple[int, ...] = ()  # R-TEAM-5: players who have struck in the current inning

    # Convenience views ------------------------------------------------------------------
    def ball(self, name: BallName) -> Point:
        return self.balls[BALLS.index(name)]

    @property
    def positions(self) -> dict[BallName, Point]:
        return dict(zip(BALLS, self.balls, strict=True))

    @property
    def current(self) -> SetRecord:
        return self.sets[-1]

    @property
    def size(self) -> int:
        """Players in each side's line-up (R-TEAM-1)."""
        return self.options.team_mode.size

    def due_slot(self, side: Seat) -> int:
        """The partner of ``side`` who strikes the side's next stroke (R-TEAM-2, R-TEAM-3,
        R-TEAM-7)."""
        return lineup.due_slot(self.slot_up[side], side, self.size, self.retired)

    @property
    def shooter_slot(self) -> int | None:
        """The shooting side's partner who strikes now; None when no side is to shoot."""
        return None if self.shooter is None else self.due_slot(self.shooter)

    def side_connected(self) -> tuple[bool, bool]:
        """Per side: whether a player still in its line-up is connected (in singles, the
        player's own connection)."""
        up = [
            any(self.connected[p] for p in lineup.active(side, self.size, self.retired))
            for side in lineup.SIDES
        ]
        return (up[0], up[1])

    def side_grace(self) -> tuple[int | None, int | None]:
        """Per side: the earliest reconnection grace deadline among its players, or None."""
        out: list[int | None] = []
        for side in lineup.SIDES:
            times = [
                g
                for p in lineup.players_of(side, self.size)
                if (g := self.grace_deadline[p]) is not None
            ]
            out.append(min(times) if times else None)
        return (out[0], out[1])

    def ball_of(self, seat: Seat) -> BallName:
        """R-LAG-7 / R-PLAY-3: the match breaker's ball is white, the other player's yellow.
        Before the break choice seat 0 is taken as white (used for the lag and practice)."""
        return ball_of(self.white_seat, seat)  # the one written rule
