"""The three balls as one sprite batch: soft shadows, shaded balls, rotation marks, highlights.

Textures are painted once per ball size with Pillow (supersampled, then reduced, so edges are
smooth without multisampling; the shadow is a true Gaussian blur). Each frame only moves,
scales, turns and hides sprites, and the whole set is one draw call instead of thirty
immediate-mode shapes (see bench/client_frames.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import arcade
from PIL import Image, ImageDraw, ImageFilter

from client.app.layout import TableLayout
from client.app.motion import BallPose, rotate
from shared.table import BALLS, BallName

Color = tuple[int, int, int, int]

SUPER = 4  # supersampling factor for painting textures
SHADOW_ALPHA = 120  # peak shadow opacity, 0-255


def _ball_image(diameter: int, colour: Color) -> Image.Image:
    """A shaded sphere in the ball colour: lit from above and to the upper left (where the
    highlight sits), darkening toward the far limb."""
    size = diameter * SUPER
    # Pillow's radial gradient holds the distance from its centre: scaled to 4 balls wide,
    # a value of 64 is one ball diameter. Its centre is the lit point.
    light = Image.radial_gradient("L").resize((4 * size, 4 * size), Image.Resampling.BILINEAR)
    lit = 0.5 - 0.11  # the lit point, as a fraction of the ball image, up and left
    corner = round(2 * size - lit * size)
    dist = light.crop((corner, corner, corner + size, corner + size))
    # Full colour on the lit half (the ball reads in its own colour), then a fall-off.
    shade = dist.point(lambda v: min(140, round(140 * max(0.0, (v - 30) / 16) ** 1.5)))
    dark = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    dark.putalpha(shade)
    disc = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    ImageDraw.Draw(disc).ellipse((0, 0, size - 1, size - 1), fill=colour)
    img = Image.alpha_composite(disc, dark)
    mask = Image.new("L", (size, size), 0)
    ImageDraw.Draw(mask).ellipse((0, 0, size - 1, size - 1), fill=255)
    img.putalpha(mask)
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)


def _disc_image(diameter: int, alpha: int = 255) -> Image.Image:
    size = diameter * SUPER
    img = Image.new("RGBA", (size, size), (255, 255, 255, 0))
    ImageDraw.Draw(img).ellipse((0, 0, size - 1, size - 1), fill=(255, 255, 255, alpha))
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)


def _highlight_image(diameter: int) -> Image.Image:
    """A soft specular spot: a small bright core in a blurred halo."""
    size = diameter * SUPER
    img = Image.new("RGBA", (size, size), (255, 255, 255, 0))
    d = ImageDraw.Draw(img)
    c, r = size / 2, size / 2
    d.ellipse((c - r * 0.8, c - r * 0.8, c + r * 0.8, c + r * 0.8), fill=(255, 255, 255, 150))
    d.ellipse((c - r * 0.4, c - r * 0.4, c + r * 0.4, c + r * 0.4), fill=(255, 255, 255, 230))
    img = img.filter(ImageFilter.GaussianBlur(size * 0.08))
    return img.resize((diameter, diameter), Image.Resampling.LANCZOS)


def _shadow_image(ball_diameter: int) -> tuple[Image.Image, int]:
    """A blurred ellipse, a little wider than the ball; returns the image and its size."""
    pad = max(4, ball_diameter // 2)
    size = (ball_diameter + 2 * pad) * SUPER
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    c = size / 2
    rx, ry = ball_diameter * SUPER * 0.56, ball_diameter * SUPER * 0.5
    ImageDraw.Draw(img).ellipse((c - rx, c - ry, c + rx, c + ry), fill=(0, 0, 0, SHADOW_ALPHA))
    img = img.filter(ImageFilter.GaussianBlur(ball_diameter * SUPER * 0.12))
    out = ball_diameter + 2 * pad
    return img.resize((out, out), Image.Resampling.LANCZOS), out


class BallSprites:
    """Sprites for the three balls on one layout; ``draw(poses)`` each frame."""

    def __init__(
        self,
        layout: TableLayout,
        colours: Mapping[BallName, Color],
        mark_colours: Mapping[BallName, Color],
        marks: tuple[tuple[float, float, float], ...],
        mark_size: float,
    ) -> None:
        self.layout = layout
        self.marks = marks
        self.mark_size = mark_size
        self.mark_colours = mark_colours
        r = layout.ball_radius_px
        self.diameter = max(6, round(2 * r))
        key = f"{self.diameter}"
        self.ball_tex = {
            b: arcade.Texture(_ball_image(self.diameter, colours[b]), hash=f"ball-{b}-{key}")
            for b in BALLS
        }
        shadow_img, self.shadow_size = _shadow_image(self.diameter)
        shadow_tex = arcade.Texture(shadow_img, hash=f"shadow-{key}")
        mark_tex = arcade.Texture(_disc_image(64), hash="mark-disc")
        hl_d = max(3, round(0.5 * self.diameter))
        hl_tex = arcade.Texture(_highlight_image(hl_d), hash=f"highlight-{key}")
        self.sprites: arcade.SpriteList[arcade.Sprite] = arcade.SpriteList()
        self.shadows = [arcade.Sprite(shadow_tex) for _ in BALLS]
        self.groups: list[tuple[arcade.Sprite, list[arcade.Sprite], arcade.Sprite]] = []
        for s in self.shadows:
            self.sprites.append(s)
        for _ in BALLS:
            ball = arcade.Sprite(self.ball_tex["white"])
            dots = [arcade.Sprite(mark_tex) for _ in marks]
            hl = arcade.Sprite(hl_tex)
            self.sprites.append(ball)
            for dot in dots:
                self.sprites.append(dot)
            self.sprites.append(hl)
            self.groups.append((ball, dots, hl))

    def update(self, poses: Mapping[BallName, BallPose]) -> None:
        layout = self.layout
        base_r = layout.ball_radius_px
        for shadow in self.shadows:
            shadow.visible = False
        for ball_sprite, dots, hl in self.groups:
            ball_sprite.visible = hl.visible = False
            for dot in dots:
                dot.visible = False
        # Lower balls first so a jumping ball is drawn over the others.
        ordered = sorted(poses.items(), key=lambda kv: kv[1].z)
        for i, (name, pose) in enumerate(ordered[: len(self.groups)]):
            sx, sy = layout.to_screen(pose.x, pose.y)
            lift = layout.length_px(pose.z)
            # Light from above and to the upper left: the shadow falls down-right, softer and
            # further away when the ball is in the air.
            shadow = self.shadows[i]
            shadow.visible = True
            shadow.position = (sx + 0.28 * base_r + 0.7 * lift, sy - 0.32 * base_r - 0.7 * lift)
            grow = 1.0 + min(0.6, pose.z * 4.0)
            shadow.width = shadow.height = self.shadow_size * grow
            shadow.alpha = round(255 / grow)
            # Airborne balls look a touch bigger (closer to the camera).
            r = base_r * (1.0 + min(0.3, pose.z * 3.0))
            ball_sprite, dots, hl = self.groups[i]
            ball_sprite.texture = self.ball_tex[name]
            ball_sprite.visible = True
            ball_sprite.position = (sx, sy)
            ball_sprite.width = ball_sprite.height = 2 * r
            colour = self.mark_colours[name]
            for dot, m in zip(dots, self.marks, strict=True):
                px, py, pz = rotate(pose.orientation, m)
                if pz <= 0.05:
                    continue
                # A mark near the limb is seen edge-on: narrower along the radius.
                size = r * self.mark_size * (0.35 + 0.65 * pz)
                dot.visible = True
                dot.color = colour
                dot.position = (sx + px * r * 0.92, sy + py * r * 0.92)
                dot.width = 2 * size * max(0.35, pz)
                dot.height = 2 * size
                dot.angle = -math.degrees(math.atan2(py, px)) if (px or py) else 0.0
            hl.visible = True
            hl.position = (sx - 0.38 * r, sy + 0.38 * r)

    def draw(self, poses: Mapping[BallName, BallPose]) -> None:
        self.update(poses)
        self.sprites.draw()
