"""A chart (``shared.analysis.charts``: rectangles, lines and text in a pixel box, y down)
drawn with arcade in a box of the window (y up), on a white card as ``carom stats --out``
draws it, so the window and the saved files show the same picture."""

from __future__ import annotations

import arcade

from client.app.layout import Rect
from client.app.widgets import Color, Labels
from shared.analysis.charts import Chart, Line
from shared.analysis.charts import Rect as Box

CARD: Color = (255, 255, 255, 255)
PT_PER_PX = 0.75  # arcade sizes text in points (1/72 in), the chart in pixels (1/96 in)
ANCHORS = {"start": "left", "middle": "center", "end": "right"}


def rgba(hex_colour: str) -> Color:
    """``#rrggbb`` as arcade's colour."""
    h = hex_colour.lstrip("#")
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16), 255)


def draw_chart(chart: Chart, box: Rect, labels: Labels) -> None:
    """Draw ``chart`` with its top-left corner at the box's; the chart was made for the box's
    size (``CHARTS[name](stats, width, height)``), so nothing is stretched."""
    left, top = box.left, box.top
    arcade.draw_lrbt_rectangle_filled(left, left + chart.width, top - chart.height, top, CARD)
    for i, s in enumerate(chart.shapes):
        if isinstance(s, Box):
            if s.w > 0 and s.h > 0:
                arcade.draw_lrbt_rectangle_filled(
                    left + s.x, left + s.x + s.w, top - s.y - s.h, top - s.y, rgba(s.fill)
                )
        elif isinstance(s, Line):
            points = [(left + x, top - y) for x, y in s.points]
            if len(points) >= 2:
                arcade.draw_line_strip(points, rgba(s.color), s.width)
        else:
            labels.draw(
                f"{chart.name}:{i}",
                s.text,
                round(left + s.x),  # whole pixels: small text stays sharp
                round(top - s.y),
                s.size * PT_PER_PX,
                rgba(s.color),
                ANCHORS[s.anchor],
                "baseline",
            )
