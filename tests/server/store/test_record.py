"""Rooms and matches are stored in a record form of the server's own, with a version number; a
database written by the release before record versions (tests/server/store/fixtures/release_v1.db,
made by that release with a three-cushion match under way, then drained) opens, is converted,
and its match goes on where it was."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from server.core.record import ROOM_RECORD_VERSION, RecordError, RoomSettings
from server.process import ServerProcess
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.midmatch import now_ms
from tests.server.wire import Wire

FIXTURES = Path(__file__).with_name("fixtures")


def test_a_version_1_record_reads_as_the_same_settings_as_its_version_2_form() -> None:
    v1 = {"discipline": "three_cushion", "distance": 5, "shot_clock_s": 30, "private": True}
    settings = RoomSettings.from_record(v1)
    assert settings == RoomSettings("three_cushion", {"distance": 5, "shot_clock_s": 30}, True)
    record = settings.to_record()
    assert record["v"] == ROOM_RECORD_VERSION and "t" not in record
    assert RoomSettings.from_record(record) == settings
    assert settings.match_options().target == 5


def test_a_record_from_a_newer_release_or_with_a_bad_option_is_refused_with_a_reason() -> None:
    with pytest.raises(RecordError, match="version 9"):
        RoomSettings.from_record({"v": 9, "discipline": "three_cushion"})
    with pytest.raises(ValueError, match="shot_clock_s"):
        RoomSettings("three_cushion", {"shot_clock_s": 2})
    with pytest.raises(ValueError, match="unknown room options: colour"):
        RoomSettings("three_cushion", {"colour": "blue"})


async def test_a_database_from_the_previous_release_resumes_its_match(
    tmp_path: Path, procs: list[ServerProcess]
) -> None:
    info = json.loads((FIXTURES / "release_v1.json").read_text())
    db = tmp_path / "carom.db"
    shutil.copy(FIXTURES / "release_v1.db", db)
    old = sqlite3.connect(db)
    [(stored,)] = old.execute("SELECT options FROM rooms").fetchall()
    assert "v" not in json.loads(stored)  # really the old form: the create_room message
    old.close()

    server = ServerProcess(db, workers=0)
    procs.append(server)
    wires = []
    for seat, player in enumerate(info["players"]):
        w = await Wire.open(server.url, player["name"], token=player["token"])
        rejoin = ts.Rejoin(room_id=info["room_id"], seat_token=player["seat_token"])
        assert (await w.request(rejoin, tc.Joined)).seat == seat
        wires.append(w)
    shooter = info["shooter"]
    turn = await wires[1 - shooter].expect(
        tc.Turn, where=lambda t: t.deadline_ms is not None, timeout=5
    )
    # The shooter has what was left at the drain, however long ago that was.
    assert turn.shooter == shooter and turn.deadline_ms is not None
    assert abs(turn.deadline_ms - now_ms() - info["clock_left_ms"]) < 1000
    match = (await wires[0].request(ts.Sync(), tc.Snapshot)).match
    for key, value in info["match"].items():
        got = getattr(match, key)
        assert (list(got) if isinstance(got, tuple) else got) == value, key
    assert {b: list(p) for b, p in match.balls.items()} == info["balls"]
    # The match goes on: the shooter concedes and the result is recorded.
    await wires[shooter].send(ts.Concede())
    over = await wires[1 - shooter].expect(tc.GameOver)
    assert over.winner == 1 - shooter and over.reason == "concede"
    for w in wires:
        await w.close()
    assert server.stop() == 0

    # The file is now of this release: its rows are records of the current version.
    new = sqlite3.connect(db)
    try:
        assert new.execute("PRAGMA user_version").fetchone()[0] == 4
        for (text,) in new.execute(
            "SELECT options FROM rooms UNION ALL SELECT options FROM matches"
        ):
            assert json.loads(text)["v"] == ROOM_RECORD_VERSION
    finally:
        new.close()
