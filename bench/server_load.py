"""Server load: many rooms of scripted players and spectators against a real server.

``run()`` starts ``python -m server`` in a subprocess on a free loopback port (the production
configuration: one physics worker process), then drives ROOMS rooms from this process, each with
two players and two spectators, for SECONDS seconds. Every room's second player joins at the
same moment (the synchronized start: all lags, then all breaks, arrive within seconds). Players
lag like people do, straight up the table at a speed of their own (seeded), so a lag is rarely
repeated; they think 0.3–3 s before each stroke. It reports strokes per second and the latency
from sending ``stroke`` to receiving ``stroke_played`` (p50/p99) for the whole run, for the start
burst (every lag and break: until the last room's break was sent) and for the steady state
after it; the lag latency (the second lag stroke sent → ``lag_result``); the CPU share of the
server process and its physics workers, and of the bench's own clients; memory per
connection; errors (which must be zero). A light run (LIGHT_ROOMS rooms) first gives the
same-run baseline.

    python -m bench server_load               # via make bench: 1 000 and 2 000 rooms
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

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from server import gcpolicy
from server.process import ServerProcess
from shared.protocol import decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams

# One size or several, comma-separated (CAROM_BENCH_ROOMS=1000,2000): each runs after the same
# light baseline.
ROOM_SIZES = tuple(int(n) for n in os.environ.get("CAROM_BENCH_ROOMS", "1000,2000").split(","))
ROOMS = ROOM_SIZES[0]
SECONDS = float(os.environ.get("CAROM_BENCH_SECONDS", "60"))
# The start burst lasts until the last room's break has been sent (lag strokes 0.3–3 s in, a lag
# rolls up and back for ~15 s, the break follows after 0.3–3 s of thought, and every delay of the
# server's pushes it later); the strokes sent after it are the steady state. If some room has not
# broken by then, the burst is taken as BURST_SECONDS.
BURST_SECONDS = float(os.environ.get("CAROM_BENCH_BURST_SECONDS", "25"))
LIGHT_ROOMS = 10
LIGHT_SECONDS = 40.0  # long enough for its own steady state after the burst
# A lag straight up the table (R-LAG-2) at 1–2 m/s reaches the top cushion and comes back
# down: players' speeds differ, so two lags rarely stop at the same distance (R-LAG-4). The
# earlier bench lagged at 0.1–0.2 m/s, which never reaches the top cushion: every lag was
# repeated until the coin toss, four lag simulations per room instead of one.
LAG_SPEED = (1.0, 2.0)
LAG_AIM_DEG = 1.0  # aim error either side of straight up
WORKERS = int(os.environ.get("CAROM_BENCH_WORKERS", "1"))
# The server's sweep of its frozen heap (server/gcpolicy.py) runs every 10 minutes, never inside
# a run; CAROM_BENCH_SWEEP_SECONDS=20 puts some in, to measure what one costs the players.
SWEEP_SECONDS = os.environ.get("CAROM_BENCH_SWEEP_SECONDS")


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # s, stroke sent -> stroke_played
    sent: list[float] = field(default_factory=list)  # when each of those strokes was sent
    # (room, lag round) -> s from a player's lag stroke to lag_result; the smaller of the two
    # players' is the server's share (the room waits for the second stroke)
    lags: dict[tuple[str, int], float] = field(default_factory=dict)
    started: float = 0.0  # perf_counter at the synchronized start
    breaks: dict[str, float] = field(default_factory=dict)  # room -> when its break was sent
    rooms: int = 0

    def burst_end(self) -> float:
        """When the start burst ended: the last room's break (see BURST_SECONDS)."""
        if self.rooms and len(self.breaks) == self.rooms:
            return max(self.breaks.values())
        return self.started + BURST_SECONDS

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
    lag_sent_at: float | None = None
    lag_rounds: int = 0

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
    c.stats.breaks.setdefault(c.room_id, c.sent_at)
    await c.send(stroke)


