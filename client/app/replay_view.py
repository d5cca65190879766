"""The replay screen: step through the strokes of a match stored on the server.

The server's ``replay`` answer lists every stroke as it was broadcast (``stroke_played`` /
``lag_result`` with its trajectory and the match after it). Each step replays one stroke from
its start on a local clock; stepping back shows the table as the previous stroke left it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

import arcade

from client.app import hud, render
from client.app import replay_analysis as study
from client.app.model import GameModel
from client.app.practice_here import PracticeHere
from client.app.table_view import TableScene
from shared import rules, wireviews
from shared.analysis.reading import StrokeReading, read_played
from shared.protocol import to_client as tc
from shared.protocol.enums import Phase
from shared.protocol.views import MatchView, RoomView, SentOptions

if TYPE_CHECKING:
    from client.app.app import Controller

Played = tc.StrokePlayed | tc.LagResult


def _playable(body: object) -> bool:
    """A stored stroke the replay can show: a stroke or a lag whose trajectory decodes."""
    if not isinstance(body, Played):
        return False
    try:
        body.trajectory.segments()
    except ValueError:
        return False
    return True


def _still(match: MatchView) -> MatchView:
    """A stored match view for a replay: no shot clock (the deadline is long past)."""
    return replace(match, deadline_ms=None)


def match_options(sent: SentOptions) -> rules.MatchOptions:
    """The referee's options for a stored match (the defaults where the room sent none, and
    where the referee no longer takes what was sent)."""
    try:
        return rules.options_as_sent(sent.discipline, sent)
    except (TypeError, ValueError):
        return rules.MatchOptions()


def replay_room(replay: tc.Replay) -> RoomView:
    """The room a replay is shown in: the stored match's players and options."""
    row = replay.room
    opts = match_options(row.options)
    players = tuple(p.name for p in row.players)
    return RoomView(
        room_id=row.room_id,
        discipline=row.discipline,
        distance=opts.target,
        players=players,
        spectators=0,
        phase=Phase.OVER,
        private=False,
        practice=opts.practice,
        options=wireviews.room_options(opts),
        seats=(None,) * len(players),
        match_id=replay.match_id,
    )


def _shooter(body: Played, seat: int | None) -> int | None:
    return body.shooter if isinstance(body, tc.StrokePlayed) else seat


