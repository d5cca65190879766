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

from client.session import Session
from client.tournament_bot import play_tournament, still_in
from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import tournament as tw
from tests.server.net.test_tournaments import (
    PASSWORD,
    FakeClock,
    close_all,
    create,
    info,
    member,
    organizer,
    pid,
    play_out,
    running,
    until,
    url_of,
)
from tests.slowlink import SlowLink


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


async def test_a_bot_that_hears_of_its_next_table_late_still_plays_it(tmp_path: Path) -> None:
    """The server moves a player from a finished event table to their next one by itself. A
    bot that hears of its match's end only after that move (a stalled link delivers the end,
    the move and the new seat in one burst) must not walk out of the new table."""
    clock = FakeClock()
    async with running(tmp_path, clock) as srv, SlowLink(srv.port) as link:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, distance=1, discipline="straight_rail")
        anna = await member(url, "Anna")  # seed 1: a bye, then the final (which she concedes)
        await anna.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
        clock.advance(0.01)  # registration order makes the seeds
        async with Session(f"ws://127.0.0.1:{link.port}/", "bea", remember_identity=False) as bea:
            await bea.register("Bea", PASSWORD)
            bea_id = bea.state.player_id
            seats: list[int | None] = []

            async def play() -> tc.GameOver:
                seats.append(bea.state.seat)
                while not isinstance(over := await bea.events.get(), tc.GameOver):
                    pass
                return over

            said: list[str] = []
            playing = asyncio.ensure_future(play_tournament(bea, tid, play, said.append))
            await until(lambda: _registered(srv, tid) == 2)
            clock.advance(0.01)
            cyd = await member(url, "Cyd")  # seed 3: concedes round 1 to Bea
            await cyd.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(60)
            await until(lambda: _begun(srv, tid, bea_id) is not None and len(seats) == 1)
            first = _room_of(srv, bea_id)
            link.hold("down")
            await cyd.send(ts.Concede())
            # The final opens at once (Anna had a bye) and the server seats Bea there.
            await until(lambda: _room_of(srv, bea_id) not in (None, first))
            link.release("down")
            final = await asyncio.wait_for(
                play_out({pid(anna): anna}, tid, lambda a, b: b if a == bea_id else a, org),
                timeout=60,
            )
            assert final.winner == bea_id
            assert len(seats) == 2 and None not in seats, said  # seated at the final too
            closing = await asyncio.wait_for(playing, timeout=30)
        assert closing == "won the tournament Club night"
        assert said[-1] == "match over: concede"
        await close_all([org, anna, cyd])


def _room_of(srv: GameServer, player_id: str | None) -> str | None:
    """The room the server has the player in."""
    for c in srv.clients.values():
        if c.player_id == player_id and c.room is not None:
            return c.room.room.room_id
    return None


def _begun(srv: GameServer, tid: str, player_id: str | None) -> int | None:
    """The match id of the player's event match once it has begun."""
    for r in srv.tournaments.held[tid].rounds:
        for m in r:
            if player_id in m.players and m.match_id is not None:
                return m.match_id
    return None


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
