"""Render the ranking screen (and a profile) offscreen with made-up standings.

``python -m client.app.standing_shot OUTDIR`` writes ``ranking``, ``profile`` and ``results``
as ``.png`` and ``.json`` (every text drawn: key → [text, x, y]); the tests read them. Sets
``ARCADE_HEADLESS=1`` before arcade is imported, like ``client.app.shots``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from client.app.offscreen import draw_offscreen

BOARD: list[dict[str, Any]] = [
    {"rank": 1, "player_id": "p1", "name": "Ann", "rating": 1662.3, "deviation": 60.2,
     "provisional": False, "games": 40, "wins": 25, "draws": 3, "losses": 12,
     "average": 1.125, "high_run": 9},
    {"rank": 2, "player_id": "p2", "name": "Bob", "rating": 1521.0, "deviation": 290.0,
     "provisional": True, "games": 1, "wins": 1, "draws": 0, "losses": 0,
     "average": 0.5, "high_run": 2},
]  # fmt: skip
PROFILE: dict[str, Any] = {
    "t": "profile",
    "player_id": "p1",
    "name": "Ann",
    "registered": True,
    "bot": False,
    "standings": [{"discipline": "three_cushion", **BOARD[0]}],
    "matches": [
        {"match_id": 7, "discipline": "three_cushion", "finished_ms": None,
         "opponent": {"player_id": "p2", "name": "Bob"}, "result": "win", "reason": "distance",
         "score": [15, 9], "innings": 20, "average": 0.75, "high_run": 4,
         "rating_before": 1640.0, "rating_after": 1662.3},
    ],
}  # fmt: skip


def render(outdir: Path) -> None:
    draw_offscreen()
    from client.app.app import Controller, make_window, save_screenshot
    from client.app.results_view import ResultsView
    from client.app.scenes import results_model
    from client.app.standing_view import StandingView
    from shared.protocol import codec
    from shared.protocol import to_client as tc

    window = make_window(visible=False)
    controller = Controller(window)
    st = controller.standing
    # The server's messages, decoded as the client decodes a frame.
    board = {"t": "leaderboard", "discipline": "three_cushion", "rows": BOARD}
    st.fold(codec.from_wire(tc.Leaderboard, board))
    st.asked_name = "Ann"
    st.fold(tc.Welcome(v=1, player_id="p1", token="x", server_time_ms=1))
    now = controller.model.now_ms()
    st.fold(tc.Queued(discipline="three_cushion", rating=1662.3), now - 12_000)
    view = StandingView(controller)
    for name in ("ranking", "profile"):
        if name == "profile":
            st.fold(codec.from_wire(tc.Profile, PROFILE))
            view.showing_profile = True
        window.show_view(view)
        save_screenshot(window, outdir / f"{name}.png")
        shown = view.labels.shown
        (outdir / f"{name}.json").write_text(json.dumps(shown, indent=1, ensure_ascii=False))
    # The results screen after a rated match: the player's rating change under the scoresheet.
    results = Controller(window, results_model())
    results.standing.fold(
        tc.Rated(match_id=3, discipline="three_cushion", before=1500.0, after=1662.4, deviation=80)
    )
    rview = ResultsView(results)
    window.show_view(rview)
    save_screenshot(window, outdir / "results.png")
    (outdir / "results.json").write_text(
        json.dumps(rview.labels.shown, indent=1, ensure_ascii=False)
    )
    window.close()


if __name__ == "__main__":
    render(Path(sys.argv[1]))
