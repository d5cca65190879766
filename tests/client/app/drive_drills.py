"""Headless driver for test_drill_choice.py (a subprocess: it owns a GL context).

The drill screen is opened as ``carom play --drills`` opens it and driven as a player would:
keys (S to switch systems, A to play the system's answer, N for the next drill) and a click on
the plus system's button. After each step a frame is drawn and the texts on screen are
recorded; the list of frames is printed as JSON on stdout.
"""

from __future__ import annotations

import json
import os

os.environ["ARCADE_HEADLESS"] = "1"

import arcade

from client.app.app import Controller, fire, make_window
from client.app.drill_view import DrillView


def main() -> None:
    window = make_window(visible=False)
    view = DrillView(Controller(window))
    window.show_view(view)
    frames: list[dict[str, object]] = []

    def frame(step: str) -> None:
        fire(window, "on_draw")
        shown = {k: v[0] for k, v in view.scene.labels.shown.items()}
        frames.append({"step": step, "system": view.system.value, "texts": shown})

    def key(symbol: int, step: str) -> None:
        fire(window, "on_key_press", symbol, 0)
        frame(step)

    frame("open")
    key(arcade.key.A, "corner answer")
    key(arcade.key.S, "S")
    key(arcade.key.H, "plus hint")
    key(arcade.key.H, "plus hint off")
    key(arcade.key.A, "plus answer")
    key(arcade.key.N, "plus next")
    key(arcade.key.S, "S again")
    corner = next(b for b in view.buttons if b.key == "system:corner_five")
    plus = next(b for b in view.buttons if b.key == "system:plus")
    fire(window, "on_mouse_press", round(plus.rect.cx), round(plus.rect.cy), 1, 0)
    frame("click plus")
    fire(window, "on_mouse_press", round(corner.rect.cx), round(corner.rect.cy), 1, 0)
    frame("click corner")
    window.close()
    print(json.dumps(frames))


if __name__ == "__main__":
    main()
