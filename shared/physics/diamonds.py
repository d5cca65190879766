"""Diamond systems: set up a corner-5 or plus-system three-rail stroke and read where the cue
ball lands.

The corner-5 ("the diamond system"; Byrne; Jewett, Billiards Digest 2010; Alciatore TP 7.2):
the cue ball's line runs from an *origin* number through a *first-rail* number, both sighted on
the diamonds (not on the cushion noses), and with running english the ball reaches the *third
rail* at ``origin − first``. Table layout used here, seen from the bottom cushion (x = 0):

- origin numbers on the left long rail (y = W) and the bottom short rail: 5 at the corner where
  the two diamond lines meet, then 4.5, 4, … by half a number per diamond up the long rail, and
  6, 7, 8 one per diamond along the short rail;
- first-rail numbers on the right long rail (y = 0), third-rail numbers on the left long rail,
  both counted in diamonds from the far (top) cushion; the second rail is the top cushion.

Diamonds are inlaid in the middle of the wooden rail, ``DIAMOND_LINE_OFFSET`` outside the
nose line; the diamond pitch is 1/8 of the nose-to-nose length (R-TABLE-3). A ball's centre
is aimed through the sighting points. The third-rail arrival is read two ways:

- ``at_rail``: opposite the point where the ball touches the third cushion (its centre's x at
  the contact, which is the contact point's x), the way a player watches it land;
- ``at_line``: where the ball's incoming direction at that contact crosses the diamond line
  (the "through" sighting, as the origin and first-rail numbers are taken).

The two differ by ``offset·|v_x/v_y|`` (about 0.25 diamond at 45°), always towards the near end.

The plus system (Efler, *Systems in three cushion*; docs/analysis.md "The plus system") takes
the same route and counts it differently: start numbers ``S`` in diamonds up the left long rail
from the near (bottom) cushion, first-rail numbers ``F`` in half diamonds down the right long
rail from the far cushion, third-rail numbers from the near cushion; the ball reaches ``S + F``.
On our table that holds for soft strokes with a touch of running english.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from shared.physics.motion import state_at
from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.strike import squirt_angle
from shared.physics.trajectory import segment_at
from shared.physics.types import ShotResult, Stroke
from shared.table import BallName, Point, TableSpec

# Diamond sighting line outside the cushion nose. The match frame measures 3.10 × 1.6775 m
# outside for a 2.84 × 1.42 m bed (CEB/UMB Art. 1.5), so 13 cm from nose to the frame edge;
# with about 4.5 cm of rubber the diamonds, in the middle of the wood, sit about 8 cm out.
DIAMOND_LINE_OFFSET: Final = 0.0825  # m

# The cue ball starts this far along its line after it is fully on the table, so it reaches the
# first rail rolling whichever origin is used.
_RUN_IN: Final = 0.35  # m


@dataclass(frozen=True, slots=True)
class Arrival:
    """Third-rail number reached by the cue ball (diamonds from the far cushion)."""

    at_rail: float
    at_line: float


def origin_point(table: TableSpec, origin: float, offset: float = DIAMOND_LINE_OFFSET) -> Point:
    """Sighting point of a corner-5 origin number on the left long rail (≤ 5) or the bottom
    short rail (> 5), on the diamond line."""
    dia = table.length / 8
    if not 1.5 <= origin <= 8.0:
        raise ValueError(f"corner-5 origin numbers run from 1.5 to 8, got {origin}")
    cx, cy = -offset, table.width + offset  # 5: where the two diamond lines meet
    if origin >= 5.0:
        # 6, 7, 8: the short-rail diamonds; between 5 and 6, straight from the corner.
        y6 = table.width - dia
        y = cy + (origin - 5.0) * (y6 - cy) if origin < 6.0 else y6 - (origin - 6.0) * dia
        return (cx, y)
    # 4.5 is the first long-rail diamond, then two diamonds of rail per origin number.
    x = (
        cx + (5.0 - origin) * 2.0 * (dia - cx)
        if origin > 4.5
        else (1.0 + 2.0 * (4.5 - origin)) * dia
    )
    return (x, cy)


def first_rail_point(table: TableSpec, first: float, offset: float = DIAMOND_LINE_OFFSET) -> Point:
    """Sighting point of first-rail number ``first`` (diamonds from the far cushion)."""
    if not 0.0 < first < 8.0:
        raise ValueError(f"first-rail numbers run between 0 and 8, got {first}")
    return (table.length - first * table.length / 8, -offset)


def corner_five_stroke(
    table: TableSpec,
    origin: float,
    first: float,
    speed: float,
    english: float,
    spec: PhysicsSpec = DEFAULT_SPEC,
    offset: float = DIAMOND_LINE_OFFSET,
) -> tuple[Point, Stroke]:
    """Cue-ball position and stroke that send it from ``origin`` through ``first`` with running
    english ``english`` (tip offset, fraction of R) at cue speed ``speed``.

    The path turns left at the first rail, so left english (``tip_x < 0``) runs. The cue is
    turned by the squirt angle so that the ball itself leaves along the line.
    """
    ox, oy = origin_point(table, origin, offset)
    return _line_stroke(
        table, (ox, oy), first_rail_point(table, first, offset), speed, english, spec
    )


def plus_start_point(table: TableSpec, start: float, offset: float = DIAMOND_LINE_OFFSET) -> Point:
    """Sighting point of plus-system start number ``start`` on the left long rail's diamond
    line: diamonds from the near (bottom) cushion."""
    if not 0.5 <= start <= 7.0:
        raise ValueError(f"plus start numbers run from 0.5 to 7, got {start}")
    return (start * table.length / 8, table.width + offset)


def plus_first_point(table: TableSpec, first: float, offset: float = DIAMOND_LINE_OFFSET) -> Point:
    """Sighting point of plus-system first-rail number ``first`` on the right long rail: half
    diamonds from the far (top) cushion, two numbers a diamond."""
    if not 0.0 < first < 16.0:
        raise ValueError(f"plus first-rail numbers run between 0 and 16, got {first}")
    return (table.length - first * table.length / 16, -offset)


def plus_stroke(
    table: TableSpec,
    start: float,
    first: float,
    speed: float,
    english: float,
    spec: PhysicsSpec = DEFAULT_SPEC,
    offset: float = DIAMOND_LINE_OFFSET,
) -> tuple[Point, Stroke]:
    """Cue-ball position and stroke that send it from plus start number ``start`` through
    first-rail number ``first`` with running english ``english`` at cue speed ``speed``; the
    system says it reaches third-rail number ``start + first`` (``plus_arrival``)."""
    origin = plus_start_point(table, start, offset)
    return _line_stroke(table, origin, plus_first_point(table, first, offset), speed, english, spec)


def _line_stroke(
    table: TableSpec, origin: Point, aim: Point, speed: float, english: float, spec: PhysicsSpec
) -> tuple[Point, Stroke]:
    """Cue-ball position and stroke for a line sighted from ``origin`` (on the left long rail's
    diamond line or beyond it) through ``aim`` (on the right long rail's diamond line), the ball
    rolling on it with running (left) english ``english``."""
    if not 0.0 <= english <= 0.6:
        raise ValueError(f"running english is a tip offset in [0, 0.6], got {english}")
    ox, oy = origin
    ax, ay = aim
    n = math.hypot(ax - ox, ay - oy)
    ux, uy = (ax - ox) / n, (ay - oy) / n
    r = table.ball_radius
    # Distance along the line at which the ball is fully on the bed (both coordinates).
    inside = (oy - (table.width - r)) / -uy
    if ux > 0.0:
        inside = max(inside, (r - ox) / ux)
    start = inside + _RUN_IN
    tip = -english
    heading = math.degrees(math.atan2(uy, ux)) - math.degrees(
        squirt_angle(tip, table.ball_mass, spec)
    )
    return (ox + ux * start, oy + uy * start), Stroke(heading % 360.0, speed, tip, 0.0)


def third_rail_arrival(
    result: ShotResult,
    table: TableSpec,
    ball: BallName = "white",
    offset: float = DIAMOND_LINE_OFFSET,
) -> Arrival | None:
    """Where ``ball`` reaches the third rail of a corner-5 path (right, top, left cushions in
    that order, before any ball contact), or None if it takes another route."""
    rails = []
    for e in result.events:
        if e.kind == "ball_ball" and ball in e.balls:
            break
        if e.kind == "ball_cushion" and e.balls == (ball,):
            rails.append(e)
            if len(rails) == 3:
                break
    if [e.cushion for e in rails] != ["right", "top", "left"]:
        return None
    third = rails[2]
    # The incoming segment: the one the cushion ends, which started strictly before the hit
    # (the rebound segment starts at the hit time itself).
    seg = segment_at(result.trajectory[ball], math.nextafter(third.t, -math.inf))
    (x, _, _), (vx, vy, _), _ = state_at(seg, third.t)
    dia = table.length / 8
    # The incoming direction carries on, the ball centre at W − R, to the line at W + offset.
    line_x = x + vx / vy * (table.ball_radius + offset)
    return Arrival((table.length - x) / dia, (table.length - line_x) / dia)


def plus_arrival(
    result: ShotResult,
    table: TableSpec,
    ball: BallName = "white",
    offset: float = DIAMOND_LINE_OFFSET,
) -> Arrival | None:
    """Where ``ball`` reaches the third rail of a plus-system path (right, top, left cushions),
    in the plus system's count: diamonds from the near (bottom) cushion; None for another
    route."""
    got = third_rail_arrival(result, table, ball, offset)
    if got is None:
        return None
    return Arrival(8.0 - got.at_rail, 8.0 - got.at_line)
