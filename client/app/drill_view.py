"""The drill screen: diamond-system exercises played on the local physics (docs/analysis.md
"Drills").

Two systems, chosen with the buttons above the table or S: the corner five and the plus system.
The position and the target are the drill's; the player turns the aim and sets the speed, the
stroke is simulated here with the same physics the server runs (running english fixed at the
system's amount), its path is drawn with the third cushion contact numbered in the system's
count, and the score says where the cue ball met the third cushion against the number. H shows
the system's count, A plays the system's own answer. Each system keeps its own session.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING

import arcade

from client.app import render, words
from client.app import replay_analysis as study
from client.app.layout import Rect
from client.app.model import GameModel
from client.app.table_view import TableScene
from client.app.widgets import ACCENT, DIM, TEXT, Button
from shared import rules, wireviews
from shared.analysis.drills import Attempt, Drill, Session, System, drills, score
from shared.analysis.patterns import route
from shared.analysis.reading import StrokeReading, path_of, speed_words
from shared.physics import Stroke, simulate
from shared.physics.types import ShotResult
from shared.protocol.views import RoomView

if TYPE_CHECKING:
    from client.app.app import Controller

TARGET_COLOUR = (80, 220, 120, 255)
AIM_COLOUR = (255, 255, 255, 160)
START_OFF = 4.0  # degrees: the aim starts this far off the system's line
# The amount of running english each system is played with, in words (a cue tip is 12 mm wide,
# the ball's radius 30.75 mm: 0.2 R is half a tip, 0.05 R an eighth).
ENGLISH_WORDS = {
    System.CORNER_FIVE: "running english, half a tip",
    System.PLUS: "a touch of running english, an eighth of a tip",
}


def drill_model(drill: Drill) -> GameModel:
    """A practice table showing the drill's balls."""
    opts = rules.MatchOptions(practice=True)
    model = GameModel()
    model.room = RoomView(
        room_id="drill",
        discipline=opts.discipline.value,
        distance=opts.target,
        players=("You",),
        spectators=0,
        phase="play",
        private=True,
        practice=True,
        options=wireviews.room_options(opts),
        seats=(None,),
        match_id=None,
    )
    fresh = wireviews.match_view(rules.new_match(opts, 0))
    model.match = replace(
        fresh, balls={b: (p[0], p[1]) for b, p in drill.balls.items()}, deadline_ms=None
    )
    return model


