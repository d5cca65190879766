"""Aiming: the cue parameters a player is setting up, and the aim line's first contact.

Pure geometry and state (no arcade), so the input handling can be tested by driving it with
the same numbers the window would deliver.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from shared.physics.types import MAX_ELEVATION, MAX_SPEED, MISCUE_LIMIT
from shared.protocol.views import CueParams
from shared.table import BallName, Point, TableSpec

MIN_SPEED = 0.05  # m/s: a release below this cancels the stroke instead of nudging the ball
FULL_PULL = 0.5  # m of mouse drag (in table units) that maps to MAX_SPEED


@dataclass(frozen=True, slots=True)
class Contact:
    """Where the cue ball, sent straight along the aim, first touches something."""

    point: Point  # cue-ball centre at the contact (the "ghost ball")
    distance: float  # m travelled by the cue ball's centre
    ball: BallName | None  # the ball hit, or None for a cushion
    object_dir: Point | None  # unit heading the struck ball takes (line of centres)


def first_contact(
    spec: TableSpec,
    cue: Point,
    direction_deg: float,
    others: Mapping[BallName, Point],
) -> Contact:
    """Straight-line first contact of the cue ball (no curve, no squirt: the aim line only)."""
    r = spec.ball_radius
    dx, dy = math.cos(math.radians(direction_deg)), math.sin(math.radians(direction_deg))
    best = math.inf
    hit: BallName | None = None
    # Cushions: the centre reaches x = r, x = L - r, y = r, y = W - r.
    for lim, p, d in (
        (spec.length - r, cue[0], dx),
        (r, cue[0], dx),
        (spec.width - r, cue[1], dy),
        (r, cue[1], dy),
    ):
        if abs(d) > 1e-12:
            s = (lim - p) / d
            if 0 <= s < best:
                best = s
    for name, (bx, by) in others.items():
        # |cue + s·d - b| = 2r, smallest s >= 0
        fx, fy = cue[0] - bx, cue[1] - by
        b = fx * dx + fy * dy
        c = fx * fx + fy * fy - 4 * r * r
        disc = b * b - c
        if disc < 0:
            continue
        s = -b - math.sqrt(disc)
        if 0 <= s < best:
            best, hit = s, name
    if not math.isfinite(best):
        best = 0.0
    gx, gy = cue[0] + best * dx, cue[1] + best * dy
    obj: Point | None = None
    if hit is not None:
        bx, by = others[hit]
        n = math.hypot(bx - gx, by - gy) or 1.0
        obj = ((bx - gx) / n, (by - gy) / n)
    return Contact((gx, gy), best, hit, obj)


def heading_to(src: Point, dst: Point) -> float:
    """Degrees in [0, 360) from ``src`` toward ``dst`` (0 = +x, counter-clockwise)."""
    deg = math.degrees(math.atan2(dst[1] - src[1], dst[0] - src[0])) % 360.0
    return 0.0 if deg >= 360.0 else deg


def clamp_tip(tx: float, ty: float) -> tuple[float, float]:
    """Keep the tip inside the miscue limit (PHYSICS.md: hypot ≤ 0.6 ball radii)."""
    h = math.hypot(tx, ty)
    if h <= MISCUE_LIMIT:
        return (tx, ty)
    k = MISCUE_LIMIT / h
    return (tx * k, ty * k)


@dataclass(slots=True)
class AimState:
    """The stroke being set up. ``direction`` follows the mouse until the player presses."""

    direction: float = 0.0  # degrees
    speed: float = 3.0  # m/s, the gauge
    tip_x: float = 0.0
    tip_y: float = 0.0
    elevation: float = 0.0  # degrees
    pulling: bool = False  # left button held on the table: power by drag
    pull_anchor: Point = (0.0, 0.0)  # table point where the drag started
    break_spot: str = "right"  # R-BREAK-1: the breaker's starting spot

    def nudge_direction(self, degrees: float) -> None:
        self.direction = (self.direction + degrees) % 360.0

    def set_speed(self, speed: float) -> None:
        self.speed = min(MAX_SPEED, max(0.0, speed))

    def set_tip(self, tx: float, ty: float) -> None:
        self.tip_x, self.tip_y = clamp_tip(tx, ty)

    def set_elevation(self, deg: float) -> None:
        self.elevation = min(MAX_ELEVATION, max(0.0, deg))

    def start_pull(self, at: Point) -> None:
        self.pulling = True
        self.pull_anchor = at

    def drag_to(self, at: Point) -> None:
        """Pulling the mouse back, away from the aim, loads power (projected on the cue line)."""
        if not self.pulling:
            return
        dx, dy = math.cos(math.radians(self.direction)), math.sin(math.radians(self.direction))
        back = -((at[0] - self.pull_anchor[0]) * dx + (at[1] - self.pull_anchor[1]) * dy)
        self.set_speed(MAX_SPEED * max(0.0, back) / FULL_PULL)

    def release(self) -> CueParams | None:
        """End a drag: the stroke to send, or None when the pull was too small to mean a shot."""
        self.pulling = False
        if self.speed < MIN_SPEED:
            return None
        return self.stroke()

    def stroke(self, spot: str | None = None) -> CueParams:
        """The aim as the cue parameters a ``stroke`` message carries (rounded: a player's
        hand is not finer than this, and the wire stays short)."""
        return CueParams(
            direction=round(self.direction % 360.0, 4) % 360.0,
            speed=round(min(MAX_SPEED, max(MIN_SPEED, self.speed)), 4),
            tip_x=round(self.tip_x, 4),
            tip_y=round(self.tip_y, 4),
            elevation=round(self.elevation, 3),
            spot=spot,
        )
