"""Zone lines drawn on the cloth for straight rail and balkline (RULES.md R-DISC-FREE,
R-DISC-BALK). Pure geometry: a list of line segments in table metres.

The referee owns the zone *rules*; this module only draws the lines a player sees on a real
table, from the same numbers RULES.md gives.
"""

from __future__ import annotations

from shared.table import Point, TableSpec

Line = tuple[Point, Point]

BALK_DISTANCE = {"47": 0.473, "71": 0.71}  # m from each cushion (PT Art. 18-23)
ANCHOR_SIDE = 0.178  # m, anchor squares straddling each balkline end


def balk_lines(spec: TableSpec, distance: float) -> list[Line]:
    """The balklines, each distance ``d`` from a cushion. On a 1.42 m wide table the two 71 cm
    lines along the length coincide on the long axis, so 71 cm has three lines, not four."""
    L, W, d = spec.length, spec.width, distance
    lines: list[Line] = [((d, 0.0), (d, W)), ((L - d, 0.0), (L - d, W))]
    ys = sorted({round(d, 6), round(W - d, 6)})
    lines += [((0.0, y), (L, y)) for y in ys]
    return lines


def anchor_squares(spec: TableSpec, distance: float) -> list[Line]:
    """R-DISC-BALK: at each end of each balkline, a square of 0.178 m straddling the line with
    one side on the cushion nose; returned as its three inner sides."""
    a, h = ANCHOR_SIDE, ANCHOR_SIDE / 2
    out: list[Line] = []
    for (x0, y0), (x1, _y1) in balk_lines(spec, distance):
        if x0 == x1:  # crosses the table: ends on the right (y=0) and left (y=W) cushions
            for y, s in ((0.0, 1.0), (spec.width, -1.0)):
                out += [
                    ((x0 - h, y), (x0 - h, y + s * a)),
                    ((x0 + h, y), (x0 + h, y + s * a)),
                    ((x0 - h, y + s * a), (x0 + h, y + s * a)),
                ]
        else:  # along the length: ends on the bottom (x=0) and top (x=L) cushions
            for x, s in ((0.0, 1.0), (spec.length, -1.0)):
                out += [
                    ((x, y0 - h), (x + s * a, y0 - h)),
                    ((x, y0 + h), (x + s * a, y0 + h)),
                    ((x + s * a, y0 - h), (x + s * a, y0 + h)),
                ]
    return out


def corner_triangles(spec: TableSpec, leg: float) -> list[Line]:
    """R-DISC-FREE decision: a right triangle in each corner with legs ``leg`` on both
    cushions; its hypotenuse is the only line drawn (the legs are the cushions)."""
    L, W = spec.length, spec.width
    return [
        ((leg, 0.0), (0.0, leg)),
        ((L - leg, 0.0), (L, leg)),
        ((0.0, W - leg), (leg, W)),
        ((L, W - leg), (L - leg, W)),
    ]


def zone_lines(spec: TableSpec, discipline: str, corner_leg: float = 0.71) -> list[Line]:
    if discipline == "straight_rail":
        return corner_triangles(spec, corner_leg)
    if discipline.startswith("balkline_"):
        d = BALK_DISTANCE[discipline.split("_")[1]]
        return balk_lines(spec, d) + anchor_squares(spec, d)
    return []
