"""The ranking screen: what it shows (rendered offscreen), what it remembers from the server's
messages, and the window's network link doing login, quick match and the leaderboard against
the real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from client.app.bridge import Bridge
from client.app.model import RequestFailed, UIEvent
from client.app.standing import (
    StandingState,
    board_cells,
    profile_lines,
    rated_text,
    waiting_text,
)
from client.app.words import JARGON
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import views as pv
from shared.protocol.base import ClientMessage


def test_the_state_follows_login_queue_and_rating_messages() -> None:
    st = StandingState()
    st.asked_name = "Ann"
    st.fold(tc.Welcome(v=1, player_id="p1", token="x", server_time_ms=1))
    assert st.account == "Ann" and st.message == "Logged in as Ann."
    st.fold(tc.Queued(discipline="three_cushion", rating=1500.0), 1_000.0)
    assert st.waiting and st.waiting_since == 1_000.0 and st.queued_rating == 1500.0
    st.fold(tc.Joined(room_id="r1", seat=0, seat_token="s"))
    assert not st.waiting and st.message == "Opponent found."
    st.fold(
        tc.Rated(match_id=7, discipline="three_cushion", before=1500.0, after=1662.4, deviation=80)
    )
    assert rated_text(st.rated, 7) == "Your rating: 1500 → 1662 (+162)"
    assert rated_text(st.rated, 8) == ""  # another match's change is not shown
    st.asked_name = "Ann"
    st.fold(tc.Error(code="bad_login", message="Wrong name or password.", re=3))
    assert st.message == "Wrong name or password." and st.asked_name is None
    st.fold(tc.Error(code="not_your_turn", message="Not now."))
    assert st.message == "Wrong name or password."  # the table screen's business
    # A login that never reached the server: this screen says why, in words.
    st.asked_name = "Ann"
    lost = tc.Error(code="ConnectionLost", message="The connection to the server was lost.")
    st.fold(RequestFailed("login", lost))
    assert st.message == "The connection to the server was lost." and st.asked_name is None
    st.fold(RequestFailed("join", tc.Error(code="TimeoutError", message="No answer.")))
    assert st.message == "The connection to the server was lost."


def test_cells_and_lines_are_words_for_people() -> None:
    standing = pv.Standing(
        rating=1521.4,
        deviation=290.0,
        provisional=True,
        games=1,
        wins=1,
        draws=0,
        losses=0,
        average=0.5,
        high_run=2,
    )
    row = pv.LeaderRow(rank=3, player_id="p3", name="Bob", standing=standing)
    assert board_cells(row) == ("3", "Bob (new)", "1521 ± 580", "1", "1–0–0", "0.500", "2")
    assert waiting_text(75.4) == "Looking for an opponent… 1:15"
    bob = tc.Profile(
        player_id="p3", name="Bob", registered=False, bot=False, standings=(), matches=()
    )
    lines = profile_lines(bob)
    assert lines == ["Bob (a guest)", "No rated matches yet."]


def test_the_ranking_screen_renders_every_part_in_plain_words(tmp_path: Path) -> None:
    env = {**os.environ, "ARCADE_HEADLESS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "client.app.standing_shot", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    ranking = {k: v[0] for k, v in json.loads((tmp_path / "ranking.json").read_text()).items()}
    profile = {k: v[0] for k, v in json.loads((tmp_path / "profile.json").read_text()).items()}
    shown = set(ranking.values())
    assert {"Playing as Ann", "Cancel", "Looking for an opponent… 0:12"} <= shown
    assert {"Ann", "1662 ± 120", "25–3–12", "1.125", "Bob (new)"} <= shown
    assert "Back to leaderboard" not in shown
    texts = set(profile.values())
    assert "Ann (registered)" in texts and "Back to leaderboard" in texts
    assert any("won 15–9 against Bob" in t and "1640 → 1662 (+22)" in t for t in texts)
    for text in [*shown, *texts]:
        assert not JARGON.search(text), text
    assert (tmp_path / "ranking.png").stat().st_size > 10_000
    results = {k: v[0] for k, v in json.loads((tmp_path / "results.json").read_text()).items()}
    assert results["rated"] == "Your rating: 1500 → 1662 (+162)"


class Window:
    """A window's network link and ranking state, minus the drawing."""

    def __init__(self, url: str, name: str) -> None:
        self.bridge = Bridge(url, name, remember_identity=False)
        self.bridge.start()
        self.standing = StandingState()
        self.seen: list[UIEvent] = []

    def send(self, msg: ClientMessage) -> None:
        if isinstance(msg, ts.Login | ts.Register):
            self.standing.asked_name = msg.name
        self.bridge.send(msg)

    def until(self, cond: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for msg in self.bridge.drain():
                self.seen.append(msg)
                self.standing.fold(msg, time.time() * 1000)
            if cond():
                return
            time.sleep(1 / 60)
        raise AssertionError(f"timed out; last messages: {self.seen[-8:]}")


def test_register_quick_match_and_leaderboard_through_the_windows_link(server_url: str) -> None:
    ann, bob = Window(server_url, "ann"), Window(server_url, "bob")
    try:
        ann.send(ts.Register(name="Ann", password="correct horse"))
        bob.send(ts.Register(name="Bob", password="battery staple"))
        ann.until(lambda: ann.standing.account == "Ann")
        bob.until(lambda: bob.standing.account == "Bob")
        for w in (ann, bob):
            w.send(ts.Queue(discipline="one_cushion", distance=5))
        ann.until(lambda: any(isinstance(m, tc.Joined) for m in ann.seen))
        bob.until(lambda: any(isinstance(m, tc.Joined) for m in bob.seen))
        ann.until(lambda: any(isinstance(m, tc.Snapshot) for m in ann.seen))
        ann.send(ts.Concede())
        bob.until(lambda: bob.standing.rated is not None)
        assert bob.standing.rated is not None and bob.standing.rated.after > 1500
        bob.send(ts.GetLeaderboard(discipline="one_cushion"))
        bob.until(lambda: bool(bob.standing.board))
        assert [r.name for r in bob.standing.board] == ["Bob", "Ann"]
        # Logging in is for outside a room, and says so.
        ann.send(ts.Login(name="Bob", password="not his password"))
        ann.until(lambda: ann.standing.message == "Leave your room before logging in.")
        ann.send(ts.Leave())
        ann.until(lambda: any(isinstance(m, tc.Left) for m in ann.seen))
        # A wrong password is explained in words, and the window stays who it was.
        ann.send(ts.Login(name="Bob", password="not his password"))
        ann.until(lambda: ann.standing.message == "Wrong name or password.")
        assert ann.standing.account == "Ann"
    finally:
        ann.bridge.close()
        bob.bridge.close()
