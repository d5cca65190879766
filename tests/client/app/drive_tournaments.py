"""Driver for test_tournaments.py: the tournaments screen (offscreen window, real frames) on a
real server. An organizer creates an event; the player, logged in, opens Tournaments… from the
lobby, picks the event, sees its details and registers with one click. Every text is recorded.

``python drive_tournaments.py URL DB OUT.json``
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

from client.app.app import Controller, make_window, play_frames
from client.app.bridge import Bridge
from server.store.sqlite import Store
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import tournament as tw

URL, DB, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
WINDOW = make_window(visible=False)
report: dict[str, Any] = {}


def texts() -> dict[str, str]:
    labels = getattr(WINDOW.current_view, "labels", None)
    return {k: v[0] for k, v in labels.shown.items()} if labels is not None else {}


def until(what: str, cond: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        play_frames(WINDOW, 1 / 60, real_time=False)
        if cond():
            return
        time.sleep(1 / 60)
    raise AssertionError(f"{what}: not within {timeout} s; on screen: {texts()}")


def press(x: float, y: float) -> None:
    WINDOW.dispatch_event("on_mouse_press", round(x), round(y), arcade.MOUSE_BUTTON_LEFT, 0)
    WINDOW.dispatch_event("on_mouse_release", round(x), round(y), arcade.MOUSE_BUTTON_LEFT, 0)
    play_frames(WINDOW, 1 / 60, real_time=False)


def click(key: str) -> None:
    view: Any = WINDOW.current_view
    (button,) = [b for b in getattr(view, "buttons", []) if b.key == key]
    press(button.rect.cx, button.rect.cy)


def answer(bridge: Bridge, kind: type, timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for msg in bridge.drain():
            if isinstance(msg, kind):
                return msg
            if isinstance(msg, tc.Error):
                raise AssertionError(f"refused: {msg.code}: {msg.message}")
        time.sleep(0.02)
    raise AssertionError(f"no {kind.__name__}")


def main() -> None:
    olga = Bridge(URL, "olga", remember_identity=False)
    olga.start()
    olga.send(ts.Register(name="Olga", password="organizer secret"))
    welcome = answer(olga, tc.Welcome)
    welcome = answer(olga, tc.Welcome) if welcome.re is None else welcome
    with Store(DB) as store:  # what carom admin grant-organizer does
        store.tournaments.grant_organizer(welcome.player_id, 0)
    starts = int(time.time() * 1000) + 3_600_000
    olga.send(
        tw.TournamentCreate(
            name="Spring cup",
            discipline="three_cushion",
            distance=15,
            format="knockout",
            capacity=16,
            registration_closes_ms=starts,
            starts_ms=starts,
        )
    )
    answer(olga, tw.TournamentCreated)

    controller = Controller(WINDOW)
    assert controller.connect(URL, "newcomer") is None
    controller.send(ts.Register(name="Newcomer", password="a long secret"))
    controller.standing.asked_name = "Newcomer"
    controller.show_lobby()
    until("registered", lambda: controller.standing.account == "Newcomer")
    report["lobby"] = texts()
    click("events")
    report["screen"] = getattr(WINDOW.current_view, "kind", None)
    until("listed", lambda: any("Spring cup" in t for t in texts().values()))
    report["list"] = texts()
    view: Any = WINDOW.current_view
    r = view.list_rect
    press(r.left + 40, r.top - 20)  # the first event
    until("details", lambda: "organized by Olga" in " ".join(texts().values()))
    report["details"] = texts()
    click("register")
    until("on the list", lambda: "players: Newcomer" in texts().values())
    report["registered"] = texts()
    click("unregister")
    until("given up", lambda: "players: none yet" in texts().values())
    report["given_up"] = texts()
    click("lobby")
    report["back"] = getattr(WINDOW.current_view, "kind", None)
    olga.close()
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
