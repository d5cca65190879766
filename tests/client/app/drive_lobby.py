"""Driver for test_lobby.py: the lobby (offscreen window, real frames) connected to a real server,
used with the mouse and the keyboard as a new player would.

``python drive_lobby.py URL OUT.json``: another player opens a room and sits down; the lobby
lists it by that player's name. Then Quick match (one click) puts this player in the queue and
shows the wait; Cancel; back to the lobby; Register… opens the account screen with the name field
ready, the player types a name and a password and registers; back in the lobby it says who is
logged in and Your profile… shows the account's profile. Every text on screen is recorded.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

os.environ["ARCADE_HEADLESS"] = "1"

import arcade

from client.app.app import Controller, make_window, play_frames, save_screenshot
from client.app.bridge import Bridge
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts

URL, OUT = sys.argv[1], sys.argv[2]
WINDOW = make_window(visible=False)
report: dict[str, Any] = {}


def frame() -> None:
    play_frames(WINDOW, 1 / 60, real_time=False)


def texts() -> dict[str, str]:
    view = WINDOW.current_view
    labels = getattr(view, "labels", None)
    return {k: v[0] for k, v in labels.shown.items()} if labels is not None else {}


def until(what: str, cond: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    last = time.monotonic()
    while time.monotonic() < deadline:
        # One frame as long as the real time since the last: the lobby's refresh timer follows
        # the clock however slowly a loaded machine draws (60 short frames would not).
        now = time.monotonic()
        step = max(1 / 60, now - last)
        last = now
        play_frames(WINDOW, step, fps=1 / step, real_time=False)
        if cond():
            return
        time.sleep(1 / 60)
    raise AssertionError(f"{what}: not within {timeout} s; on screen: {texts()}")


def click(key: str) -> None:
    """Press and release the left button on the button ``key`` of the current view."""
    view: Any = WINDOW.current_view
    buttons = [
        *getattr(view, "buttons", []),
        *getattr(view, "account_buttons", []),
    ]
    queue_button = getattr(view, "queue_button", None)
    if queue_button is not None:
        buttons.append(queue_button)
    (button,) = [b for b in buttons if b.key == key]
    x, y = round(button.rect.cx), round(button.rect.cy)
    WINDOW.dispatch_event("on_mouse_press", x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    WINDOW.dispatch_event("on_mouse_release", x, y, arcade.MOUSE_BUTTON_LEFT, 0)
    frame()


def shot(name: str) -> None:
    """The window as it is, next to OUT (to look at)."""
    save_screenshot(WINDOW, os.path.join(os.path.dirname(OUT), f"{name}.png"))


def kind() -> str | None:
    return getattr(WINDOW.current_view, "kind", None)


def main() -> None:
    controller = Controller(WINDOW)
    err = controller.connect(URL, "newcomer")
    assert err is None, err
    controller.show_lobby()
    frame()
    report["guest"] = texts()

    # Another player opens a room and sits down in it.
    bob = Bridge(URL, "Bob", remember_identity=False)
    bob.start()
    bob.send(ts.CreateRoom(discipline="three_cushion", distance=15))
    deadline = time.monotonic() + 10
    room = None
    while room is None and time.monotonic() < deadline:
        for msg in bob.drain():
            if isinstance(msg, tc.RoomCreated):
                room = msg.room_id
        time.sleep(0.02)
    assert room is not None
    bob.send(ts.Join(room_id=room, password=None))
    until("Bob's room listed", lambda: "Bob, waiting for an opponent" in texts().values())
    report["rooms"] = texts()
    shot("lobby_live")

    # Quick match: one click from the lobby, and the wait is on screen.
    click("quick")
    until("queued", lambda: controller.standing.waiting)
    report["queued"] = {"screen": kind(), "texts": texts()}
    shot("quick_match")
    click("queue")  # now reads Cancel
    until("unqueued", lambda: not controller.standing.waiting)
    report["cancelled"] = texts()
    click("lobby")

    # Register…: the account screen, the name field ready for typing.
    click("register")
    view: Any = WINDOW.current_view
    report["register"] = {"screen": kind(), "name_focused": view.name.focused, "texts": texts()}
    shot("register")
    for ch in "Newcomer":
        WINDOW.dispatch_event("on_text", ch)
    frame()
    view.name.focused, view.password.focused = False, True
    for ch in "a long secret":
        WINDOW.dispatch_event("on_text", ch)
    frame()
    click("register")
    until("registered", lambda: controller.standing.account == "Newcomer")
    click("lobby")
    frame()
    report["member"] = {"screen": kind(), "texts": texts()}
    click("profile")
    until("profile shown", lambda: "Newcomer (registered)" in texts().values())
    report["profile"] = {"screen": kind(), "texts": texts()}
    shot("profile")
    bob.close()
    report["ok"] = True


if __name__ == "__main__":
    try:
        main()
    except AssertionError as exc:
        report["ok"] = False
        report["why"] = str(exc)
    with open(OUT, "w") as fh:
        json.dump(report, fh, ensure_ascii=False)
    WINDOW.close()
