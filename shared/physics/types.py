"""Value types shared by the physics engine and everyone who reads its results.

This module is the contract between ``shared.physics`` (which produces results), ``shared.rules``
(which reads the event log and the final state) and the clients (which draw the trajectory). It
imports no pymunk, so the referee, bots and clients can use these types bare.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from shared.table import BallName, CushionName, Point

# PHYSICS.md "What a stroke is": the ranges a client may send.
MAX_SPEED: Final[float] = 8.0  # m/s
MISCUE_LIMIT: Final[float] = 0.6  # hypot(tip_x, tip_y), in ball radii
MAX_ELEVATION: Final[float] = 89.0  # degrees
MASSE_ELEVATION: Final[float] = 30.0  # degrees; R-FROZEN-2 decision: >= 30° is a massé

EventKind = Literal[
    "strike",  # the cue hits the cue ball (balls: the cue ball)
    "ball_ball",  # two balls collide (balls: both, the moving/first one first)
    "ball_cushion",  # a ball hits a cushion (cushion: which)
    "slide_to_roll",  # a sliding ball starts rolling without slip
    "roll_to_spin",  # a rolling ball stops translating but still spins about z
    "spin_to_rest",  # a spinning ball stops
    "airborne",  # a ball leaves the slate
    "land",  # an airborne ball lands on the slate
    "off_table",  # a ball left the table (R-OFF-1); it is then out of the simulation
    "rest",  # every ball is stationary: the stroke is over (balls: empty)
]


class StrokeError(ValueError):
    """A stroke's cue parameters are out of range, NaN or infinite (PHYSICS.md)."""


class PositionError(ValueError):
    """Start positions a simulation cannot take: off the playing surface, overlapping, NaN."""


@dataclass(frozen=True, slots=True)
class Stroke:
    """Cue parameters, the only thing a client sends for a stroke (PHYSICS.md)."""

    direction: float  # degrees, heading of the cue in the table plane, 0 = +x, CCW, [0, 360)
    speed: float  # m/s, cue-stick speed at impact, (0, 8]
    tip_x: float = 0.0  # ball radii, > 0 right english
    tip_y: float = 0.0  # ball radii, > 0 follow, < 0 draw
    elevation: float = 0.0  # degrees above the table plane, [0, 89]

    def __post_init__(self) -> None:
        for name in ("direction", "speed", "tip_x", "tip_y", "elevation"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise StrokeError(f"{name} must be a number, got {type(value).__name__}")
            if not math.isfinite(value):
                raise StrokeError(f"{name} must be a finite number, got {value!r}")
        if not 0.0 <= self.direction < 360.0:
            raise StrokeError(f"direction must be in [0, 360) degrees, got {self.direction}")
        if not 0.0 < self.speed <= MAX_SPEED:
            raise StrokeError(f"speed must be in (0, {MAX_SPEED}] m/s, got {self.speed}")
        if math.hypot(self.tip_x, self.tip_y) > MISCUE_LIMIT + 1e-12:
            raise StrokeError(
                f"tip offset hypot(tip_x, tip_y) must be at most {MISCUE_LIMIT} ball radii "
                f"(miscue limit), got {math.hypot(self.tip_x, self.tip_y):.3f}"
            )
        if not 0.0 <= self.elevation <= MAX_ELEVATION:
            raise StrokeError(
                f"elevation must be in [0, {MAX_ELEVATION}] degrees, got {self.elevation}"
            )

    @property
    def is_masse(self) -> bool:
        return self.elevation >= MASSE_ELEVATION


@dataclass(frozen=True, slots=True)
class BallState:
    """Position and velocity of one ball just after an event."""

    pos: Point  # m
    vel: Point  # m/s


@dataclass(frozen=True, slots=True)
class Event:
    """One entry of the ordered event log (PHYSICS.md "Output of one simulation")."""

    t: float  # s since the strike
    kind: EventKind
    balls: tuple[BallName, ...]
    cushion: CushionName | None = None
    speeds: tuple[float, ...] = ()  # m/s, impact (approach) speed of each ball in ``balls``
    after: Mapping[BallName, BallState] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Segment:
    """Exact motion of one ball from ``t0`` until the next segment's ``t0``.

    Within a motion phase cloth friction is constant, so position is quadratic and angular
    velocity linear in time: ``p(t) = p0 + v0·τ + a·τ²/2`` and ``w(t) = w0 + alpha·τ`` with
    ``τ = t - t0``. Clients evaluate this at any frame rate.
    """

    t0: float  # s
    pos: tuple[float, float, float]  # m (z = height of the centre above resting height)
    vel: tuple[float, float, float]  # m/s
    acc: tuple[float, float, float]  # m/s²
    spin: tuple[float, float, float]  # rad/s, angular velocity
    spin_acc: tuple[float, float, float]  # rad/s²


@dataclass(frozen=True, slots=True)
class ShotResult:
    """The frozen outcome of simulating one stroke (or the two lag strokes) to rest."""

    initial: Mapping[BallName, Point]
    strokes: Mapping[BallName, Stroke]  # the struck ball(s) and their cue parameters
    events: tuple[Event, ...]
    trajectory: Mapping[BallName, tuple[Segment, ...]]
    final: Mapping[BallName, Point | None]  # None: the ball left the table
    duration: float  # s of table time from the strike to rest
