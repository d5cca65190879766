"""Cluster foundations (docs/cluster.md "Measured"): what a stroke's write costs on PostgreSQL
against the SQLite file (the same run's baseline), what a node's lease renewal and directory
publish cost per beat at 1,000 rooms in Redis, reading the whole cluster's lobby, and how long
a SIGKILLed node's room takes to come back on another node.

Engines are started here (throwaway, loopback, fsync on as in production); the section says so
and is skipped when PostgreSQL or Redis is not installed.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from server.cluster import engines
from server.store import RoomRecord
from server.store_api import GameStore, open_store

STROKES = 500
SAMPLES = 100
FANOUT_WATCHERS = 200
FANOUT_LINES = 15
SCALE_ROOMS = 60  # rooms in the whole cluster, the same at 1, 2 and 3 nodes
SCALE_SECONDS = 20.0
ROOMS = 1000


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

    a = ServerProcess(pg_url, workers=0, extra_args=["--redis", redis_url, "--node", "a"])
    b = ServerProcess(pg_url, workers=0, extra_args=["--redis", redis_url, "--node", "b"])
    r = connect(redis_url)
    try:
        w = await Wire.open(a.url, "ann")
        rid = (await w.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await w.close()
        a.kill()
        t0 = time.perf_counter()
        probe = Leases(r, "probe", "x", 1)
        while await probe.owner(rid) != "b":
            await asyncio.sleep(0.02)
            if time.perf_counter() - t0 > 15:
                return "takeover: not within 15 s"
        took = time.perf_counter() - t0
        return (
            f"SIGKILLed node's room running on another node after {took:.2f} s "
            "(lease ttl 3 s + the next look, every 1 s)"
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


async def _scale(pg_url: str, redis_url: str, nodes: int, tag: str) -> str:
    """``SCALE_ROOMS`` rooms played by bench.server_load's scripted players for
    ``SCALE_SECONDS`` on ``nodes`` nodes: each room on node i % nodes with its players and one
    spectator there, and one more spectator on the next node (served by that node's hub when
    there are several nodes)."""
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
        stats, far = sl.Stats(), sl.Stats()
        gate = asyncio.Semaphore(10)
        far_end = time.monotonic() + 600

        async def room(i: int) -> list[sl.Conn]:
            home, other = procs[i % nodes].url, procs[(i + 1) % nodes].url
            async with gate:
                p0, p1 = await sl._open(home, stats, "p0"), await sl._open(home, stats, "p1")
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
        return (
            f"{nodes} node(s), {SCALE_ROOMS} rooms / {len(conns)} connections: "
            f"{stats.strokes / SCALE_SECONDS:.1f} strokes/s, stroke -> stroke_played p50 "
            f"{1000 * statistics.median(lat):.1f} ms p99 {1000 * _pct(lat, 0.99):.1f} ms; "
            f"node CPU {per_node} of a core; "
            f"{'hub-served' if nodes > 1 else 'direct'} spectators {far_rate:.0f} msg/s; "
            f"errors {len(stats.errors) + len(far.errors)}, seq gaps {stats.gaps + far.gaps}"
        )
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
        for n in (1, 2, 3):
            db = pg.create_database(f"bench_scale_{n}")
            yield asyncio.run(_scale(db, redis.url(), n, f"s{n}-"))
    finally:
        if redis is not None:
            redis.stop()
        if pg is not None:
            pg.stop()
        shutil.rmtree(root, ignore_errors=True)
