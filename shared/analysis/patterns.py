"""The name of a three-cushion point, read from the physics (docs/analysis.md).

Players name a point by the route the cue ball took: which cushions it met, in which order,
before or after the first object ball. This module reads that route from the event log (the
cushion and ball contacts) and the trajectory (where the cue ball was and how it moved at each
contact), then names it with a small table of rules, the first that matches winning.

Theory of operation:

1. ``route`` lists the cue ball's contacts, cushions and object balls, in order, each with the
   cue ball's position, its velocity just before and just after, and, for a cushion, the place
   along that cushion in diamonds.
2. ``classify`` keeps the route up to the scoring contact (the second object ball, met after
   at least three cushions: R-DISC-3C) and returns ``None`` for a stroke that did not score
   that way.
3. The rules in ``_RULES`` are tried in order; ``Pattern.OTHER`` names what none of them
   describes.

Only the cue ball's own contacts count; the object balls' paths do not change the name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final, Literal

from shared.physics.trajectory import state_at
from shared.physics.types import Event, Segment
from shared.table import BallName, CushionName, Point, TableSpec

Trajectory = Mapping[BallName, Sequence[Segment]]

LONG: Final[frozenset[CushionName]] = frozenset({"left", "right"})
SHORT: Final[frozenset[CushionName]] = frozenset({"bottom", "top"})
OPPOSITE: Final[Mapping[CushionName, CushionName]] = {
    "left": "right",
    "right": "left",
    "bottom": "top",
    "top": "bottom",
}
NEEDED: Final = 3  # R-DISC-3C: cushions before the second object ball
# A reverse needs a clear run along the first long cushion both ways: more than this from square.
RUN_ANGLE: Final = 5.0  # degrees


class Pattern(Enum):
    """The three-cushion routes this module names (docs/analysis.md says how each is read)."""

    BANK = "bank"
    TICKY = "ticky"
    UMBRELLA = "umbrella"
    CUSHION_FIRST = "cushion_first"
    DOUBLE_THE_RAIL = "double_the_rail"
    THROUGH_THE_TABLE = "through_the_table"
    REVERSE = "reverse"
    AROUND_THE_TABLE = "around_the_table"
    END_TO_END = "end_to_end"
    OTHER = "other"

    @property
    def label(self) -> str:
        """The name as a player says it."""
        return LABELS[self]

    @property
    def description(self) -> str:
        """One sentence on how the cue ball travels."""
        return DESCRIPTIONS[self]


LABELS: Final[Mapping[Pattern, str]] = {
    Pattern.BANK: "Bank",
    Pattern.TICKY: "Ticky",
    Pattern.UMBRELLA: "Umbrella",
    Pattern.CUSHION_FIRST: "Cushion first",
    Pattern.DOUBLE_THE_RAIL: "Double the rail",
    Pattern.THROUGH_THE_TABLE: "Through the table",
    Pattern.REVERSE: "Reverse around the table",
    Pattern.AROUND_THE_TABLE: "Around the table",
    Pattern.END_TO_END: "End to end",
    Pattern.OTHER: "Other route",
}

DESCRIPTIONS: Final[Mapping[Pattern, str]] = {
    Pattern.BANK: "The cue ball met three cushions before either ball.",
    Pattern.TICKY: (
        "The cue ball met a cushion, then the first ball lying near it, "
        "and came straight back to the same cushion."
    ),
    Pattern.UMBRELLA: (
        "The cue ball met two cushions, then the first ball, then opened out to the third."
    ),
    Pattern.CUSHION_FIRST: "The cue ball met one cushion before the first ball.",
    Pattern.DOUBLE_THE_RAIL: (
        "After the first ball the cue ball ran down a long cushion, off the short one "
        "and back into the same long cushion."
    ),
    Pattern.THROUGH_THE_TABLE: (
        "After the first ball the cue ball crossed the table from one long cushion to the other."
    ),
    Pattern.REVERSE: (
        "After the first ball the cue ball came back off a long cushion against its run "
        "and went around the table the other way."
    ),
    Pattern.AROUND_THE_TABLE: (
        "After the first ball the cue ball went long, short, long around two corners."
    ),
    Pattern.END_TO_END: (
        "After the first ball the cue ball went short, long, short from one end of the table "
        "to the other."
    ),
    Pattern.OTHER: "A three-cushion route none of the named patterns describes.",
}


@dataclass(frozen=True, slots=True)
class Step:
    """One contact of the cue ball: a cushion or an object ball."""

    t: float  # s since the strike
    kind: Literal["cushion", "ball"]
    pos: Point  # m, the cue ball's centre at the contact
    before: Point  # m/s, the cue ball's velocity just before the contact
    after: Point  # m/s, just after
    cushion: CushionName | None = None
    ball: BallName | None = None
    diamonds: float | None = None  # along the cushion (see ``diamonds_along``)

    @property
    def is_cushion(self) -> bool:
        return self.kind == "cushion"


@dataclass(frozen=True, slots=True)
class Reading:
    """A three-cushion point and its name."""

    pattern: Pattern
    route: tuple[Step, ...]  # the cue ball's contacts up to and including the second ball
    first_ball: BallName
    second_ball: BallName

    @property
    def cushions_before_first(self) -> int:
        return sum(1 for s in self.route if s.is_cushion and s.t < self.first_contact.t)

    @property
    def first_contact(self) -> Step:
        return next(s for s in self.route if s.kind == "ball")

    @property
    def cushions(self) -> tuple[CushionName, ...]:
        """The cushions before the second ball, in order."""
        return tuple(s.cushion for s in self.route if s.cushion is not None)

    @property
    def label(self) -> str:
        return self.pattern.label


def diamonds_along(table: TableSpec, cushion: CushionName, pos: Point) -> float:
    """Where a contact lies along its cushion, in diamonds (1/8 of the length, R-TABLE-3):
    on the long cushions counted from the bottom cushion (0 to 8), on the short ones from the
    right cushion (0 to 4)."""
    dia = table.length / 8
    if cushion in LONG:
        return pos[0] / dia
    return pos[1] / dia


def _velocity(segments: Sequence[Segment], t: float) -> Point:
    v = state_at(segments, t)[1]
    return (v[0], v[1])


def route(
    events: Sequence[Event], trajectory: Trajectory, cue: BallName, table: TableSpec
) -> tuple[Step, ...]:
    """Every cushion and ball contact of the cue ball, in order, read from the trajectory."""
    segments = trajectory[cue]
    steps: list[Step] = []
    for e in events:
        if cue not in e.balls or e.kind not in ("ball_cushion", "ball_ball"):
            continue
        p = state_at(segments, e.t)[0]
        pos = (p[0], p[1])
        before = _velocity(segments, math.nextafter(e.t, -math.inf))
        after = _velocity(segments, e.t)
        if e.kind == "ball_cushion" and e.cushion is not None:
            steps.append(
                Step(
                    e.t,
                    "cushion",
                    pos,
                    before,
                    after,
                    cushion=e.cushion,
                    diamonds=diamonds_along(table, e.cushion, pos),
                )
            )
        elif e.kind == "ball_ball":
            a, b = e.balls
            steps.append(Step(e.t, "ball", pos, before, after, ball=b if a == cue else a))
    return tuple(steps)


def scoring_route(steps: Sequence[Step]) -> tuple[Step, ...] | None:
    """The route up to the contact that scored a three-cushion point (both object balls, three
    cushions before the second: R-DISC-3C), or None if the stroke did not score that way."""
    seen: list[BallName] = []
    cushions = 0
    for i, s in enumerate(steps):
        if s.is_cushion:
            cushions += 1
        elif s.ball is not None and s.ball not in seen:
            seen.append(s.ball)
            if len(seen) == 2:
                return tuple(steps[: i + 1]) if cushions >= NEEDED else None
    return None


# The rules, tried in order. Each reads the cushions before the first ball (``pre``), the
# steps after it up to the second ball (``post``: cushions and any kiss with the first ball).
Rule = Callable[[Sequence[Step], Sequence[Step]], bool]


def _cushions(steps: Sequence[Step]) -> list[CushionName]:
    return [s.cushion for s in steps if s.cushion is not None]


def _is_bank(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    return len(_cushions(pre)) >= NEEDED


def _is_ticky(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    before, after = _cushions(pre), _cushions(post)
    return bool(before) and bool(post) and post[0].is_cushion and after[0] == before[-1]


def _is_umbrella(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    return len(_cushions(pre)) == 2


def _is_cushion_first(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    return len(_cushions(pre)) == 1


def _first_three(post: Sequence[Step]) -> list[CushionName]:
    return _cushions(post)[:3]


def _is_double_the_rail(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    c = _first_three(post)
    return len(c) == 3 and c[0] in LONG and c[1] in SHORT and c[2] == c[0]


def _is_through_the_table(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    c = _first_three(post)
    return c[0] in LONG and c[1] == OPPOSITE[c[0]]


def _goes_around(c: Sequence[CushionName]) -> bool:
    return c[0] in LONG and c[1] in SHORT and c[2] == OPPOSITE[c[0]]


def _is_reverse(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    """Around the table, but the cue ball came back off the first long cushion: its run along
    that cushion (the x velocity) changed sign there."""
    if not _goes_around(_first_three(post)):
        return False
    first = next(s for s in post if s.is_cushion)
    return _along(first.before) * _along(first.after) < 0.0


def _along(v: Point) -> float:
    """The run of a velocity along a long cushion (x), or 0 when the ball meets or leaves the
    cushion within ``RUN_ANGLE`` of square: no clear direction to come back from."""
    speed = math.hypot(v[0], v[1])
    return v[0] if abs(v[0]) >= speed * math.sin(math.radians(RUN_ANGLE)) else 0.0


def _is_around(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    return _goes_around(_first_three(post))


def _is_end_to_end(pre: Sequence[Step], post: Sequence[Step]) -> bool:
    c = _first_three(post)
    return c[0] in SHORT and c[1] in LONG and c[2] == OPPOSITE[c[0]]


_RULES: Final[tuple[tuple[Pattern, Rule], ...]] = (
    (Pattern.BANK, _is_bank),
    (Pattern.TICKY, _is_ticky),
    (Pattern.UMBRELLA, _is_umbrella),
    (Pattern.CUSHION_FIRST, _is_cushion_first),
    (Pattern.DOUBLE_THE_RAIL, _is_double_the_rail),
    (Pattern.THROUGH_THE_TABLE, _is_through_the_table),
    (Pattern.REVERSE, _is_reverse),
    (Pattern.AROUND_THE_TABLE, _is_around),
    (Pattern.END_TO_END, _is_end_to_end),
)


def name_route(scoring: Sequence[Step]) -> Pattern:
    """The pattern of a scoring route (see ``scoring_route``)."""
    k = next(i for i, s in enumerate(scoring) if s.kind == "ball")
    pre, post = scoring[:k], scoring[k + 1 :]
    for pattern, rule in _RULES:
        if rule(pre, post):
            return pattern
    return Pattern.OTHER


def attempted(steps: Sequence[Step]) -> Pattern | None:
    """The route a stroke followed, scored or not: the same names read on the cue ball's
    contacts up to the second object ball (or to the end when it never got there), when it met
    a ball and at least three cushions; None otherwise (no route to read). Statistics count a
    miss against the pattern its cue ball followed."""
    scoring = scoring_route(steps)
    if scoring is not None:
        return name_route(scoring)
    seen: list[BallName] = []
    end = len(steps)
    for i, s in enumerate(steps):
        if s.ball is not None and s.ball not in seen:
            seen.append(s.ball)
            if len(seen) == 2:
                end = i + 1
                break
    taken = steps[:end]
    if not seen or sum(1 for s in taken if s.is_cushion) < NEEDED:
        return None
    return name_route(taken)


def classify(
    events: Sequence[Event], trajectory: Trajectory, cue: BallName, table: TableSpec
) -> Reading | None:
    """The name of a three-cushion point, or None when the stroke did not score one."""
    scoring = scoring_route(route(events, trajectory, cue, table))
    if scoring is None:
        return None
    balls = [s.ball for s in scoring if s.ball is not None]
    first, second = balls[0], balls[-1]
    return Reading(name_route(scoring), scoring, first, second)
