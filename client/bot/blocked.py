"""Balls in the way: where the straight line to an object ball is blocked by the other one, the
jump strokes that may clear it, and, after a stroke, which ball the cue ball went over or round
(docs/bots.md "How the bots think").

Pure geometry on the balls' centres and the physics' trajectory; the search (``plan.py``)
simulates and judges the strokes proposed here like any other.

A jump stroke here is a raised cue (40–60°) at a jump's speed (2.5–4.5 m/s) with little or no
side spin: docs/physics.md "Steep jumps" measures a full cue jumping a ball 20–30 cm away at
45–55° from 2.5 m/s, and the ball leaving the table above about 5 m/s at 45–50°. The wire
allows any elevation up to 89° (``shared.physics.types.MAX_ELEVATION``) and speeds up to 8 m/s;
these stay well inside. No rule forbids a jump stroke in carom (docs/rules.md); a ball that
leaves the table is a foul (R-OFF-1, R-FOUL-OFF), and the referee's own judgement, which the
search uses, already scores such a stroke nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from shared.physics.types import Segment, Stroke
from shared.table import BALLS, BallName, Point

Balls = tuple[Point, Point, Point]

# Jump styles: (speed m/s, tip_x, tip_y, elevation °). docs/physics.md "Steep jumps": the
# softest full-cue jumps over a ball 20–30 cm away are 2.5–3.5 m/s at 45–55°; a little faster
# for a ball further away; follow or draw changes where the cue ball goes after the first ball.
JUMP_ELEVATIONS: Final[tuple[float, ...]] = (40.0, 45.0, 50.0, 55.0, 60.0)
JUMP_SPEEDS: Final[tuple[float, ...]] = (2.5, 3.0, 3.5, 4.0, 4.5)
JUMP_TIPS: Final[tuple[tuple[float, float], ...]] = (
    (0.0, 0.0),
    (0.0, 0.25),
    (0.0, -0.25),
    (0.25, 0.0),
    (-0.25, 0.0),
)
JUMP_ENOUGH: Final = 4  # scoring jump strokes after which the jump sweep stops
# Heights (m, of the ball's centre above its resting height) that count as in the air.
AIRBORNE_Z: Final = 1e-4


@dataclass(frozen=True, slots=True)
class Blocked:
    """The straight line from the cue ball to ``target`` is in part blocked by ``blocker``:
    the directions in ``directions`` (degrees) would meet the blocker first."""

    target: BallName
    blocker: BallName
    directions: tuple[float, ...]


def first_ball_on_line(
    balls: Balls, cue: BallName, direction: float, radius: float
) -> BallName | None:
    """The ball a straight line from the cue ball in ``direction`` meets first (None: none)."""
    c = balls[BALLS.index(cue)]
    ux, uy = math.cos(math.radians(direction)), math.sin(math.radians(direction))
    best: tuple[float, BallName] | None = None
    for name, q in zip(BALLS, balls, strict=True):
        if name == cue:
            continue
        dx, dy = q[0] - c[0], q[1] - c[1]
        along = dx * ux + dy * uy
        if along <= 0:
            continue
        off = abs(dx * uy - dy * ux)
        if off >= 2 * radius:
            continue
        hit = along - math.sqrt((2 * radius) ** 2 - off * off)
        if best is None or hit < best[0]:
            best = (hit, name)
    return best[1] if best is not None else None


def blocked_lines(
    balls: Balls,
    cue: BallName,
    radius: float,
    step: float,
    targets: Sequence[BallName],
) -> list[Blocked]:
    """For each object ball in ``targets``: the directions (at ``step``°) across its whole
    window of cut angles whose straight line meets the other object ball first."""
    c = balls[BALLS.index(cue)]
    out: list[Blocked] = []
    for target in targets:
        q = balls[BALLS.index(target)]
        d = math.dist(c, q)
        centre = math.degrees(math.atan2(q[1] - c[1], q[0] - c[0]))
        half = math.degrees(math.asin(min(1.0, 2 * radius / max(d, 1e-6)))) * 0.97
        n = max(1, int(2 * half / step))
        window = [centre - half + (i + 0.5) * (2 * half / n) for i in range(n)]
        by_blocker: dict[BallName, list[float]] = {}
        for direction in window:
            met = first_ball_on_line(balls, cue, direction, radius)
            if met is not None and met != target:
                by_blocker.setdefault(met, []).append(direction % 360.0)
        out.extend(Blocked(target, b, tuple(ds)) for b, ds in by_blocker.items())
    return out


def jump_strokes(blocked: Sequence[Blocked]) -> list[Stroke]:
    """Every jump style on every blocked direction (the search samples them)."""
    return [
        Stroke(direction, speed, tx, ty, elevation)
        for b in blocked
        for direction in b.directions
        for elevation in JUMP_ELEVATIONS
        for speed in JUMP_SPEEDS
        for tx, ty in JUMP_TIPS
    ]


def _at(seg: Segment, t: float) -> tuple[float, float, float]:
    tau = t - seg.t0
    x, y, z = (seg.pos[i] + seg.vel[i] * tau + 0.5 * seg.acc[i] * tau * tau for i in range(3))
    return x, y, z


def _samples(
    path: Sequence[Segment], end: float, dt: float
) -> Iterator[tuple[float, float, float]]:
    t = 0.0
    i = 0
    while t <= end:
        while i + 1 < len(path) and path[i + 1].t0 <= t:
            i += 1
        yield _at(path[i], t)
        t += dt


def jumped_over(
    trajectory: Mapping[BallName, tuple[Segment, ...]],
    first_contact_t: float | None,
    balls: Balls,
    cue: BallName,
    radius: float,
    dt: float = 0.002,
) -> BallName | None:
    """The ball the cue ball passed over in the air before its first contact with a ball:
    while airborne, its centre came within two radii of that ball's (resting) centre in the
    table's plane. None when it jumped over nothing."""
    path: Sequence[Segment] = trajectory.get(cue, ())
    if not path:
        return None
    end = first_contact_t if first_contact_t is not None else path[-1].t0
    for x, y, z in _samples(path, end, dt):
        if z <= AIRBORNE_Z:
            continue
        for name, q in zip(BALLS, balls, strict=True):
            if name != cue and math.hypot(x - q[0], y - q[1]) < 2 * radius:
                return name
    return None


def in_the_way(balls: Balls, cue: BallName, first: BallName, radius: float) -> BallName | None:
    """The object ball (other than ``first``) lying across the straight line from the cue ball
    to ``first``: the one a curved (massé) or jumped path went round or over."""
    c = balls[BALLS.index(cue)]
    q = balls[BALLS.index(first)]
    d = math.dist(c, q)
    if d <= 0:
        return None
    ux, uy = (q[0] - c[0]) / d, (q[1] - c[1]) / d
    for name, p in zip(BALLS, balls, strict=True):
        if name in (cue, first):
            continue
        along = (p[0] - c[0]) * ux + (p[1] - c[1]) * uy
        off = abs((p[0] - c[0]) * uy - (p[1] - c[1]) * ux)
        if 0 < along < d and off < 2 * radius:
            return name
    return None
