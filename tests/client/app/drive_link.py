"""Headless driver for test_link.py (a subprocess: it owns a GL context and the server).

Ana plays in the real window (offscreen) against Bob (the client library, no window) on a real
``python -m server``. The driver leaves the running match with Esc, rejoins it from the lobby,
then kills the server and starts it again on the same port and database, recording what the
window shows frame by frame. Prints one JSON map.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shared.protocol import to_server as ts

os.environ["ARCADE_HEADLESS"] = "1"

import arcade

from client.app.app import Controller, fire, make_window, play_frames
from client.app.bridge import Bridge
from server.process import ServerProcess


def sent_wire(controller: Any) -> list[dict[str, Any]]:
    """What the controller sent, as wire maps (printed as JSON)."""
    return [msg.to_wire() for msg in controller.sent]


def main(workdir: str) -> None:
    db = Path(workdir) / "carom.db"
    server = ServerProcess(db, workers=0)  # one table, as carom play runs its server
    url = server.url
    window = make_window(visible=False)
    c = Controller(window)
    bob: Bridge | None = None
    out: dict[str, Any] = {}
    try:
        assert c.connect(url, "Ana") is None
        c.show_lobby()

        def frame() -> None:
            play_frames(window, 1 / 60, real_time=False)
            time.sleep(1 / 60)

        def until(cond: Callable[[], bool], timeout: float = 20.0) -> float:
            start = time.monotonic()
            while time.monotonic() - start < timeout:
                frame()
                if cond():
                    return time.monotonic() - start
            raise AssertionError(f"timed out after {timeout} s")

        def view() -> Any:
            return window.current_view

        def kind() -> str | None:
            return getattr(view(), "kind", None)

        def shown() -> list[str]:
            v = view()
            labels = getattr(getattr(v, "scene", v), "labels", None)
            return [t for t, _, _ in labels.shown.values()] if labels is not None else []

        def key(symbol: int) -> None:
            fire(window, "on_key_press", symbol, 0)
            frame()

        c.create_and_join({"discipline": "three_cushion"})
        until(lambda: c.model.state.room_id is not None and c.model.seat == 0)
        room_id = c.model.state.room_id
        bob = Bridge(url, "Bob")
        bob.start()
        bob.send(ts.Join(room_id=room_id))
        until(lambda: kind() == "table" and view().can_aim())  # the lag: Ana may strike
        out["room_id"] = room_id

        # 1. Esc asks; Y leaves; the lobby offers the match; Join rejoins the seat.
        key(arcade.key.ESCAPE)
        out["asked"] = {"kind": kind(), "overlay": view().overlay(), "sent": sent_wire(c)[-1]}
        key(arcade.key.Y)
        until(lambda: kind() != "table")
        lobby = view()
        lobby.refresh()
        until(lambda: any(r.room_id == room_id for r in c.model.rooms))
        frame()
        out["lobby_text"] = shown()
        lobby.selected = next(i for i, r in enumerate(c.model.rooms) if r.room_id == room_id)
        lobby.join()
        until(lambda: kind() == "table" and view().can_aim())
        out["rejoined"] = {"seat": c.model.seat, "phase": c.model.phase, "sent": sent_wire(c)[-1]}

        # 2. The server is killed while Ana holds the cue.
        frame()
        clock_before = view().scene.labels.text("clock")
        sent_before = len(sent_wire(c))
        server.kill()
        t_overlay = until(lambda: (view().overlay() or ("",))[0].startswith("Reconnecting"), 5)
        clocks = []
        for _ in range(6):
            time.sleep(0.25)
            frame()
            clocks.append(view().scene.labels.text("clock"))
        key(arcade.key.SPACE)  # the controls are off: no stroke goes out
        fire(window, "on_mouse_press", 640, 400, arcade.MOUSE_BUTTON_LEFT, 0)
        frame()
        out["down"] = {
            "overlay_after_s": t_overlay,
            "overlay": view().overlay(),
            "clock_before": clock_before,
            "clocks": clocks,
            "can_aim": view().can_aim(),
            "sent": sent_wire(c)[sent_before:],
            "ping": view().scene.labels.text("ping"),
            "attempt_shown": any("attempt" in t for t in shown()),
        }
        port = server.port
        server = ServerProcess(db, workers=0, extra_args=["--port", str(port)])
        t_back = until(
            lambda: view().overlay() is None and c.model.seat == 0 and view().can_aim(), 30
        )
        out["back"] = {
            "after_s": t_back,
            "seat": c.model.seat,
            "room_id": c.model.state.room_id,
            "kind": kind(),
            "sent": sent_wire(c)[sent_before:],
        }
    finally:
        if bob is not None:
            bob.close()
        if c.net is not None:
            c.net.close()
        window.close()
        server.stop()
    print(json.dumps(out, default=str))


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    main(sys.argv[1])
