"""Driver for test_stats_view.py: the statistics screen (offscreen window, real frames) reading
a real server's recorded matches.

``python drive_stats.py URL OUTDIR``: the lobby, connected as ann (who played the session);
S opens the statistics screen, which reads her matches and draws the charts (``stats.png``);
then the player's name is replaced by one nobody plays as and Enter pressed (``unknown.png``);
Escape goes back to the lobby. What each frame wrote and where each chart was put go to
``OUTDIR/report.json``. (A headless window keeps its size: the layout for other sizes is
tested without one.)
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

os.environ["ARCADE_HEADLESS"] = "1"

import arcade

from client.app.app import Controller, make_window, play_frames, save_screenshot
from client.app.stats_view import StatsView

URL, OUT = sys.argv[1], Path(sys.argv[2])
WINDOW = make_window(visible=False)
report: dict[str, Any] = {}


def frame() -> None:
    play_frames(WINDOW, 1 / 60, real_time=False)


def texts() -> dict[str, str]:
    labels = getattr(WINDOW.current_view, "labels", None)
    return {k: v[0] for k, v in labels.shown.items()} if labels is not None else {}


def until(what: str, cond: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        frame()
        if cond():
            return
        time.sleep(1 / 60)
    raise AssertionError(f"{what}: not within {timeout} s; on screen: {texts()}")


def key(symbol: int, text: str | None = None) -> None:
    WINDOW.dispatch_event("on_key_press", symbol, 0)
    if text is not None:
        WINDOW.dispatch_event("on_text", text)
    WINDOW.dispatch_event("on_key_release", symbol, 0)
    frame()


def stats_view() -> StatsView:
    view = WINDOW.current_view
    assert isinstance(view, StatsView), view
    return view


def loaded() -> bool:
    view = WINDOW.current_view
    return isinstance(view, StatsView) and not view.page.loading


def capture(name: str) -> dict[str, Any]:
    """The screen as it is: saved, with its texts and chart boxes (x, y up, as drawn)."""
    view = stats_view()
    frame()
    save_screenshot(WINDOW, OUT / f"{name}.png")
    return {
        "size": [WINDOW.width, WINDOW.height],
        "texts": texts(),
        "boxes": {k: [b.left, b.bottom, b.width, b.height] for k, b in view.boxes.items()},
        "charts": sorted(view.charts()),
    }


def main() -> None:
    controller = Controller(WINDOW)
    err = controller.connect(URL, "ann")
    assert err is None, err
    controller.show_lobby()
    frame()
    report["lobby"] = texts()
    key(arcade.key.S, "s")  # no field has the focus: S opens the statistics
    report["opened"] = getattr(WINDOW.current_view, "kind", None)
    report["typed_into_field"] = stats_view().player.value
    until("Ann's statistics", loaded)
    report["ann"] = capture("stats")

    # Another player's name, typed: nobody has played under it.
    view = stats_view()
    field = view.player.rect
    WINDOW.dispatch_event(
        "on_mouse_press", round(field.cx), round(field.cy), arcade.MOUSE_BUTTON_LEFT, 0
    )
    for _ in range(len(view.player.value)):
        key(arcade.key.BACKSPACE)
    for ch in "Nobody":
        WINDOW.dispatch_event("on_text", ch)
    key(arcade.key.ENTER)
    until("Nobody's statistics", loaded)
    report["unknown"] = capture("unknown")

    view = stats_view()
    view.player.focused = False
    key(arcade.key.ESCAPE)
    report["back"] = getattr(WINDOW.current_view, "kind", None)
    if controller.net is not None:
        controller.net.close()
    report["ok"] = True


try:
    main()
except Exception as exc:  # the test reads why
    report["ok"] = False
    report["why"] = f"{type(exc).__name__}: {exc}"
    raise
finally:
    (OUT / "report.json").write_text(json.dumps(report, indent=1, ensure_ascii=False))
    WINDOW.close()
