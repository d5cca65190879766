"""Where things go on screen: the table drawn to scale inside a window, and the HUD panels.

Pure arithmetic (no arcade), so tests compute the pixel where a ball must appear from the same
numbers the renderer uses and then look at the screenshot.

The table frame is RULES.md R-SPOT-1: ``x`` along the length from the bottom cushion, ``y``
across. On screen the length runs left to right (bottom cushion on the left) and ``y`` runs up,
so a player looks at the table the way TV broadcasts show it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.table import TableSpec

RAIL_WIDTH = 0.13  # m, wooden rail + cushion rubber as drawn outside the nose line
CUSHION_WIDTH = 0.045  # m, the rubber part of the rail (drawn darker than the cloth)
HUD_TOP = 128  # px reserved above the table for the scoreboard
HUD_BOTTOM = 140  # px reserved below the table for power, spin and elevation controls
CALL_STRIP = 44  # px between the scoreboard and the table: the referee's calls, off the cloth
SIDE_MARGIN = 24  # px


@dataclass(frozen=True, slots=True)
class Rect:
    left: float
    bottom: float
    width: float
    height: float

    @property
    def right(self) -> float:
        return self.left + self.width

    @property
    def top(self) -> float:
        return self.bottom + self.height

    @property
    def cx(self) -> float:
        return self.left + self.width / 2

    @property
    def cy(self) -> float:
        return self.bottom + self.height / 2

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x <= self.right and self.bottom <= y <= self.top


@dataclass(frozen=True, slots=True)
class TableLayout:
    """Maps table metres to window pixels for one window size."""

    spec: TableSpec
    window_width: int
    window_height: int
    scale: float  # px per metre
    origin_x: float  # px of table x = 0 (bottom cushion nose)
    origin_y: float  # px of table y = 0 (right cushion nose)

    @classmethod
    def fit(cls, spec: TableSpec, width: int, height: int) -> TableLayout:
        avail_w = width - 2 * SIDE_MARGIN
        avail_h = height - HUD_TOP - CALL_STRIP - HUD_BOTTOM
        outer_l = spec.length + 2 * RAIL_WIDTH
        outer_w = spec.width + 2 * RAIL_WIDTH
        scale = min(avail_w / outer_l, avail_h / outer_w)
        if scale <= 0:
            raise ValueError(f"window {width}×{height} is too small to draw the table")
        ox = (width - spec.length * scale) / 2
        oy = HUD_BOTTOM + (avail_h - spec.width * scale) / 2
        return cls(spec, width, height, scale, ox, oy)

    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        return (self.origin_x + x * self.scale, self.origin_y + y * self.scale)

    def to_table(self, sx: float, sy: float) -> tuple[float, float]:
        return ((sx - self.origin_x) / self.scale, (sy - self.origin_y) / self.scale)

    def length_px(self, metres: float) -> float:
        return metres * self.scale

    @property
    def ball_radius_px(self) -> float:
        return self.spec.ball_radius * self.scale

    @property
    def cloth(self) -> Rect:
        return Rect(
            self.origin_x,
            self.origin_y,
            self.spec.length * self.scale,
            self.spec.width * self.scale,
        )

    @property
    def rails(self) -> Rect:
        r = RAIL_WIDTH * self.scale
        c = self.cloth
        return Rect(c.left - r, c.bottom - r, c.width + 2 * r, c.height + 2 * r)

    def diamond_screen_points(self) -> list[tuple[float, float]]:
        """R-TABLE-3 diamonds, drawn on the wooden rail just outside each nose point."""
        out = (CUSHION_WIDTH + (RAIL_WIDTH - CUSHION_WIDTH) / 2) * self.scale
        pts = []
        for x, y in self.spec.diamonds():
            sx, sy = self.to_screen(x, y)
            if y == 0.0:
                sy -= out
            elif y == self.spec.width:
                sy += out
            elif x == 0.0:
                sx -= out
            else:
                sx += out
            pts.append((sx, sy))
        return pts

    # HUD panels -------------------------------------------------------------------------------
    @property
    def scoreboard(self) -> Rect:
        return Rect(0, self.window_height - HUD_TOP, self.window_width, HUD_TOP)

    @property
    def call_strip(self) -> Rect:
        """Where the referee's calls are written: a strip above the table's top rail, so a
        call never covers a ball."""
        top = self.window_height - HUD_TOP
        bottom = max(self.rails.top, top - CALL_STRIP)
        return Rect(0, bottom, self.window_width, top - bottom)

    @property
    def clock_centre(self) -> tuple[float, float]:
        sb = self.scoreboard
        return (sb.cx, sb.cy)

    @property
    def controls(self) -> Rect:
        return Rect(0, 0, self.window_width, HUD_BOTTOM)

    @property
    def power_gauge(self) -> Rect:
        return Rect(SIDE_MARGIN + 90, 40, 300, 26)

    @property
    def spin_selector(self) -> tuple[float, float, float]:
        """Centre x, centre y and radius (px) of the cue-ball face used to pick the tip."""
        r = (HUD_BOTTOM - 24) / 2
        return (self.window_width - SIDE_MARGIN - r - 150, HUD_BOTTOM / 2, r)

    @property
    def elevation_dial(self) -> tuple[float, float, float]:
        """Pivot x, pivot y and arm length (px) of the cue-elevation quarter dial."""
        r = HUD_BOTTOM - 40
        return (self.window_width - SIDE_MARGIN - r - 10, 20, r)
