"""Issue 21: the lobby leads with Quick match and the player's account, and names who plays in
each room with the live score. A real server (``python -m server``), the lobby in an offscreen
window with real frames, clicked and typed into as a new player would; then the screenshot
(client.app.shots) read for what a spectator browsing rooms sees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.app.words import JARGON

DRIVER = Path(__file__).with_name("drive_lobby.py")


# Every test here reads one module-wide run (the fixture below): kept on one xdist worker so
# that run happens once, not once per worker.
pytestmark = pytest.mark.xdist_group("desktop_lobby")


@pytest.fixture(scope="module")
def driven(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from server.process import ServerProcess

    tmp = tmp_path_factory.mktemp("lobby")
    out = tmp / "report.json"
    env = {**os.environ, "ARCADE_HEADLESS": "1", "CAROM_IDENTITY": str(tmp / "identity.json")}
    with ServerProcess(tmp / "carom.db", workers=0) as server:
        proc = subprocess.run(
            [sys.executable, str(DRIVER), server.url, str(out)],
            capture_output=True,
            text=True,
            env=env,
            timeout=110,
        )
    assert out.exists(), proc.stderr[-3000:]
    report: dict[str, Any] = json.loads(out.read_text())
    assert report.get("ok"), report.get("why")
    return report


def test_the_lobby_offers_quick_match_and_the_account_as_buttons(driven: dict[str, Any]) -> None:
    guest = set(driven["guest"].values())
    assert {"Quick match", "Log in…", "Register…", "Playing as a guest (unrated)"} <= guest
    # One click on Quick match and the player is waiting for an opponent, with a Cancel.
    queued = driven["queued"]
    assert queued["screen"] == "standing"
    shown = set(queued["texts"].values())
    assert "Cancel" in shown
    assert any(t.startswith("Looking for an opponent") for t in shown), shown
    assert "You left quick match." in driven["cancelled"].values()
    # Register… opens the account form ready for typing; registered, the lobby says who.
    assert driven["register"]["screen"] == "standing" and driven["register"]["name_focused"]
    member = set(driven["member"]["texts"].values())
    assert driven["member"]["screen"] == "lobby"
    assert {"Logged in as Newcomer", "Your profile…"} <= member
    assert "Log in…" not in member and "Register…" not in member
    assert driven["profile"]["screen"] == "standing"
    for texts in (guest, shown, member, set(driven["profile"]["texts"].values())):
        assert not [t for t in texts if JARGON.search(t)]


def test_a_room_row_names_its_players(driven: dict[str, Any]) -> None:
    rooms = driven["rooms"]
    assert "Bob, waiting for an opponent" in rooms.values()
    assert "Three-cushion, 15 points" in rooms.values()
    assert "2/2" not in rooms.values() and "1/2" not in rooms.values()


def test_the_screenshot_shows_names_and_live_scores_row_by_row(tmp_path: Path) -> None:
    env = {**os.environ, "ARCADE_HEADLESS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "client.app.shots", str(tmp_path), "lobby", "lobby_member"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    drawn = json.loads((tmp_path / "lobby.json").read_text())
    rows: dict[float, dict[str, str]] = {}
    for key, (text, _x, y) in drawn.items():
        if key.startswith("cell"):
            rows.setdefault(y, {})[key.split(".")[1]] = text
    by_players = {row["1"]: row for row in rows.values()}
    # The row of a match under way: both names, then its score in the Score column.
    assert by_players["Caudron v Jaspers"]["2"] == "14–9"
    assert by_players["Ceulemans, waiting for an opponent"]["2"] == "–"
    assert by_players["Blomdahl, practising"]["2"] == "31"
    headers = {text for key, (text, _, _) in drawn.items() if key.startswith("hdr")}
    assert {"Players", "Score", "Watching"} <= headers
    buttons = {text for key, (text, _, _) in drawn.items() if key.startswith("btn:")}
    assert {"Quick match", "Log in…", "Register…"} <= buttons
    member = {v[0] for v in json.loads((tmp_path / "lobby_member.json").read_text()).values()}
    assert {"Logged in as Ann", "Your profile…"} <= member
    assert (tmp_path / "lobby.png").stat().st_size > 10_000


def test_a_team_room_is_listed_as_two_pairs_of_partners() -> None:
    """R-TEAM-1: the room list names a doubles room's sides as partners (seats A1 B1 A2 B2),
    with the seats still free; a finished team match likewise."""
    from client.app.lobby_view import match_cells, room_cells
    from client.app.scenes import DEMO_MATCHES
    from shared.protocol.views import PlayerRef, RoomSummary

    room = RoomSummary(
        room_id="r1",
        discipline="three_cushion",
        distance=25,
        players=("Caudron", "Jaspers", "Zanetti", None),
        spectators=0,
        phase="waiting",
        private=False,
        practice=False,
    )
    assert room_cells(room)[1] == "Caudron & Zanetti v Jaspers, 1 seat free"
    names = ("Caudron", "Jaspers", "Zanetti", "Merckx")
    match = DEMO_MATCHES[0]
    four = tuple(PlayerRef(player_id=f"p{i}", name=n) for i, n in enumerate(names))
    from dataclasses import replace

    cells = match_cells(replace(match, players=four))
    assert cells[2] == "Caudron & Zanetti v Jaspers & Merckx"
    assert cells[5] == "Caudron & Zanetti won"
