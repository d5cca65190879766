"""Zone geometry for straight rail and balkline (R-DISC-FREE, R-DISC-BALK, R-ZONE-LINE).

A zone is a convex polygon written as half-planes ``n·p <= c`` (unit ``n``). A ball's position is
its centre, i.e. its contact point with the cloth, which is what a referee judges against a chalk
line. R-ZONE-LINE: a ball on a line (its contact point within ``LINE_HALF_WIDTH`` of it) counts
as inside for a restriction and has not left the zone.

Sizes are given on the 2.84 × 1.42 m match table (PT Art. 19, 22) and scale with the table:
balkline 47 lines at L/6 and W/3 (0.473 m), balkline 71 lines at L/4 and W/2 (0.71 m), anchor
squares of 0.178 m side scaled by L/2.84.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from shared.physics.types import Segment
from shared.rules.options import Discipline
from shared.table import BallName, Point, TableSpec

# A chalk line drawn "as thin as possible" (PT Art. 14, 19): 2 mm wide.
LINE_HALF_WIDTH: Final[float] = 0.001  # m
ANCHOR_SIDE: Final[float] = 0.178  # m on the match table (PT Art. 18)

HalfPlane = tuple[float, float, float]  # (nx, ny, c): inside when nx*x + ny*y <= c


@dataclass(frozen=True, slots=True)
class Zone:
    name: str
    edges: tuple[HalfPlane, ...]
    lines: tuple[int, ...]  # indices of edges that are drawn lines (the others are cushions)

    def excess(self, p: Point) -> float:
        """How far ``p`` lies outside (> 0) or inside (<= 0) the zone, in metres."""
        return max(nx * p[0] + ny * p[1] - c for nx, ny, c in self.edges)

    def holds(self, p: Point) -> bool:
        """R-ZONE-LINE: inside, counting a ball on a line as inside."""
        return self.excess(p) <= LINE_HALF_WIDTH

    def on_line(self, p: Point) -> bool:
        """The ball's contact point is on one of the zone's drawn lines ("astride", R-ZONE-CALL)."""
        if not self.holds(p):
            return False
        return any(
            abs(self.edges[i][0] * p[0] + self.edges[i][1] * p[1] - self.edges[i][2])
            <= LINE_HALF_WIDTH
            for i in self.lines
        )


def _rect(name: str, x0: float, x1: float, y0: float, y1: float, table: TableSpec) -> Zone:
    edges = ((-1.0, 0.0, -x0), (1.0, 0.0, x1), (0.0, -1.0, -y0), (0.0, 1.0, y1))
    # An edge on a cushion nose is not a drawn line.
    borders = (x0 <= 0.0, x1 >= table.length, y0 <= 0.0, y1 >= table.width)
    lines = tuple(i for i, cushion in enumerate(borders) if not cushion)
    return Zone(name, edges, lines)


def _corner(name: str, cx: float, cy: float, sx: float, sy: float, leg: float) -> Zone:
    """Right triangle with legs ``leg`` along both cushions from corner (cx, cy); ``sx``/``sy``
    point into the table."""
    k = 1 / math.sqrt(2)
    # Inside: sx*(x - cx) + sy*(y - cy) <= leg, written as n·p <= c with n pointing outward.
    hyp = (sx * k, sy * k, (sx * cx + sy * cy + leg) * k)
    return Zone(name, ((-sx, 0.0, -sx * cx), (0.0, -sy, -sy * cy), hyp), (2,))


@lru_cache(maxsize=64)
def zones_for(discipline: Discipline, table: TableSpec, corner_leg: float) -> tuple[Zone, ...]:
    """Every restricted zone of a discipline; empty for three- and one-cushion."""
    L, W = table.length, table.width
    if discipline is Discipline.STRAIGHT_RAIL:
        leg = corner_leg  # metres as given: the option is the federation's number
        return (
            _corner("corner bottom-right", 0.0, 0.0, 1.0, 1.0, leg),
            _corner("corner bottom-left", 0.0, W, 1.0, -1.0, leg),
            _corner("corner top-right", L, 0.0, -1.0, 1.0, leg),
            _corner("corner top-left", L, W, -1.0, -1.0, leg),
        )
    if not discipline.is_balkline:
        return ()
    s = ANCHOR_SIDE * L / 2.84
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    if discipline in (Discipline.BALKLINE_47_2, Discipline.BALKLINE_47_1):
        xs, ys = (0.0, L / 6, 5 * L / 6, L), (0.0, W / 3, 2 * W / 3, W)
    else:
        xs, ys = (0.0, L / 4, 3 * L / 4, L), (0.0, W / 2, W)
    areas = [
        _rect(f"area {i + 1}-{j + 1}", xs[i], xs[i + 1], ys[j], ys[j + 1], table)
        for i in range(len(xs) - 1)
        for j in range(len(ys) - 1)
    ]
    anchors: list[Zone] = []
    for x in xs[1:-1]:  # lines across the table end on the long cushions
        anchors.append(_rect(f"anchor x={x:.3f} right", x - s / 2, x + s / 2, 0.0, s, table))
        anchors.append(_rect(f"anchor x={x:.3f} left", x - s / 2, x + s / 2, W - s, W, table))
    for y in ys[1:-1]:  # lines along the table end on the short cushions
        anchors.append(_rect(f"anchor y={y:.3f} bottom", 0.0, s, y - s / 2, y + s / 2, table))
        anchors.append(_rect(f"anchor y={y:.3f} top", L - s, L, y - s / 2, y + s / 2, table))
    return (*areas, *anchors)


def shared_zones(zones: Sequence[Zone], a: Point, b: Point) -> tuple[Zone, ...]:
    """The zones that hold both object balls (R-ZONE-LINE: lines count as inside)."""
    return tuple(z for z in zones if z.holds(a) and z.holds(b))


def left_zone(
    zone: Zone,
    ball: BallName,
    start: Point,
    trajectory: Mapping[BallName, Sequence[Segment]],
    checkpoints: Sequence[Point | None],
    duration: float,
) -> bool:
    """Did ``ball`` leave ``zone`` at any moment of the stroke (it may have come back, PT Art.
    14.3, 20.2)? Reads the analytic trajectory exactly: along each edge normal the position is
    quadratic in time, so its maximum over a segment is at an end or at the vertex. Positions
    from the event log (``checkpoints``; None = left the table) are checked too, so a result
    without a trajectory is still judged.
    """
    if any(p is None for p in checkpoints):
        return True
    points = [start, *(p for p in checkpoints if p is not None)]
    if any(zone.excess(p) > LINE_HALF_WIDTH for p in points):
        return True
    return any(
        _max_excess(zone, seg, span) > LINE_HALF_WIDTH
        for seg, span in _spans(trajectory.get(ball, ()), duration)
    )


def _spans(segments: Sequence[Segment], duration: float) -> Iterator[tuple[Segment, float]]:
    for k, seg in enumerate(segments):
        end = segments[k + 1].t0 if k + 1 < len(segments) else duration
        span = max(0.0, end - seg.t0)
        a = math.hypot(seg.acc[0], seg.acc[1])
        if k + 1 == len(segments) and a > 0:
            # The physics ends every ball with a stationary segment; should a last segment still
            # be moving, it decelerates to rest, so never extrapolate past |v|/|a|.
            span = min(span, math.hypot(seg.vel[0], seg.vel[1]) / a)
        yield seg, span


def _max_excess(zone: Zone, seg: Segment, span: float) -> float:
    best = -math.inf
    for nx, ny, c in zone.edges:
        qa = (nx * seg.acc[0] + ny * seg.acc[1]) / 2
        qb = nx * seg.vel[0] + ny * seg.vel[1]
        qc = nx * seg.pos[0] + ny * seg.pos[1] - c
        candidates = [0.0, span]
        if qa < 0 and 0 < -qb / (2 * qa) < span:
            candidates.append(-qb / (2 * qa))
        best = max(best, *(qa * t * t + qb * t + qc for t in candidates))
    return best
