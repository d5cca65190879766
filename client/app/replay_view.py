"""The replay screen: step through the strokes of a match stored on the server.

The server's ``replay`` answer lists every stroke as it was broadcast (``stroke_played`` /
``lag_result`` with its trajectory and the match after it). Each step replays one stroke from
its start on a local clock; stepping back shows the table as the previous stroke left it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import arcade

from client.app import hud, render
from client.app.model import GameModel, trajectory_segments
from client.app.table_view import TableScene

if TYPE_CHECKING:
    from client.app.app import Controller


def _playable(stroke: Any) -> bool:
    """A stored stroke the replay can show: a map whose trajectory decodes."""
    if not isinstance(stroke, dict) or not stroke.get("trajectory"):
        return False
    try:
        trajectory_segments(stroke["trajectory"])
    except (TypeError, ValueError):
        return False
    return True


def _still(match: dict[str, Any]) -> dict[str, Any]:
    """A stored match view for a replay: no shot clock (the deadline is long past)."""
    m = dict(match)
    m["deadline_ms"] = None
    return m


class ReplayView(arcade.View):
    kind = "replay"

    def __init__(self, controller: Controller, replay: dict[str, Any], clock: Any = None) -> None:
        super().__init__(background_color=render.BACKGROUND)
        self.controller = controller
        self.strokes = [s for s in replay.get("strokes") or [] if _playable(s)]
        self.model = GameModel(now_local_ms=clock or (lambda: time.time() * 1000.0))
        room = dict(replay.get("room") or {})
        room.setdefault("players", controller.model.players())
        self.model.room = room
        self.model.state.room_id = str(room.get("room_id", "replay"))
        self.scene = TableScene()
        self.index = -1  # nothing played yet
        self.pending: int | None = None  # the stroke whose result shows when its balls rest
        self.autoplay = False
        if self.strokes:
            self.model.match = self._before(0)

    def _before(self, i: int) -> dict[str, Any]:
        """The table before stroke ``i``: the previous stroke's match, or the first segment of
        every ball of this stroke."""
        if i > 0 and isinstance(self.strokes[i - 1].get("match"), dict):
            return _still(self.strokes[i - 1]["match"])
        traj = trajectory_segments(self.strokes[i]["trajectory"])
        m = _still(self.strokes[i].get("match") or {})
        m["balls"] = {b: [s[0].pos[0], s[0].pos[1]] for b, s in traj.items()}
        # Before the first stroke nothing has been played: no inning, no point.
        for key in ("score", "innings", "high_run"):
            m[key] = [0, 0]
        m["average"] = [0.0, 0.0]
        m["current_run"] = 0
        m["shooter"] = self.strokes[i].get("shooter", self.strokes[i].get("seat"))
        if self.strokes[i].get("t") == "lag_result" or self.strokes[i].get("kind") == "lag":
            m["phase"] = "lag"
        return m

    def play(self, i: int) -> None:
        if not 0 <= i < len(self.strokes):
            return
        self.index = i
        s = self.strokes[i]
        self.model.animation = None
        self.model.match = self._before(i)
        self.model.start_stroke(
            s["trajectory"],
            self.model.now_ms(),
            s.get("events") or (),
            s.get("shooter", s.get("seat")),
        )
        # As in a live match, the stroke's result shows when its balls rest (on_update).
        self.pending = i

    def _settle(self) -> None:
        i, self.pending = self.pending, None
        if i is None:
            return
        s = self.strokes[i]
        if isinstance(s.get("match"), dict):
            self.model.match = _still(s["match"])
        for c in (s.get("result") or {}).get("calls") or []:
            self.model._call_from(c)

    def show_after(self, i: int) -> None:
        self.pending = None
        self.index = i
        self.model.animation = None
        self.model.match = (
            self._before(i + 1)
            if i + 1 < len(self.strokes)
            else dict(self.strokes[i].get("match") or {})
        )

    def on_update(self, delta_time: float) -> None:
        self.controller.pump()
        for c in self.model.due_contacts():
            self.controller.sounds.play(c.kind, c.speed / 4.0)
        if self.pending is not None and not self.model.animating():
            self._settle()
        if self.autoplay and not self.model.animating():
            if self.index + 1 < len(self.strokes):
                self.play(self.index + 1)
            else:
                self.autoplay = False

    def on_draw(self) -> None:
        layout = self.scene.layout_for(self.model, self.window.width, self.window.height)
        self.scene.draw_background(self.window, self.model, layout, controls=False)
        self.scene.draw_balls(layout, self.model.poses())
        lb = self.scene.labels
        hud.draw_scoreboard(layout, self.model, lb)
        hud.draw_banners(layout, self.model, lb)
        c = layout.controls
        hud.draw_panel_text(
            layout,
            lb,
            [
                f"Replay · stroke {self.index + 1} of {len(self.strokes)}"
                + ("  · playing" if self.autoplay else ""),
                "→ next stroke · ← previous · space: play again · A: autoplay · Esc: back",
            ],
            c,
        )
        lb.flush()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol == k.RIGHT:
            self.play(self.index + 1)
        elif symbol == k.LEFT:
            if self.index > 0:
                self.show_after(self.index - 1)
            else:
                self.index = -1
                self.pending = None
                self.model.animation = None
                if self.strokes:
                    self.model.match = self._before(0)
        elif symbol == k.SPACE and self.index >= 0:
            self.play(self.index)
        elif symbol == k.A:
            self.autoplay = not self.autoplay
        elif symbol == k.ESCAPE:
            if self.controller.model.game_over:
                self.controller.show_results()
            else:
                self.controller.show_lobby()
