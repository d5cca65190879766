"""Server load: many rooms of scripted players and spectators against a real server.

``run()`` starts ``python -m server`` in a subprocess on a free loopback port (the production
configuration: one physics worker process), then drives ROOMS rooms from this process, each with
two players who strike as soon as the balls rest and two spectators, for SECONDS seconds. It
reports strokes per second, the latency from sending ``stroke`` to receiving ``stroke_played``
(p50/p99), the server's CPU and memory per connection, and errors (which must be zero). A light
run (LIGHT_ROOMS rooms) first gives the same-run baseline the latency ratio is measured against.

    python -m bench server_load               # via make bench
    python -m bench.server_load --rooms 200 --seconds 60
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server.process import ServerProcess
from shared.protocol import decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams

# One size or several, comma-separated (CAROM_BENCH_ROOMS=1000,2000): each runs after the same
# light baseline.
ROOM_SIZES = tuple(int(n) for n in os.environ.get("CAROM_BENCH_ROOMS", "200").split(","))
ROOMS = ROOM_SIZES[0]
SECONDS = float(os.environ.get("CAROM_BENCH_SECONDS", "60"))
LIGHT_ROOMS = 10
LIGHT_SECONDS = 15.0
WORKERS = int(os.environ.get("CAROM_BENCH_WORKERS", "1"))


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # s, stroke sent -> stroke_played
    strokes: int = 0
    errors: list[str] = field(default_factory=list)
    messages: int = 0
    gaps: int = 0


@dataclass
class Conn:
    ws: ClientConnection
    stats: Stats
    seat: int | None = None
    last_seq: int | None = None
    rest_ms: int = 0
    sent_at: float | None = None
    stop_at: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    pending: asyncio.Task[None] | None = None
    room_id: str = ""
    lag_sent: bool = False  # this lag round's stroke is in (a lag turn also announces clock
    # changes — paused, stopped once both strokes are in — which need no new stroke)

    async def send(self, msg: Any) -> None:
        await self.ws.send(encode(msg))

    def seq_check(self, msg: Any) -> None:
        seq = getattr(msg, "seq", None)
        if seq is None:
            return
        if isinstance(msg, tc.Snapshot):
            self.last_seq = seq
            return
        if self.last_seq is not None and seq != self.last_seq + 1:
            self.stats.gaps += 1
        self.last_seq = seq


async def _recv(c: Conn) -> Any:
    data = await c.ws.recv()
    assert isinstance(data, bytes)
    c.stats.messages += 1
    msg = decode_server(data)
    c.seq_check(msg)
    if isinstance(msg, tc.Error):
        c.stats.errors.append(msg.code)
        c.sent_at = None  # a refused stroke has no latency
    return msg


async def _request(c: Conn, msg: Any, kind: type[Any]) -> Any:
    await c.send(msg)
    while True:
        got = await _recv(c)
        if isinstance(got, kind | tc.Error):
            if isinstance(got, tc.Error):
                raise RuntimeError(f"{msg.TYPE} refused: {got.code} {got.message}")
            return got


async def _open(url: str, stats: Stats, name: str) -> Conn:
    c = Conn(await connect(url, compression=None, max_size=None, open_timeout=60), stats)
    await _request(c, ts.Hello(v=1, name=name), tc.Welcome)
    return c


async def _strike_later(c: Conn) -> None:
    # A player looks at the table before striking (0.3–3 s); without it every room, having
    # started together, would strike in the same millisecond forever (a synthetic burst).
    think = c.rng.uniform(0.3, 3.0)
    await asyncio.sleep(max(0.0, c.rest_ms / 1000 - time.time()) + think)
    if time.monotonic() >= c.stop_at:
        return
    # Gentle random strokes: a few seconds of table time each, like a careful position game.
    stroke = ts.Stroke(
        cue=CueParams(direction=c.rng.uniform(0, 359.9), speed=c.rng.uniform(0.2, 0.6))
    )
    c.sent_at = time.perf_counter()
    await c.send(stroke)


async def _lag_later(c: Conn) -> None:
    await asyncio.sleep(c.rng.uniform(0.3, 3.0))
    await c.send(ts.Stroke(cue=CueParams(direction=0.0, speed=c.rng.uniform(0.1, 0.2))))


async def _player(c: Conn) -> None:
    """React to the room until the connection closes."""
    while True:
        try:
            msg = await _recv(c)
        except ConnectionClosed:
            return
        if isinstance(msg, tc.StrokePlayed | tc.LagResult):
            c.rest_ms = msg.rest_ms or 0
            c.lag_sent = False  # a repeated lag (R-LAG-4) needs a new stroke
            if isinstance(msg, tc.StrokePlayed) and msg.shooter == c.seat and c.sent_at:
                c.stats.latencies.append(time.perf_counter() - c.sent_at)
                c.stats.strokes += 1
                c.sent_at = None
        elif isinstance(msg, tc.Turn):
            if time.monotonic() >= c.stop_at:
                continue
            if msg.phase == "lag" and not c.lag_sent and msg.deadline_ms is not None:
                c.lag_sent = True
                c.pending = asyncio.create_task(_lag_later(c))
            elif msg.phase == "break_choice" and msg.shooter == c.seat:
                await c.send(ts.ChooseBreak(breaker="me"))
            elif msg.phase == "play" and msg.shooter == c.seat:
                c.pending = asyncio.create_task(_strike_later(c))
        elif isinstance(msg, tc.GameOver):
            await c.send(ts.Rematch())


async def _spectator(c: Conn) -> None:
    while True:
        try:
            await _recv(c)
        except ConnectionClosed:
            return


async def _room(
    url: str, stats: Stats, gate: asyncio.Semaphore, stop_at: float, seed: int
) -> list[Conn]:
    async with gate:
        p0 = await _open(url, stats, "p0")
        p1 = await _open(url, stats, "p1")
        s0 = await _open(url, stats, "s0")
        s1 = await _open(url, stats, "s1")
        rid = (
            await _request(p0, ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
        ).room_id
        for s in (s0, s1):
            await _request(s, ts.Spectate(room_id=rid), tc.Snapshot)
        for i, p in enumerate((p0, p1)):
            p.stop_at = stop_at
            p.rng = random.Random(seed * 2 + i)
        p0.seat = (await _request(p0, ts.Join(room_id=rid), tc.Joined)).seat
    p1.room_id = rid  # joins once every room is ready, so no lag clock runs during the setup
    return [p0, p1, s0, s1]


def _proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def _proc_rss(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except OSError:
                continue
    return out


def _metric(port: int, name: str) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        body = r.read().decode()
    m = re.search(rf"^{name} (\S+)$", body, re.M)
    return float(m.group(1)) if m else float("nan")


@dataclass
class Result:
    rooms: int
    seconds: float
    stats: Stats
    server_cpu_s: float
    worker_cpu_s: float
    client_cpu_s: float
    rss_idle: int
    rss_loaded: int
    connections: int
    sim_cpu_s: float
    sim_count: float
    sim_wall_s: float
    store_s: float
    loop_lag_s: float
    server_p50_s: float = float("nan")  # stroke received → stroke_played queued (histogram)
    server_p99_s: float = float("nan")


def _histogram_pct(port: int, q: float) -> float:
    """The upper bound of the carom_stroke_seconds bucket holding quantile ``q``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        body = r.read().decode()
    buckets = [
        (float("inf") if le == "+Inf" else float(le), float(n))
        for le, n in re.findall(r'^carom_stroke_seconds_bucket\{le="([^"]+)"\} (\S+)$', body, re.M)
    ]
    if not buckets or buckets[-1][1] == 0:
        return float("nan")
    total = buckets[-1][1]
    return next(le for le, n in buckets if n >= q * total)


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