async def _lag_later(c: Conn) -> None:
    await asyncio.sleep(c.rng.uniform(0.3, 3.0))
    aim = c.rng.uniform(-LAG_AIM_DEG, LAG_AIM_DEG) % 360.0
    c.lag_sent_at = time.perf_counter()
    await c.send(ts.Stroke(cue=CueParams(direction=aim, speed=c.rng.uniform(*LAG_SPEED))))


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
            now = time.perf_counter()
            if isinstance(msg, tc.StrokePlayed) and msg.shooter == c.seat and c.sent_at:
                c.stats.latencies.append(now - c.sent_at)
                c.stats.sent.append(c.sent_at)
                c.stats.strokes += 1
                c.sent_at = None
            if isinstance(msg, tc.LagResult) and c.lag_sent_at is not None:
                key = (c.room_id, c.lag_rounds)
                took = now - c.lag_sent_at
                c.stats.lags[key] = min(took, c.stats.lags.get(key, took))
                c.lag_rounds += 1
                c.lag_sent_at = None
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
    """Read everything and check ``seq`` has no gap. Only the map's ``t`` and ``seq`` are read:
    decoding every message into typed views for 4 000 spectators took this process ~20 % of a
    core, taken from the server on this 2-core machine (the players still decode fully)."""
    while True:
        try:
            data = await c.ws.recv()
        except ConnectionClosed:
            return
        c.stats.messages += 1
        m = msgpack.unpackb(data, raw=False)
        kind, seq = m.get("t"), m.get("seq")
        if kind == "error":
            c.stats.errors.append(str(m.get("code")))
        elif seq is not None:
            if kind != "snapshot" and c.last_seq is not None and seq != c.last_seq + 1:
                c.stats.gaps += 1
            c.last_seq = seq


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
    p0.room_id = rid
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


