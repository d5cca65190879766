"""Headless input driver for test_input.py (run as a subprocess: it owns a GL context).

Each case builds a scene, shows the table view in an offscreen window, queues mouse and key
events on the window the way the OS would, lets ``dispatch_events`` deliver them, and reports
what the view did (the aim and what the controller sent) as one JSON map on stdout.
"""

from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import replace
from typing import Any

os.environ["ARCADE_HEADLESS"] = "1"

import arcade

from client.app.app import Controller, make_window, play_frames
from client.app.scenes import build
from client.app.table_view import TableView
from shared.protocol import to_client as tc
from shared.protocol import views as pv

WINDOW = make_window(visible=False)


def sent_wire(controller: Any) -> list[dict[str, Any]]:
    """What the controller sent, as wire maps (printed as JSON)."""
    return [msg.to_wire() for msg in controller.sent]


def setup(scene_name: str, **match: Any) -> tuple[Controller, TableView]:
    scene = build(scene_name)
    if match:
        assert scene.model.match is not None
        scene.model.match = replace(scene.model.match, **match)
    controller = Controller(WINDOW, scene.model)
    view = TableView(controller)
    WINDOW.show_view(view)
    play_frames(WINDOW, 1 / 60, real_time=False)
    return controller, view


def queue(event: str, *args: Any) -> None:
    WINDOW.dispatch_event(event, *args)  # headless: queued until dispatch_events()


def frame() -> None:
    play_frames(WINDOW, 1 / 60, real_time=False)


def screen(view: TableView, x: float, y: float) -> tuple[int, int]:
    sx, sy = view.layout.to_screen(x, y)
    return round(sx), round(sy)


