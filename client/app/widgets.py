"""Small immediate-mode widgets: cached text labels, buttons, text fields and option pickers.

Arcade's ``Text`` objects are expensive to lay out, so ``Labels`` keeps one per key and only
touches it when its text or position changes. Widgets hit-test in window pixels; views route
mouse and keyboard events to them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import arcade
import pyglet

from client.app.layout import Rect

Color = tuple[int, int, int, int]
TEXT: Color = (235, 238, 242, 255)
DIM: Color = (150, 158, 170, 255)
ACCENT: Color = (255, 196, 60, 255)
PANEL: Color = (30, 36, 46, 235)
BUTTON: Color = (52, 92, 150, 255)
BUTTON_HOVER: Color = (72, 118, 186, 255)
BUTTON_OFF: Color = (60, 64, 72, 255)
# The one action a screen leads with (the lobby's Quick match): warm, where the others are blue.
PRIMARY: Color = (178, 110, 30, 255)
PRIMARY_HOVER: Color = (206, 134, 46, 255)
FONT = ("DejaVu Sans", "Liberation Sans", "Arial")


class Labels:
    """One ``arcade.Text`` per key, updated only when something changed, all in one batch.

    ``draw`` places (or updates) a label for this frame; ``flush`` at the end of the frame hides
    the labels not placed this frame and draws every visible one in a single batch draw, so
    text is drawn over everything else in the frame.
    """

    def __init__(self) -> None:
        self._cache: dict[str, arcade.Text] = {}
        self._args: dict[str, tuple[Any, ...]] = {}
        self._used: set[str] = set()
        self.batch = pyglet.graphics.Batch()
        # Every non-empty text the last frame drew: key → (text, x, y). Tests and the word
        # checks read it.
        self.shown: dict[str, tuple[str, float, float]] = {}

    def draw(
        self,
        key: str,
        text: str,
        x: float,
        y: float,
        size: float = 12,
        color: Color = TEXT,
        anchor_x: str = "left",
        anchor_y: str = "baseline",
        bold: bool = False,
    ) -> arcade.Text:
        args = (text, x, y, size, color, anchor_x, anchor_y, bold)
        label = self._cache.get(key)
        if label is None:
            label = arcade.Text(
                text,
                x,
                y,
                color,
                size,
                anchor_x=anchor_x,
                anchor_y=anchor_y,
                bold=bold,
                font_name=FONT,
                batch=self.batch,
            )
            self._cache[key] = label
        elif self._args[key] != args:
            old = self._args[key]
            if old[0] != text:
                label.text = text
            if old[1:3] != (x, y):
                label.position = (x, y)
            if old[3] != size:
                label.font_size = size
            if old[4] != color:
                label.color = color
            if old[5] != anchor_x:
                label.anchor_x = anchor_x
            if old[6] != anchor_y:
                label.anchor_y = anchor_y
            if old[7] != bold:
                label.bold = bold
        self._args[key] = args
        if key not in self._used:
            self._used.add(key)
            if not label.visible:
                label.visible = True
        return label

    def text(self, key: str) -> str | None:
        """The text of a label shown this frame (None when it is not shown)."""
        label = self._cache.get(key)
        return label.text if label is not None and label.visible else None

    def flush(self) -> None:
        for key, label in self._cache.items():
            if key not in self._used and label.visible:
                label.visible = False
        self.shown = {
            k: (str(self._args[k][0]), float(self._args[k][1]), float(self._args[k][2]))
            for k in self._used
            if self._args[k][0]
        }
        self._used.clear()
        self.batch.draw()


def draw_panel(r: Rect, color: Color = PANEL) -> None:
    arcade.draw_lrbt_rectangle_filled(r.left, r.right, r.bottom, r.top, color)


@dataclass
class Button:
    key: str
    text: str
    rect: Rect
    on_click: Callable[[], None]
    enabled: bool = True
    hover: bool = False
    primary: bool = False

    def draw(self, labels: Labels) -> None:
        if not self.enabled:
            col = BUTTON_OFF
        elif self.primary:
            col = PRIMARY_HOVER if self.hover else PRIMARY
        else:
            col = BUTTON_HOVER if self.hover else BUTTON
        draw_panel(self.rect, col)
        labels.draw(
            f"btn:{self.key}",
            self.text,
            self.rect.cx,
            self.rect.cy,
            12,
            TEXT if self.enabled else DIM,
            "center",
            "center",
        )

    def click(self, x: float, y: float) -> bool:
        if self.enabled and self.rect.contains(x, y):
            self.on_click()
            return True
        return False


@dataclass
class TextField:
    key: str
    label: str
    rect: Rect
    value: str = ""
    max_len: int = 64
    focused: bool = False
    secret: bool = False

    def draw(self, labels: Labels) -> None:
        labels.draw(f"tfl:{self.key}", self.label, self.rect.left, self.rect.top + 6, 11, DIM)
        draw_panel(self.rect, (20, 24, 32, 255))
        border = ACCENT if self.focused else (90, 98, 112, 255)
        arcade.draw_lrbt_rectangle_outline(
            self.rect.left, self.rect.right, self.rect.bottom, self.rect.top, border, 1.5
        )
        shown = "•" * len(self.value) if self.secret else self.value
        caret = "|" if self.focused else ""
        labels.draw(
            f"tf:{self.key}",
            shown + caret,
            self.rect.left + 8,
            self.rect.cy,
            13,
            TEXT,
            "left",
            "center",
        )

    def type_text(self, text: str) -> None:
        if self.focused:
            clean = "".join(ch for ch in text if ch.isprintable())
            self.value = (self.value + clean)[: self.max_len]

    def backspace(self) -> None:
        if self.focused:
            self.value = self.value[:-1]


@dataclass
class Picker:
    """Cycles through a list of choices on click (left: next, right: previous)."""

    key: str
    label: str
    rect: Rect
    choices: Sequence[Any]
    index: int = 0
    fmt: Callable[[Any], str] = field(default=str)

    @property
    def value(self) -> Any:
        return self.choices[self.index]

    def draw(self, labels: Labels) -> None:
        labels.draw(f"pkl:{self.key}", self.label, self.rect.left, self.rect.top + 6, 11, DIM)
        draw_panel(self.rect, (20, 24, 32, 255))
        arcade.draw_lrbt_rectangle_outline(
            self.rect.left,
            self.rect.right,
            self.rect.bottom,
            self.rect.top,
            (90, 98, 112, 255),
            1.5,
        )
        labels.draw(
            f"pk:{self.key}",
            f"‹ {self.fmt(self.value)} ›",
            self.rect.cx,
            self.rect.cy,
            13,
            TEXT,
            "center",
            "center",
        )

    def click(self, x: float, y: float, button: int = 1) -> bool:
        if not self.rect.contains(x, y):
            return False
        if button == 4:  # arcade.MOUSE_BUTTON_RIGHT: one back, stopping at the first choice
            self.index = max(0, self.index - 1)
        else:  # next, round to the first again after the last
            self.index = (self.index + 1) % len(self.choices)
        return True
