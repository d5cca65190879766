"""Zone lines drawn on the cloth for straight rail and balkline (RULES.md R-DISC-FREE,
R-DISC-BALK), taken from the referee's own zone geometry (``shared.rules.zones``) so the chalk
lines a player sees are exactly the lines the server judges against.

Each zone is a convex polygon of half-planes; a drawn line is one of its edges clipped by the
others. Pure geometry, in table metres.
"""

from __future__ import annotations

from shared.rules.options import CORNER_ZONE_LEG, Discipline
from shared.rules.zones import Zone, zones_for
from shared.table import Point, TableSpec

Line = tuple[Point, Point]


def _edge_segment(zone: Zone, i: int) -> Line | None:
    nx, ny, c = zone.edges[i]
    p0 = (nx * c, ny * c)  # the point of the line n·p = c nearest the origin (|n| = 1)
    d = (-ny, nx)
    lo, hi = -1e9, 1e9
    for j, (mx, my, k) in enumerate(zone.edges):
        if j == i:
            continue
        md = mx * d[0] + my * d[1]
        slack = k - (mx * p0[0] + my * p0[1])
        if abs(md) < 1e-12:
            if slack < -1e-9:
                return None
            continue
        s = slack / md
        if md > 0:
            hi = min(hi, s)
        else:
            lo = max(lo, s)
    if hi - lo < 1e-9:
        return None
    return ((p0[0] + lo * d[0], p0[1] + lo * d[1]), (p0[0] + hi * d[0], p0[1] + hi * d[1]))


def zone_lines(spec: TableSpec, discipline: str, corner_leg: float = CORNER_ZONE_LEG) -> list[Line]:
    """Every drawn line of the discipline's zones, each once (areas share their borders)."""
    try:
        disc = Discipline(discipline)
    except ValueError:
        return []
    seen: set[tuple[float, ...]] = set()
    out: list[Line] = []
    for zone in zones_for(disc, spec, corner_leg):
        for i in zone.lines:
            seg = _edge_segment(zone, i)
            if seg is None:
                continue
            a, b = sorted(seg)
            key = tuple(round(v, 5) for v in (*a, *b))
            if key not in seen:
                seen.add(key)
                out.append((a, b))
    return out
