"""Nodes of a cluster: real game servers sharing a real PostgreSQL and a real Redis
(tests/engines.py). The lobby of every node lists every room; a drained node's rooms move to
another node; a killed node's rooms are taken over and its players rejoin there."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
import urllib.request
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from bench import engines
from server.cluster.config import ClusterConfig
from server.cluster.directory import connect
from server.cluster.fanout import channel
from server.config import ServerConfig
from server.net.actor import now_ms
from server.net.gateway import GameServer
from server.process import ServerProcess
from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.midmatch import MidMatch, clock_left_ms, reach_mid_match, without_clocks
from tests.server.wire import Wire, health, search_stroke

LEASE_MS = 2000  # shorter than the default 3000, long enough for a loaded machine


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as r:
        return str(r.read().decode())


def _url(node: GameServer) -> str:
    return f"ws://127.0.0.1:{node.port}/"


@asynccontextmanager
async def _nodes(
    pg_url: str, redis_url: str, *names: str, lease_ms: int = LEASE_MS, **settings: Any
) -> AsyncIterator[list[GameServer]]:
    """Nodes of one cluster on this test's loop (``settings``: more ServerConfig fields)."""
    started: list[GameServer] = []
    try:
        for name in names:
            cluster = ClusterConfig(redis_url, name, "", lease_ms=lease_ms, takeover_s=0.2)
            node = GameServer(
                ServerConfig(port=0, db_path=pg_url, workers=0, cluster=cluster, **settings)
            )
            await node.start()
            started.append(node)
        yield started
    finally:
        for node in started:
            if node.server is not None and not node.draining:
                await node.stop()


async def _until(check: Callable[[], object], timeout: float = 5.0) -> float:
    """Wait until ``check()`` is true; how long it took."""
    t0 = time.monotonic()
    while not check():
        assert time.monotonic() - t0 < timeout, "not within the time"
        await asyncio.sleep(0.02)
    return time.monotonic() - t0


async def _listed(w: Wire) -> set[str]:
    return {r.room_id for r in (await w.request(ts.ListRooms(), tc.Rooms)).rooms}


async def _match(url: str, bob_url: str | None = None) -> tuple[str, list[Wire], list[str]]:
    """Ann and Bob seated in a new room on ``url`` (Bob connected to ``bob_url`` if given):
    the room, their wires, their seat tokens."""
    ann, bob = await Wire.open(url, "ann"), await Wire.open(bob_url or url, "bob")
    create = ts.CreateRoom(discipline="three_cushion", distance=1, shot_clock_s=30)
    rid = (await ann.request(create, tc.RoomCreated)).room_id
    tokens = [(await w.request(ts.Join(room_id=rid), tc.Joined)).seat_token for w in (ann, bob)]
    await ann.expect(tc.Snapshot, where=lambda m: m.room.match_id is not None)
    return rid, [ann, bob], tokens


async def _rejoin(url: str, wires: list[Wire], rid: str, tokens: list[str]) -> list[Wire]:
    """Ann and Bob connect to ``url`` with their identity tokens and take their seats back."""
    back = []
    for i, (w, name) in enumerate(zip(wires, ("ann", "bob"), strict=True)):
        assert w.welcome is not None
        again = await Wire.open(url, name, token=w.welcome.token)  # identities are cluster-wide
        joined = await again.request(ts.Rejoin(room_id=rid, seat_token=tokens[i]), tc.Joined)
        assert joined.seat == i
        back.append(again)
    return back