async def _drive(port: int, pid: int, rooms: int, seconds: float) -> Result:
    url = f"ws://127.0.0.1:{port}/"
    stats = Stats()
    rss_idle = _proc_rss(pid)
    gate = asyncio.Semaphore(20)
    setup_deadline = time.monotonic() + seconds + 600
    conns_nested = await asyncio.gather(
        *(_room(url, stats, gate, setup_deadline, i) for i in range(rooms))
    )
    conns = [c for group in conns_nested for c in group]
    second = [group[1] for group in conns_nested]
    joined = await asyncio.gather(
        *(_request(c, ts.Join(room_id=c.room_id), tc.Joined) for c in second)
    )
    for c, j in zip(second, joined, strict=True):
        c.seat = j.seat
    workers = _children(pid)
    cpu0 = _proc_cpu(pid)
    wcpu0 = sum(_proc_cpu(w) for w in workers)
    ccpu0 = time.process_time()
    stop_at = time.monotonic() + seconds
    for c in conns:
        c.stop_at = stop_at
    tasks = [
        asyncio.create_task(_player(c) if c.seat is not None else _spectator(c)) for c in conns
    ]
    # Strokes begin with the lag once both players are in; measure from now to stop_at.
    await asyncio.sleep(seconds)
    rss_loaded = _proc_rss(pid)
    cpu = _proc_cpu(pid) - cpu0
    wcpu = sum(_proc_cpu(w) for w in workers) - wcpu0
    ccpu = time.process_time() - ccpu0
    await asyncio.sleep(1.0)  # let in-flight strokes come back
    sim_cpu = _metric(port, "carom_simulation_cpu_seconds_total")
    sim_n = _metric(port, "carom_simulations_total")
    sim_wall = _metric(port, "carom_simulation_wall_seconds_total")
    store_s = _metric(port, "carom_store_seconds_total")
    lag_s = _metric(port, "carom_loop_lag_seconds")
    server_p50 = _histogram_pct(port, 0.5)
    server_p99 = _histogram_pct(port, 0.99)
    for c in conns:
        await c.ws.close()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return Result(
        rooms,
        seconds,
        stats,
        cpu,
        wcpu,
        ccpu,
        rss_idle,
        rss_loaded,
        len(conns),
        sim_cpu,
        sim_n,
        sim_wall,
        store_s,
        lag_s,
        server_p50,
        server_p99,
    )


