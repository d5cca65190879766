"""What the replay screen adds for study (docs/analysis.md "Replay analysis"): the cue ball's
path with each cushion contact marked in diamonds, the stroke's name, the cue parameters in
words and on a ball face, the events one by one, slow motion, and "practice from here".

``ReplayClock`` is the local clock the replay's model runs on: it can run slower, stop, and
jump to a moment, so the same animation code shows a stroke at a quarter speed or frozen on
one event.
"""

from __future__ import annotations

from collections.abc import Callable

import arcade

from client.app import words
from client.app.layout import TableLayout
from client.app.model import GameModel
from client.app.widgets import ACCENT, DIM, TEXT, Labels
from shared.analysis.patterns import Step
from shared.analysis.reading import EventLine, StrokeReading

PATH_COLOUR = (255, 240, 150, 200)
CONTACT_COLOUR = (255, 196, 60, 255)
BALL_FACE = (245, 245, 240, 255)
TIP_COLOUR = (40, 110, 220, 255)
SLOW = 0.25  # slow motion: a quarter of real speed


class ReplayClock:
    """Local milliseconds for the replay's model: ``rate`` times real time from the last
    change, stopped at rate 0."""

    def __init__(self, real: Callable[[], float]) -> None:
        self.real = real
        self.rate = 1.0
        self._real0 = real()
        self._virtual0 = self._real0

    def __call__(self) -> float:
        return self._virtual0 + (self.real() - self._real0) * self.rate

    def set_rate(self, rate: float) -> None:
        now = self()
        self._real0, self._virtual0, self.rate = self.real(), now, rate

    def jump_to(self, virtual_ms: float) -> None:
        self._real0, self._virtual0 = self.real(), virtual_ms


def event_at(reading: StrokeReading, t: float) -> EventLine | None:
    """The last event at or before ``t`` seconds into the stroke."""
    shown = [e for e in reading.events if e.t <= t + 1e-9]
    return shown[-1] if shown else None


def next_event(reading: StrokeReading, t: float) -> EventLine | None:
    """The first event after ``t`` (a millisecond of slack, so stepping moves on)."""
    return next((e for e in reading.events if e.t > t + 1e-3), None)


def stroke_time(model: GameModel) -> float | None:
    """Seconds into the stroke being shown, or None when nothing plays."""
    anim = model.animation
    if anim is None:
        return None
    return min(max(0.0, anim.t_at(model.now_ms())), anim.motion.duration)


def freeze_at(model: GameModel, clock: ReplayClock, t: float) -> None:
    """Stop the replay's clock with the stroke ``t`` seconds in."""
    anim = model.animation
    if anim is None:
        return
    clock.set_rate(0.0)
    clock.jump_to(anim.start_ms - anim.ahead_ms + t * 1000.0 - model.clock_offset_ms)


def draw_path(
    layout: TableLayout,
    reading: StrokeReading,
    labels: Labels,
    number: Callable[[int, Step], str | None] | None = None,
) -> None:
    """The cue ball's whole path, each cushion contact ringed and numbered in diamonds
    (``number(i, step)`` chooses the label of the i-th cushion contact; None: no label)."""
    pts = [layout.to_screen(x, y) for x, y in reading.path]
    if len(pts) > 1:
        arcade.draw_line_strip(pts, PATH_COLOUR, 2)
    r = layout.ball_radius_px * 1.25
    for i, step in enumerate(s for s in reading.steps if s.is_cushion):
        sx, sy = layout.to_screen(*step.pos)
        arcade.draw_circle_outline(sx, sy, r, CONTACT_COLOUR, 2)
        if number is not None:
            text = number(i, step)
        else:
            text = None if step.diamonds is None else f"{step.diamonds:.1f}"
        if text is not None:
            labels.draw(f"dia{i}", text, sx, sy + r + 4, 11, ACCENT, "center", "bottom", bold=True)


def draw_tip(cx: float, cy: float, radius: float, tip_x: float, tip_y: float) -> None:
    """The cue ball's face as the player sees it, the cue's contact point in blue."""
    arcade.draw_circle_filled(cx, cy, radius, BALL_FACE)
    arcade.draw_circle_outline(cx, cy, radius, DIM, 1)
    arcade.draw_line(cx - radius, cy, cx + radius, cy, (200, 200, 200, 255), 1)
    arcade.draw_line(cx, cy - radius, cx, cy + radius, (200, 200, 200, 255), 1)
    arcade.draw_circle_filled(cx + tip_x * radius, cy + tip_y * radius, radius * 0.16, TIP_COLOUR)


def panel_lines(
    number: int, total: int, reading: StrokeReading | None, now: EventLine | None, rate: float
) -> list[str]:
    """The study panel's lines, in words for people."""
    head = f"Replay · stroke {number} of {total}"
    if reading is not None:
        if reading.name is not None:
            head += f" · {reading.name}"
        elif reading.route is not None:
            head += f" · no point ({reading.route.label.lower()} route)"
    if rate == 0.0:
        head += " · paused"
    elif rate < 1.0:
        head += " · slow motion"
    lines = [head]
    if reading is not None:
        lines.append(f"{reading.cue_words[0]}   {reading.cue_words[1]}")
        lines.append(reading.cue_words[2])
        lines.append(
            f"{now.t:.2f} s: {words.plain(now.text)}" if now is not None else "Before the stroke"
        )
    lines.append(
        "→ ← strokes · E next event · S slow motion · P practice from here · "
        "space again · A autoplay · Esc back"
    )
    return lines


def draw_panel(
    layout: TableLayout, labels: Labels, lines: list[str], tip: tuple[float, float] | None
) -> None:
    c = layout.controls
    for i, text in enumerate(lines):
        last = i == len(lines) - 1
        labels.draw(
            f"ptext{i}",
            text,
            c.left + 24,
            c.top - 26 - i * 22,
            14 if i == 0 else 11,
            ACCENT if i == 0 else DIM if last else TEXT,
            bold=i == 0,
        )
    if tip is not None:
        r = (c.height - 40) / 2
        cx, cy = c.right - 24 - r, c.bottom + c.height / 2
        draw_tip(cx, cy, r, *tip)
        labels.draw("tiplabel", "tip", cx - r - 8, cy, 11, DIM, "right", "center")
