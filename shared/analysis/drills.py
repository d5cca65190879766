"""Diamond-system drills: a position, a target on the third rail, and a score for the stroke a
player makes from it (docs/analysis.md "Drills"). Two systems: the corner-5 and the plus system.

The corner-5 system with running english (``shared/physics/diamonds.py``): from origin number
``O`` through first-rail number ``F`` the cue ball reaches third-rail number ``O − F``. A drill
puts the cue ball on the line the system asks for (origin ``O``, first rail ``O − T``) and asks
for third-rail number ``T``; the player has to find that line. The stroke is scored by where
the cue ball touched the third cushion (``third_rail_arrival(...).at_rail``) against ``T``.

The plus system (``plus_stroke``): from start number ``S`` (diamonds up the left long rail from
the near cushion) through first-rail number ``F`` (half diamonds down the right long rail from
the far cushion) the cue ball reaches third-rail number ``S + F``, counted from the near
cushion. A plus drill puts the cue ball on the line from ``S`` through ``T − S`` and asks for
``T``; it is played soft with a touch of running english (docs/analysis.md says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from shared.physics.diamonds import (
    Arrival,
    corner_five_stroke,
    plus_arrival,
    plus_stroke,
    third_rail_arrival,
)
from shared.physics.types import ShotResult, Stroke
from shared.table import MATCH, BallName, Point, TableSpec

# The object balls wait in the near right corner, off the system's path to the third rail.
PARKED: Final[dict[BallName, Point]] = {"yellow": (0.05, 0.05), "red": (0.05, 0.12)}
ENGLISH: Final = 0.2  # tip offset (fraction of R) the corner-5 is played with
SPEED: Final = 2.5  # m/s, medium: the ball goes round four or five rails
PLUS_ENGLISH: Final = 0.05  # a touch of running english: the plus system on our table
PLUS_SPEED: Final = 1.5  # m/s, soft: the ball goes round about three rails


class System(Enum):
    """The diamond system a drill teaches."""

    CORNER_FIVE = "corner_five"
    PLUS = "plus"

    @property
    def title(self) -> str:
        return {System.CORNER_FIVE: "Corner five", System.PLUS: "Plus system"}[self]

    @property
    def english(self) -> float:
        """Running english (tip offset, fraction of R) the system is played with."""
        return {System.CORNER_FIVE: ENGLISH, System.PLUS: PLUS_ENGLISH}[self]

    @property
    def speed(self) -> float:
        return {System.CORNER_FIVE: SPEED, System.PLUS: PLUS_SPEED}[self]


class Grade(Enum):
    """How close the cue ball came to the number, in words."""

    ON_THE_NUMBER = 3  # within a quarter of a diamond
    CLOSE = 2  # within half a diamond
    NEAR = 1  # within a diamond
    OFF = 0  # further, or another route

    @property
    def words(self) -> str:
        return {
            Grade.ON_THE_NUMBER: "On the number",
            Grade.CLOSE: "Close",
            Grade.NEAR: "Within a diamond",
            Grade.OFF: "Off the system",
        }[self]


GRADE_LIMITS: Final[tuple[tuple[float, Grade], ...]] = (
    (0.25, Grade.ON_THE_NUMBER),
    (0.5, Grade.CLOSE),
    (1.0, Grade.NEAR),
)


@dataclass(frozen=True, slots=True)
class Drill:
    """One exercise: where the balls are, what third-rail number to reach, and the system's
    own answer (shown after the attempt)."""

    name: str
    origin: float  # corner-5 origin or plus start number of the cue ball's line
    target: float  # third-rail number asked for, in the system's count
    balls: dict[BallName, Point]
    answer: Stroke  # the stroke the system gives (through first_rail)
    table: TableSpec = MATCH
    system: System = System.CORNER_FIVE

    @property
    def first_rail(self) -> float:
        """The first-rail number the system aims at: origin − target (corner five) or
        target − start (plus)."""
        if self.system is System.PLUS:
            return self.target - self.origin
        return self.origin - self.target

    @property
    def target_from_far(self) -> float:
        """The target in diamonds from the far (top) cushion, for drawing it."""
        return 8.0 - self.target if self.system is System.PLUS else self.target

    @property
    def task(self) -> str:
        if self.system is System.PLUS:
            return (
                f"Softly, a touch of running english: off the right cushion, the top cushion "
                f"and the left cushion to diamond {self.target:g}, counted from the bottom "
                f"cushion."
            )
        return (
            f"With running english, send the cue ball off the right cushion, the top cushion "
            f"and the left cushion, to reach diamond {self.target:g} of that third cushion."
        )

    @property
    def hint(self) -> str:
        if self.system is System.PLUS:
            return (
                f"Plus system: the line starts at {self.origin:g}; {self.target:g} − "
                f"{self.origin:g} = {self.first_rail:g}, so aim through {self.first_rail:g} on "
                f"the first rail (two numbers a diamond from the top cushion): "
                f"{self.origin:g} + {self.first_rail:g} = {self.target:g}."
            )
        return (
            f"Corner five: the cue ball's line starts at origin {self.origin:g}; "
            f"{self.origin:g} − {self.target:g} = {self.first_rail:g}, so aim through "
            f"diamond {self.first_rail:g} of the first rail."
        )

    def arrival(self, result: ShotResult) -> Arrival | None:
        """Where the stroke's cue ball met the third cushion, in this system's count."""
        if self.system is System.PLUS:
            return plus_arrival(result, self.table)
        return third_rail_arrival(result, self.table)


def corner_five(origin: float, target: float, table: TableSpec = MATCH) -> Drill:
    """A corner-5 drill from ``origin`` to third-rail number ``target``."""
    start, stroke = corner_five_stroke(table, origin, origin - target, SPEED, ENGLISH)
    balls: dict[BallName, Point] = {"white": start, **PARKED}
    return Drill(f"Corner five from {origin:g} to {target:g}", origin, target, balls, stroke, table)


# The exercises, easiest first: from the corner, then two diamonds up the long rail, then the
# first short-rail diamond (docs/physics.md measures the system on these origins).
CORNER_FIVE: Final[tuple[tuple[float, float], ...]] = (
    (5.0, 3.0),
    (5.0, 2.0),
    (5.0, 3.5),
    (4.0, 2.5),
    (6.0, 3.0),
    (6.0, 2.0),
)


def corner_five_drills(table: TableSpec = MATCH) -> tuple[Drill, ...]:
    return tuple(corner_five(o, t, table) for o, t in CORNER_FIVE)


def plus(start: float, target: float, table: TableSpec = MATCH) -> Drill:
    """A plus-system drill from start number ``start`` to third-rail number ``target``."""
    system = System.PLUS
    cue, stroke = plus_stroke(table, start, target - start, system.speed, system.english)
    balls: dict[BallName, Point] = {"white": cue, **PARKED}
    name = f"Plus system from {start:g} to {target:g}"
    return Drill(name, start, target, balls, stroke, table, system)


# The plus exercises, reference line first (3 through 3 to 6), all with first-rail numbers 3
# to 5, where the system holds on our table (docs/analysis.md "The plus system").
PLUS: Final[tuple[tuple[float, float], ...]] = (
    (3.0, 6.0),
    (2.0, 6.0),
    (1.0, 5.0),
    (3.0, 7.0),
    (2.0, 5.0),
    (4.0, 7.0),
)


def plus_drills(table: TableSpec = MATCH) -> tuple[Drill, ...]:
    return tuple(plus(s, t, table) for s, t in PLUS)


def drills(system: System, table: TableSpec = MATCH) -> tuple[Drill, ...]:
    """The exercises of one system, easiest first."""
    return plus_drills(table) if system is System.PLUS else corner_five_drills(table)


@dataclass(frozen=True, slots=True)
class Attempt:
    """The score of one stroke at a drill."""

    drill: str
    target: float
    arrival: float | None  # third-rail number reached; None: the cue ball took another route
    grade: Grade

    @property
    def error(self) -> float | None:
        return None if self.arrival is None else abs(self.arrival - self.target)

    @property
    def sentence(self) -> str:
        if self.arrival is None:
            return (
                "The cue ball did not meet the right cushion, the top cushion and the left "
                "cushion in that order."
            )
        return (
            f"{self.grade.words}: the cue ball reached {self.arrival:.1f} on the third rail "
            f"(the target was {self.target:g})."
        )


def score(drill: Drill, result: ShotResult) -> Attempt:
    """Where the stroke's cue ball met the third cushion, against the drill's number."""
    got = drill.arrival(result)
    if got is None:
        return Attempt(drill.name, drill.target, None, Grade.OFF)
    error = abs(got.at_rail - drill.target)
    grade = next((g for limit, g in GRADE_LIMITS if error <= limit), Grade.OFF)
    return Attempt(drill.name, drill.target, got.at_rail, grade)


@dataclass(frozen=True, slots=True)
class Session:
    """The attempts of one practice session, oldest first, and how they are going."""

    attempts: tuple[Attempt, ...] = field(default_factory=tuple)

    def add(self, attempt: Attempt) -> Session:
        return Session((*self.attempts, attempt))

    @property
    def stars(self) -> int:
        return sum(a.grade.value for a in self.attempts)

    @property
    def on_the_number(self) -> int:
        return sum(1 for a in self.attempts if a.grade is Grade.ON_THE_NUMBER)

    def mean_error(self, attempts: Sequence[Attempt]) -> float | None:
        """Average distance from the target in diamonds; another route counts as 2."""
        if not attempts:
            return None
        return sum(2.0 if a.error is None else a.error for a in attempts) / len(attempts)

    @property
    def progress(self) -> str:
        """One sentence: the last five attempts against the first five."""
        n = len(self.attempts)
        if n == 0:
            return "No attempts yet."
        if n < 6:
            mean = self.mean_error(self.attempts)
            attempts = "1 attempt" if n == 1 else f"{n} attempts"
            return f"{attempts}, {mean:.2f} diamond from the target on average."
        first = self.mean_error(self.attempts[:5]) or 0.0
        last = self.mean_error(self.attempts[-5:]) or 0.0
        trend = "closer" if last < first else "further" if last > first else "as close"
        return (
            f"{n} attempts: the last five landed {last:.2f} diamond from the target on average, "
            f"{trend} than the first five ({first:.2f})."
        )
