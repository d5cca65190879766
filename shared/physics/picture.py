"""A top view of a simulated stroke as PNG bytes: cloth, cushions, diamonds and ball paths.

Pure (returns bytes; the caller writes the file). Pillow is imported on use, so nothing else in
``shared.physics`` pays for it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import Any, Final

from shared.physics.diamonds import DIAMOND_LINE_OFFSET
from shared.physics.trajectory import position_at
from shared.physics.types import ShotResult
from shared.table import BallName, Point, TableSpec

CUSHION_WIDTH: Final = 0.045  # m, drawn rubber strip inside the rail
RAIL_WIDTH: Final = 0.075  # m, drawn wooden rail
CAPTION_PX: Final = 20  # px, band under the table for the caption
Pixel = tuple[float, float]
COLOURS: Final[dict[str, tuple[int, int, int]]] = {
    "white": (245, 245, 240),
    "yellow": (240, 200, 20),
    "red": (210, 30, 30),
}


def _table(table: TableSpec, px_per_m: float) -> tuple[Any, Any, Callable[[float, float], Pixel]]:
    """Cloth, cushions, rails and diamonds; returns the image, its drawer and the mapping."""
    from PIL import Image, ImageDraw

    border = CUSHION_WIDTH + RAIL_WIDTH
    w = round((table.length + 2 * border) * px_per_m)
    h = round((table.width + 2 * border) * px_per_m)

    def px(x: float, y: float) -> Pixel:
        # x along the image width, y up (the bottom cushion on the left).
        return ((x + border) * px_per_m, h - (y + border) * px_per_m)

    img = Image.new("RGB", (w, h), (92, 52, 28))
    draw = ImageDraw.Draw(img)
    c0, c1 = (
        px(-CUSHION_WIDTH, table.width + CUSHION_WIDTH),
        px(table.length + CUSHION_WIDTH, -CUSHION_WIDTH),
    )
    draw.rectangle((c0, c1), fill=(20, 90, 150))
    n0, n1 = px(0.0, table.width), px(table.length, 0.0)
    draw.rectangle((n0, n1), fill=(30, 110, 180))
    draw.rectangle((n0, n1), outline=(15, 60, 110), width=2)
    # Diamonds on the rail tops, opposite their nose points (R-TABLE-3), on the sighting line
    # the diamond systems use.
    off = DIAMOND_LINE_OFFSET
    dr = 0.008 * px_per_m
    for dx, dy in table.diamonds():
        ox = -off if dx == 0.0 else off if dx == table.length else 0.0
        oy = -off if dy == 0.0 else off if dy == table.width else 0.0
        cx, cy = px(dx + ox, dy + oy)
        draw.ellipse((cx - dr, cy - dr, cx + dr, cy + dr), fill=(235, 235, 225))
    return img, draw, px


def _framed(img: Any, caption: str) -> bytes:
    from PIL import Image, ImageDraw

    framed = Image.new("RGB", (img.width, img.height + CAPTION_PX), (40, 24, 14))
    framed.paste(img, (0, 0))
    ImageDraw.Draw(framed).text((10, img.height + 4), caption, fill=(235, 225, 200))
    buf = io.BytesIO()
    framed.save(buf, format="PNG")
    return buf.getvalue()


def stroke_png(
    result: ShotResult, table: TableSpec, px_per_m: float = 400.0, caption: str | None = None
) -> bytes:
    """Draw ``result`` on ``table``: start positions hollow, final positions filled, paths.
    ``caption`` (default: the stroke parameters) is written on the near rail."""
    img, draw, px = _table(table, px_per_m)
    r = table.ball_radius * px_per_m
    end = result.duration
    names: list[BallName] = list(result.trajectory)
    for name in names:
        off_t = [e.t for e in result.events if e.kind == "off_table" and name in e.balls]
        stop = off_t[0] if off_t else end
        times = {stop * k / 400 for k in range(401)}
        times |= {e.t for e in result.events if name in e.balls and e.t <= stop}
        pts = [px(*position_at(result, name, t)) for t in sorted(times)]
        colour = COLOURS.get(name, (200, 200, 200))
        if len(pts) > 1:
            draw.line(pts, fill=colour, width=2)
        for e in result.events:
            if name in e.balls and e.kind in ("ball_ball", "ball_cushion"):
                ex, ey = px(*position_at(result, name, e.t))
                draw.ellipse((ex - 3, ey - 3, ex + 3, ey + 3), outline=(20, 20, 20))
        sx, sy = px(*result.initial[name])
        draw.ellipse((sx - r, sy - r, sx + r, sy + r), outline=colour, width=2)
        final = result.final.get(name)
        if final is not None:
            fx, fy = px(*final)
            draw.ellipse((fx - r, fy - r, fx + r, fy + r), fill=colour, outline=(20, 20, 20))
    if caption is None:
        caption = "   ".join(
            f"{name}: {s.direction:g}°, {s.speed:g} m/s, tip ({s.tip_x:g}, {s.tip_y:g}), "
            f"elevation {s.elevation:g}°"
            for name, s in result.strokes.items()
        )
    return _framed(img, caption)


def paths_png(
    results: Sequence[ShotResult],
    table: TableSpec,
    ball: BallName = "white",
    until: Sequence[float] = (),
    lines: Sequence[tuple[Point, Point]] = (),
    marks: Sequence[Point] = (),
    caption: str = "",
    px_per_m: float = 400.0,
) -> bytes:
    """Several strokes' paths of one ball on one table (a diamond system's tracks): each path
    from its start to ``until[i]`` (default: rest), thin sighting ``lines`` and target
    ``marks`` (small rings) drawn under them."""
    img, draw, px = _table(table, px_per_m)
    for a, b in lines:
        draw.line((px(*a), px(*b)), fill=(170, 200, 225), width=1)
    for mx, my in marks:
        cx, cy = px(mx, my)
        draw.ellipse((cx - 6, cy - 6, cx + 6, cy + 6), outline=(250, 120, 40), width=2)
    colour = COLOURS.get(ball, (200, 200, 200))
    r = table.ball_radius * px_per_m
    for i, result in enumerate(results):
        stop = until[i] if i < len(until) else result.duration
        times = {stop * k / 400 for k in range(401)}
        times |= {e.t for e in result.events if ball in e.balls and e.t <= stop}
        pts = [px(*position_at(result, ball, t)) for t in sorted(times)]
        if len(pts) > 1:
            draw.line(pts, fill=colour, width=2)
        sx, sy = px(*result.initial[ball])
        draw.ellipse((sx - r, sy - r, sx + r, sy + r), outline=colour, width=2)
    return _framed(img, caption)
