"""Charts of a player's statistics as a list of shapes, and that list as SVG text.

A chart is plain data (rectangles, lines, text in a pixel box), so the same chart can be written
as an SVG file here, drawn as a PNG with Pillow by the command that saves it, or drawn in a
window. Pure: no files, no fonts loaded here.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from shared.analysis.stats import PlayerStats

Color = str  # "#rrggbb"
WIDTH: Final = 640
HEIGHT: Final = 360
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 20, 50, 60  # margins around the plot area (px)
_EM = 0.6  # the width of a letter, about, in font sizes (for fitting words under bars)
INK: Final = "#222222"
GRID: Final = "#dddddd"
BLUE: Final = "#2f6db5"
GREEN: Final = "#3c9a4a"
ORANGE: Final = "#d9822b"


@dataclass(frozen=True, slots=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: Color


@dataclass(frozen=True, slots=True)
class Line:
    points: tuple[tuple[float, float], ...]
    color: Color
    width: float = 2.0


@dataclass(frozen=True, slots=True)
class Text:
    x: float
    y: float
    text: str
    size: int = 13
    color: Color = INK
    anchor: Literal["start", "middle", "end"] = "start"


Shape = Rect | Line | Text


@dataclass(frozen=True, slots=True)
class Chart:
    name: str  # file name without extension
    title: str
    shapes: tuple[Shape, ...] = field(default_factory=tuple)
    width: int = WIDTH
    height: int = HEIGHT


def _nice_max(value: float, whole: bool = False) -> float:
    """A round top for an axis that holds ``value``, with four equal steps below it: each
    step is 1, 2, 2.5 or 5 times a power of ten (a whole number for counts)."""
    if value <= 0:
        return 4.0 if whole else 1.0
    power = 10.0 ** math.floor(math.log10(value / 4))
    for k in (1.0, 2.0, 2.5, 5.0, 10.0):
        step = k * power
        if whole and step < 1:
            continue
        if whole and step != int(step):
            continue
        if 4 * step >= value:
            return 4 * step
    return 4 * 10 * power


def _tick(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:g}"


def _top(width: int) -> int:
    """The margin above the plot (px): in a narrow chart the centred title reaches over the
    axis name, so the axis name goes on a line of its own below it."""
    return _TOP if width >= 560 else _TOP + 16


def _frame(title: str, y_label: str, top: float, width: int, height: int) -> list[Shape]:
    x0, x1 = _LEFT, width - _RIGHT
    y0, y1 = height - _BOTTOM, _top(width)
    # The title at 17 px, or smaller where the chart is too narrow for it (12 px at least).
    size = max(12, min(17, int((width - 24) / (len(title) * _EM))))
    shapes: list[Shape] = [Text(width / 2, 28, title, size, anchor="middle")]
    for k in range(5):
        y = y0 - (y0 - y1) * k / 4
        shapes.append(Line(((x0, y), (x1, y)), GRID, 1.0))
        shapes.append(Text(x0 - 8, y + 4, _tick(top * k / 4), 11, anchor="end"))
    shapes.append(Text(x0 - 8, y1 - 14, y_label, 12))
    shapes.append(Line(((x0, y0), (x1, y0)), INK, 1.0))
    return shapes


def _bars(
    name: str,
    title: str,
    y_label: str,
    labels: Sequence[str],
    values: Sequence[float],
    fmt: str,
    color: Color,
    notes: Sequence[str] | None = None,
    width: int = WIDTH,
    height: int = HEIGHT,
) -> Chart:
    top = _nice_max(max(values, default=0.0), whole=fmt == ".0f")
    shapes = _frame(title, y_label, top, width, height)
    x0, x1, y0, y1 = _LEFT, width - _RIGHT, height - _BOTTOM, _top(width)
    n = max(len(values), 1)
    slot = (x1 - x0) / n
    # Words wider than their bar's slot (about 0.6 em a letter) are written smaller, and the
    # names under the bars, if still too wide, on two staggered lines.
    longest = max((len(t) for t in (*labels, *(notes or ()))), default=0)
    size = 11 if longest * 11 * _EM <= slot * 0.95 else 9
    stagger = max((len(t) for t in labels), default=0) * size * _EM > slot * 0.95
    for i, (label, v) in enumerate(zip(labels, values, strict=True)):
        h = (y0 - y1) * v / top
        x = x0 + i * slot + slot * 0.15
        shapes.append(Rect(x, y0 - h, slot * 0.7, h, color))
        below = 28 if stagger and i % 2 else 16
        shapes.append(Text(x + slot * 0.35, y0 + below, label, size, anchor="middle"))
        note = notes[i] if notes else format(v, fmt)
        if len(note) * size * _EM > slot * 0.95 and " (" in note:  # "12 (50%)" on two lines
            value, rest = note.split(" (", 1)
            shapes.append(Text(x + slot * 0.35, y0 - h - 6 - size, value, size, anchor="middle"))
            note = "(" + rest
        shapes.append(Text(x + slot * 0.35, y0 - h - 5, note, size, anchor="middle"))
    if not values:
        shapes.append(Text(width / 2, height / 2, "No strokes yet.", 14, anchor="middle"))
    return Chart(name, title, tuple(shapes), width, height)


def average_over_time(stats: PlayerStats, width: int = WIDTH, height: int = HEIGHT) -> Chart:
    """Each match's average (dots and a thin line) and the general average so far (thick)."""
    title = "General average over time"
    per_match = [m.average for m in stats.matches]
    running = [m.cumulative_average for m in stats.matches]
    top = _nice_max(max(per_match + running, default=0.0))
    shapes = _frame(title, "points / inning", top, width, height)
    x0, x1, y0, y1 = _LEFT, width - _RIGHT, height - _BOTTOM, _top(width)
    n = len(stats.matches)

    def at(i: int, v: float) -> tuple[float, float]:
        x = x0 + (x1 - x0) * (i + 0.5) / max(n, 1)
        return (x, y0 - (y0 - y1) * v / top)

    if n:
        shapes.append(Line(tuple(at(i, v) for i, v in enumerate(per_match)), GRID, 1.5))
        for i, v in enumerate(per_match):
            x, y = at(i, v)
            shapes.append(Rect(x - 3, y - 3, 6, 6, BLUE))
        shapes.append(Line(tuple(at(i, v) for i, v in enumerate(running)), ORANGE, 3.0))
        shapes.append(Text(x0, y0 + 22, "first match", 11))
        shapes.append(Text(x1, y0 + 22, f"match {n}", 11, anchor="end"))
        # The legend under the axis, moved left where the plot is narrow.
        lx = x0 + 150 if x1 - x0 >= 420 else x0
        shapes.append(Rect(lx, height - 22, 10, 10, BLUE))
        shapes.append(Text(lx + 15, height - 13, "one match", 11))
        shapes.append(Rect(lx + 110, height - 20, 18, 4, ORANGE))
        shapes.append(Text(lx + 134, height - 13, "all matches so far", 11))
    else:
        shapes.append(Text(width / 2, height / 2, "No matches yet.", 14, anchor="middle"))
    return Chart("average", title, tuple(shapes), width, height)