def _page(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return str(r.read().decode())


def _value(page: str, name: str) -> float:
    m = re.search(rf"^{re.escape(name)} (\S+)$", page, re.M)
    return float(m.group(1)) if m else float("nan")


def _gc_metrics(page: str) -> tuple[list[float], list[float], float]:
    """The server's collections and collector seconds so far, per generation, and sweeps."""
    return (
        [_value(page, f'carom_gc_collections_total{{generation="{g}"}}') for g in range(3)],
        [_value(page, f'carom_gc_seconds_total{{generation="{g}"}}') for g in range(3)],
        _value(page, "carom_gc_sweeps_total"),
    )


@dataclass
class Cpu:
    """CPU seconds over one window of the run."""

    seconds: float
    server: float  # the server process (event loop and its threads)
    workers: float  # its physics worker processes
    clients: float  # this process: the bench's clients

    def share(self, what: float) -> float:
        return what / max(1e-9, self.seconds) * 100


@dataclass
class Result:
    rooms: int
    seconds: float
    stats: Stats
    cpu: Cpu  # the whole window
    cpu_burst: Cpu  # the start burst
    cpu_steady: Cpu  # after it
    rss_idle: int
    rss_loaded: int
    connections: int
    sim_cpu_s: float
    sim_count: float
    sim_wall_s: float
    store_s: float
    loop_lag_s: float
    load_before: float
    load_after: float
    server_p50_s: float = float("nan")  # stroke received → stroke_played queued (histogram)
    server_p99_s: float = float("nan")
    # The server's garbage collector over the run (from the joins): per generation, how many
    # collections and how long the event loop stood still for them.
    gc_collections: tuple[float, ...] = (0.0, 0.0, 0.0)
    gc_seconds: tuple[float, ...] = (0.0, 0.0, 0.0)
    gc_longest_s: float = float("nan")  # the longest collection since the server started
    gc_sweeps: float = 0.0  # sweeps of the frozen heap during the run

    def window(self, steady: bool) -> list[float]:
        """Latencies of the strokes sent in the start burst, or after it."""
        cut = self.stats.burst_end()
        return [
            lat
            for lat, at in zip(self.stats.latencies, self.stats.sent, strict=True)
            if (at > cut) == steady
        ]


def _histogram_pct(body: str, q: float) -> float:
    """The upper bound of the carom_stroke_seconds bucket holding quantile ``q``."""
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


class _CpuClock:
    def __init__(self, pid: int, workers: list[int]) -> None:
        self.pid, self.workers = pid, workers

    def read(self) -> tuple[float, float, float, float]:
        return (
            time.monotonic(),
            _proc_cpu(self.pid),
            sum(_proc_cpu(w) for w in self.workers),
            time.process_time(),
        )

    @staticmethod
    def between(a: tuple[float, ...], b: tuple[float, ...]) -> Cpu:
        return Cpu(b[0] - a[0], b[1] - a[1], b[2] - a[2], b[3] - a[3])


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
    # This process holds 4 clients per room: with Python's default collector settings its
    # own full collections (up to ~1 s at 2 000 rooms) would be measured as server latency.
    # The same policy as the server's (server/gcpolicy.py), once every client is set up.
    collector = asyncio.create_task(
        gcpolicy.Collector(gcpolicy.GcClock(), gcpolicy.Schedule()).run()
    )
    second = [group[1] for group in conns_nested]
    load_before = os.getloadavg()[0]
    gc0 = _gc_metrics(_page(port))
    clock = _CpuClock(pid, _children(pid))
    t0 = clock.read()
    stats.started = time.perf_counter()
    joined = await asyncio.gather(
        *(_request(c, ts.Join(room_id=c.room_id), tc.Joined) for c in second)
    )
    for c, j in zip(second, joined, strict=True):
        c.seat = j.seat
    stop_at = time.monotonic() + seconds
    for c in conns:
        c.stop_at = stop_at
    tasks = [
        asyncio.create_task(_player(c) if c.seat is not None else _spectator(c)) for c in conns
    ]
    # Strokes begin with the lag once both players are in; measure from the joins to stop_at,
    # reading the CPU clocks every second to split them where the start burst ended.
    stats.rooms = rooms
    samples = [(stats.started, t0)]
    while time.perf_counter() < stats.started + seconds:
        await asyncio.sleep(min(1.0, max(0.0, stats.started + seconds - time.perf_counter())))
        samples.append((time.perf_counter(), clock.read()))
    t2 = samples[-1][1]
    cut = stats.burst_end()
    t1 = next((c for at, c in samples if at >= cut), t2)
    rss_loaded = _proc_rss(pid)
    await asyncio.sleep(1.0)  # let in-flight strokes come back
    load_after = os.getloadavg()[0]
    page = _page(port)  # every counter from one read
    sim_cpu = _value(page, "carom_simulation_cpu_seconds_total")
    sim_n = _value(page, "carom_simulations_total")
    sim_wall = _value(page, "carom_simulation_wall_seconds_total")
    store_s = _value(page, "carom_store_seconds_total")
    lag_s = _value(page, "carom_loop_lag_seconds")
    server_p50 = _histogram_pct(page, 0.5)
    server_p99 = _histogram_pct(page, 0.99)
    gc1 = _gc_metrics(page)
    for t in tasks:
        t.cancel()
    strokes_due = [c.pending for c in conns if c.pending is not None]
    for t in strokes_due:
        t.cancel()
    collector.cancel()
    await asyncio.gather(*tasks, *strokes_due, collector, return_exceptions=True)
    for c in conns:
        await c.ws.close()
    return Result(
        rooms,
        seconds,
        stats,
        _CpuClock.between(t0, t2),
        _CpuClock.between(t0, t1),
        _CpuClock.between(t1, t2),
        rss_idle,
        rss_loaded,
        len(conns),
        sim_cpu,
        sim_n,
        sim_wall,
        store_s,
        lag_s,
        load_before,
        load_after,
        server_p50,
        server_p99,
        tuple(b - a for a, b in zip(gc0[0], gc1[0], strict=True)),
        tuple(b - a for a, b in zip(gc0[1], gc1[1], strict=True)),
        _value(page, "carom_gc_longest_pause_seconds"),
        gc1[2] - gc0[2],
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
                *(("--gc-sweep-seconds", SWEEP_SECONDS) if SWEEP_SECONDS else ()),
            ),
        ) as server,
    ):
        return asyncio.run(_drive(server.port, server.proc.pid, rooms, seconds))


def _ms(xs: list[float], q: float) -> str:
    return f"{_pct(xs, q) * 1000:.1f}"