def drag_shot(view: TableView, target: tuple[float, float], pull: float) -> dict[str, Any]:
    """Point at ``target``, press there, pull back ``pull`` metres, release."""
    cue = view.cue_pose()
    assert cue is not None
    tx, ty = screen(view, *target)
    queue("on_mouse_motion", tx, ty, 0, 0)
    frame()
    aimed = view.aim.direction
    d = math.radians(aimed)
    bx, by = screen(view, target[0] - pull * math.cos(d), target[1] - pull * math.sin(d))
    queue("on_mouse_press", tx, ty, arcade.MOUSE_BUTTON_LEFT, 0)
    queue("on_mouse_drag", (tx + bx) // 2, (ty + by) // 2, 0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
    queue("on_mouse_drag", bx, by, 0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
    frame()
    loaded = view.aim.speed
    queue("on_mouse_release", bx, by, arcade.MOUSE_BUTTON_LEFT, 0)
    frame()
    return {"cue": list(cue), "aimed": aimed, "loaded": loaded}


def key(symbol: int, modifiers: int = 0) -> None:
    queue("on_key_press", symbol, modifiers)
    queue("on_key_release", symbol, modifiers)


def main() -> None:
    out: dict[str, Any] = {}

    c, v = setup("player")
    out["mouse_shot"] = {**drag_shot(v, (2.0, 0.9), 0.25), "sent": sent_wire(c)}

    c, v = setup("player")
    d0, s0 = v.aim.direction, v.aim.speed
    for _ in range(3):
        key(arcade.key.LEFT)
    key(arcade.key.RIGHT, arcade.key.MOD_SHIFT)
    key(arcade.key.UP)
    key(arcade.key.E)
    key(arcade.key.I)
    key(arcade.key.SPACE)
    frame()
    key(arcade.key.SPACE)  # impatient second press before the server answered
    frame()
    out["keyboard_shot"] = {"d0": d0, "s0": s0, "sent": sent_wire(c), "cue_back": v.can_aim()}

    c, v = setup("player")
    sx, sy, r = v.layout.spin_selector
    queue("on_mouse_press", round(sx + 0.3 * r), round(sy - 0.2 * r), arcade.MOUSE_BUTTON_LEFT, 0)
    frame()
    first = (v.aim.tip_x, v.aim.tip_y, r)
    queue("on_mouse_press", round(sx + r), round(sy), arcade.MOUSE_BUTTON_LEFT, 0)
    frame()
    out["spin"] = {"first": list(first), "edge": [v.aim.tip_x, v.aim.tip_y], "sent": sent_wire(c)}

    c, v = setup("spectator")
    queue("on_mouse_motion", 700, 400, 0, 0)
    queue("on_mouse_press", 700, 400, arcade.MOUSE_BUTTON_LEFT, 0)
    queue("on_mouse_drag", 600, 380, 0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
    queue("on_mouse_release", 600, 380, arcade.MOUSE_BUTTON_LEFT, 0)
    key(arcade.key.SPACE)
    frame()
    queue("on_key_press", arcade.key.ENTER, 0)
    queue("on_text", "hi all")
    queue("on_key_press", arcade.key.ENTER, 0)
    frame()
    out["spectator"] = {"sent": sent_wire(c)}

    c, v = setup("player", shooter=1)
    queue("on_mouse_press", 700, 400, arcade.MOUSE_BUTTON_LEFT, 0)
    queue("on_mouse_drag", 600, 380, 0, 0, arcade.MOUSE_BUTTON_LEFT, 0)
    queue("on_mouse_release", 600, 380, arcade.MOUSE_BUTTON_LEFT, 0)
    key(arcade.key.SPACE)
    frame()
    out["not_my_turn"] = {"sent": sent_wire(c)}

    c, v = setup("break_choice")
    key(arcade.key.KEY_1)
    frame()
    out["break_choice"] = {"sent": sent_wire(c), "prompt": v.prompt()}

    c, v = setup("player", frozen=pv.FrozenView(balls=("red",), cushions=()))
    prompt = v.prompt()
    key(arcade.key.R)
    frame()
    out["frozen"] = {"sent": sent_wire(c), "prompt": prompt}

    c, v = setup("player", break_shot=True)
    key(arcade.key.S)
    key(arcade.key.SPACE)
    frame()
    out["break_shot"] = {"sent": sent_wire(c)}

    c, v = setup("break_choice")
    frame()
    [first, second] = v.buttons
    queue(
        "on_mouse_press", round(second.rect.cx), round(second.rect.cy), arcade.MOUSE_BUTTON_LEFT, 0
    )
    frame()
    out["break_choice_click"] = {"labels": [first.text, second.text], "sent": sent_wire(c)}

    c, v = setup("player")
    assert c.model.room is not None
    c.model.room = replace(c.model.room, practice=True)
    wx, wy = screen(v, 0.72, 0.52)  # the white ball
    right = arcade.MOUSE_BUTTON_RIGHT
    queue("on_mouse_press", wx, wy, right, 0)
    queue("on_mouse_drag", wx + 40, wy + 40, 40, 40, right, 0)
    frame()
    dragging = list(v.drawn_poses["white"].__getattribute__(k) for k in ("x", "y"))
    ex, ey = screen(v, 1.4, 2.5)  # beyond the left cushion: clamped onto the cloth
    queue("on_mouse_drag", ex, ey, 0, 0, right, 0)
    queue("on_mouse_release", ex, ey, right, 0)
    frame()
    out["place"] = {"sent": sent_wire(c), "dragging": dragging}

    from client.app.scenes import NOW_MS, demo_trajectory, stroke_played

    c, v = setup("player")
    c.sounds.enabled = True  # no device offscreen: play() records the name and stays silent
    clock = {"ms": NOW_MS}
    c.model.now_local_ms = lambda: clock["ms"]
    assert c.model.match is not None
    traj = demo_trajectory()
    c.model.apply(
        stroke_played(
            traj,
            int(NOW_MS),
            int(NOW_MS) + int(1000 * max(sg[-1].t0 for sg in traj.values())),
            c.model.match,
            seq=5,
            events=(
                pv.EventView(t=0.05, kind="ball_cushion", balls=("white",), speeds=(2.0,)),
                pv.EventView(t=0.10, kind="ball_ball", balls=("white", "red"), speeds=(1.5, 0.0)),
                pv.EventView(t=5.00, kind="ball_cushion", balls=("white",), speeds=(0.5,)),
            ),
        )
    )
    frame()
    before = list(c.sounds.played)
    clock["ms"] += 200
    frame()
    out["sounds"] = {"before": before, "after": list(c.sounds.played)}

    c, v = setup("player")
    c.model.apply(tc.ChatLine(seq=9, sender="kim", text="good luck"))
    queue("on_key_press", arcade.key.ENTER, 0)
    queue("on_text", "thanks")
    frame()
    shown = [v.scene.labels.text("pchat0"), v.scene.labels.text("pchat1")]
    ys = [v.scene.labels.shown[k][2] for k in ("pchat0", "pchat1")]
    queue("on_key_press", arcade.key.ENTER, 0)
    frame()
    out["player_chat"] = {
        "sent": sent_wire(c),
        "shown": shown,
        "ys": ys,
        "rails_bottom": v.layout.rails.bottom,
    }

    c, v = setup("player")
    s0 = v.aim.speed
    queue("on_mouse_scroll", 640, 400, 0, 3)
    frame()
    out["wheel"] = {"s0": s0, "s1": v.aim.speed}

    c, v = setup("player")
    key(arcade.key.ESCAPE)  # a running match: it asks first
    frame()
    asked = {
        "sent": list(sent_wire(c)),
        "now": getattr(WINDOW.current_view, "kind", None),
        "overlay": v.overlay(),
        "can_aim": v.can_aim(),
    }
    key(arcade.key.N)  # stay
    frame()
    stayed = {"sent": list(sent_wire(c)), "overlay": v.overlay(), "can_aim": v.can_aim()}
    key(arcade.key.ESCAPE)
    frame()
    key(arcade.key.Y)
    frame()
    out["escape"] = {
        "asked": asked,
        "stayed": stayed,
        "sent": sent_wire(c),
        "now": getattr(WINDOW.current_view, "kind", None),
        "room": None if c.model.room is None else c.model.room.to_wire(),
    }
    # Redraw only when something changed (issue 13 point 10): the window's own draw.
    c, v = setup("player", deadline_ms=None)
    WINDOW.frames_drawn = 0
    for _ in range(10):
        WINDOW.draw(1 / 60)
    idle = WINDOW.frames_drawn
    queue("on_mouse_motion", 700, 420, 3, 2)
    WINDOW.dispatch_events()
    WINDOW.draw(1 / 60)
    after_input = WINDOW.frames_drawn - idle
    c.model.apply(tc.Call(seq=3, code="x", text="Time-out."))
    WINDOW.draw(1 / 60)
    after_call = WINDOW.frames_drawn - idle - after_input
    out["redraw"] = {"idle": idle, "after_input": after_input, "after_call": after_call}

    # One lag stroke per lag round: the referee's "lag stroke is in" call does not give the
    # cue back (it used to, and a second lag stroke was refused by the server).
    lag = pv.LagView(
        balls={"0": "white", "1": "yellow"},
        played=(False, False),
        winner=None,
        reason=None,
        repeats=0,
    )
    c, v = setup("player", phase="lag", shooter=None, lag=lag)
    first = v.can_aim()
    key(arcade.key.SPACE)
    frame()
    c.model.apply(tc.Call(seq=3, code="lag_stroke", text="Seat 0's lag stroke is in."))
    frame()
    key(arcade.key.SPACE)
    frame()
    out["lag_once"] = {
        "first": first,
        "strokes": sum(1 for s in sent_wire(c) if s["t"] == "stroke"),
        "can_aim": v.can_aim(),
    }

    # An unreachable --url: the lobby shows that URL (not the default) and the whole error.
    from client.app.lobby_view import LobbyView

    c = Controller(WINDOW)
    err = c.connect("ws://127.0.0.1:9/", "ana")
    lobby = LobbyView(c)
    lobby.status = err or ""
    WINDOW.show_view(lobby)
    frame()
    out["bad_url"] = {"field": lobby.url.value, "status": lobby.labels.text("status")}

    c, v = setup("player")
    c.model.local_server_down = True  # what Controller._check_local sets when it died
    frame()
    key(arcade.key.SPACE)
    frame()
    out["local_down"] = {"overlay": v.overlay(), "can_aim": v.can_aim(), "sent": list(sent_wire(c))}

    c, v = setup("player")
    closed_kept = v.on_close()  # the window's close button, in a running match
    frame()
    out["close"] = {"kept_open": closed_kept, "overlay": v.overlay(), "sent": list(sent_wire(c))}

    from client.app.replay_view import ReplayView
    from client.app.results_view import ResultsView
    from client.app.scenes import replay_message, results_model

    c = Controller(WINDOW, results_model())
    rv = ResultsView(c)
    WINDOW.show_view(rv)
    frame()
    for b in rv.buttons:  # rematch, watch replay, back to lobby
        queue("on_mouse_press", round(b.rect.cx), round(b.rect.cy), arcade.MOUSE_BUTTON_LEFT, 0)
        frame()
    out["results"] = {"sent": sent_wire(c), "now": getattr(WINDOW.current_view, "kind", None)}

    c = Controller(WINDOW, results_model())
    rclock = {"ms": NOW_MS}
    msg = replay_message()
    rp = ReplayView(c, msg, clock=lambda: rclock["ms"])
    WINDOW.show_view(rp)
    frame()
    steps = []

    def snap(label: str) -> None:
        poses = rp.model.poses()
        steps.append(
            {
                "label": label,
                "index": rp.index,
                "animating": rp.model.animating(),
                "balls": {b: [p.x, p.y] for b, p in poses.items()},
            }
        )

    snap("start")
    key(arcade.key.RIGHT)
    frame()
    snap("playing 1")
    rclock["ms"] += 60_000
    frame()
    snap("after 1")
    key(arcade.key.RIGHT)
    frame()
    rclock["ms"] += 60_000
    frame()
    snap("after 2")
    key(arcade.key.LEFT)
    frame()
    snap("back to after 1")
    key(arcade.key.ESCAPE)
    frame()
    out["replay"] = {
        "steps": steps,
        "expected_after": [
            s.body.match.to_wire()["balls"]
            for s in msg.strokes
            if isinstance(s.body, tc.StrokePlayed)
        ],
        "now": getattr(WINDOW.current_view, "kind", None),
    }

    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