async def test_every_node_lists_every_room_and_says_where_a_room_runs(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        ann, bob = await Wire.open(_url(a), "ann"), await Wire.open(_url(b), "bob")
        create = ts.CreateRoom(discipline="three_cushion")
        ra = (await ann.request(create, tc.RoomCreated)).room_id
        rb = (await bob.request(create, tc.RoomCreated)).room_id
        for w in (ann, bob):
            t0 = time.monotonic()
            while await _listed(w) != {ra, rb}:
                assert time.monotonic() - t0 < 3, await _listed(w)
                await asyncio.sleep(0.05)
        # Joining on another node than the room's: relayed there, answered as if direct.
        joined = await bob.request(ts.Join(room_id=ra), tc.Joined)
        assert joined.seat == 0
        assert (await bob.refused(ts.Join(room_id=rb))).code == "already_in_room"
        assert (await bob.refused(ts.Join(room_id="rnothere00"))).code == "no_such_room"
        # (In a thread: the servers run on this test's event loop.)
        assert await asyncio.to_thread(health, a.port) == (200, "ok\n")
        metrics = await asyncio.to_thread(_get, f"http://127.0.0.1:{a.port}/metrics")
        assert 'carom_cluster_rooms{node="a"} 1' in metrics
        assert 'carom_cluster_redis_up{node="a"} 1' in metrics
        assert 'carom_cluster_leases{node="a"} 1' in metrics
        metrics_b = await asyncio.to_thread(_get, f"http://127.0.0.1:{b.port}/metrics")
        assert 'carom_cluster_relays{node="b"} 1' in metrics_b


@pytest.mark.slow
async def test_a_drained_node_hands_its_rooms_to_another_and_the_match_goes_on(
    pg_url: str, redis_url: str
) -> None:
    # Leases of a minute: b can take a's rooms within the wait below only if a released them.
    async with _nodes(pg_url, redis_url, "a", "b", lease_ms=60_000) as (a, b):
        rid, wires, tokens = await _match(_url(a), bob_url=_url(b))  # Bob relayed by b
        before = (await wires[0].request(ts.Sync(), tc.Snapshot)).match
        carol = await Wire.open(_url(a), "carol")
        create = ts.CreateRoom(discipline="straight_rail")
        others = {(await carol.request(create, tc.RoomCreated)).room_id for _ in range(2)}
        fan = await Wire.open(_url(b), "fan")  # a spectator, through b's hub
        await fan.request(ts.Spectate(room_id=rid), tc.Snapshot)
        await a.stop()  # SIGTERM: every room saved, leases released, clients told
        for w in [*wires, fan]:  # Ann directly, Bob by a relay, the fan by a hub: told once
            assert await w.closed() == 1001
            assert sum(isinstance(m, tc.Closing) for m in w.log) == 1
        await _until(lambda: {rid, *others} <= set(b.rooms), timeout=60)  # a wait, not a measure
        back = await _rejoin(_url(b), wires, rid, tokens)
        after = (await back[0].request(ts.Sync(), tc.Snapshot)).match
        for key in ("phase", "score", "shooter", "balls", "innings"):
            assert getattr(after, key) == getattr(before, key), key
        await back[0].send(ts.Concede())
        over = await back[1].expect(tc.GameOver)
        assert over.winner == 1
        assert await _listed(back[1]) == {rid, *others}  # every room, now on b


async def _rejoin_mid(url: str, m: MidMatch) -> list[Wire]:
    """Both players of a mid-match take their seats back through ``url``."""
    tokens = [w.seat_token for w in m.players]
    assert all(t is not None for t in tokens)
    back = []
    for i, (w, name) in enumerate(zip(m.players, ("alice", "bob"), strict=True)):
        assert w.welcome is not None
        again = await Wire.open(url, name, token=w.welcome.token)
        joined = await again.request(ts.Rejoin(room_id=m.room_id, seat_token=tokens[i]), tc.Joined)
        assert joined.seat == i
        back.append(again)
    return back


@pytest.mark.slow
async def test_a_killed_nodes_match_is_taken_over_with_the_shooters_clock_kept(
    pg_url: str, redis_url: str, procs: list[ServerProcess]
) -> None:
    a = ServerProcess(
        pg_url,
        workers=0,
        extra_args=["--redis", redis_url, "--node", "a"],  # the default 3 s lease
    )
    procs.append(a)
    async with _nodes(pg_url, redis_url, "b") as (b,):
        # A match under way: a point scored, an inning each, 5 of the shooter's 20 s used.
        m = await reach_mid_match(a.url, shot_clock_s=20, used_s=5)
        before = await m.snapshot()
        left_before = clock_left_ms(before)
        assert 5_000 < left_before < 16_000, left_before  # partly used, not a fresh 20 s

        a.kill()  # SIGKILL: no drain, the lease is left to expire
        killed = time.monotonic()
        # No release: b takes the room once a's lease (3 s) has expired.
        await _until(lambda: m.room_id in b.rooms, timeout=10)
        back = await _rejoin_mid(_url(b), m)
        again = await back[1 - m.shooter].expect(
            tc.Turn, where=lambda t: t.deadline_ms is not None, timeout=5
        )
        assert again.shooter == m.shooter and again.deadline_ms is not None
        left_after = again.deadline_ms - now_ms()
        # The downtime (several seconds) is not charged to the shooter, and the time the
        # shooter had used before the crash is not handed back either.
        assert abs(left_after - left_before) < 1000, (left_before, left_after)
        assert time.monotonic() - killed > 2.0  # (so the check above is not vacuous)
        after = (await back[0].request(ts.Sync(), tc.Snapshot)).match
        assert without_clocks(after) == without_clocks(before)
        await back[m.shooter].send(ts.Concede())
        over = await back[1 - m.shooter].expect(tc.GameOver)
        assert over.winner == 1 - m.shooter


@pytest.mark.slow
async def test_a_node_sent_sigterm_drains_and_its_match_goes_on_elsewhere_as_it_was(
    pg_url: str, redis_url: str, procs: list[ServerProcess]
) -> None:
    a = ServerProcess(pg_url, workers=0, extra_args=["--redis", redis_url, "--node", "a"])
    procs.append(a)
    async with _nodes(pg_url, redis_url, "b") as (b,):
        m = await reach_mid_match(a.url, shot_clock_s=20, used_s=5)
        before = await m.snapshot()
        left_before = clock_left_ms(before)
        assert 5_000 < left_before < 16_000, left_before  # partly used, not a fresh 20 s
        # A real SIGTERM to the node's process: it drains, saves the room, releases its lease
        # and tells its clients, then exits cleanly.
        wires = [*m.players, m.spectator]
        # The clients keep reading, as a real client does, while the node drains.
        closing = [asyncio.create_task(w.closed()) for w in wires]
        assert await asyncio.to_thread(a.stop) == 0
        codes = await asyncio.gather(*closing)
        assert codes == [1001] * len(wires)
        for w in wires:
            assert sum(isinstance(msg, tc.Closing) for msg in w.log) == 1
        await _until(lambda: m.room_id in b.rooms, timeout=3)
        back = await _rejoin_mid(_url(b), m)
        again = await back[1 - m.shooter].expect(
            tc.Turn, where=lambda t: t.deadline_ms is not None, timeout=5
        )
        assert again.shooter == m.shooter and again.deadline_ms is not None
        assert abs(again.deadline_ms - now_ms() - left_before) < 1000
        after = (await back[0].request(ts.Sync(), tc.Snapshot)).match
        assert without_clocks(after) == without_clocks(before)


@pytest.mark.slow
async def test_players_on_two_nodes_and_a_spectator_on_a_third_see_one_match(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b", "c") as (a, b, c):
        ann = await Wire.open(_url(a), "ann")  # on the room's node
        bob = await Wire.open(_url(b), "bob")  # relayed by b
        carol = await Wire.open(_url(c), "carol")  # a spectator, relayed by c
        create = ts.CreateRoom(discipline="three_cushion", distance=1, shot_clock_s=30)
        rid = (await ann.request(create, tc.RoomCreated)).room_id
        await _until(lambda: rid in a.rooms)
        await carol.request(ts.Spectate(room_id=rid), tc.Snapshot)
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        await bob.request(ts.Join(room_id=rid), tc.Joined)
        players = [ann, bob]
        await ann.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
        await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
        lag = await carol.expect(tc.LagResult, timeout=10)
        breaker = lag.winner
        assert breaker is not None
        await asyncio.sleep(max(0.0, (lag.rest_ms or 0) / 1000 - time.time()) + 0.05)
        await players[breaker].send(ts.ChooseBreak(breaker="me"))
        await carol.expect(tc.Turn, where=lambda m: m.phase == "play")
        options = rules.MatchOptions(distance=1, shot_clock_s=30)
        snap = await players[breaker].request(ts.Sync(), tc.Snapshot)
        scoring, _ = await search_stroke(snap.match, options)
        await players[breaker].send(scoring)
        played = await carol.expect(tc.StrokePlayed, timeout=10)
        assert played.result.points == 1
        await players[1 - breaker].send(ts.Concede())  # in the equalizing inning (R-END-2)
        over = await carol.expect(tc.GameOver, timeout=10)
        assert over.winner == breaker
        for w in players:
            await w.expect(tc.GameOver, timeout=5)

        # One stream: the same broadcasts, in the same seq order, on all three nodes.
        def stream(w: Wire) -> list[tuple[str, int]]:
            return [(m.TYPE, m.seq) for m in w.broadcasts()]  # type: ignore[attr-defined]

        first = max(stream(w)[0][1] for w in (ann, bob, carol))  # all three are in
        streams = [[x for x in stream(w) if x[1] >= first] for w in (ann, bob, carol)]
        assert streams[0] == streams[1] == streams[2]
        seqs = [q for _, q in streams[0]]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
        assert ("game_over", over.seq) in streams[0]
        assert len(b.cluster.relays) == 1  # type: ignore[union-attr]
        assert len(c.cluster.hubs) == 1 and not c.cluster.relays  # type: ignore[union-attr]
        await bob.request(ts.Leave(), tc.Left)
        await _until(lambda: not b.cluster.relays)  # type: ignore[union-attr]


async def test_a_redis_outage_turns_health_red_stops_the_rooms_and_heals(
    pg_url: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Redis (this test's own) goes away: /health says so at once; past a lease period the
    node stops running its rooms (another node could take them) and its players are told to
    reconnect. Redis comes back empty: the node finds the rooms again and runs them."""
    root = tmp_path_factory.mktemp("redis")
    engine = engines.start_redis(root)
    try:
        async with _nodes(pg_url, engine.url(), "a") as (a,):
            ann = await Wire.open(_url(a), "ann")
            rid = (
                await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
            ).room_id
            await ann.request(ts.Join(room_id=rid), tc.Joined)
            port = engine.port
            engine.stop()
            await _until(lambda: a.health_problem() is not None, timeout=3)
            status, body = await asyncio.to_thread(health, a.port)
            assert status == 503 and "cannot reach Redis" in body
            await _until(lambda: rid not in a.rooms, timeout=5)
            assert await ann.closed() == 1001
            engine = engines.start_redis(root, port=port)  # back, without its data
            await _until(lambda: a.health_problem() is None, timeout=5)
            await _until(lambda: rid in a.rooms, timeout=5)
            again = await Wire.open(_url(a), "ann", token=ann.welcome.token)  # type: ignore[union-attr]
            assert rid in await _listed(again)
    finally:
        engine.stop()


async def test_a_relay_counts_as_its_clients_address_only_with_the_clusters_secret(
    pg_url: str, redis_url: str
) -> None:
    from websockets.asyncio.client import connect

    from server.cluster.node import CLIENT_HEADER, RELAY_HEADER

    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        assert a.cluster is not None and b.cluster is not None
        assert a.cluster.secret == b.cluster.secret != ""  # one secret for the cluster

        async def addr_seen(proof: str) -> str:
            headers = {RELAY_HEADER: proof, CLIENT_HEADER: "203.0.113.9"}
            async with connect(_url(a), additional_headers=headers):
                await _until(lambda: len(a.clients) == 1)
                (client,) = a.clients.values()
                return client.addr

        assert await addr_seen("guess") == "127.0.0.1"  # a client cannot claim an address
        assert a.lobby.trusted_peers == set()
        assert await addr_seen(a.cluster.secret) == "203.0.113.9"
        assert a.lobby.trusted_peers == {"127.0.0.1"}
        # A real relay: Bob on b, in a room a runs, is Bob's address on a.
        ann, bob = await Wire.open(_url(a), "ann"), await Wire.open(_url(b), "bob")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await bob.request(ts.Join(room_id=rid), tc.Joined)
        relayed = [c for c in a.clients.values() if c.name == "bob"]
        assert len(relayed) == 1 and relayed[0].addr == "127.0.0.1"  # Bob's, sent by b


async def test_a_postgres_outage_keeps_the_rooms_running_and_is_not_blamed_on_redis(
    redis_url: str,
) -> None:
    """PostgreSQL (this test's own) goes away: writes are refused and /health says the
    database, but the node keeps its leases and runs its rooms (nothing lost, nothing moved);
    when PostgreSQL is back, writes go in again."""
    root = Path(tempfile.mkdtemp(prefix="carom-test-pg-"))
    root.chmod(0o755)
    pg = engines.start_postgres(root, durable=False)
    try:
        # A longer lease than the other tests': a loaded machine must not expire it here.
        cluster = ClusterConfig(redis_url, "a", "", lease_ms=1500, takeover_s=0.2)
        node = GameServer(
            ServerConfig(port=0, db_path=pg.url(), workers=0, cluster=cluster, db_check_s=0.2)
        )
        await node.start()
        try:
            ann = await Wire.open(_url(node), "ann")
            rid = (
                await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
            ).room_id
            port = pg.port
            pg.stop()
            # A room nobody holds appears: taking it over needs PostgreSQL, which is down.
            r = connect(redis_url)
            await r.sadd("carom:open", "rorphan")
            await r.aclose()
            await _until(lambda: node.health_problem() is not None, timeout=5)
            assert "database" in (node.health_problem() or "")
            refused = await ann.refused(ts.Join(room_id=rid))  # the seat cannot be saved
            assert refused.code == "unavailable"
            # Two lease periods' worth of renewals, with PostgreSQL down all along.
            renewed = node.cluster.renewals  # type: ignore[union-attr]
            await _until(lambda: node.cluster.renewals >= renewed + 6, timeout=10)  # type: ignore[union-attr]
            assert rid in node.rooms and node.cluster is not None
            assert node.cluster.problem is None and node.cluster.lost == 0
            pg = engines.start_postgres(root, port=port, durable=False)
            await _until(lambda: node.health_problem() is None, timeout=10)
            assert (await ann.request(ts.Join(room_id=rid), tc.Joined)).seat == 0
        finally:
            await node.stop()
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


async def test_spectators_on_one_node_share_one_hub_and_still_chat_as_themselves(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        assert a.cluster is not None and b.cluster is not None
        ann = await Wire.open(_url(a), "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        watchers = [await Wire.open(_url(b), f"fan{i}") for i in range(5)]
        await asyncio.gather(*(w.request(ts.Spectate(room_id=rid), tc.Snapshot) for w in watchers))
        assert len(b.cluster.hubs) == 1 and not b.cluster.relays
        on_a = [c for c in a.clients.values() if c.room is not None]
        assert len(on_a) == 2  # Ann and one hub: the owner sends each broadcast once for b
        # A chat line from one of them carries its own name, and reaches everyone once.
        await watchers[2].send(ts.Chat(text="nice shot"))
        for w in [ann, *watchers]:
            line = await w.expect(tc.ChatLine, where=lambda m: m.text == "nice shot")
            assert line.sender == "fan2"
        # A sync is answered to the one who asked, with its own re.
        snap = await watchers[0].request(ts.Sync(), tc.Snapshot)
        assert snap.room.room_id == rid
        # Acting is refused as the owner would; leaving is answered; the last one out closes it.
        assert (await watchers[1].refused(ts.Concede())).code == "not_a_player"
        for w in watchers:
            await w.request(ts.Leave(), tc.Left)
        await _until(lambda: not b.cluster.hubs)  # type: ignore[union-attr]
        await _until(lambda: len([c for c in a.clients.values() if c.room is not None]) == 1)
        # Broadcasts kept flowing in order to all of them while they watched.
        for w in watchers:
            seqs = [m.seq for m in w.broadcasts()]  # type: ignore[attr-defined]
            assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


async def test_a_private_room_is_watched_from_another_node_with_its_password(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        ann = await Wire.open(_url(a), "ann")
        create = ts.CreateRoom(discipline="three_cushion", private=True, password="open sesame")
        rid = (await ann.request(create, tc.RoomCreated)).room_id
        eve = await Wire.open(_url(b), "eve")
        assert (await eve.refused(ts.Spectate(room_id=rid))).code == "bad_password"
        dan = await Wire.open(_url(b), "dan")
        await dan.request(ts.Spectate(room_id=rid, password="open sesame"), tc.Snapshot)
        assert b.cluster is not None and not b.cluster.hubs and len(b.cluster.relays) == 1


def _metric(text: str, name: str, node: str) -> float:
    prefix = f'{name}{{node="{node}"}} '
    (line,) = [x for x in text.splitlines() if x.startswith(prefix)]
    return float(line[len(prefix) :])


async def test_a_broadcast_is_published_once_whatever_the_number_of_watching_nodes(
    pg_url: str, redis_url: str
) -> None:
    """Spectators on two other nodes than the room's: each broadcast costs the owner one
    Redis publish (its /metrics), and every spectator sees the players' seq stream."""
    async with _nodes(pg_url, redis_url, "a", "b", "c") as (a, b, c):
        ann = await Wire.open(_url(a), "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)

        async def published() -> float:
            text = await asyncio.to_thread(_get, f"http://127.0.0.1:{a.port}/metrics")
            return _metric(text, "carom_cluster_fanout_published_total", "a")

        async def chat(lines: int, tag: str, watchers: list[Wire]) -> tuple[int, float]:
            """``lines`` chat lines from Ann, seen by everyone: broadcasts made, publishes."""
            first = (await ann.request(ts.Sync(), tc.Snapshot)).seq
            before = await published()
            for i in range(lines):
                await ann.send(ts.Chat(text=f"{tag} {i}"))
            last = f"{tag} {lines - 1}"
            for w in [ann, *watchers]:
                await w.expect(tc.ChatLine, where=lambda m: m.text == last)
            await _until(lambda: a.cluster is not None and not a.cluster.publisher._outbox.qsize())
            made = (await ann.request(ts.Sync(), tc.Snapshot)).seq - first
            return made, await published() - before

        on_b = [await Wire.open(_url(b), f"bfan{i}") for i in range(3)]
        for w in on_b:
            await w.request(ts.Spectate(room_id=rid), tc.Snapshot)
        # Both rounds fit in the room's chat budget (10 lines at once), so nothing waits.
        made, publishes = await chat(4, "one", on_b)
        assert made == 4 and publishes == 4  # one node watching: one publish a line

        on_c = [await Wire.open(_url(c), f"cfan{i}") for i in range(3)]
        for w in on_c:
            await w.request(ts.Spectate(room_id=rid), tc.Snapshot)
        made, publishes = await chat(4, "two", on_b + on_c)
        assert made == 4 and publishes == 4  # two nodes watching: still one a line
        assert b.cluster is not None and c.cluster is not None
        assert len(b.cluster.hubs) == len(c.cluster.hubs) == 1
        hub_conns = [x for x in a.clients.values() if x.conn in a.cluster.publisher.hub_conns]  # type: ignore[union-attr]
        assert len(hub_conns) == 2  # b's hub and c's hub: the owner's only links to them

        # The same seq stream everywhere, from the moment the last spectator came in.
        def stream(w: Wire) -> list[tuple[str, int]]:
            return [(m.TYPE, m.seq) for m in w.broadcasts()]  # type: ignore[attr-defined]

        start = min(q for _, q in stream(on_c[-1]))
        streams = [[x for x in stream(w) if x[1] >= start] for w in [ann, *on_b, *on_c]]
        assert len(streams[0]) >= 4
        assert all(s == streams[0] for s in streams)
        for node, name in ((b, "b"), (c, "c")):
            text = await asyncio.to_thread(_get, f"http://127.0.0.1:{node.port}/metrics")
            assert _metric(text, "carom_cluster_fanout_received_total", name) >= 4
            assert _metric(text, "carom_cluster_fanout_gaps_total", name) == 0


async def test_a_broadcast_lost_on_the_way_makes_the_hub_sync_its_spectators(
    pg_url: str, redis_url: str
) -> None:
    """Pub/sub delivers at most once: while b's subscription is gone (as across a reconnect),
    a broadcast is missed. The next one shows the gap; b's hub passes nothing out of order and
    gets its spectators one fresh snapshot, from which they go on."""
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        assert b.cluster is not None
        ann = await Wire.open(_url(a), "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        fans = [await Wire.open(_url(b), f"fan{i}") for i in range(2)]
        for w in fans:
            await w.request(ts.Spectate(room_id=rid), tc.Snapshot)
        await ann.send(ts.Chat(text="before"))
        for w in fans:
            await w.expect(tc.ChatLine, where=lambda m: m.text == "before")
        await b.cluster.subscriber.unsubscribe(rid)  # the subscription is lost ...
        r = connect(redis_url)
        try:  # (Redis knows it before "missed" is published, and publishes it before ...)
            while dict(await r.pubsub_numsub(channel(rid))).get(channel(rid).encode(), 0):
                await asyncio.sleep(0.02)
            assert a.cluster is not None
            published = a.cluster.publisher.published
            await ann.send(ts.Chat(text="missed"))
            await ann.expect(tc.ChatLine, where=lambda m: m.text == "missed")
            await _until(lambda: a.cluster.publisher.published > published)  # type: ignore[union-attr]
        finally:
            await r.aclose()
        await b.cluster.subscriber.subscribe(rid)  # ... and made again
        await ann.send(ts.Chat(text="after"))
        for w in fans:  # a snapshot nobody asked for: the hub's one sync for all
            snap = await w.expect(tc.Snapshot, where=lambda m: m.re is None, timeout=5)
            assert snap.seq >= 3
        assert b.cluster.hubs[rid].gaps == 1
        await ann.send(ts.Chat(text="then"))
        for w in fans:
            await w.expect(tc.ChatLine, where=lambda m: m.text == "then", timeout=5)
            texts = [m.text for m in w.log if isinstance(m, tc.ChatLine)]
            assert "missed" not in texts and "before" in texts
            seqs = [m.seq for m in w.broadcasts()]  # type: ignore[attr-defined]
            assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)  # never out of order


async def test_a_spectator_arriving_as_the_last_one_leaves_still_gets_the_broadcasts(
    pg_url: str, redis_url: str
) -> None:
    """The last spectator on b leaves (its hub closes and leaves the room's channel) and
    another one arrives at once: the new hub's subscription is not undone by the old one's
    leaving."""
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        ann = await Wire.open(_url(a), "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        for round_ in range(5):
            fan = await Wire.open(_url(b), f"fan{round_}")
            await fan.request(ts.Spectate(room_id=rid), tc.Snapshot)
            await ann.send(ts.Chat(text=f"line {round_}"))
            await fan.expect(tc.ChatLine, where=lambda m, r=round_: m.text == f"line {r}")
            await fan.send(ts.Leave())  # and the next one comes at once
        assert b.cluster is not None
        await _until(lambda: not b.cluster.hubs and not b.cluster.subscriber.rooms)  # type: ignore[union-attr]