def _cpu_line(name: str, c: Cpu) -> str:
    return (
        f"{name} server {c.share(c.server + c.workers):.0f}% of a core (event loop "
        f"{c.share(c.server):.0f}%, physics {c.share(c.workers):.0f}%), clients "
        f"{c.share(c.clients):.0f}%"
    )


def report(label: str, r: Result) -> list[str]:
    """The lines for one run."""
    st = r.stats
    per_conn_rss = (r.rss_loaded - r.rss_idle) / max(1, r.connections)
    burst, steady = r.window(False), r.window(True)
    lags = list(st.lags.values())
    return [
        f"{label}: {r.rooms} rooms, {r.connections} connections, {r.seconds:.0f} s from a "
        f"synchronized start (load average {r.load_before:.1f} -> {r.load_after:.1f}): "
        f"{st.strokes / r.seconds:.1f} strokes/s",
        f"  stroke -> stroke_played: all p50 {_ms(st.latencies, 0.5)} ms p99 "
        f"{_ms(st.latencies, 0.99)} ms max {_ms(st.latencies, 1.0)} ms ({len(st.latencies)})",
        f"    start burst (until the last room's break, {st.burst_end() - st.started:.0f} s): "
        f"p50 {_ms(burst, 0.5)} ms p99 {_ms(burst, 0.99)} ms ({len(burst)} strokes)",
        f"    steady state (sent after it): p50 {_ms(steady, 0.5)} ms p99 {_ms(steady, 0.99)} ms "
        f"({len(steady)} strokes, {len(steady) / max(1e-9, r.cpu_steady.seconds):.1f}/s)",
        f"  lag stroke -> lag_result: p50 {_ms(lags, 0.5)} ms p99 {_ms(lags, 0.99)} ms "
        f"({len(lags)} lags in {len({k[0] for k in st.lags})} rooms)",
        f"  server side (stroke received -> stroke_played queued): p50 <= "
        f"{r.server_p50_s * 1000:.0f} ms, p99 <= {r.server_p99_s * 1000:.0f} ms "
        "(histogram bucket bounds)",
        "  CPU: "
        + "; ".join(
            (
                _cpu_line("whole run", r.cpu),
                _cpu_line("burst", r.cpu_burst),
                _cpu_line("steady", r.cpu_steady),
            )
        ),
        f"  physics {r.sim_cpu_s / max(1.0, r.sim_count) * 1000:.2f} ms CPU per simulation "
        f"({r.sim_count:.0f}), {r.sim_wall_s / max(1.0, r.sim_count) * 1000:.1f} ms from "
        "submit to result",
        f"  server RSS {r.rss_idle / 2**20:.0f} MiB idle -> {r.rss_loaded / 2**20:.0f} MiB "
        f"loaded ({per_conn_rss / 1024:.1f} KiB per connection); messages received "
        f"{st.messages}; errors {len(st.errors)} {sorted(set(st.errors))}; seq gaps {st.gaps}",
        f"  database writes {r.store_s / max(1, st.strokes) * 1000:.2f} ms of loop time per "
        f"stroke; worst event-loop lag (last 10 s) {r.loop_lag_s * 1000:.0f} ms",
        "  garbage collector during the run: "
        + ", ".join(
            f"generation {g} {r.gc_collections[g]:.0f}x {r.gc_seconds[g] * 1000:.0f} ms"
            for g in range(3)
        )
        + f" ({r.gc_sweeps:.0f} of the full ones were sweeps of the frozen heap); longest "
        f"collection since the server started {r.gc_longest_s * 1000:.0f} ms",
    ]


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
        lines += report(label, r)
    base = light.window(True) or light.stats.latencies
    for full in loads:
        steady = full.window(True)
        lines.append(
            f"{full.rooms} rooms / baseline (steady state): p50 "
            f"{_pct(steady, 0.5) / _pct(base, 0.5):.2f}x, p99 "
            f"{_pct(steady, 0.99) / _pct(base, 0.99):.2f}x; start burst p99 "
            f"{_pct(full.window(False), 0.99) / _pct(base, 0.99):.2f}x"
        )
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
