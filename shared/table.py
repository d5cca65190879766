"""Table geometry: sizes, spots, diamonds and cushions (RULES.md §1, R-SPOT-1).

Frame (PHYSICS.md): ``x`` runs along the length from the bottom (lag) cushion, ``y`` across,
origin at the bottom-left corner of the cushion noses. The playing surface is
``[0, length] × [0, width]``. Everything here is pure data; nothing imports pymunk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

BallName = Literal["white", "yellow", "red"]
BALLS: Final[tuple[BallName, ...]] = ("white", "yellow", "red")

CushionName = Literal["bottom", "top", "right", "left"]
# bottom: x = 0, top: x = L, right: y = 0, left: y = W (as seen from the bottom cushion).
CUSHIONS: Final[tuple[CushionName, ...]] = ("bottom", "top", "right", "left")

Point = tuple[float, float]

# R-FROZEN-5: two balls "touch" when their centres are within 2R + 0.5 mm; a ball touches a
# cushion when its centre is within R + 0.5 mm of the nose line. R-RESPOT-GEOM reuses it.
TOUCH_TOLERANCE: Final[float] = 0.0005  # m


@dataclass(frozen=True, slots=True)
class TableSpec:
    """A carom table and its balls (R-TABLE-1, R-TABLE-2, R-BALL-1)."""

    name: str
    length: float  # m, cushion nose to cushion nose along x
    width: float  # m, along y
    cushion_height: float = 0.037  # m, nose height above the slate (R-TABLE-2)
    ball_radius: float = 0.03075  # m (61.5 mm balls, R-BALL-1 decision)
    ball_mass: float = 0.210  # kg (R-BALL-1 decision)

    # R-SPOT-1 spots -----------------------------------------------------------------------
    @property
    def bottom_spot(self) -> Point:
        return (self.length / 4, self.width / 2)

    @property
    def centre_spot(self) -> Point:
        return (self.length / 2, self.width / 2)

    @property
    def top_spot(self) -> Point:
        return (3 * self.length / 4, self.width / 2)

    @property
    def starting_offset(self) -> float:
        """Distance of the two starting spots from the long axis: 0.1825 m on a match table,
        scaled with the width on smaller tables."""
        return 0.1825 * self.width / 1.42

    @property
    def left_start_spot(self) -> Point:
        """Starting spot on the left of the long axis, seen from the bottom cushion (y > W/2)."""
        return (self.length / 4, self.width / 2 + self.starting_offset)

    @property
    def right_start_spot(self) -> Point:
        return (self.length / 4, self.width / 2 - self.starting_offset)

    def diamonds(self) -> tuple[Point, ...]:
        """R-TABLE-3: points on the nose lines every 1/8 of the length (7 on each long rail, 3 on
        each short rail), corners excluded."""
        pts: list[Point] = []
        step = self.length / 8
        for i in range(1, 8):
            pts.append((i * step, 0.0))
            pts.append((i * step, self.width))
        for j in range(1, 4):
            pts.append((0.0, j * step))
            pts.append((self.length, j * step))
        return tuple(pts)

    def contains(self, p: Point) -> bool:
        """True when a ball centred at ``p`` lies fully on the playing surface."""
        r = self.ball_radius
        return r <= p[0] <= self.length - r and r <= p[1] <= self.width - r


MATCH: Final = TableSpec("match", 2.84, 1.42)
TABLES: Final[dict[str, TableSpec]] = {
    "match": MATCH,  # 2.84 × 1.42 m (R-TABLE-1)
    "club_210": TableSpec("club_210", 2.10, 1.05),
    "club_230": TableSpec("club_230", 2.30, 1.15),
    "ru_9ft": TableSpec("ru_9ft", 2.56, 1.28),  # RU App. 3, 4.5×9 ft
    "ru_10ft": TableSpec("ru_10ft", 2.868, 1.434),  # RU App. 3, 5×10 ft
}


def table_by_name(name: str) -> TableSpec:
    try:
        return TABLES[name]
    except KeyError:
        raise ValueError(f"unknown table {name!r}; known: {', '.join(TABLES)}") from None
