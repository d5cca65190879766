"""Lay out a position in which a chosen stroke scores, with the simulator (docs/analysis.md).

Used to build the named patterns for the tests and the drills: strike the cue ball alone, put
the first object ball on its path (offset sideways for a thinner hit), strike again, then put
the second object ball on the cue ball's new path after the wanted number of cushions. The
result is a real simulation of three balls, not a drawing: whatever it shows is what the
physics does with that position and that stroke.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from shared.physics import Stroke, simulate
from shared.physics.trajectory import position_at, state_at
from shared.physics.types import ShotResult
from shared.table import BallName, Point, TableSpec


class LayoutError(ValueError):
    """The stroke's path leaves no room for a ball where one was asked for."""


@dataclass(frozen=True, slots=True)
class Layout:
    """A position, the ball struck and the stroke, with what the physics made of it."""

    balls: dict[BallName, Point]
    cue: BallName
    stroke: Stroke
    result: ShotResult


def _cushion_times(result: ShotResult, ball: BallName, after: float) -> list[float]:
    return [
        e.t
        for e in result.events
        if e.kind == "ball_cushion" and e.balls == (ball,) and e.t > after
    ]


def _time_between(
    result: ShotResult, ball: BallName, after: float, cushions: int, where: float
) -> float:
    """A time ``where`` (0..1) of the way between the ball's ``cushions``-th cushion contact
    after ``after`` and the next contact (or the ball's stop)."""
    times = _cushion_times(result, ball, after)
    start = after if cushions == 0 else times[cushions - 1] if len(times) >= cushions else None
    if start is None:
        raise LayoutError(f"the {ball} meets only {len(times)} cushions")
    end = times[cushions] if len(times) > cushions else _stop_time(result, ball, start)
    return start + where * (end - start)


def _stop_time(result: ShotResult, ball: BallName, start: float) -> float:
    for seg in result.trajectory[ball]:
        if seg.t0 > start and seg.vel[0] == 0.0 and seg.vel[1] == 0.0:
            return seg.t0
    return result.duration


def _free(table: TableSpec, p: Point, others: dict[BallName, Point]) -> bool:
    r = table.ball_radius
    return table.contains(p) and all(math.dist(p, q) > 2 * r + 1e-4 for q in others.values())


def lay_out(
    table: TableSpec,
    cue_at: Point,
    stroke: Stroke,
    *,
    first_after: int,
    first_where: float,
    cut: float,
    second_after: int,
    second_where: float = 0.5,
    cue: BallName = "white",
    first: BallName = "red",
    second: BallName = "yellow",
) -> Layout:
    """A position where ``stroke`` from ``cue_at`` meets ``first`` after ``first_after``
    cushions (``first_where`` of the way along that stretch of path; ``cut`` the sideways offset
    in ball diameters, > 0 to the left of the path: 0 full, 0.5 half ball) and then ``second``
    after ``second_after`` more cushions."""
    alone = simulate(table, {cue: cue_at}, cue, stroke)
    t1 = _time_between(alone, cue, 0.0, first_after, first_where)
    (x, y, _), (vx, vy, _), _ = state_at(alone.trajectory[cue], t1)
    speed = math.hypot(vx, vy)
    if speed == 0.0:
        raise LayoutError("the cue ball has stopped where the first ball was asked for")
    d = 2 * table.ball_radius * cut
    p1 = (x - vy / speed * d, y + vx / speed * d)
    balls: dict[BallName, Point] = {cue: cue_at}
    if not _free(table, p1, balls):
        raise LayoutError(f"no room for the {first} at {p1}")
    balls[first] = p1
    two = simulate(table, balls, cue, stroke)
    hit = next(
        (e.t for e in two.events if e.kind == "ball_ball" and set(e.balls) == {cue, first}), None
    )
    if hit is None:
        raise LayoutError(f"the cue ball misses the {first}")
    t2 = _time_between(two, cue, hit, second_after, second_where)
    p2 = position_at(two, cue, t2)
    if not _free(table, p2, balls):
        raise LayoutError(f"no room for the {second} at {p2}")
    balls[second] = p2
    return Layout(balls, cue, stroke, simulate(table, balls, cue, stroke))