class ReplayView(arcade.View):
    kind = "replay"

    def __init__(
        self,
        controller: Controller,
        replay: tc.Replay,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__(background_color=render.BACKGROUND)
        self.controller = controller
        self.strokes: list[tuple[Played, int | None]] = [
            (s.body, s.seat)
            for s in replay.strokes
            if isinstance(s.body, Played) and _playable(s.body)
        ]
        self.clock = study.ReplayClock(clock or (lambda: time.time() * 1000.0))
        self.model = GameModel(now_local_ms=self.clock)
        self.readings: dict[int, StrokeReading | None] = {}
        self.practice: PracticeHere | None = None
        room = replay_room(replay)
        self.model.room = room
        self.model.state.room_id = room.room_id
        self._fresh = wireviews.match_view(rules.new_match(match_options(replay.room.options), 0))
        self.scene = TableScene()
        self.index = -1  # nothing played yet
        self.pending: int | None = None  # the stroke whose result shows when its balls rest
        self.autoplay = False
        if self.strokes:
            self.model.match = self._before(0)

    def _before(self, i: int) -> MatchView:
        """The table before stroke ``i``: the match the strokes before it left; before the
        first, this stroke's match with nothing played yet (no inning, no point) and its balls
        where this stroke starts them."""
        body, seat = self.strokes[i]
        earlier = [b.match for b, _ in self.strokes[:i] if b.match is not None]
        if earlier:
            return _still(earlier[-1])
        base = self._fresh if body.match is None else body.match
        start = body.trajectory.segments()
        balls: dict[str, tuple[float, float]] = dict(base.balls)
        balls.update({b: (s[0].pos[0], s[0].pos[1]) for b, s in start.items()})
        return replace(
            _still(base),
            balls=balls,
            score=(0, 0),
            innings=(0, 0),
            high_run=(0, 0),
            average=(0.0, 0.0),
            current_run=0,
            shooter=_shooter(body, seat),
            phase=Phase.LAG if isinstance(body, tc.LagResult) else base.phase,
        )

    def play(self, i: int) -> None:
        if not 0 <= i < len(self.strokes):
            return
        self.index = i
        body, seat = self.strokes[i]
        self.model.animation = None
        self.model.match = self._before(i)
        self.model.start_stroke(
            body.trajectory, self.model.now_ms(), body.events or (), _shooter(body, seat)
        )
        # As in a live match, the stroke's result shows when its balls rest (on_update).
        self.pending = i

    def _settle(self) -> None:
        i, self.pending = self.pending, None
        if i is None:
            return
        body, _ = self.strokes[i]
        if body.match is not None:
            self.model.match = _still(body.match)
        if isinstance(body, tc.StrokePlayed):
            for c in body.result.calls:
                self.model.call_from(c)

    def show_after(self, i: int) -> None:
        self.pending = None
        self.index = i
        self.model.animation = None
        if i + 1 < len(self.strokes):
            self.model.match = self._before(i + 1)
        else:
            after = self.strokes[i][0].match
            if after is not None:
                self.model.match = after

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
        lb = self.scene.labels
        reading = self.reading(self.index)
        if reading is not None:
            study.draw_path(layout, reading, lb)
        self.scene.draw_balls(layout, self.model.poses())
        hud.draw_scoreboard(layout, self.model, lb)
        hud.draw_banners(layout, self.model, lb)
        t = study.stroke_time(self.model)
        now = None if reading is None else study.event_at(reading, 1e9 if t is None else t)
        lines = study.panel_lines(self.index + 1, len(self.strokes), reading, now, self.clock.rate)
        if self.autoplay:
            lines[0] += " · playing"
        body = self.strokes[self.index][0] if self.index >= 0 else None
        tip = (
            (body.stroke.cue.tip_x, body.stroke.cue.tip_y)
            if isinstance(body, tc.StrokePlayed)
            else None
        )
        study.draw_panel(layout, lb, lines, tip)
        lb.flush()

    def reading(self, i: int) -> StrokeReading | None:
        """Stroke ``i`` read for study (once), or None for a lag or before the first."""
        if not 0 <= i < len(self.strokes):
            return None
        if i not in self.readings:
            body = self.strokes[i][0]
            self.readings[i] = (
                read_played(body, self.model.table) if isinstance(body, tc.StrokePlayed) else None
            )
        return self.readings[i]

    def step_event(self) -> None:
        """Freeze on the stroke's next event (starting the stroke if none is showing)."""
        if self.index < 0 or (self.model.animation is None and self.pending is None):
            self.play(max(self.index, 0))
            study.freeze_at(self.model, self.clock, 0.0)
            return
        reading = self.reading(self.index)
        t = study.stroke_time(self.model)
        if reading is None or t is None:
            return
        nxt = study.next_event(reading, t)
        study.freeze_at(self.model, self.clock, nxt.t if nxt is not None else t)

    def toggle_slow(self) -> None:
        self.clock.set_rate(1.0 if 0.0 < self.clock.rate < 1.0 else study.SLOW)

    def practice_from_here(self) -> None:
        """A practice room with the balls where they stood before the stroke shown."""
        reading = self.reading(max(self.index, 0))
        if reading is None or self.model.room is None:
            return
        self.practice = PracticeHere(
            self.controller.send,
            reading.balls_before,
            self.model.room.discipline,
            self.model.table.name,
        )
        self.controller.on_message.append(self.practice.on_message)
        self.practice.start()

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if symbol in (k.RIGHT, k.LEFT, k.SPACE):
            self.clock.set_rate(1.0)
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
        elif symbol == k.E:
            self.step_event()
        elif symbol == k.S:
            self.toggle_slow()
        elif symbol == k.P:
            self.practice_from_here()
        elif symbol == k.ESCAPE:
            if self.controller.model.game_over is not None:
                self.controller.show_results()
            else:
                self.controller.show_lobby()
