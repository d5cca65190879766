"""A tournament in cluster mode: the node that runs it is killed with SIGKILL mid-round, and
another node takes the event over (by its lease) with the rooms, and runs it to its winner."""

from __future__ import annotations

import asyncio
import time

import pytest

from server.net.actor import now_ms
from server.process import ServerProcess
from server.store.postgres import PostgresStore
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import tournament as tw
from tests.server.cluster.test_node import _nodes, _until, _url
from tests.server.net.test_tournaments import PASSWORD, close_all
from tests.server.wire import Wire


async def _member(url: str, name: str) -> Wire:
    w = await Wire.open(url, name.lower())
    await w.request(ts.Register(name=name, password=PASSWORD), tc.Welcome)
    return w


def _runner(store: PostgresStore, tid: str) -> str | None:
    row = store.db.execute(
        "SELECT runner FROM tournaments WHERE tournament_id = ?", (tid,)
    ).fetchone()
    return None if row is None else row[0]


@pytest.mark.slow
async def test_a_killed_runners_event_is_taken_over(
    pg_url: str, redis_url: str, procs: list[ServerProcess]
) -> None:
    a = ServerProcess(pg_url, workers=0, extra_args=["--redis", redis_url, "--node", "a"])
    procs.append(a)
    store = PostgresStore(pg_url)
    try:
        org = await _member(a.url, "Olga")
        assert org.welcome is not None
        store.tournaments.grant_organizer(org.welcome.player_id, now_ms())
        starts = now_ms() + 4_000
        created = await org.request(
            tw.TournamentCreate(
                name="Cluster cup",
                discipline="three_cushion",
                distance=1,
                format="knockout",
                capacity=4,
                registration_closes_ms=starts,
                starts_ms=starts,
            ),
            tw.TournamentCreated,
        )
        tid = created.tournament_id
        players = {}
        for name in ["Anna", "Bobby", "Cyd", "Deb"]:
            w = await _member(a.url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            assert w.welcome is not None
            players[w.welcome.player_id] = w
            await asyncio.sleep(0.01)  # registration order: the seeds (nobody is rated)
        await _until(lambda: _runner(store, tid) == "a", timeout=10)
        ids = list(players)
        async with _nodes(pg_url, redis_url, "b") as (b,):
            # Round 1 on node a: seed 4 concedes to seed 1; seeds 2 and 3 are under way.
            joined = {p: await w.expect(tc.Joined, timeout=15) for p, w in players.items()}
            await players[ids[3]].send(ts.Concede())
            await _until(
                lambda: (
                    store.db.execute(
                        "SELECT COUNT(*) FROM tournament_matches WHERE tournament_id = ? "
                        "AND reason = 'concede'",
                        (tid,),
                    ).fetchone()[0]
                    == 1
                ),
                timeout=10,
            )
            assert tid not in b.tournaments.held  # a runs it, b only stands by
            a.kill()  # SIGKILL: no release; b takes the event once a's lease runs out
            killed = time.monotonic()
            await _until(lambda: tid in b.tournaments.held, timeout=30)
            assert time.monotonic() - killed > 2.0  # the lease was waited for
            assert _runner(store, tid) == "b"
            # Seeds 2 and 3 take their seats back on b; seed 3 concedes.
            url = _url(b)
            back = {}
            for p in ids[1:3]:
                w = players[p]
                assert w.welcome is not None
                again = await Wire.open(url, "back", token=w.welcome.token)
                rejoin = ts.Rejoin(room_id=joined[p].room_id, seat_token=joined[p].seat_token)
                await _until(lambda p=p: joined[p].room_id in b.rooms, timeout=15)
                await again.request(rejoin, tc.Joined)
                back[p] = again
            await back[ids[2]].send(ts.Concede())
            # The final opens on b: seed 1 connects there and is seated unasked.
            w1 = players[ids[0]].welcome
            assert w1 is not None
            one = await Wire.open(url, "anna", token=w1.token)
            final = await one.expect(tc.Joined, timeout=15)
            await back[ids[1]].expect(tc.Joined, where=lambda j: j.room_id == final.room_id)
            await back[ids[1]].send(ts.Concede())
            await _until(lambda: tid not in b.tournaments.held, timeout=10)
            watcher = await Wire.open(url, "watcher")
            t = await watcher.request(tw.GetTournament(tournament_id=tid), tw.TournamentInfo)
            assert t.state == "finished" and t.winner == ids[0]
            assert [m.reason for r in t.rounds for m in r.matches] == [
                "concede",
                "concede",
                "concede",
            ]
            await close_all([one, watcher, *back.values()])
    finally:
        store.close()