class DrillView(arcade.View):
    kind = "drill"

    def __init__(self, controller: Controller, system: System = System.CORNER_FIVE) -> None:
        super().__init__(background_color=render.BACKGROUND)
        self.controller = controller
        self.scene = TableScene()
        self.sessions = {s: Session() for s in System}
        self.buttons: list[Button] = []
        self.show_hint = False
        self.choose(system)

    @property
    def session(self) -> Session:
        return self.sessions[self.system]

    def choose(self, system: System) -> None:
        """Switch to the exercises of ``system`` (its session carries on where it was)."""
        self.system = system
        self.drills = drills(system)
        self.select(0)

    def select(self, i: int) -> None:
        self.index = i % len(self.drills)
        self.drill = self.drills[self.index]
        self.model = drill_model(self.drill)
        self.direction = (self.drill.answer.direction + START_OFF) % 360.0
        self.speed = self.drill.answer.speed
        self.last: tuple[Attempt, StrokeReading] | None = None
        self.show_hint = False

    def stroke(self) -> Stroke:
        return Stroke(self.direction, self.speed, -self.system.english, 0.0)

    def play(self, stroke: Stroke | None = None) -> Attempt:
        """Simulate the stroke from the drill's position and score it."""
        played = stroke or self.stroke()
        result = simulate(self.drill.table, self.drill.balls, "white", played)
        attempt = score(self.drill, result)
        self.sessions[self.system] = self.session.add(attempt)
        self.last = (attempt, self._reading(result))
        return attempt

    def _reading(self, result: ShotResult) -> StrokeReading:
        steps = route(result.events, result.trajectory, "white", self.drill.table)
        return StrokeReading(
            cue="white",
            name=None,
            route=None,
            steps=steps,
            cue_words=(),
            events=(),
            path=path_of(result.events, result.trajectory, "white"),
            balls_before=dict(self.drill.balls),
        )

    def on_draw(self) -> None:
        layout = self.scene.layout_for(self.model, self.window.width, self.window.height)
        self.scene.draw_background(self.window, self.model, layout, controls=False)
        lb = self.scene.labels
        t = self.drill.table
        # The target: a ring on the third rail (the far long cushion) at the asked number.
        tx, ty = layout.to_screen(t.length - self.drill.target_from_far * t.length / 8, t.width)
        r = layout.ball_radius_px * 1.6
        arcade.draw_circle_outline(tx, ty, r, TARGET_COLOUR, 3)
        lb.draw(
            "target",
            f"target {self.drill.target:g}",
            tx,
            ty - r - 4,
            12,
            TARGET_COLOUR,
            "center",
            "top",
            bold=True,
        )
        if self.last is not None:
            attempt = self.last[0]

            def third(i: int, _step: object) -> str | None:
                # Only the third cushion is numbered, in the system's count (from the far end).
                return f"{attempt.arrival:.1f}" if i == 2 and attempt.arrival is not None else None

            study.draw_path(layout, self.last[1], lb, third)
        cx, cy = self.drill.balls["white"]

        d = math.radians(self.direction)
        sx, sy = layout.to_screen(cx, cy)
        ex, ey = layout.to_screen(cx + 0.5 * math.cos(d), cy + 0.5 * math.sin(d))
        arcade.draw_line(sx, sy, ex, ey, AIM_COLOUR, 2)
        self.scene.draw_balls(layout, self.model.poses())
        c = layout.controls
        lines = [
            (f"Drill {self.index + 1} of {len(self.drills)} · {self.drill.name}", ACCENT),
            (words.plain(self.drill.task), TEXT),
            (
                f"Aim {self.direction:.1f}° · speed {speed_words(self.speed)} · "
                f"{ENGLISH_WORDS[self.system]}",
                TEXT,
            ),
            (
                words.plain(
                    self.drill.hint
                    if self.show_hint
                    else (
                        self.last[0].sentence
                        if self.last
                        else "Play a stroke to see where it lands."
                    )
                ),
                TEXT,
            ),
            (self.session.progress, TEXT),
            (
                "← → aim (shift: finer) · ↑ ↓ speed · Enter play · H hint · A the system's "
                "answer · N next drill · S other system · Esc back",
                DIM,
            ),
        ]
        for i, (text, colour) in enumerate(lines):
            lb.draw(
                f"drill{i}",
                text,
                c.left + 24,
                c.top - 22 - i * 20,
                13 if i == 0 else 11,
                colour,
                bold=i == 0,
            )
        self.draw_choice()
        lb.flush()

    def draw_choice(self) -> None:
        """The system choice above the table: one button per system, the one played lit."""
        lb = self.scene.labels
        top = self.window.height - 20
        lb.draw("system", "Diamond system:", 24, top - 18, 12, TEXT, "left", "center")
        # Rebuilt each frame (the window may have been resized); the hover carries over.
        hovered = {b.key for b in self.buttons if b.hover}
        self.buttons = [
            Button(
                f"system:{s.value}",
                s.title,
                Rect(160 + i * 150, top - 36, 140, 36),
                partial(self.choose, s),
                hover=f"system:{s.value}" in hovered,
                primary=s is self.system,
            )
            for i, s in enumerate(System)
        ]
        for b in self.buttons:
            b.draw(lb)

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        for b in self.buttons:
            if b.click(x, y):
                return

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        for b in self.buttons:
            b.hover = b.rect.contains(x, y)

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        step = 0.1 if modifiers & k.MOD_SHIFT else 0.5
        if symbol == k.LEFT:
            self.direction = (self.direction + step) % 360.0
        elif symbol == k.RIGHT:
            self.direction = (self.direction - step) % 360.0
        elif symbol == k.UP:
            self.speed = min(6.0, round(self.speed + 0.1, 2))
        elif symbol == k.DOWN:
            self.speed = max(0.5, round(self.speed - 0.1, 2))
        elif symbol in (k.ENTER, k.RETURN):
            self.play()
        elif symbol == k.H:
            self.show_hint = not self.show_hint
        elif symbol == k.A:
            self.play(self.drill.answer)
        elif symbol == k.N:
            self.select(self.index + 1)
        elif symbol == k.S:
            others = [s for s in System if s is not self.system]
            self.choose(others[0])
        elif symbol == k.ESCAPE:
            self.controller.show_lobby()