def _one(rooms: int, seconds: float) -> Result:
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(
            os.path.join(tmp, "load.db"),
            workers=WORKERS,
            extra_args=(
                "--max-connections",
                "20000",
                # Every bench client comes from 127.0.0.1.
                "--max-connections-per-address",
                "20000",
                "--max-rooms-per-address",
                "20000",
            ),
        ) as server,
    ):
        return asyncio.run(_drive(server.port, server.proc.pid, rooms, seconds))


def run(rooms: int | tuple[int, ...] = ROOM_SIZES, seconds: float = SECONDS) -> list[str]:
    load_before = os.getloadavg()[0]
    light = _one(LIGHT_ROOMS, LIGHT_SECONDS)
    sizes = (rooms,) if isinstance(rooms, int) else rooms
    loads = [_one(n, seconds) for n in sizes]
    lines = [
        f"{os.cpu_count()} cores, physics workers {WORKERS}; machine load average "
        f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after (above the core count, "
        "latencies measure the neighbours too)"
    ]
    for label, r in (("baseline", light), *(("load", full) for full in loads)):
        st = r.stats
        per_conn_rss = (r.rss_loaded - r.rss_idle) / max(1, r.connections)
        lines.append(
            f"{label}: {r.rooms} rooms, {r.connections} connections, {r.seconds:.0f} s: "
            f"{st.strokes / r.seconds:.1f} strokes/s, latency p50 "
            f"{_pct(st.latencies, 0.5) * 1000:.1f} ms p99 {_pct(st.latencies, 0.99) * 1000:.1f} ms"
        )
        lines.append(
            f"  server side (stroke received -> stroke_played queued): p50 <= "
            f"{r.server_p50_s * 1000:.0f} ms, p99 <= {r.server_p99_s * 1000:.0f} ms "
            "(histogram bucket bounds)"
        )
        lines.append(
            f"  server CPU {r.server_cpu_s / r.seconds * 100:.0f}% of a core "
            f"({r.server_cpu_s / max(1, r.connections) / r.seconds * 1e6:.0f} µs/s per "
            f"connection), physics worker {r.worker_cpu_s / r.seconds * 100:.0f}%, clients "
            f"{r.client_cpu_s / r.seconds * 100:.0f}%; physics "
            f"{r.sim_cpu_s / max(1.0, r.sim_count) * 1000:.2f} ms CPU per simulation, "
            f"{r.sim_wall_s / max(1.0, r.sim_count) * 1000:.1f} ms from submit to result"
        )
        lines.append(
            f"  server RSS {r.rss_idle / 2**20:.0f} MiB idle -> {r.rss_loaded / 2**20:.0f} MiB "
            f"loaded ({per_conn_rss / 1024:.1f} KiB per connection); messages received "
            f"{st.messages}; errors {len(st.errors)} {sorted(set(st.errors))}; seq gaps {st.gaps}"
        )
        lines.append(
            f"  database writes {r.store_s / max(1, st.strokes) * 1000:.2f} ms of loop time per "
            f"stroke; worst event-loop lag (last 10 s) {r.loop_lag_s * 1000:.0f} ms"
        )
    for full in loads:
        p50 = _pct(full.stats.latencies, 0.5) / _pct(light.stats.latencies, 0.5)
        p99 = _pct(full.stats.latencies, 0.99) / _pct(light.stats.latencies, 0.99)
        lines.append(f"{full.rooms} rooms / baseline: p50 {p50:.2f}x, p99 {p99:.2f}x")
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--rooms", default=",".join(map(str, ROOM_SIZES)), help="one size or several: 1000,2000"
    )
    parser.add_argument("--seconds", type=float, default=SECONDS)
    a = parser.parse_args()
    for line in run(tuple(int(n) for n in str(a.rooms).split(",")), a.seconds):
        print(line)
