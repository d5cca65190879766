"""Headless driver for test_link.py's local-server test: ``carom play``'s own server dies
mid-match; the window says so, R starts it again, and the player is back in the seat.
Prints one JSON map."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from typing import Any

os.environ["ARCADE_HEADLESS"] = "1"

import arcade

from client.app.app import Controller, fire, make_window, play_frames
from client.app.local import LocalGame


def main() -> None:
    local = LocalGame()
    url = local.start_server()
    window = make_window(visible=False)
    c = Controller(window)
    c.local = local
    out: dict[str, Any] = {}
    try:
        assert c.connect(url, "Ana") is None
        c.show_lobby()

        def until(cond: Callable[[], bool], timeout: float = 20.0) -> float:
            start = time.monotonic()
            while time.monotonic() - start < timeout:
                play_frames(window, 1 / 60, real_time=False)
                time.sleep(1 / 60)
                if cond():
                    return time.monotonic() - start
            raise AssertionError(f"timed out after {timeout} s")

        def view() -> Any:
            return window.current_view

        c.create_and_join({"discipline": "three_cushion", "practice": True})
        until(lambda: getattr(view(), "kind", None) == "table" and view().can_aim())
        room_id = c.model.state.room_id
        assert local.server is not None
        local.server.kill()  # SIGKILL: what a crash looks like
        t_said = until(lambda: (view().overlay() or ("",))[0] == "The local server stopped", 5)
        out["said"] = {"after_s": t_said, "overlay": view().overlay(), "can_aim": view().can_aim()}
        fire(window, "on_key_press", arcade.key.R, 0)
        t_back = until(
            lambda: view().overlay() is None and view().can_aim() and c.model.seat == 0, 30
        )
        out["back"] = {"after_s": t_back, "room": c.model.state.room_id == room_id}
    finally:
        if c.net is not None:
            c.net.close()
        window.close()
        local.stop()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
