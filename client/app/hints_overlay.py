"""Hints on the practice table (docs/analysis.md "Hints"): H asks the planner for the best three
strokes from the balls as they lie, each drawn as the cue ball's path in its own colour with
its chance of scoring under a good player's error, up to where it scores; 1, 2 or 3 plays it.

The search runs on a background thread (about a second), so the window keeps drawing; hints
belong to one position and vanish as soon as a ball moves.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

import arcade

from client.app.layout import TableLayout
from client.app.widgets import Labels
from client.bot.hints import Hint, hints
from client.bot.problem import Problem
from shared.table import BALLS, BallName, Point

COLOURS = ((255, 210, 80, 255), (120, 220, 255, 255), (255, 140, 200, 255))
Key = tuple[tuple[str, Point], ...]


def position_key(balls: Mapping[BallName, Point]) -> Key:
    return tuple(sorted((b, (round(p[0], 5), round(p[1], 5))) for b, p in balls.items()))


class HintBox:
    """The hints for one position: asked for, being searched, or ready."""

    def __init__(self) -> None:
        self.key: Key | None = None
        self.found: list[Hint] | None = None
        self.busy = False

    def ask(
        self,
        discipline: str,
        table: str,
        balls: Mapping[BallName, Point],
        cue: BallName,
        wait: bool = False,
    ) -> None:
        """Start the search for this position (``wait``: search on this thread)."""
        key = position_key(balls)
        if self.busy or (self.key == key and self.found is not None):
            return
        self.key, self.found, self.busy = key, None, True
        problem = Problem.of(discipline, table, tuple(balls[b] for b in BALLS), cue)

        def run() -> None:
            found = hints(problem, budget_s=8.0)
            if self.key == key:
                self.found = found
            self.busy = False

        if wait:
            run()
        else:
            threading.Thread(target=run, name="hints", daemon=True).start()

    def for_position(self, balls: Mapping[BallName, Point]) -> list[Hint] | None:
        """The hints if they belong to these ball positions."""
        return self.found if self.key == position_key(balls) else None

    def lines(self, balls: Mapping[BallName, Point]) -> list[str]:
        """What the panel says."""
        if self.busy and self.key == position_key(balls):
            return ["Looking for the best strokes…"]
        found = self.for_position(balls)
        if found is None:
            return []
        if not found:
            return ["No scoring stroke found from here."]
        out = [f"{i + 1}: {h.sentence}" for i, h in enumerate(found)]
        out[0] += " · press a number to play it"
        return out


def draw(layout: TableLayout, labels: Labels, found: list[Hint]) -> None:
    """Each hint's path in its colour, numbered where it meets the second ball."""
    for i, h in enumerate(found):
        colour = COLOURS[i % len(COLOURS)]
        pts = [layout.to_screen(x, y) for x, y in h.path]
        if len(pts) > 1:
            arcade.draw_line_strip(pts, colour, 2)
        if pts:
            x, y = pts[-1]
            labels.draw(
                f"hint{i}", str(i + 1), x + 8 + 14 * i, y + 8, 13, colour, "left", "bottom", True
            )


def draw_line(layout: TableLayout, labels: Labels, i: int, text: str) -> None:
    """A line of the hints panel, in the strip above the table (off the cloth)."""
    strip = layout.call_strip
    colour = COLOURS[i] if i < len(COLOURS) and text[:1].isdigit() else (235, 238, 242, 255)
    labels.draw(f"hintline{i}", text, layout.cloth.left, strip.top - 14 - i * 15, 11, colour)
