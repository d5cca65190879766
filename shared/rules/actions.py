"""What can happen to a match: frozen, self-validating action values (h11-style events).

The server turns each client message (and each timer) into one of these and calls
``apply(state, action, now_ms)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from shared.physics.types import ShotResult, Stroke
from shared.rules.placement import Side
from shared.rules.verdict import IllegalAction, Seat
from shared.table import BALLS, BallName, Point


def _check_seat(seat: object, slot: object = 0) -> None:
    """A side (``seat``) and a place in its line-up (``slot``, R-TEAM-1): 0 or 1 each."""
    if isinstance(seat, bool) or seat not in (0, 1):
        raise IllegalAction("bad_field", f"seat must be 0 or 1, got {seat!r}")
    if isinstance(slot, bool) or slot not in (0, 1):
        raise IllegalAction("bad_field", f"slot must be 0 or 1, got {slot!r}")


@dataclass(frozen=True, slots=True)
class Start:
    """Both seats are filled: open the lag (or, in practice, play at once)."""


@dataclass(frozen=True, slots=True)
class LagStroke:
    """R-LAG-3: one seat's lag stroke, kept hidden until both are in."""

    seat: Seat
    stroke: Stroke
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class LagResult:
    """The server simulated both lag strokes in one run (R-LAG-3). ``seed`` (the match id)
    seeds the coin toss that ends an endless run of repeats (R-LAG-6), so a replay of the same
    match tosses the same coin."""

    result: ShotResult
    seed: str = ""


@dataclass(frozen=True, slots=True)
class ChooseBreak:
    """R-LAG-7: the lag winner names the breaker."""

    seat: Seat
    breaker: Seat
    slot: int = 0  # R-TEAM-1: either partner of the lag winner's side may choose

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)
        _check_seat(self.breaker)


@dataclass(frozen=True, slots=True)
class PlayStroke:
    """A stroke and its physics result, simulated from ``stroke_start(state, spot)``."""

    seat: Seat
    stroke: Stroke
    result: ShotResult
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class Respot:
    """R-FROZEN-1a: the shooter asks for a re-spot of the frozen cue ball."""

    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class TimeOut:
    """R-TIMEOUT-1: the shooter pauses at the start of an inning."""

    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class Resume:
    """R-TIMEOUT-1: the player ends the time-out early."""

    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class Disconnected:
    """The seat's connection dropped: its clock pauses and its grace time starts (R-END-5)."""

    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class Reconnected:
    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed: apply every deadline at or before ``now_ms``."""


@dataclass(frozen=True, slots=True)
class Concede:
    """R-END-5: a seated player gives up the match."""

    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


@dataclass(frozen=True, slots=True)
class Place:
    """Practice rooms only: move any balls (PROTOCOL.md ``place``)."""

    balls: Mapping[BallName, Point] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name, p in self.balls.items():
            if name not in BALLS:
                raise IllegalAction("bad_field", f"unknown ball {name!r}")
            if (
                not isinstance(p, tuple | list)
                or len(p) != 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in p)
            ):
                raise IllegalAction("bad_field", f"{name} must be [x, y] in metres, got {p!r}")


@dataclass(frozen=True, slots=True)
class Rematch:
    """After game over: when both seats ask, a fresh match starts with the other breaker."""

    seat: Seat
    slot: int = 0  # R-TEAM-1: the player's place in the side's line-up

    def __post_init__(self) -> None:
        _check_seat(self.seat, self.slot)


Action = (
    Start
    | LagStroke
    | LagResult
    | ChooseBreak
    | PlayStroke
    | Respot
    | TimeOut
    | Resume
    | Disconnected
    | Reconnected
    | Tick
    | Concede
    | Place
    | Rematch
)

__all__ = [
    "Action",
    "ChooseBreak",
    "Concede",
    "Disconnected",
    "LagResult",
    "LagStroke",
    "Place",
    "PlayStroke",
    "Reconnected",
    "Rematch",
    "Respot",
    "Resume",
    "Side",
    "Start",
    "Tick",
    "TimeOut",
]
