"""The desktop tournaments screen: what it folds from the server's messages, and the window
itself (offscreen, real frames) listing, showing and registering against a real server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.app.tournaments import TournamentsState, summary_line
from client.app.words import JARGON
from shared.protocol import to_client as tc
from shared.protocol import tournament as tw

DRIVER = Path(__file__).with_name("drive_tournaments.py")

OPTIONS = tw.TournamentOptionsView(
    name="Cup",
    discipline="three_cushion",
    distance=15,
    format="round_robin",
    capacity=8,
    registration_closes_ms=0,
    starts_ms=0,
    no_show_s=300,
)


def test_the_state_follows_the_events_and_our_table() -> None:
    st = TournamentsState()
    summary = tw.TournamentSummary(
        tournament_id="t1", options=OPTIONS, state="registration", players=3
    )
    st.fold(tw.Tournaments(tournaments=(summary,)))
    assert [summary_line(s) for s in st.events] == ["Cup: round robin, 3/8 (open)"]
    st.watching = "t1"
    other = tw.TournamentInfo(
        tournament_id="t2", options=OPTIONS, organizer="O", state="running", version=1,
        players=(), rounds=(), standings=(),
    )  # fmt: skip
    st.fold(other)
    assert st.shown is None  # not the one picked
    mine = tw.TournamentInfo(
        tournament_id="t1", options=OPTIONS, organizer="Olga", state="registration", version=2,
        players=(tw.TournamentPlayer(player_id="p1", name="Anna"),), rounds=(), standings=(),
    )  # fmt: skip
    st.fold(mine)
    assert st.registered("p1") and not st.registered("p2")
    assert st.lines()[:2] == [
        "Cup: round robin, three-cushion to 15, organized by Olga: registration",
        "players: Anna",
    ]
    st.fold(tw.TournamentRegistered(tournament_id="t1", registered=True))
    assert st.message.startswith("You are registered.")
    st.fold(
        tw.TournamentTable(tournament_id="t1", round=2, room_id="r1", opponent="Bob", no_show_ms=9)
    )
    assert st.message == "Round 2: your table is open, against Bob."
    st.fold(tc.Error(code="tournament_full", message="The tournament is full."))
    assert st.message == "The tournament is full."
    st.fold(tc.Error(code="not_your_turn", message="Not now."))
    assert st.message == "The tournament is full."  # the table screen's business


@pytest.mark.slow
def test_the_window_lists_shows_and_registers(tmp_path: Path) -> None:
    from server.process import ServerProcess

    out = tmp_path / "report.json"
    env = {**os.environ, "ARCADE_HEADLESS": "1", "CAROM_IDENTITY": str(tmp_path / "id.json")}
    db = tmp_path / "carom.db"
    with ServerProcess(db, workers=0) as server:
        proc = subprocess.run(
            [sys.executable, str(DRIVER), server.url, str(db), str(out)],
            capture_output=True,
            text=True,
            env=env,
            timeout=110,
        )
    assert out.exists(), proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(out.read_text())
    assert report.get("ok"), report.get("why")
    assert "Tournaments…" in report["lobby"].values()
    assert report["screen"] == "tournaments"
    assert "Spring cup: knockout, 0/16 (open)" in report["list"].values()
    assert "Spring cup" in " ".join(report["details"].values())
    registered = report["registered"]
    assert "players: Newcomer" in registered.values()
    assert any(t.startswith("You are registered.") for t in registered.values())
    assert "You gave up your place." in report["given_up"].values()
    assert report["back"] == "lobby"
    shown = " ".join(
        " ".join(report[k].values()) for k in ("list", "details", "registered", "given_up")
    )
    assert not JARGON.search(shown), JARGON.search(shown)