def runs(stats: PlayerStats, width: int = WIDTH, height: int = HEIGHT) -> Chart:
    """How many innings ended with each run."""
    top_run = max(stats.runs, default=0)
    lengths = list(range(0, top_run + 1))
    counts = [float(stats.runs.get(k, 0)) for k in lengths]
    return _bars(
        "runs",
        "Runs: innings by points scored",
        "innings",
        [str(k) for k in lengths],
        counts,
        ".0f",
        BLUE,
        width=width,
        height=height,
    )


def patterns(stats: PlayerStats, width: int = WIDTH, height: int = HEIGHT) -> Chart:
    """Points by route and the share of attempts that scored."""
    lines = stats.patterns[:8]
    return _bars(
        "patterns",
        "Points by pattern (and how often it scored)",
        "points",
        [p.pattern.label.replace(" the ", " ").replace("Reverse around", "Reverse") for p in lines],
        [float(p.points) for p in lines],
        ".0f",
        GREEN,
        [f"{p.points} ({p.success:.0%})" for p in lines],
        width,
        height,
    )


def openings(stats: PlayerStats, width: int = WIDTH, height: int = HEIGHT) -> Chart:
    """The average of innings by how they began."""
    return _bars(
        "openings",
        "Average by how the inning began",
        "points / inning",
        [
            o.opening.label.split(" (")[0].replace("After the opponent's", "After")
            for o in stats.openings
        ],
        [o.average for o in stats.openings],
        ".2f",
        ORANGE,
        [f"{o.average:.2f} ({o.innings})" for o in stats.openings],
        width,
        height,
    )


def think_times(stats: PlayerStats, width: int = WIDTH, height: int = HEIGHT) -> Chart:
    """Strokes by the seconds taken over them, in 5-second bins."""
    bins = [0] * 7  # 0-5, 5-10, ..., 30+
    for ms in stats.think_ms:
        bins[min(int(ms / 5000), 6)] += 1
    labels = [f"{5 * k}-{5 * k + 5}" for k in range(6)] + ["30+"]
    return _bars(
        "time",
        "Time taken per stroke (seconds)",
        "strokes",
        labels,
        [float(b) for b in bins],
        ".0f",
        BLUE,
        width=width,
        height=height,
    )


def all_charts(stats: PlayerStats, width: int = WIDTH, height: int = HEIGHT) -> tuple[Chart, ...]:
    """Every chart, each in a ``width`` × ``height`` pixel box (by default the size
    ``carom stats --out`` writes)."""
    return tuple(make(stats, width, height) for make in CHARTS.values())


ChartMaker = Callable[[PlayerStats, int, int], Chart]

# Each chart by its name, drawn for any pixel box (the window lays them out at its own size).
CHARTS: Final[Mapping[str, ChartMaker]] = {
    "average": average_over_time,
    "runs": runs,
    "patterns": patterns,
    "openings": openings,
    "time": think_times,
}


def to_svg(chart: Chart) -> str:
    """The chart as a standalone SVG document."""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart.width}" height="{chart.height}" '
        f'viewBox="0 0 {chart.width} {chart.height}" font-family="sans-serif">',
        f"<title>{html.escape(chart.title)}</title>",
        f'<rect width="{chart.width}" height="{chart.height}" fill="#ffffff"/>',
    ]
    for s in chart.shapes:
        if isinstance(s, Rect):
            out.append(
                f'<rect x="{s.x:.1f}" y="{s.y:.1f}" width="{s.w:.1f}" height="{s.h:.1f}" '
                f'fill="{s.fill}"/>'
            )
        elif isinstance(s, Line):
            pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in s.points)
            out.append(
                f'<polyline points="{pts}" fill="none" stroke="{s.color}" '
                f'stroke-width="{s.width}"/>'
            )
        else:
            out.append(
                f'<text x="{s.x:.1f}" y="{s.y:.1f}" font-size="{s.size}" fill="{s.color}" '
                f'text-anchor="{s.anchor}">{html.escape(s.text)}</text>'
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"
