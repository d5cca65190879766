"""``carom stats`` on a real server: a practice session is played on loopback (points the
simulator lays out, so their names are known), the command reads it back through
``list_matches`` and ``get_replay``, and every number equals a recomputation from the rows the
server stored in its SQLite file (and the referee's own scoresheet)."""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
from argparse import Namespace
from pathlib import Path
from typing import Any

import msgpack
import pytest
from PIL import Image

from client.stats import gather, report, run, write_charts
from server.net.gateway import GameServer
from shared.analysis.patterns import Pattern, attempted, classify, route
from shared.physics.trajectory import decode_trajectory
from shared.physics.types import Event
from shared.table import MATCH
from tests.client.practice_play import play_practice


def _stored(db: Path) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    """The one match in the SQLite file: its id, its stroke records, its scoresheet."""
    con = sqlite3.connect(db)
    try:
        ((match_id, sheet),) = con.execute("SELECT match_id, scoresheet FROM matches").fetchall()
        rows = con.execute(
            "SELECT kind, record FROM strokes WHERE match_id = ? ORDER BY n", (match_id,)
        ).fetchall()
    finally:
        con.close()
    records = [msgpack.unpackb(r, raw=False) for kind, r in rows if kind == "stroke"]
    return match_id, records, json.loads(sheet)


def _recount(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The numbers again, straight from the stored records."""
    points = [r["result"]["points"] for r in records]
    runs: list[int] = []
    run = 0
    for p in points:
        run += p
        if p == 0:
            runs.append(run)
            run = 0
    if points and points[-1]:
        runs.append(run)
    names: dict[Pattern, list[int]] = {}
    for r in records:
        events = tuple(
            Event(
                e["t"], e["kind"], tuple(e["balls"]), e.get("cushion"), tuple(e.get("speeds", ()))
            )
            for e in r["events"]
        )
        traj = decode_trajectory(r["trajectory"])
        steps = route(events, traj, r["stroke"]["ball"], MATCH)
        name = attempted(steps)
        if name is not None:
            names.setdefault(name, []).append(r["result"]["points"])
        reading = classify(events, traj, r["stroke"]["ball"], MATCH)
        assert (reading is not None) == (r["result"]["points"] == 1)
    return {"points": sum(points), "innings": len(runs), "runs": runs, "names": names}


@pytest.mark.slow
async def test_statistics_equal_a_recount_of_the_stored_strokes(
    game_server: GameServer, server_url: str, tmp_path: Path
) -> None:
    await play_practice(server_url)
    match_id, records, sheet = _stored(tmp_path / "carom.db")
    again = _recount(records)

    stats = await gather(server_url, "ann", "three_cushion", 10)
    assert [m.match_id for m in stats.matches] == [match_id]
    assert stats.points == again["points"] == 2
    assert stats.innings == again["innings"]
    assert stats.high_run == max(again["runs"]) == 2
    assert stats.runs == {r: again["runs"].count(r) for r in set(again["runs"])}
    assert stats.strokes == len(records) == 3
    # The referee's scoresheet (R-PLAY-2) agrees on points.
    assert sheet["match"][0]["points"] == stats.points
    # Points by pattern: the two laid-out points by their names, each scored once.
    by_name = {p.pattern: (p.attempts, p.points) for p in stats.patterns}
    assert by_name == {k: (len(v), sum(v)) for k, v in again["names"].items()}
    assert by_name[Pattern.TICKY] == (1, 1) and by_name[Pattern.UMBRELLA] == (1, 1)
    # Time per stroke: from the balls being placed to the strike, one per stroke.
    assert len(stats.think_ms) == 3 and all(0 <= t < 30_000 for t in stats.think_ms)

    text = io.StringIO()
    report("ann", stats, text)
    assert "General average 2.000 (2 points in 1 innings), high run 2" in text.getvalue()
    assert "Ticky" in text.getvalue() and "Umbrella" in text.getvalue()

    paths = write_charts(stats, tmp_path / "charts")
    assert {p.name for p in paths} >= {"average.svg", "runs.png", "patterns.svg", "time.png"}
    for p in paths:
        if p.suffix == ".png":
            with Image.open(p) as im:
                assert im.size == (640, 360)
                assert len(set(im.getdata())) > 2  # something was drawn
        else:
            assert p.read_text().startswith("<svg")


async def test_the_command_says_so_when_the_server_is_not_there(tmp_path: Path) -> None:
    out = io.StringIO()
    args = Namespace(
        url="ws://127.0.0.1:9/", player="ann", discipline="three_cushion", matches=5, out=None
    )
    assert await asyncio.to_thread(run, args, out) == 1
