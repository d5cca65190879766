"""Where balls go: lag and break positions, touching balls, re-spotting (RULES.md §2, §3, §6, §7).

Positions are tuples in ``BALLS`` order (white, yellow, red). All functions are pure geometry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from shared.table import BALLS, TOUCH_TOLERANCE, BallName, CushionName, Point, TableSpec

Side = Literal["left", "right"]
Balls = tuple[Point, Point, Point]

# Inclusive comparisons at exactly the tolerance must not flip on the last bit of a float.
FLOAT_SLACK = 1e-12  # m
LAG_CUSHION_GAP = 0.20  # m, R-LAG-1: lag balls about 0.20 m from the nearest long cushion


def as_tuple(positions: Mapping[BallName, Point]) -> Balls:
    w, y, r = (positions[b] for b in BALLS)
    return (w, y, r)


def lag_position(table: TableSpec) -> Balls:
    """R-LAG-1: white (seat 0) on the starting line on the right, yellow (seat 1) on the left,
    each about 0.20 m from its long cushion (scaled with the table width); red on the top spot."""
    gap = LAG_CUSHION_GAP * table.width / 1.42
    x = table.bottom_spot[0]
    return ((x, gap), (x, table.width - gap), table.top_spot)


def break_position(table: TableSpec, cue: BallName, side: Side = "right") -> Balls:
    """R-BREAK-1: red on the top spot, the other cue ball on the bottom spot, the shooter's ball
    on the starting spot of the shooter's choice."""
    start = table.left_start_spot if side == "left" else table.right_start_spot
    pos: dict[BallName, Point] = {"red": table.top_spot}
    other: BallName = "yellow" if cue == "white" else "white"
    pos[cue] = start
    pos[other] = table.bottom_spot
    return as_tuple(pos)


@dataclass(frozen=True, slots=True)
class Contact:
    """What the cue ball touches at the start of a stroke (R-FROZEN-5)."""

    balls: tuple[BallName, ...] = ()
    cushions: tuple[CushionName, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.balls or self.cushions)


def balls_touch(a: Point, b: Point, table: TableSpec) -> bool:
    """R-FROZEN-5 / R-RESPOT-GEOM: centres within 2R + tolerance."""
    return math.dist(a, b) <= 2 * table.ball_radius + TOUCH_TOLERANCE + FLOAT_SLACK


def cushion_normals(table: TableSpec, p: Point) -> dict[CushionName, tuple[float, float, float]]:
    """For each cushion: (outward unit normal x, y, distance from the centre to the nose)."""
    return {
        "bottom": (-1.0, 0.0, p[0]),
        "top": (1.0, 0.0, table.length - p[0]),
        "right": (0.0, -1.0, p[1]),
        "left": (0.0, 1.0, table.width - p[1]),
    }


def contact_of(balls: Balls, cue: BallName, table: TableSpec) -> Contact:
    """R-FROZEN-1 / R-FROZEN-5: the balls and cushions the cue ball touches."""
    p = balls[BALLS.index(cue)]
    touching = tuple(
        b for b, q in zip(BALLS, balls, strict=True) if b != cue and balls_touch(p, q, table)
    )
    cushions = tuple(
        name
        for name, (_, _, d) in cushion_normals(table, p).items()
        if d <= table.ball_radius + TOUCH_TOLERANCE + FLOAT_SLACK
    )
    return Contact(touching, cushions)


def is_free(p: Point, others: list[Point], table: TableSpec) -> bool:
    """R-RESPOT-GEOM: a spot is free when a ball on it would not touch any ball already there."""
    return all(not balls_touch(p, q, table) for q in others)


def spots_3c(table: TableSpec, next_ball: BallName) -> dict[BallName, Point]:
    """R-RESPOT-3C: red on the top spot, the next shooter's ball on the bottom spot, the other
    cue ball on the centre spot."""
    other: BallName = "yellow" if next_ball == "white" else "white"
    return {"red": table.top_spot, next_ball: table.bottom_spot, other: table.centre_spot}


def respot_3c(
    balls: Mapping[BallName, Point | None],
    table: TableSpec,
    next_ball: BallName,
    which: tuple[BallName, ...] | None = None,
) -> dict[BallName, Point]:
    """R-RESPOT-3C (and R-FROZEN-4 in three-cushion): re-spot the balls in ``which`` (default:
    the ones that are None, i.e. jumped) and return only their new positions.

    A ball whose spot is occupied or covered goes to the spot belonging to the ball occupying it
    (followed as a chain). If the chain ends nowhere free — which needs balls lying between
    spots — the ball goes to the nearest free point on the long axis, an edge the books leave
    open (docs/rules.md).
    """
    if which is None:
        which = tuple(b for b in BALLS if balls[b] is None)
    spots = spots_3c(table, next_ball)
    placed: dict[BallName, Point] = {
        b: p for b, p in balls.items() if p is not None and b not in which
    }
    moved: dict[BallName, Point] = {}
    # Red first, then the next shooter's ball, then the other: the order of PT Art. 31.2.
    order = sorted(
        which, key=lambda b: ("red", next_ball).index(b) if b in ("red", next_ball) else 2
    )
    for ball in order:
        spot = spots[ball]
        for _ in range(len(BALLS)):
            blocker = next((b for b, q in placed.items() if balls_touch(spot, q, table)), None)
            if blocker is None:
                break
            spot = spots[blocker]
        else:
            spot = _nearest_free_on_axis(spots[ball], list(placed.values()), table)
        if not is_free(spot, list(placed.values()), table):
            spot = _nearest_free_on_axis(spots[ball], list(placed.values()), table)
        placed[ball] = spot
        moved[ball] = spot
    return moved


def _nearest_free_on_axis(start: Point, others: list[Point], table: TableSpec) -> Point:
    """Scan the long axis outward from ``start`` in millimetre steps for a free place."""
    r = table.ball_radius
    step = 0.001
    for k in range(int(table.length / step)):
        for sign in (1, -1):
            x = start[0] + sign * k * step
            p = (x, table.width / 2)
            if r <= x <= table.length - r and is_free(p, others, table):
                return p
    raise AssertionError("no free place on the long axis")  # three balls always fit
