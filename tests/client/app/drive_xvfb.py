"""End-to-end driver for test_xvfb.py: the real window and arcade's real event loop on a virtual
display, connected to a real server.

``python drive_xvfb.py URL OUT.json``: opens the lobby, creates a practice room and joins it,
then a scripted "hand" (scheduled on arcade's clock) moves the mouse over the table, presses,
drags back and releases through the window's events. It watches the stroke come back from the
server, samples the screen while the balls roll, waits for rest, and writes what it saw.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from typing import Any

import arcade

from client.app.app import Controller, make_window
from client.app.sound import Sounds
from shared.protocol import to_client as tc

URL, OUT = sys.argv[1], sys.argv[2]
TIMEOUT_S = 90.0
SPECTATOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drive_spectator.py")

window = make_window(visible=True)
controller = Controller(window, sounds=Sounds(enabled=False))
report: dict[str, Any] = {
    "steps": [],
    # Xvfb renders with Mesa's llvmpipe: one window, shown, without multisampling.
    "window": {
        "visible": window.visible,
        "multisampled": window.multisampled,
        "sample_buffers": window.config.sample_buffers,
        "renderer": str(window.ctx.info.RENDERER),
    },
}
state: dict[str, Any] = {"phase": "connect", "t0": time.monotonic(), "step_at": 0.0}
frames: list[float] = []
played: list[tc.StrokePlayed] = []  # the stroke_played message as it arrived
controller.on_message.append(
    lambda msg: played.append(msg) if isinstance(msg, tc.StrokePlayed) else None
)


def sent_wire(controller: Any) -> list[dict[str, Any]]:
    """What the controller sent, as wire maps (printed as JSON)."""
    return [msg.to_wire() for msg in controller.sent]


def texts(view: Any) -> dict[str, Any]:
    return {k: list(v) for k, v in view.scene.labels.shown.items()}


def finish(ok: bool, why: str = "") -> None:
    report["ok"] = ok
    report["why"] = why
    report["frames"] = len(frames)
    with open(OUT, "w") as fh:
        json.dump(report, fh)
    if controller.net is not None:
        controller.net.close()
    arcade.exit()


def after_draw(view: Any) -> None:
    """Runs right after the table is drawn, before the buffer flip: sample what is on screen."""
    frames.append(time.monotonic())
    m = controller.model
    if state["phase"] == "rolling" and m.animation is not None and m.animating():
        # What the player's screen says 1 s into the stroke and half way through it.
        t = m.animation.t_at(m.now_ms())
        during = report.setdefault("during", {})
        if "1s" not in during and t >= 1.0:
            during["1s"] = {"t": t, "texts": texts(view)}
        if "half" not in during and t >= m.animation.motion.duration / 2:
            during["half"] = {"t": t, "texts": texts(view)}
    if state["phase"] != "rolling" or not m.animating() or "rolling" in report:
        return
    cue = m.cue_ball(m.seat)
    pose = view.drawn_poses[cue]  # exactly what this frame drew
    start = report["before"]["balls"][cue]
    if math.dist((pose.x, pose.y), start) < 0.1:
        return  # not far enough from the start to tell a moved ball from a still one
    layout = view.layout
    img = arcade.get_image(0, 0, window.width, window.height).convert("RGB")
    r = layout.ball_radius_px

    def whiteish(sx: float, sy: float) -> float:
        hits = total = 0
        for dx in range(-int(0.6 * r), int(0.6 * r) + 1):
            for dy in range(-int(0.6 * r), int(0.6 * r) + 1):
                p = img.getpixel((round(sx + dx), window.height - 1 - round(sy + dy)))
                total += 1
                hits += min(p) > 200  # type: ignore[operator]
        return hits / total

    now_xy = layout.to_screen(pose.x, pose.y)
    start_xy = layout.to_screen(*start)
    report["rolling"] = {
        "t": m.animation.t_at(m.now_ms()) if m.animation else None,
        "pose": [pose.x, pose.y],
        "white_at_pose": whiteish(*now_xy),
        "white_at_start": whiteish(*start_xy),
    }


def step(dt: float) -> None:
    m = controller.model
    phase = state["phase"]
    elapsed = time.monotonic() - state["t0"]
    if elapsed > TIMEOUT_S:
        finish(False, f"timed out in phase {phase}")
        return
    view = window.current_view
    if phase == "connect":
        err = controller.connect(URL, "xvfb-player")
        if err:
            finish(False, err)
            return
        controller.show_lobby()
        controller.create_and_join({"discipline": "three_cushion", "practice": True})
        state["phase"] = "wait_turn"
    elif phase == "wait_turn":
        if getattr(view, "kind", None) == "table" and view.can_aim():  # type: ignore[union-attr]
            report["before"] = {
                "balls": {b: list(p) for b, p in m.resting_balls().items()},
                "innings": m.innings(0),
                "score": m.score(0),
                "hud": view.scene.labels.text("stats0"),  # type: ignore[union-attr]
            }
            # The late spectator's window and connection, ready before the stroke.
            state["spectator_out"] = OUT + ".spectator.json"
            state["spectator_go"] = OUT + ".go"
            state["spectator"] = subprocess.Popen(
                [
                    sys.executable,
                    SPECTATOR,
                    URL,
                    str(m.state.room_id),
                    state["spectator_out"],
                    state["spectator_go"],
                ],
                env={**os.environ, "ARCADE_HEADLESS": "1"},
            )
            state["phase"] = "aim"
    elif phase == "aim" and not os.path.exists(state["spectator_go"] + ".ready"):
        pass  # the spectator is still starting
    elif phase == "aim":
        # Aim at the red ball: move the mouse there, press, pull back 0.2 m, release.
        layout = view.layout  # type: ignore[union-attr]
        red = m.resting_balls()["red"]
        cue = m.resting_balls()[m.cue_ball(m.seat)]
        tx, ty = (round(v) for v in layout.to_screen(*red))
        d = math.atan2(red[1] - cue[1], red[0] - cue[0])
        bx, by = (
            round(v)
            for v in layout.to_screen(red[0] - 0.2 * math.cos(d), red[1] - 0.2 * math.sin(d))
        )
        left = arcade.MOUSE_BUTTON_LEFT
        window.dispatch_event("on_mouse_motion", tx, ty, 0, 0)
        window.dispatch_event("on_mouse_press", tx, ty, left, 0)
        window.dispatch_event("on_mouse_drag", (tx + bx) // 2, (ty + by) // 2, 0, 0, left, 0)
        window.dispatch_event("on_mouse_drag", bx, by, 0, 0, left, 0)
        window.dispatch_event("on_mouse_release", bx, by, left, 0)
        report["aim"] = {"expected_direction": math.degrees(d) % 360}
        state["phase"] = "wait_stroke"
    elif phase == "wait_stroke":
        sent = [s for s in sent_wire(controller) if s["t"] == "stroke"]
        if sent:
            report["sent"] = sent
        if m.animation is not None:
            report["stroke_seen_after_s"] = elapsed
            state["phase"] = "rolling"
            # A spectator arrives while the balls roll (its own window, offscreen, started
            # before the stroke and waiting for this file).
            with open(state["spectator_go"], "w"):
                pass
    elif phase == "rolling":
        if not m.animating() and not m.holding:
            m.poses()  # settle
            state["phase"] = "rested"
            state["step_at"] = elapsed
    elif phase == "rested" and elapsed - state["step_at"] > 0.3:  # let the HUD redraw
        layout = view.layout  # type: ignore[union-attr]
        strip, rails = layout.call_strip, layout.rails
        report["rest_texts"] = texts(view)
        report["call_strip"] = [strip.left, strip.bottom, strip.right, strip.top]
        report["rails"] = [rails.left, rails.bottom, rails.right, rails.top]
        report["calls"] = [c.text for c in played[-1].result.calls] if played else []
        report["rest_ms_reached"] = m.now_ms() >= played[-1].rest_ms if played else None
        spectator = state.get("spectator")
        if spectator is not None:
            try:
                spectator.wait(90)  # its own window and connection: slow on a busy machine
            except subprocess.TimeoutExpired:
                spectator.kill()
                spectator.wait()
            try:
                with open(state["spectator_out"]) as fh:
                    report["spectator"] = json.load(fh)
            except FileNotFoundError:
                report["spectator"] = {"error": f"wrote nothing (exit {spectator.returncode})"}
        report["after"] = {
            "balls": {b: list(p) for b, p in m.resting_balls().items()},
            "innings": m.innings(0),
            "score": m.score(0),
            "hud": view.scene.labels.text("stats0"),  # type: ignore[union-attr]
        }
        finish(True)


controller.after_draw.append(after_draw)
arcade.schedule(step, 1 / 30)
arcade.run()
