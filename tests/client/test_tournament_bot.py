"""``carom bot --tournament``: real bot processes play a knockout on a real server to its
winner, and exit when they are out (client/tournament_bot.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from client.tournament_bot import still_in
from shared.protocol import tournament as tw
from tests.server.net.test_tournaments import (
    FakeClock,
    close_all,
    create,
    info,
    organizer,
    running,
    until,
    url_of,
)


def _info(fmt: str, state: str, matches: list[tw.TournamentMatch]) -> tw.TournamentInfo:
    return tw.TournamentInfo(
        tournament_id="t1",
        options=tw.TournamentOptionsView(
            name="Cup",
            discipline="straight_rail",
            distance=1,
            format=fmt,
            capacity=4,
            registration_closes_ms=0,
            starts_ms=0,
            no_show_s=300,
        ),
        organizer="Olga",
        state=state,
        version=1,
        players=(
            tw.TournamentPlayer(player_id="a", name="A"),
            tw.TournamentPlayer(player_id="b", name="B"),
        ),
        rounds=(tw.TournamentRound(round=1, matches=tuple(matches)),),
        standings=(),
    )


def test_still_in_follows_the_format() -> None:
    lost = tw.TournamentMatch(players=("a", "b"), state="done", winner="b", reason="concede")
    open_ = tw.TournamentMatch(players=("a", "b"), state="open")
    assert still_in(_info("knockout", "running", [open_]), "a")
    assert not still_in(_info("knockout", "running", [lost]), "a")
    assert still_in(_info("knockout", "running", [lost]), "b")
    assert still_in(_info("swiss", "running", [lost]), "a")  # plays every round
    assert not still_in(_info("swiss", "finished", [lost]), "b")
    assert not still_in(_info("knockout", "running", [open_]), "stranger")


def _bot(url: str, name: str, tid: str) -> subprocess.Popen[str]:
    env = {**os.environ, "CAROM_BOT_PASSWORD": "bot password 1"}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "client.cli",
            "bot",
            "--url",
            url,
            "--account",
            name,
            "--tournament",
            tid,
            "--level",
            "5",
            "--think",
            "0.2",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own group: the end of the test ends its thinking worker too
    )


@pytest.mark.slow
@pytest.mark.timeout(300)  # two matches of table time, lags included, on a busy machine
async def test_bots_play_a_knockout_to_its_winner_and_exit(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        org = await organizer(srv)
        tid = await create(org, clock, distance=1, discipline="straight_rail")
        bots = [_bot(url_of(srv), f"Robo{i}", tid) for i in range(1, 4)]
        try:
            await until(lambda: _registered(srv, tid) == 3, timeout=60)
            clock.advance(60)
            loop = asyncio.get_running_loop()
            outs = await asyncio.wait_for(
                asyncio.gather(*(loop.run_in_executor(None, b.communicate) for b in bots)),
                timeout=240,
            )
        finally:
            for b in bots:
                if b.poll() is None:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(b.pid, signal.SIGKILL)
                    b.wait(10)
        assert [b.returncode for b in bots] == [0, 0, 0], [err for _, err in outs]
        final = await info(org, tid)
        assert final.state == "finished" and final.winner is not None
        winner = next(p.name for p in final.players if p.player_id == final.winner)
        lines = [out.strip().splitlines()[-1] for out, _ in outs]
        assert sum(line == "won the tournament Club night" for line in lines) == 1, lines
        assert any(winner.startswith(f"Robo{i}") and "won" in lines[i - 1] for i in (1, 2, 3))
        # Three players: the best seed had a bye, and two matches were played.
        played = [m for r in final.rounds for m in r.matches if m.match_id is not None]
        assert len(played) == 2
        await close_all([org])


def _registered(srv: object, tid: str) -> int:
    store = srv.store  # type: ignore[attr-defined]
    row = store.db.execute(
        "SELECT COUNT(*) FROM tournament_players WHERE tournament_id = ?", (tid,)
    ).fetchone()
    return int(row[0])
