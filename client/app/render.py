"""Drawing the table, the cue and the aim line with arcade (the balls: ``ball_sprites``).

The static table (rails, cloth, diamonds, spots, zone lines) is built once per layout into a
``ShapeElementList`` so a frame costs a single draw call for it; the cue and aim line are drawn
each frame from the model's poses.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import arcade
from arcade.shape_list import (
    Shape,
    ShapeElementList,
    create_ellipse_filled,
    create_line,
    create_polygon,
    create_rectangle_filled,
)

from client.app.aim import AimState, Contact
from client.app.layout import CUSHION_WIDTH, TableLayout
from client.app.motion import BallPose
from client.app.zones import zone_lines
from shared.table import BallName

Color = tuple[int, int, int, int]

CLOTH: Color = (31, 95, 168, 255)  # tournament blue cloth
CLOTH_EDGE: Color = (24, 78, 142, 255)
CUSHION: Color = (22, 70, 128, 255)
RAIL: Color = (92, 52, 30, 255)
RAIL_EDGE: Color = (58, 32, 18, 255)
DIAMOND: Color = (236, 228, 205, 255)
SPOT: Color = (205, 214, 230, 255)
ZONE_LINE: Color = (210, 220, 240, 150)
BACKGROUND: Color = (18, 22, 28, 255)

BALL_COLOURS: dict[BallName, Color] = {
    "white": (244, 243, 236, 255),
    "yellow": (242, 198, 36, 255),
    "red": (198, 28, 34, 255),
}
MARK_COLOURS: dict[BallName, Color] = {
    "white": (190, 30, 40, 255),
    "yellow": (190, 30, 40, 255),
    "red": (250, 245, 235, 255),
}
# Six marks on the ball's axes (a "dotted" ball): at least one is always well inside the visible
# half, so rolling, draw, follow and side spin are all visible from above.
MARKS: tuple[tuple[float, float, float], ...] = (
    (1.0, 0.0, 0.0),
    (-1.0, 0.0, 0.0),
    (0.0, 1.0, 0.0),
    (0.0, -1.0, 0.0),
    (0.0, 0.0, 1.0),
    (0.0, 0.0, -1.0),
)
MARK_SIZE = 0.2  # of the ball radius

CUE_LENGTH = 1.40  # m
CUE_TIP_WIDTH = 0.012  # m
CUE_BUTT_WIDTH = 0.030  # m


TEXTURES = Path(__file__).resolve().parents[2] / "assets" / "textures"
_textures: dict[str, arcade.Texture | None] = {}


def texture(name: str) -> arcade.Texture | None:
    """``assets/textures/NAME.png`` (made by ``assets/make_textures.py``), loaded once; None
    when the file is missing (the table is then drawn in flat colours)."""
    if name not in _textures:
        path = TEXTURES / f"{name}.png"
        _textures[name] = arcade.load_texture(path) if path.exists() else None
    return _textures[name]


def draw_table(layout: TableLayout, discipline: str, corner_leg: float, shapes: Any) -> None:
    """The table into the backdrop: wood rails, cushions, cloth (textures when present), then
    the shapes on top (shadows, diamonds, spots, zone lines)."""
    rails, cloth = layout.rails, layout.cloth
    edge = 4.0
    arcade.draw_lrbt_rectangle_filled(
        rails.left - edge, rails.right + edge, rails.bottom - edge, rails.top + edge, RAIL_EDGE
    )
    wood = texture("wood")
    if wood is None:
        arcade.draw_lrbt_rectangle_filled(rails.left, rails.right, rails.bottom, rails.top, RAIL)
    else:
        # Long rails with the grain along them, short rails with it across the table's width.
        band = rails.top - cloth.top
        for bottom in (rails.bottom, cloth.top):
            arcade.draw_texture_rect(wood, arcade.LBWH(rails.left, bottom, rails.width, band))
        upright = wood.rotate_90()
        side = cloth.left - rails.left
        for left in (rails.left, cloth.right):
            arcade.draw_texture_rect(upright, arcade.LBWH(left, cloth.bottom, side, cloth.height))
        # Mitred corners: a darker line where the boards meet.
        for x0, y0, x1, y1 in (
            (rails.left, rails.bottom, cloth.left, cloth.bottom),
            (rails.right, rails.bottom, cloth.right, cloth.bottom),
            (rails.left, rails.top, cloth.left, cloth.top),
            (rails.right, rails.top, cloth.right, cloth.top),
        ):
            arcade.draw_line(x0, y0, x1, y1, RAIL_EDGE, 1.5)
    c = layout.length_px(CUSHION_WIDTH)
    arcade.draw_lrbt_rectangle_filled(
        cloth.left - c, cloth.right + c, cloth.bottom - c, cloth.top + c, CUSHION
    )
    felt = texture("cloth")
    if felt is None:
        arcade.draw_lrbt_rectangle_filled(cloth.left, cloth.right, cloth.bottom, cloth.top, CLOTH)
    else:
        arcade.draw_texture_rect(
            felt, arcade.LBWH(cloth.left, cloth.bottom, cloth.width, cloth.height)
        )
    shapes.draw()


def build_table(
    layout: TableLayout, discipline: str, corner_leg: float = 0.71
) -> ShapeElementList[Shape]:
    """What goes over the cloth, built once per layout: the cushions' shadow on the cloth,
    the inlaid diamonds, the spots and the zone lines."""
    shapes: ShapeElementList[Shape] = ShapeElementList()
    cloth = layout.cloth
    # The cushion rubber throws a thin shadow onto the cloth along every nose line.
    shade = max(2.0, layout.scale * 0.006)
    for cx, cy, w, h in (
        (cloth.cx, cloth.top - shade / 2, cloth.width, shade),
        (cloth.cx, cloth.bottom + shade / 2, cloth.width, shade),
        (cloth.left + shade / 2, cloth.cy, shade, cloth.height),
        (cloth.right - shade / 2, cloth.cy, shade, cloth.height),
    ):
        shapes.append(create_rectangle_filled(cx, cy, w, h, CLOTH_EDGE))
    d = max(3.0, layout.scale * 0.011)
    for sx, sy in layout.diamond_screen_points():
        # Inlaid: a dark setting in the wood around the mother-of-pearl.
        e = d + 1.5
        shapes.append(
            create_polygon([(sx - e, sy), (sx, sy + e), (sx + e, sy), (sx, sy - e)], RAIL_EDGE)
        )
        shapes.append(
            create_polygon([(sx - d, sy), (sx, sy + d), (sx + d, sy), (sx, sy - d)], DIAMOND)
        )
    spec = layout.spec
    spot_r = max(2.2, layout.scale * 0.006)
    for x, y in (
        spec.bottom_spot,
        spec.centre_spot,
        spec.top_spot,
        spec.left_start_spot,
        spec.right_start_spot,
    ):
        sx, sy = layout.to_screen(x, y)
        shapes.append(create_ellipse_filled(sx, sy, 2 * spot_r, 2 * spot_r, SPOT))
    for (x0, y0), (x1, y1) in zone_lines(spec, discipline, corner_leg):
        a, b = layout.to_screen(x0, y0), layout.to_screen(x1, y1)
        shapes.append(create_line(a[0], a[1], b[0], b[1], ZONE_LINE, 1.5))
    return shapes


def draw_aim(layout: TableLayout, cue: BallPose, contact: Contact) -> None:
    a = layout.to_screen(cue.x, cue.y)
    g = layout.to_screen(*contact.point)
    r = layout.ball_radius_px
    # Dashed aim line to the ghost ball, as one batch of segments (one draw call).
    dist = math.hypot(g[0] - a[0], g[1] - a[1])
    if dist > 1:
        ux, uy = (g[0] - a[0]) / dist, (g[1] - a[1]) / dist
        dashes: list[tuple[float, float]] = []
        s = r
        while s < dist:
            e = min(dist, s + 9)
            dashes += [(a[0] + ux * s, a[1] + uy * s), (a[0] + ux * e, a[1] + uy * e)]
            s += 15
        if dashes:
            arcade.draw_lines(dashes, (255, 255, 255, 170), 1.5)
    arcade.draw_circle_outline(g[0], g[1], r, (255, 255, 255, 190), 1.5)
    if contact.object_dir is not None:
        ox, oy = contact.object_dir
        length = layout.length_px(0.25)
        arcade.draw_line(
            g[0] + ox * 3 * r,  # from the object ball's far edge, not across it
            g[1] + oy * 3 * r,
            g[0] + ox * (3 * r + length),
            g[1] + oy * (3 * r + length),
            (255, 230, 120, 200),
            2,
        )


def draw_cue(layout: TableLayout, cue: BallPose, aim: AimState) -> None:
    """The cue stick behind the cue ball, pulled back with the power and offset for english."""
    dx, dy = math.cos(math.radians(aim.direction)), math.sin(math.radians(aim.direction))
    nx, ny = -dy, dx  # left of the aim; right english moves the tip to the right (−n)
    r = layout.spec.ball_radius
    gap = 0.01 + 0.12 * (aim.speed / 8.0)
    foreshort = math.cos(math.radians(aim.elevation))
    side = -aim.tip_x * r
    tip = (cue.x - dx * (r + gap) + nx * side, cue.y - dy * (r + gap) + ny * side)
    butt_d = r + gap + CUE_LENGTH * foreshort
    butt = (cue.x - dx * butt_d + nx * side, cue.y - dy * butt_d + ny * side)

    def quad(
        p0: tuple[float, float], p1: tuple[float, float], w0: float, w1: float
    ) -> list[tuple[float, float]]:
        return [
            layout.to_screen(p0[0] + nx * w0 / 2, p0[1] + ny * w0 / 2),
            layout.to_screen(p1[0] + nx * w1 / 2, p1[1] + ny * w1 / 2),
            layout.to_screen(p1[0] - nx * w1 / 2, p1[1] - ny * w1 / 2),
            layout.to_screen(p0[0] - nx * w0 / 2, p0[1] - ny * w0 / 2),
        ]

    def along(k: float) -> tuple[float, float]:
        return (tip[0] + (butt[0] - tip[0]) * k, tip[1] + (butt[1] - tip[1]) * k)

    def width(k: float) -> float:
        return CUE_TIP_WIDTH + (CUE_BUTT_WIDTH - CUE_TIP_WIDTH) * k

    # Shadow, shaft, ferrule + chalked tip, butt.
    off = (0.012, -0.014)
    shadow = [(x + off[0], y + off[1]) for x, y in (tip, butt)]
    arcade.draw_polygon_filled(
        quad(shadow[0], shadow[1], CUE_TIP_WIDTH, CUE_BUTT_WIDTH), (0, 0, 0, 50)
    )
    arcade.draw_polygon_filled(quad(tip, along(0.62), width(0), width(0.62)), (228, 200, 150, 255))
    # A lit stripe along the shaft: it reads as round wood, not a flat strip.
    a, b = layout.to_screen(*along(0.04)), layout.to_screen(*along(0.6))
    arcade.draw_line(a[0], a[1], b[0], b[1], (250, 232, 196, 255), 1.0)
    arcade.draw_polygon_filled(quad(along(0.62), butt, width(0.62), width(1)), (70, 36, 22, 255))
    arcade.draw_polygon_filled(quad(tip, along(0.018), width(0), width(0.018)), (60, 110, 190, 255))
    arcade.draw_polygon_filled(
        quad(along(0.018), along(0.035), width(0.018), width(0.035)), (245, 245, 240, 255)
    )


def draw_path(layout: TableLayout, points: list[tuple[float, float]]) -> None:
    """The practice preview: the cue ball's path as a dotted line (one draw call)."""
    pts = [layout.to_screen(x, y) for x, y in points[::2]]
    if pts:
        arcade.draw_points(pts, (150, 230, 255, 255), 4)
