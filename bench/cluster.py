"""Cluster foundations (docs/cluster.md "Measured"): what a stroke's write costs on PostgreSQL
against the SQLite file (the same run's baseline), what a node's lease renewal and directory
publish cost per beat at 1,000 rooms in Redis, reading the whole cluster's lobby, and how long
a SIGKILLed node's room takes to come back on another node.

Engines are started here (throwaway, loopback, fsync on as in production); the section says so
and is skipped when PostgreSQL or Redis is not installed.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench import engines
from server.store.api import GameStore, open_store
from server.store.sqlite import RoomRecord

STROKES = 500
SAMPLES = 100
FANOUT_WATCHERS = 200
FANOUT_LINES = 15
# Rooms in the whole cluster, the same at 1, 2 and 3 nodes; CAROM_BENCH_CLUSTER_ROOMS=300 for
# the short heavier run of docs/benchmarks.md, CAROM_BENCH_CLUSTER_ONLY=scale for that part only.
SCALE_ROOMS = int(os.environ.get("CAROM_BENCH_CLUSTER_ROOMS", "60"))
SCALE_SECONDS = 20.0
ROOMS = 1000
TAKEOVER_ROOMS = 30  # rooms on the node that is killed
RATE_ROOMS = 30  # fan-out throughput: rooms on the owner ...
RATE_WATCHERS = 10  # ... each watched by this many spectators on each of two other nodes
RATE_SECONDS = 8.0
RATE_LINES_PER_S = 4.0  # per room, under the room's chat budget (5/s)


def _stroke_ms(store: GameStore) -> list[float]:
    store.add_player("pa", "ta", "Ann", 0)
    room = RoomRecord(
        "r1", {"discipline": "three_cushion"}, False, None, 0, 0, [None, None], None, None
    )
    room.match_id = store.start_match("r1", "three_cushion", {}, [], 0)
    record = bytes(2000)  # about a stroke's msgpack with its trajectory
    room.state = {"score": [0, 0], "balls": [[0.5, 0.5]] * 3, "pad": "x" * 1500}
    out = []
    for n in range(STROKES):
        room.seq = n
        t0 = time.perf_counter()
        store.commit_stroke(room, "stroke", n % 2, n, record, n)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _pct(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))]


async def _redis_side(url: str) -> list[str]:
    from server.cluster.directory import Directory, Leases, connect

    r = connect(url)
    try:
        nodes = []
        for i in range(3):
            d = Directory(r, f"n{i}", f"ws://127.0.0.1:{i}/", 3000)
            await d.join()
            leases = Leases(r, f"n{i}", d.info.instance, 3000)
            ids = [f"r{i}-{k}" for k in range(ROOMS // 3)]
            for rid in ids:
                await leases.acquire(rid)
            nodes.append((d, leases, ids))
        d, leases, ids = nodes[0]
        summaries = {
            rid: {"room_id": rid, "players": ["Ann", "Bob"], "spectators": 0, "phase": "play"}
            for rid in ids
        }
        t0 = time.perf_counter()
        for other, _, other_ids in nodes:
            await other.beat({rid: {**summaries.get(rid, {}), "room_id": rid} for rid in other_ids})
        first = (time.perf_counter() - t0) * 1000 / 3
        renew, beat, listing = [], [], []
        for k in range(10):
            t0 = time.perf_counter()
            lost = await leases.renew(ids)
            renew.append((time.perf_counter() - t0) * 1000)
            assert not lost
            summaries[ids[k]]["spectators"] = k + 1  # one room changed since the last beat
            t0 = time.perf_counter()
            await d.beat(summaries)
            beat.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            listed = await d.rooms(limit=ROOMS)
            listing.append((time.perf_counter() - t0) * 1000)
        assert len(listed) == 3 * (ROOMS // 3)
        return [
            f"renew {len(ids)} leases (one pipeline): {statistics.median(renew):.1f} ms per beat",
            f"publish {len(ids)} room summaries: first {first:.1f} ms, then (1 changed) "
            f"{statistics.median(beat):.1f} ms per beat",
            f"lobby: list {len(listed)} rooms of 3 nodes from Redis: "
            f"{statistics.median(listing):.1f} ms",
        ]
    finally:
        await r.aclose()


async def _takeover(pg_url: str, redis_url: str) -> str:
    """Node a (a process) runs a room; SIGKILL it; node b (another process) takes it."""
    from server.cluster.directory import Leases, connect
    from server.process import ServerProcess
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts
    from tests.server.wire import Wire

    extra = ["--redis", redis_url, "--max-rooms-per-address", "1000"]
    a = ServerProcess(pg_url, workers=0, extra_args=[*extra, "--node", "a"])
    b = ServerProcess(pg_url, workers=0, extra_args=[*extra, "--node", "b"])
    r = connect(redis_url)
    try:
        rids = []
        for i in range(TAKEOVER_ROOMS):  # (at most 4 rooms per player)
            w = await Wire.open(a.url, f"p{i}")
            rids.append(
                (await w.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
            )
            await w.request(ts.Join(room_id=rids[-1]), tc.Joined)
            await w.close()
        a.kill()
        t0 = time.perf_counter()
        probe = Leases(r, "probe", "x", 1)
        first = None
        waiting = set(rids)
        while waiting:
            waiting = {rid for rid in waiting if await probe.owner(rid) != "b"}
            if first is None and len(waiting) < len(rids):
                first = time.perf_counter() - t0
            await asyncio.sleep(0.02)
            if time.perf_counter() - t0 > 20:
                return f"takeover: {len(waiting)} of {len(rids)} rooms not back within 20 s"
        took = time.perf_counter() - t0
        return (
            f"SIGKILLed node's {len(rids)} rooms running on another node: first after "
            f"{first or took:.2f} s, all after {took:.2f} s (lease ttl 3 s + the next look, "
            "every 1 s, + restoring them from PostgreSQL)"
        )
    finally:
        await r.aclose()
        a.kill()
        b.stop()


async def _forwarded(pg_url: str, redis_url: str) -> str:
    """A room message's round trip (``sync`` -> ``snapshot``) of the two players of a room,
    one connected to the room's node, one to another node (through a relay), interleaved and
    spaced under the per-connection rate limit."""
    from server.process import ServerProcess
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts
    from tests.server.wire import Wire

    a = ServerProcess(pg_url, workers=0, extra_args=["--redis", redis_url, "--node", "fa"])
    b = ServerProcess(pg_url, workers=0, extra_args=["--redis", redis_url, "--node", "fb"])
    try:
        direct = await Wire.open(a.url, "ann")
        rid = (
            await direct.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
        ).room_id
        await direct.request(ts.Join(room_id=rid), tc.Joined)
        relayed = await Wire.open(b.url, "bob")  # a player on b: a relay of its own
        await relayed.request(ts.Join(room_id=rid), tc.Joined)
        times: dict[str, list[float]] = {"direct": [], "relayed": []}
        for _ in range(SAMPLES):
            for kind, w in (("direct", direct), ("relayed", relayed)):
                t0 = time.perf_counter()
                await w.request(ts.Sync(), tc.Snapshot)
                times[kind].append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.06)
        await direct.close()
        await relayed.close()
        d, r = times["direct"], times["relayed"]
        return (
            f"sync round trip ({SAMPLES} each): direct p50 {statistics.median(d):.2f} ms "
            f"p99 {_pct(d, 0.99):.2f} ms; through a relay p50 {statistics.median(r):.2f} ms "
            f"p99 {_pct(r, 0.99):.2f} ms (+{statistics.median(r) - statistics.median(d):.2f} ms)"
        )
    finally:
        a.stop()
        b.stop()


async def _fanout(pg_url: str, redis_url: str) -> list[str]:
    """One room on node a; ``FANOUT_WATCHERS`` spectators on a itself, then as many on node b
    (through b's hub). The player says ``FANOUT_LINES`` chat lines (broadcasts): the time until
    every spectator has each one, and the owner's CPU per line."""
    from bench import server_load as sl
    from server.process import ServerProcess
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts
    from tests.server.wire import Wire

    extra = ["--max-connections-per-address", "20000", "--redis", redis_url]
    a = ServerProcess(pg_url, workers=0, extra_args=[*extra, "--node", "fan-a"])
    b = ServerProcess(pg_url, workers=0, extra_args=[*extra, "--node", "fan-b"])
    out = []
    try:
        ann = await Wire.open(a.url, "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        for where, url in (("on the owner", a.url), ("on another node (one hub)", b.url)):
            watchers = []
            for i in range(FANOUT_WATCHERS):
                w = await Wire.open(url, f"w{i}")
                await w.request(ts.Spectate(room_id=rid), tc.Snapshot)
                watchers.append(w)
            spreads = []
            await asyncio.sleep(1.0)  # the arrivals (and the last round's goodbyes) settle
            cpu0 = sl._proc_cpu(a.proc.pid)
            for k in range(FANOUT_LINES):
                t0 = time.perf_counter()
                text = f"line {where} {k}"
                await ann.send(ts.Chat(text=text))
                await asyncio.gather(
                    *(w.expect(tc.ChatLine, where=lambda m, t=text: m.text == t) for w in watchers)
                )
                spreads.append((time.perf_counter() - t0) * 1000)
                await asyncio.sleep(0.25)  # under the room's chat rate
            cpu = (sl._proc_cpu(a.proc.pid) - cpu0) / FANOUT_LINES * 1000
            out.append(
                f"a broadcast to {FANOUT_WATCHERS} spectators {where}: all have it after p50 "
                f"{statistics.median(spreads):.1f} ms (max {max(spreads):.1f} ms); "
                f"owner CPU {cpu:.2f} ms per line"
            )
            for w in watchers:
                await w.close()
        return out
    finally:
        a.stop()
        b.stop()


async def _fanout_rate(pg_url: str, redis_url: str) -> str:
    """Fan-out throughput: ``RATE_ROOMS`` rooms on node a, each watched by ``RATE_WATCHERS``
    spectators on node b and as many on node c (two hubs per room); every room's player says
    ``RATE_LINES_PER_S`` chat lines a second. Deliveries per second to the spectators, the
    owner's Redis publishes per broadcast (from its /metrics) and each node's CPU."""
    from bench import server_load as sl
    from server.process import ServerProcess
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts

    extra = ["--redis", redis_url, "--max-connections-per-address", "20000"]
    extra += ["--max-rooms-per-address", "20000"]
    procs = [
        ServerProcess(pg_url, workers=0, extra_args=[*extra, "--node", f"rate-{n}"]) for n in "abc"
    ]
    a, b, c = procs
    try:
        stats = sl.Stats()
        players, watchers = [], []
        for i in range(RATE_ROOMS):
            p = await sl._open(a.url, stats, f"p{i}")
            rid = (
                await sl._request(p, ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
            ).room_id
            await sl._request(p, ts.Join(room_id=rid), tc.Joined)
            players.append(p)
            for node in (b, c):
                for k in range(RATE_WATCHERS):
                    w = await sl._open(node.url, stats, f"w{k}")
                    await sl._request(w, ts.Spectate(room_id=rid), tc.Snapshot)
                    watchers.append(w)
        name = 'carom_cluster_fanout_published_total\\{node="rate-a"\\}'
        pub0 = sl._metric(a.port, name)
        cpu0 = [sl._proc_cpu(p.proc.pid) for p in procs]
        m0 = stats.messages
        tasks = [asyncio.create_task(sl._spectator(w)) for w in watchers]
        tasks += [asyncio.create_task(sl._spectator(p)) for p in players]
        lines = int(RATE_SECONDS * RATE_LINES_PER_S)
        t0 = time.perf_counter()
        for k in range(lines):
            for p in players:
                await p.send(ts.Chat(text=f"line {k}"))
            await asyncio.sleep(max(0.0, t0 + (k + 1) / RATE_LINES_PER_S - time.perf_counter()))
        await asyncio.sleep(1.0)  # the last ones arrive
        elapsed = time.perf_counter() - t0
        cpu = [sl._proc_cpu(p.proc.pid) - x for p, x in zip(procs, cpu0, strict=True)]
        published = sl._metric(a.port, name) - pub0
        got = stats.messages - m0
        broadcasts = lines * RATE_ROOMS
        expected = broadcasts * (2 * RATE_WATCHERS + 1)
        for conn in players + watchers:
            await conn.ws.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        per_node = ", ".join(
            f"{n} {100 * x / elapsed:.0f} %" for n, x in zip("abc", cpu, strict=True)
        )
        return (
            f"fan-out: {RATE_ROOMS} rooms on one node x {RATE_WATCHERS} spectators on each of "
            f"2 other nodes, {broadcasts / elapsed:.0f} broadcasts/s -> {got / elapsed:.0f} "
            f"deliveries/s ({got} of {expected}); owner publishes per broadcast "
            f"{published / broadcasts:.2f}; CPU of a core: {per_node}; "
            f"errors {len(stats.errors)}, seq gaps {stats.gaps}"
        )
    finally:
        for p in procs:
            p.stop()


async def _scale(pg_url: str, redis_url: str, nodes: int, tag: str) -> str:
    """``SCALE_ROOMS`` rooms played by bench.server_load's scripted players for
    ``SCALE_SECONDS`` on ``nodes`` nodes: each room on node i % nodes with its first player
    and one spectator there; its second player and one more spectator on the next node (the
    player through that node's relay, the spectator served by its hub, when there are several
    nodes): strokes played through a relay against direct ones, in the same run."""
    from bench import server_load as sl
    from server.process import ServerProcess
    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts

    procs = [
        ServerProcess(
            pg_url,
            workers=1,
            extra_args=[
                "--redis",
                redis_url,
                "--node",
                f"{tag}{i}",
                "--max-connections-per-address",
                "20000",
                "--max-rooms-per-address",
                "20000",
            ],
        )
        for i in range(nodes)
    ]
    try:
        stats, far, relayed = sl.Stats(), sl.Stats(), sl.Stats()
        gate = asyncio.Semaphore(10)
        far_end = time.monotonic() + 600

        async def room(i: int) -> list[sl.Conn]:
            home, other = procs[i % nodes].url, procs[(i + 1) % nodes].url
            async with gate:
                p0 = await sl._open(home, stats, "p0")
                p1 = await sl._open(other, relayed if nodes > 1 else stats, "p1")
                s0, s1 = await sl._open(home, stats, "s0"), await sl._open(other, far, "s1")
                create = ts.CreateRoom(discipline="three_cushion")
                rid = (await sl._request(p0, create, tc.RoomCreated)).room_id
                for s in (s0, s1):
                    await sl._request(s, ts.Spectate(room_id=rid), tc.Snapshot)
                for k, p in enumerate((p0, p1)):
                    p.stop_at = far_end
                    p.rng = random.Random(i * 2 + k)
                p0.seat = (await sl._request(p0, ts.Join(room_id=rid), tc.Joined)).seat
                p1.room_id = rid
            return [p0, p1, s0, s1]

        groups = await asyncio.gather(*(room(i) for i in range(SCALE_ROOMS)))
        joined = await asyncio.gather(
            *(sl._request(g[1], ts.Join(room_id=g[1].room_id), tc.Joined) for g in groups)
        )
        for g, j in zip(groups, joined, strict=True):
            g[1].seat = j.seat
        conns = [c for g in groups for c in g]
        cpu0 = [sl._proc_cpu(p.proc.pid) for p in procs]
        stop_at = time.monotonic() + SCALE_SECONDS
        for c in conns:
            c.stop_at = stop_at
        far0 = far.messages
        tasks = [
            asyncio.create_task(sl._player(c) if c.seat is not None else sl._spectator(c))
            for c in conns
        ]
        await asyncio.sleep(SCALE_SECONDS)
        cpu = [sl._proc_cpu(p.proc.pid) - c0 for p, c0 in zip(procs, cpu0, strict=True)]
        far_rate = (far.messages - far0) / SCALE_SECONDS
        await asyncio.sleep(1.0)
        for c in conns:
            await c.ws.close()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        lat = sorted(stats.latencies) or [0.0]
        per_node = ", ".join(f"{100 * x / SCALE_SECONDS:.0f} %" for x in cpu)
        strokes = stats.strokes + relayed.strokes
        us_per_conn = 1e6 * sum(cpu) / SCALE_SECONDS / len(conns)
        line = (
            f"{nodes} node(s), {SCALE_ROOMS} rooms / {len(conns)} connections "
            f"({SCALE_ROOMS / nodes:.0f} rooms, {len(conns) / nodes:.0f} connections per node): "
            f"{strokes / SCALE_SECONDS:.1f} strokes/s, direct stroke -> stroke_played p50 "
            f"{1000 * statistics.median(lat):.1f} ms p99 {1000 * _pct(lat, 0.99):.1f} ms"
        )
        if relayed.latencies:
            rl = sorted(relayed.latencies)
            added = 1000 * (statistics.median(rl) - statistics.median(lat))
            line += (
                f", through a relay p50 {1000 * statistics.median(rl):.1f} ms p99 "
                f"{1000 * _pct(rl, 0.99):.1f} ms (+{added:.1f} ms p50)"
            )
        errors = len(stats.errors) + len(far.errors) + len(relayed.errors)
        return line + (
            f"; node CPU {per_node} of a core ({us_per_conn:.0f} us per connection-second); "
            f"{'hub-served' if nodes > 1 else 'direct'} spectators {far_rate:.0f} msg/s; "
            f"errors {errors}, seq gaps {stats.gaps + far.gaps + relayed.gaps}"
        )
    except Exception as exc:  # what the nodes said about it, in the report
        said = [x for p in procs for x in p.log if "WARNING" in x or "ERROR" in x][-8:]
        raise RuntimeError(f"{exc}; the nodes logged: {said}") from None
    finally:
        for p in procs:
            p.stop()


def run() -> Iterator[str]:
    why = engines.missing()
    if why:
        yield "skipped: " + "; ".join(why)
        return
    root = Path(tempfile.mkdtemp(prefix="carom-bench-cluster-"))
    root.chmod(0o755)
    pg = redis = None
    try:
        pg = engines.start_postgres(root / "pg", durable=True)
        redis = engines.start_redis(root / "redis")
        yield "engines: PostgreSQL and Redis on loopback, on the same 2 shared cores as this bench"
        if os.environ.get("CAROM_BENCH_CLUSTER_ONLY") == "scale":
            for n in (1, 2, 3):
                db = pg.create_database(f"bench_scale_{n}")
                yield asyncio.run(_scale(db, redis.url(), n, f"s{n}-"))
            return
        sqlite = open_store(str(root / "base.db"))
        try:
            base = _stroke_ms(sqlite)
        finally:
            sqlite.close()
        postgres = open_store(pg.create_database("bench_strokes"))
        try:
            pgs = _stroke_ms(postgres)
        finally:
            postgres.close()
        b50, p50 = statistics.median(base), statistics.median(pgs)
        yield (
            f"stroke write ({STROKES} strokes, stroke + room state in one transaction): "
            f"SQLite p50 {b50:.2f} ms p99 {_pct(base, 0.99):.2f} ms; "
            f"PostgreSQL p50 {p50:.2f} ms p99 {_pct(pgs, 0.99):.2f} ms ({p50 / b50:.1f}x)"
        )
        yield from asyncio.run(_redis_side(redis.url()))
        yield asyncio.run(_forwarded(pg.create_database("bench_forwarded"), redis.url()))
        yield asyncio.run(_takeover(pg.create_database("bench_takeover"), redis.url()))
        yield from asyncio.run(_fanout(pg.create_database("bench_fanout"), redis.url()))
        yield asyncio.run(_fanout_rate(pg.create_database("bench_fanout_rate"), redis.url()))
        for n in (1, 2, 3):
            db = pg.create_database(f"bench_scale_{n}")
            yield asyncio.run(_scale(db, redis.url(), n, f"s{n}-"))
    finally:
        if redis is not None:
            redis.stop()
        if pg is not None:
            pg.stop()
        shutil.rmtree(root, ignore_errors=True)
