"""The table screen: the match drawn to scale, aiming and shooting, HUD, prompts, spectating."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import arcade
from arcade.gl import Framebuffer
from arcade.shape_list import Shape, ShapeElementList

from client.app import hints_overlay, hud, render
from client.app.aim import AimState, first_contact, heading_to
from client.app.ball_sprites import BallSprites
from client.app.hints_overlay import HintBox
from client.app.layout import Rect, TableLayout
from client.app.model import GameModel
from client.app.motion import BallPose, resting_pose
from client.app.widgets import Button, Labels
from client.app.words import discipline_title
from shared.protocol import to_server as ts
from shared.protocol.enums import Phase
from shared.rules.options import default_zone_leg
from shared.table import BallName

if TYPE_CHECKING:
    from client.app.app import Controller

FINE_STEP = 0.1  # degrees per arrow press (×10 with shift)
PENDING_TIMEOUT_S = 8.0  # give the cue back if a sent stroke is never answered
POWER_STEP = 0.1  # m/s per arrow press
TIP_STEP = 0.05  # ball radii per key press
ELEVATION_STEP = 2.5  # degrees per key press


class TableScene:
    """Draws one model on one layout; shared by the live table view and the replay view."""

    def __init__(self) -> None:
        self.labels = Labels()
        self._shapes: ShapeElementList[Shape] | None = None
        self._shapes_key: tuple[Any, ...] | None = None
        self.layout: TableLayout | None = None
        self._balls: BallSprites | None = None
        self._backdrop: Framebuffer | None = None
        self._backdrop_controls = False

    def layout_for(self, model: GameModel, width: int, height: int) -> TableLayout:
        spec = model.table
        if self.layout is None or (
            self.layout.spec,
            self.layout.window_width,
            self.layout.window_height,
        ) != (spec, width, height):
            self.layout = TableLayout.fit(spec, width, height)
        return self.layout

    def draw_background(
        self, window: arcade.Window, model: GameModel, layout: TableLayout, controls: bool
    ) -> None:
        """Clear and draw everything static: the table and the HUD strips' backgrounds.

        Without multisampling (software renderers, where fill rate is what costs) the backdrop
        is painted once into an offscreen framebuffer and then copied to the screen each frame,
        which halves the frame there (bench/client_frames.py). A multisampled screen cannot be
        the target of such a copy, so there it is drawn directly (cheap on a GPU)."""
        # The room says which corner zones are in force; before it does, the table's default.
        room = model.room
        leg = (
            room.options.corner_zone_leg if room is not None else default_zone_leg(layout.spec.name)
        )
        key = (layout, model.discipline, leg)
        if self._shapes is None or self._shapes_key != key:
            self._shapes = render.build_table(layout, model.discipline, leg)
            self._shapes_key = key
            self._backdrop = None
        if controls != self._backdrop_controls:
            self._backdrop_controls = controls
            self._backdrop = None
        ctx = window.ctx
        if getattr(window, "multisampled", True):
            window.clear(color=render.BACKGROUND)
            self._draw_static(layout, controls)
            return
        if self._backdrop is None:
            tex = ctx.texture((window.width, window.height), components=4)
            fbo = ctx.framebuffer(color_attachments=[tex])
            with fbo.activate():
                fbo.clear(color=render.BACKGROUND)
                self._draw_static(layout, controls)
            self._backdrop = fbo
        ctx.copy_framebuffer(self._backdrop, ctx.screen, depth=False)
        # The copy rebinds GL's read/draw framebuffers behind arcade's back: bind the screen
        # again for real, so the rest of the frame lands on it.
        ctx.screen.use(force=True)

    def _draw_static(self, layout: TableLayout, controls: bool) -> None:
        assert self._shapes is not None and self._shapes_key is not None
        render.draw_table(layout, self._shapes_key[1], self._shapes_key[2], self._shapes)
        hud.draw_static(layout, controls)

    def draw_balls(self, layout: TableLayout, poses: Mapping[BallName, BallPose]) -> None:
        if self._balls is None or self._balls.layout != layout:
            self._balls = BallSprites(
                layout, render.BALL_COLOURS, render.MARK_COLOURS, render.MARKS, render.MARK_SIZE
            )
        self._balls.draw(poses)


def window_title(m: GameModel) -> str:
    """The player's name and the room, in words (no seat numbers)."""
    room = (m.room.room_id if m.room is not None else None) or m.state.room_id or ""
    who = (f"{m.name} watching" if m.name else "watching") if m.spectating else (m.name or "you")
    return f"Carom · {who} · {discipline_title(m.discipline)} · room {room}"


class TableView(arcade.View):
    kind = "table"

    def __init__(self, controller: Controller) -> None:
        super().__init__(background_color=render.BACKGROUND)
        self.controller = controller
        self.scene = TableScene()
        self.aim = AimState()
        self.chat_draft: str | None = None
        self.mouse: tuple[float, float] | None = None
        self._warned: set[int] = set()
        self._was_turn = False
        self.drawn_poses: dict[BallName, BallPose] = {}
        self.placing: tuple[BallName, tuple[float, float]] | None = None  # practice: drag a ball
        # A stroke is on its way to the server: no second one until it is answered.
        self._sent: tuple[float, Any, Any, int | None, Any] | None = None
        self.buttons: list[Button] = []
        self.title = ""
        # "leave" (Esc) or "quit" (the window's close button) while asking to confirm.
        self.confirm: str | None = None
        self._lagged: tuple[Any] | None = None  # the lag result we had when we sent our lag
        self.fast = False  # F held: the stroke's picture runs four times as fast
        self._preview: tuple[Any, list[tuple[float, float]]] | None = None
        self.hints = HintBox()  # practice: the planner's best strokes (H)

    @property
    def model(self) -> GameModel:
        return self.controller.model

    @property
    def layout(self) -> TableLayout:
        return self.scene.layout_for(self.model, self.window.width, self.window.height)

    # state helpers ----------------------------------------------------------------------------
    def can_aim(self) -> bool:
        m = self.model
        return (
            self._sent is None
            and self.confirm is None
            # One lag stroke per lag round (R-LAG-3): none again until a lag_result comes.
            and not (
                m.phase == Phase.LAG
                and self._lagged is not None
                and self._lagged[0] is m.state.last_lag
            )
            and m.my_turn
            and not m.animating()
            and not m.replaying
            and m.cue_ball(m.seat) in m.resting_balls()
        )

    def _answered(self) -> bool:
        """A stroke we sent has had its effect (the stroke or lag came back, the match moved
        on, or the server refused it), or it is long overdue: the cue comes back."""
        if self._sent is None:
            return True
        at, started, lag, match_seq, error = self._sent
        st = self.model.state
        return (
            self.model.strokes_started != started
            or st.last_lag is not lag
            or st.seq != match_seq
            or self.model.last_error is not error
            or time.monotonic() - at > PENDING_TIMEOUT_S
        )

    def cue_pose(self) -> tuple[float, float] | None:
        balls = self.model.resting_balls()
        ball = self.model.cue_ball(self.model.seat)
        return balls.get(ball)

    def is_break(self) -> bool:
        return self.model.is_break

    @property
    def practice(self) -> bool:
        return self.model.practice

    def prompt_buttons(self) -> list[Button]:
        """Mouse alternatives to the prompt's keys, in the middle of the controls strip."""
        m = self.model
        send = self.controller.send
        actions: list[tuple[str, str, Any]] = []
        if m.spectating:
            return []
        if m.phase == Phase.BREAK_CHOICE and m.lag_winner == m.seat:
            actions = [
                ("me", "I break", lambda: send(ts.ChooseBreak(breaker="me"))),
                ("opp", "Opponent breaks", lambda: send(ts.ChooseBreak(breaker="opponent"))),
            ]
        elif m.phase == Phase.TIMEOUT and m.shooter == m.seat:
            actions = [("resume", "Resume", lambda: send(ts.Resume()))]
        elif self.can_aim():
            if m.frozen:
                actions.append(("respot", "Re-spot", lambda: send(ts.Respot())))
            if self.is_break():
                actions.append(("spot", f"Spot: {self.aim.break_spot}", self._switch_spot))
            elif (
                not self.practice
                # R-TIMEOUT-1: only the shooter, at the start of an inning of play (not the lag).
                and m.phase == Phase.PLAY
                and m.current_run(m.seat or 0) == 0
                and m.timeouts_left(m.seat or 0)
            ):
                actions.append(("timeout", "Time-out", lambda: send(ts.TimeOut())))
        left = self.layout.window_width / 2 - 120  # clear of the power label on the left
        return [
            Button(key, text, Rect(left + i * 172, 36, 164, 34), fn)
            for i, (key, text, fn) in enumerate(actions[:2])
        ]

    def _switch_spot(self) -> None:
        self.aim.break_spot = "left" if self.aim.break_spot == "right" else "right"

    def prompt(self) -> str | None:
        m = self.model
        if m.spectating or m.holding or m.animating() or m.link_down:
            return None
        phase = m.phase
        if phase == Phase.WAITING:
            return "Waiting for an opponent…"
        if phase == Phase.LAG and m.my_turn:
            # R-LAG-2 in the player's view: the table is drawn with the top cushion on the right.
            # Short enough to leave the tip selector uncovered in the default window; the strip
            # above the table gives the whole rule.
            return "Lag: to the right cushion and back; nearest the left cushion wins"
        if phase == Phase.LAG:
            return "Lag played; waiting for the other lag stroke"
        if phase == Phase.BREAK_CHOICE:
            if m.lag_winner == m.seat:
                return "You won the lag: [1] break yourself   [2] let the opponent break"
            return "The lag winner is choosing who breaks"
        if phase == Phase.TIMEOUT:
            return "Time-out · [T] resume" if m.shooter == m.seat else "Opponent's time-out"
        if m.my_turn and m.frozen:
            return "Frozen ball: [R] ask for a re-spot, or play away from it"
        if m.my_turn and self.is_break():
            return f"Break from the {self.aim.break_spot} starting spot · [S] switch"
        if phase == Phase.PLAY and not m.animating():
            if m.my_turn:
                return "Your shot"
            if m.shooter is not None:
                return f"{m.striker_name()} to shoot"
        return None

    def running_match(self) -> bool:
        """Leaving now would cost something: a seated player in a match under way."""
        m = self.model
        return (
            not m.spectating
            and not self.practice
            and m.phase in (Phase.LAG, Phase.BREAK_CHOICE, Phase.PLAY, Phase.TIMEOUT)
        )

    def overlay(self) -> tuple[str, list[str]] | None:
        """The modal message to show, if any: link trouble first, then a leave question."""
        m = self.model
        grace = 60 if m.room is None else m.room.options.grace_s
        if m.local_server_down:
            return (
                "The local server stopped",
                ["[R] restart it: the match comes back where it was", "Esc: leave"],
            )
        if m.link == "lost":
            attempt = f" (attempt {m.reconnect_attempt})" if m.reconnect_attempt else ""
            return (
                f"Reconnecting…{attempt}",
                [
                    "The connection to the server dropped.",
                    "The clock is stopped; your seat is kept while we reconnect.",
                ],
            )
        if m.link in ("closed", "rejoin_failed"):
            return ("Connection closed", ["The server is gone.", "Esc: back to the lobby"])
        if self.confirm is not None:
            what = "Quit" if self.confirm == "quit" else "Leave"
            return (
                f"{what} the match?",
                [
                    f"Your seat is kept for {grace} s: rejoin it from the lobby.",
                    "After that you lose the match.",
                    f"[Y] {what.lower()}    [N] or Esc: stay",
                ],
            )
        return None

    def preview_path(
        self, cue: BallName, poses: Mapping[BallName, BallPose]
    ) -> list[tuple[float, float]]:
        """Practice rooms: the cue ball's path to its first cushion for the aim as it is now,
        from the physics (recomputed only when the aim or the balls change)."""
        balls = {b: (p.x, p.y) for b, p in poses.items()}
        stroke = self.aim.stroke()
        key = (cue, tuple(sorted(balls.items())), stroke)
        if self._preview is None or self._preview[0] != key:
            from client.app.preview import path_to_first_cushion

            path = path_to_first_cushion(self.model.table, balls, cue, stroke.physics())
            self._preview = (key, path)
        return self._preview[1]

    def frame_key(self) -> Any:
        """What the screen shows that changes with time or messages, or None while a stroke
        animates (every frame is new then). The window skips frames whose key has not changed
        and that had no input (``app.GameWindow``)."""
        m = self.model
        if m.animating() or m.replaying or self.placing is not None:
            return None
        left = m.seconds_left()
        st = m.state
        return (
            st.seq,
            m.strokes_started,
            m.holding,
            # the ring drains: redrawn twice a second (1/60 of a turn on a 30 s clock)
            None if left is None else round(left * 2),
            tuple(c.at_ms for c in m.active_calls()),
            len(m.recent_chat()),
            len(m.chat_seen),
            m.link,
            m.reconnect_attempt,
            m.local_server_down,
            None if st.rtt_ms is None else round(st.rtt_ms),
            self.confirm,
            self._sent is not None,
            self.window.width,
            self.window.height,
        )

    def idle_help(self) -> str:
        """The controls strip's line when the cue is not in the player's hand: why not."""
        m = self.model
        if m.link_down:
            return "not connected"
        if m.holding or m.animating() or m.replaying:
            return "the balls are rolling · hold F: fast-forward"
        if m.phase == Phase.BREAK_CHOICE and m.lag_winner == m.seat:
            return "choose who breaks: 1 or 2"
        if m.phase == Phase.TIMEOUT and m.shooter == m.seat:
            return "your time-out · T: resume"
        if m.phase == Phase.WAITING:
            return "waiting for an opponent"
        if m.phase == Phase.OVER:
            return "the match is over"
        return "wait for your turn"

    # arcade hooks -----------------------------------------------------------------------------
    def on_update(self, delta_time: float) -> None:
        self.controller.pump()
        self._retitle()
        if self.fast:
            self.model.fast_forward(delta_time)
        if self._sent is not None and self._answered():
            self._sent = None
        m = self.model
        for c in m.due_contacts():
            self.controller.sounds.play(c.kind, c.speed / 4.0)
        left = m.seconds_left()
        if left is not None and m.my_turn:
            for mark in (10, 5):
                if left <= mark and mark not in self._warned:
                    self._warned.add(mark)
                    self.controller.sounds.play("clock_warning")
        turn = m.my_turn
        if turn and not self._was_turn:
            self._warned = set()
        self._was_turn = turn

    def on_draw(self) -> None:
        layout = self.layout
        m = self.model
        self.scene.draw_background(self.window, m, layout, controls=not m.spectating)
        poses = m.poses()
        if self.placing is not None:
            ball, (px, py) = self.placing
            poses = {**poses, ball: resting_pose(px, py, poses[ball].orientation)}
        self.drawn_poses = poses  # what this frame shows (tests and captures read it)
        self.scene.draw_balls(layout, poses)
        labels = self.scene.labels
        aiming = self.can_aim()
        if aiming:
            cue_name = m.cue_ball(m.seat)
            cue = poses[cue_name]
            others = {b: (p.x, p.y) for b, p in poses.items() if b != cue_name}
            contact = first_contact(m.table, (cue.x, cue.y), self.aim.direction, others)
            render.draw_aim(layout, cue, contact)
            if self.practice:
                render.draw_path(layout, self.preview_path(cue_name, poses))
                found = self.hints.for_position(m.resting_balls())
                if found:
                    hints_overlay.draw(layout, self.scene.labels, found)
            for i, line in enumerate(self.hints.lines(m.resting_balls())):
                hints_overlay.draw_line(layout, self.scene.labels, i, line)
            render.draw_cue(layout, cue, self.aim)
        hud.draw_scoreboard(layout, m, labels)
        if m.spectating:
            hud.draw_spectator_panel(layout, m, labels, self.chat_draft)
        else:
            hud.draw_controls(layout, self.aim, labels, aiming, self.idle_help())
            hud.draw_chat_overlay(layout, m, labels, self.chat_draft)
        hud.draw_banners(layout, m, labels)
        text = self.prompt()
        if text:
            hud.draw_prompt(layout, text, labels)
        self.buttons = self.prompt_buttons() if self.overlay() is None else []
        for b in self.buttons:
            # Rebuilt each frame with the prompt, so the hover comes from the last mouse move.
            b.hover = self.mouse is not None and b.rect.contains(*self.mouse)
            b.draw(labels)
        shown = self.overlay()
        if shown is not None:
            hud.draw_overlay(layout, shown[0], shown[1], labels)
        labels.flush()
        self.controller.drawn(self)

    def on_mouse_motion(self, x: int, y: int, dx: int, dy: int) -> None:
        self.mouse = (x, y)
        if self.can_aim() and not self.aim.pulling and self.layout.rails.contains(x, y):
            cue = self.cue_pose()
            if cue is not None:
                target = self.layout.to_table(x, y)
                if math.dist(target, cue) > 1e-6:
                    self.aim.direction = heading_to(cue, target)

    def _spin_at(self, x: float, y: float) -> bool:
        sx, sy, r = self.layout.spin_selector
        if math.hypot(x - sx, y - sy) <= r * 1.1:
            self.aim.set_tip((x - sx) / r, (y - sy) / r)
            return True
        return False

    def _elevation_at(self, x: float, y: float) -> bool:
        px, py, arm = self.layout.elevation_dial
        if px - 4 <= x <= px + arm + 4 and py - 4 <= y <= py + arm + 4:
            self.aim.set_elevation(math.degrees(math.atan2(max(0.0, y - py), max(0.0, x - px))))
            return True
        return False

    def on_mouse_press(self, x: int, y: int, button: int, modifiers: int) -> None:
        if self.model.spectating or self.overlay() is not None:
            return
        if button == arcade.MOUSE_BUTTON_RIGHT:
            self._start_place(x, y)
            return
        if button != arcade.MOUSE_BUTTON_LEFT:
            return
        if any(b.click(x, y) for b in self.prompt_buttons()):
            return
        if self._spin_at(x, y) or self._elevation_at(x, y):
            return
        if self.can_aim() and self.layout.rails.contains(x, y):
            self.aim.start_pull(self.layout.to_table(x, y))

    def _start_place(self, x: float, y: float) -> None:
        """Practice rooms (``place``): right-drag a ball to where you want it."""
        m = self.model
        if not (self.practice and m.my_turn and not m.animating()):
            return
        p = self.layout.to_table(x, y)
        for ball, pos in m.resting_balls().items():
            if math.dist(p, pos) <= 1.5 * m.table.ball_radius:
                self.placing = (ball, pos)
                return

    def _clamped(self, x: float, y: float) -> tuple[float, float]:
        spec = self.model.table
        r = spec.ball_radius
        tx, ty = self.layout.to_table(x, y)
        return (min(spec.length - r, max(r, tx)), min(spec.width - r, max(r, ty)))

    def on_mouse_drag(self, x: int, y: int, dx: int, dy: int, buttons: int, modifiers: int) -> None:
        if self.placing is not None:
            self.placing = (self.placing[0], self._clamped(x, y))
            return
        if self.aim.pulling:
            self.aim.drag_to(self.layout.to_table(x, y))
        elif not self.model.spectating and not self._spin_at(x, y):
            self._elevation_at(x, y)

    def on_mouse_release(self, x: int, y: int, button: int, modifiers: int) -> None:
        if self.placing is not None:
            ball, _ = self.placing
            px, py = self._clamped(x, y)
            self.placing = None
            self.controller.send(ts.Place(balls={ball: (round(px, 5), round(py, 5))}))
            return
        if not self.aim.pulling:
            return
        self.aim.drag_to(self.layout.to_table(x, y))
        stroke = self.aim.release()
        if stroke is not None and self.can_aim():
            self.shoot()

    def play_hint(self, i: int) -> None:
        """Load hint ``i`` into the aim and play it."""
        found = self.hints.for_position(self.model.resting_balls()) or []
        if i >= len(found):
            return
        s = found[i].stroke
        self.aim.direction = s.direction
        self.aim.set_speed(s.speed)
        self.aim.set_tip(s.tip_x, s.tip_y)
        self.aim.set_elevation(s.elevation)
        self.shoot()

    def shoot(self) -> None:
        cue = self.aim.stroke(self.aim.break_spot if self.is_break() else None)
        self.controller.send(ts.Stroke(cue=cue))
        st = self.model.state
        if self.model.phase == Phase.LAG:
            self._lagged = (st.last_lag,)
        self._sent = (
            time.monotonic(),
            self.model.strokes_started,
            st.last_lag,
            st.seq,
            self.model.last_error,
        )

    def on_mouse_scroll(self, x: int, y: int, scroll_x: float, scroll_y: float) -> None:
        """The wheel is the power gauge (a notch = 0.1 m/s)."""
        if not self.model.spectating:
            self.aim.set_speed(self.aim.speed + POWER_STEP * scroll_y)

    def on_show_view(self) -> None:
        self._retitle()

    def _retitle(self) -> None:
        """The window title follows the room (names can arrive after the view opens)."""
        title = window_title(self.model)
        if title != self.title:
            self.title = title
            self.window.set_caption(title)

    def on_key_release(self, symbol: int, modifiers: int) -> None:
        if symbol == arcade.key.F:
            self.fast = False

    def on_close(self) -> bool:
        """The window's close button: in a running match on a server, ask first (True keeps it
        open; the button again closes). A local game (``carom play`` without ``--url``) closes
        at once: its server and its bot end with the window, there is no seat to keep, and a
        question would keep every process running behind a window that was asked to close."""
        if self.controller.local is not None:
            return False
        if self.running_match() and self.confirm is None and not self.model.link_down:
            self.confirm = "quit"
            return True
        return False

    def on_text(self, text: str) -> None:
        if self.chat_draft is not None and text not in ("\r", "\n"):
            self.chat_draft = (self.chat_draft + text)[:200]

    def on_key_press(self, symbol: int, modifiers: int) -> None:
        k = arcade.key
        if self.chat_draft is not None:
            if symbol in (k.ENTER, k.RETURN):
                if self.chat_draft.strip():
                    self.controller.send(ts.Chat(text=self.chat_draft.strip()))
                self.chat_draft = None
            elif symbol == k.BACKSPACE:
                self.chat_draft = self.chat_draft[:-1]
            elif symbol == k.ESCAPE:
                self.chat_draft = None
            return
        if symbol in (k.ENTER, k.RETURN):
            self.chat_draft = ""
            return
        if symbol == k.F:
            self.fast = True  # until F is released (on_key_release)
            return
        if symbol == k.P:
            self.model.start_replay()
            return
        if symbol == k.M:
            sounds = self.controller.sounds
            sounds.muted = not sounds.muted
            self.model.add_call("sound", "Sound off" if sounds.muted else "Sound on")
            return
        if self.confirm is not None:
            if symbol in (k.Y, k.ENTER, k.RETURN):
                quitting = self.confirm == "quit"
                self.confirm = None
                self.controller.leave()
                if quitting:
                    self.window.close()
            elif symbol in (k.N, k.ESCAPE):
                self.confirm = None
            return
        m = self.model
        if m.local_server_down and symbol == k.R:
            self.controller.restart_local_server()
            return
        if symbol == k.ESCAPE:
            if self.running_match() and not m.link_down:
                self.confirm = "leave"
            else:
                self.controller.leave()
            return
        if m.spectating or m.link_down:
            return
        big = 10.0 if modifiers & k.MOD_SHIFT else 1.0
        if symbol == k.LEFT:
            self.aim.nudge_direction(FINE_STEP * big)
        elif symbol == k.RIGHT:
            self.aim.nudge_direction(-FINE_STEP * big)
        elif symbol == k.UP:
            self.aim.set_speed(self.aim.speed + POWER_STEP * big)
        elif symbol == k.DOWN:
            self.aim.set_speed(self.aim.speed - POWER_STEP * big)
        elif symbol == k.I:
            self.aim.set_tip(self.aim.tip_x, self.aim.tip_y + TIP_STEP)
        elif symbol == k.K:
            self.aim.set_tip(self.aim.tip_x, self.aim.tip_y - TIP_STEP)
        elif symbol == k.J:
            self.aim.set_tip(self.aim.tip_x - TIP_STEP, self.aim.tip_y)
        elif symbol == k.L:
            self.aim.set_tip(self.aim.tip_x + TIP_STEP, self.aim.tip_y)
        elif symbol == k.C:
            self.aim.set_tip(0.0, 0.0)
        elif symbol == k.E:
            self.aim.set_elevation(self.aim.elevation + ELEVATION_STEP)
        elif symbol == k.D:
            self.aim.set_elevation(self.aim.elevation - ELEVATION_STEP)
        elif symbol == k.SPACE and self.can_aim():
            self.shoot()
        elif symbol == k.H and self.practice and self.can_aim():
            cue = m.cue_ball(m.seat)
            self.hints.ask(m.discipline, m.table.name, m.resting_balls(), cue)
        elif symbol in (k.KEY_1, k.KEY_2, k.KEY_3) and self.practice and self.can_aim():
            self.play_hint(symbol - k.KEY_1)
        elif symbol == k.S:
            self._switch_spot()
        elif symbol == k.R and m.my_turn and m.frozen:
            self.controller.send(ts.Respot())
        elif symbol == k.T and m.shooter == m.seat:
            self.controller.send(ts.Resume() if m.phase == Phase.TIMEOUT else ts.TimeOut())
        elif symbol in (k.KEY_1, k.NUM_1) and m.phase == Phase.BREAK_CHOICE:
            self.controller.send(ts.ChooseBreak(breaker="me"))
        elif symbol in (k.KEY_2, k.NUM_2) and m.phase == Phase.BREAK_CHOICE:
            self.controller.send(ts.ChooseBreak(breaker="opponent"))
