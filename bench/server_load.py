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

Without think time (``--no-think`` or CAROM_BENCH_THINK=0) players strike a random legal stroke
as soon as the balls come to rest; the first WARMUP_SECONDS (40) are played but not measured,
then SECONDS (30) are. Beside the clients' latency it prints the server's own view of that
window from /metrics: the stroke latency, the loop's lag, and where a simulation's time went
(waiting for the worker, in it, back to the loop, to the room), and how long each process
waited for a CPU (the neighbours' share on a shared machine). The server runs in a session of
its own, as a service would (autogroup scheduling would otherwise give the server and the
bench's clients one CPU share between them).

    python -m bench server_load               # via make bench: 1 000 and 2 000 rooms
    python -m bench.server_load --rooms 200 --seconds 60
    CAROM_BENCH_THINK=0 CAROM_BENCH_ROOMS=2000 python -m bench server_load
    python -m bench.server_load --no-think --rooms 2000 --warmup 40 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import math
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
from shared.protocol.enums import Phase
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
# Players without think time (CAROM_BENCH_THINK=0, or --no-think): each strikes as soon as the
# balls come to rest, a random legal stroke (any direction, 0.2–8 m/s, spin, a little
# elevation: ~13 s of table time, so 2 000 rooms make ~150 strokes/s); the spectators read every
# frame as always. The first WARMUP_SECONDS after the rooms open (lags, breaks, the rooms falling
# out of step) are played but not measured; SECONDS are measured after them.
THINK = os.environ.get("CAROM_BENCH_THINK", "1") != "0"
WARMUP_SECONDS = float(os.environ.get("CAROM_BENCH_WARMUP_SECONDS", "40"))
NO_THINK_SECONDS = float(os.environ.get("CAROM_BENCH_SECONDS", "30"))
NO_THINK_SPEED = (0.2, 8.0)  # m/s (MAX_SPEED is 8)
NO_THINK_TIP = 0.5  # ball radii from the centre, at most (the miscue limit is 0.6)
NO_THINK_ELEVATION = 5.0  # degrees, at most
LIGHT_WARMUP_SECONDS = 15.0  # the 10-room baseline of the no-think mode
LIGHT_NO_THINK_SECONDS = 20.0
# CAROM_BENCH_OWN_SESSION=0 starts the server in the bench's own session (as before round 4).
OWN_SESSION = os.environ.get("CAROM_BENCH_OWN_SESSION", "1") != "0"
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
    # The measured window (perf_counter): strokes sent in it count. The think mode measures
    # from the start; the no-think mode after WARMUP_SECONDS.
    window: tuple[float, float] = (0.0, float("inf"))
    unanswered: int = 0  # strokes sent in the window still without stroke_played at the end

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
    think: bool = True  # False: strike as soon as the balls rest (THINK)

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


def _random_legal(rng: random.Random) -> CueParams:
    """Any stroke a player may play: direction, speed up to the maximum, spin, elevation."""
    tip, angle = rng.uniform(0.0, NO_THINK_TIP), rng.uniform(0.0, 2 * math.pi)
    return CueParams(
        direction=rng.uniform(0.0, 359.9),
        speed=rng.uniform(*NO_THINK_SPEED),
        tip_x=tip * math.cos(angle),
        tip_y=tip * math.sin(angle),
        elevation=rng.uniform(0.0, NO_THINK_ELEVATION),
    )


async def _strike_later(c: Conn) -> None:
    # A player looks at the table before striking (0.3–3 s); without it every room, having
    # started together, would strike in the same millisecond forever (a synthetic burst).
    # Without think time (THINK) the rooms fall out of step only by their strokes' lengths.
    think = c.rng.uniform(0.3, 3.0) if c.think else 0.0
    await asyncio.sleep(max(0.0, c.rest_ms / 1000 - time.time()) + think)
    if time.monotonic() >= c.stop_at:
        return
    if c.think:
        # Gentle random strokes: a few seconds of table time each, like a careful position game.
        cue = CueParams(direction=c.rng.uniform(0, 359.9), speed=c.rng.uniform(0.2, 0.6))
    else:
        cue = _random_legal(c.rng)
    stroke = ts.Stroke(cue=cue)
    c.sent_at = time.perf_counter()
    c.stats.breaks.setdefault(c.room_id, c.sent_at)
    await c.send(stroke)


async def _lag_later(c: Conn) -> None:
    if c.think:
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
            if msg.phase == Phase.LAG and not c.lag_sent and msg.deadline_ms is not None:
                c.lag_sent = True
                c.pending = asyncio.create_task(_lag_later(c))
            elif msg.phase == Phase.BREAK_CHOICE and msg.shooter == c.seat:
                await c.send(ts.ChooseBreak(breaker="me"))
            elif msg.phase == Phase.PLAY and msg.shooter == c.seat:
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


def _runq_wait(pid: int) -> float:
    """Seconds the main thread of ``pid`` has spent runnable but waiting for a CPU (Linux
    schedstat): on this shared 2-core machine, how much of a latency is the neighbours'."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return float("nan")


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
    """The server's /metrics. Blocking: from the clients' event loop call it through
    ``_page_soon``, or a slow answer stalls every client and is measured as server latency."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return str(r.read().decode())


async def _page_soon(port: int) -> str:
    """``_page`` in a thread: the server may take a while to answer at 2 000 rooms (a run had
    the clients' loop blocked 3.5 s on it), and the clients must go on reading meanwhile."""
    return await asyncio.to_thread(_page, port)


def _value(page: str, name: str) -> float:
    m = re.search(rf"^{re.escape(name)} (\S+)$", page, re.M)
    return float(m.group(1)) if m else float("nan")


def _metric(port: int, name: str) -> float:
    """One value of the server's /metrics (``name`` as a regular expression: bench/cluster.py
    passes labels escaped)."""
    m = re.search(rf"^{name} (\S+)$", _page(port), re.M)
    return float(m.group(1)) if m else float("nan")


def _gc_metrics(page: str) -> tuple[list[float], list[float], float]:
    """The server's collections and collector seconds so far, per generation, and sweeps."""
    return (
        [_value(page, f'carom_gc_collections_total{{generation="{g}"}}') for g in range(3)],
        [_value(page, f'carom_gc_seconds_total{{generation="{g}"}}') for g in range(3)],
        _value(page, "carom_gc_sweeps_total"),
    )


def _buckets(page: str, name: str) -> list[tuple[float, float]]:
    return [
        (float("inf") if le == "+Inf" else float(le), float(n))
        for le, n in re.findall(rf'^{name}_bucket\{{le="([^"]+)"\}} (\S+)$', page, re.M)
    ]


def _histogram_pct(before: str, after: str, name: str, q: float) -> float:
    """The upper bound of the bucket of histogram ``name`` holding quantile ``q`` of what was
    observed between two reads of /metrics (nan: nothing observed, or an older server)."""
    a, b = _buckets(before, name), _buckets(after, name)
    if not b:
        return float("nan")
    if len(a) != len(b):
        a = [(le, 0.0) for le, _ in b]
    counts = [(le, nb - na) for (le, na), (_, nb) in zip(a, b, strict=True)]
    total = counts[-1][1]
    if total <= 0:
        return float("nan")
    return next(le for le, n in counts if n >= q * total)


@dataclass
class ServerView:
    """What the server's own /metrics saw between two reads (the measured window)."""

    before: str
    after: str

    def delta(self, name: str) -> float:
        return _value(self.after, name) - _value(self.before, name)

    def pct(self, name: str, q: float) -> float:
        return _histogram_pct(self.before, self.after, name, q)

    def per_sim(self, name: str) -> float:
        """Seconds of counter ``name`` per simulation in the window."""
        return self.delta(name) / max(1.0, self.delta("carom_simulations_total"))

    def lines(self, strokes: int) -> list[str]:
        sims = self.delta("carom_simulations_total")
        ms = 1000.0
        stroke = "carom_stroke_seconds"
        probe = "carom_loop_lag_probe_seconds"
        queue = "carom_simulation_queue_seconds"
        cpu = self.per_sim("carom_simulation_cpu_seconds_total") * ms
        wall = self.per_sim("carom_simulation_wall_seconds_total") * ms
        queue_avg = self.per_sim(f"{queue}_sum") * ms
        run = self.per_sim("carom_simulation_run_seconds_total") * ms
        back = self.per_sim("carom_simulation_return_seconds_total") * ms
        handoff = self.per_sim("carom_simulation_handoff_seconds_total") * ms
        store = self.delta("carom_store_seconds_total") / max(1, strokes) * ms
        return [
            f"  server side (stroke received -> stroke_played queued, carom_stroke_seconds "
            f"bucket bounds): p50 <= {self.pct(stroke, 0.5) * ms:.0f} ms, p99 <= "
            f"{self.pct(stroke, 0.99) * ms:.0f} ms",
            f"  server loop lag (50 ms probes, bucket bounds): p50 <= "
            f"{self.pct(probe, 0.5) * ms:.1f} ms, p99 <= {self.pct(probe, 0.99) * ms:.0f} ms; "
            f"worst in the last 10 s {_value(self.after, 'carom_loop_lag_seconds') * ms:.0f} ms",
            f"  physics ({sims:.0f} simulations): {cpu:.2f} ms CPU each; submit -> result "
            f"{wall:.1f} ms on average = queue {queue_avg:.1f} (p50 <= "
            f"{self.pct(queue, 0.5) * ms:.1f}, p99 <= {self.pct(queue, 0.99) * ms:.0f}) + run "
            f"{run:.1f} + back to the loop {back:.1f} + to the room {handoff:.1f} ms",
            f"  database writes {store:.2f} ms of loop time per stroke",
        ]


@dataclass
class Cpu:
    """CPU seconds over one window of the run."""

    seconds: float
    server: float  # the server process (event loop and its threads)
    workers: float  # its physics worker processes
    clients: float  # this process: the bench's clients
    # Seconds each main thread was ready to run but waited for a CPU (the neighbours' share)
    server_wait: float = float("nan")
    workers_wait: float = float("nan")
    clients_wait: float = float("nan")

    def share(self, what: float) -> float:
        return what / max(1e-9, self.seconds) * 100


@dataclass
class Result:
    rooms: int
    seconds: float
    stats: Stats
    cpu: Cpu  # the whole window
    cpu_burst: Cpu  # the start burst (no-think mode: the warm-up)
    cpu_steady: Cpu  # after it (no-think mode: the measured window)
    rss_idle: int
    rss_loaded: int
    connections: int
    server: ServerView  # the measured window (think mode: the whole run)
    load_before: float
    load_after: float
    think: bool = True
    warmup: float = 0.0
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

    def measured(self) -> list[float]:
        """Latencies of the strokes sent in the measured window."""
        lo, hi = self.stats.window
        return [
            lat
            for lat, at in zip(self.stats.latencies, self.stats.sent, strict=True)
            if lo <= at < hi
        ]


def _pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


class _CpuClock:
    def __init__(self, pid: int, workers: list[int]) -> None:
        self.pid, self.workers = pid, workers

    def read(self) -> tuple[float, ...]:
        return (
            time.monotonic(),
            _proc_cpu(self.pid),
            sum(_proc_cpu(w) for w in self.workers),
            time.process_time(),
            _runq_wait(self.pid),
            sum(_runq_wait(w) for w in self.workers),
            _runq_wait(os.getpid()),
        )

    @staticmethod
    def between(a: tuple[float, ...], b: tuple[float, ...]) -> Cpu:
        return Cpu(*(y - x for x, y in zip(a, b, strict=True)))


async def _drive(
    port: int, pid: int, rooms: int, seconds: float, think: bool = True, warmup: float = 0.0
) -> Result:
    """``rooms`` rooms played for ``warmup`` + ``seconds`` seconds from their synchronized
    start; the last ``seconds`` are measured (the think mode measures everything, warmup 0)."""
    url = f"ws://127.0.0.1:{port}/"
    stats = Stats()
    rss_idle = _proc_rss(pid)
    gate = asyncio.Semaphore(20)
    setup_deadline = time.monotonic() + warmup + seconds + 600
    conns_nested = await asyncio.gather(
        *(_room(url, stats, gate, setup_deadline, i) for i in range(rooms))
    )
    conns = [c for group in conns_nested for c in group]
    for c in conns:
        c.think = think
    # This process holds 4 clients per room: with Python's default collector settings its
    # own full collections (up to ~1 s at 2 000 rooms) would be measured as server latency.
    # The same policy as the server's (server/gcpolicy.py), once every client is set up.
    collector = asyncio.create_task(
        gcpolicy.Collector(gcpolicy.GcClock(), gcpolicy.Schedule()).run()
    )
    second = [group[1] for group in conns_nested]
    load_before = os.getloadavg()[0]
    page_start = await _page_soon(port)
    gc0 = _gc_metrics(page_start)
    clock = _CpuClock(pid, _children(pid))
    t0 = clock.read()
    stats.started = time.perf_counter()
    stats.window = (stats.started + warmup, stats.started + warmup + seconds)
    joined = await asyncio.gather(
        *(_request(c, ts.Join(room_id=c.room_id), tc.Joined) for c in second)
    )
    for c, j in zip(second, joined, strict=True):
        c.seat = j.seat
    stop_at = time.monotonic() + warmup + seconds - (time.perf_counter() - stats.started)
    for c in conns:
        c.stop_at = stop_at
    tasks = [
        asyncio.create_task(_player(c) if c.seat is not None else _spectator(c)) for c in conns
    ]
    # Strokes begin with the lag once both players are in; measure from the joins to the end,
    # reading the CPU clocks every second to split them where the start burst ended (or at
    # the end of the warm-up), and the server's /metrics where the measured window begins.
    stats.rooms = rooms
    samples = [(stats.started, t0)]
    page_window = page_start if warmup <= 0 else None
    t_window = t0
    end = stats.window[1]
    while time.perf_counter() < end:
        target = stats.window[0] if page_window is None else end
        await asyncio.sleep(min(1.0, max(0.0, target - time.perf_counter())))
        now = time.perf_counter()
        samples.append((now, clock.read()))
        if page_window is None and now >= stats.window[0]:
            page_window = await _page_soon(port)
            t_window = samples[-1][1]
    assert page_window is not None
    t2 = samples[-1][1]
    page_end = await _page_soon(port)  # every counter of the window from one read
    rss_loaded = _proc_rss(pid)
    # Let in-flight strokes come back (2 s: the no-think mode's slowest seen so far were ~1 s).
    await asyncio.sleep(1.0 if think else 2.0)
    stats.unanswered = sum(
        1 for c in conns if c.sent_at is not None and stats.window[0] <= c.sent_at < stats.window[1]
    )
    load_after = os.getloadavg()[0]
    page = await _page_soon(port)
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
    if think:
        cut = stats.burst_end()
        t1 = next((c for at, c in samples if at >= cut), t2)
    else:
        t1 = t_window
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
        ServerView(page_window, page_end),
        load_before,
        load_after,
        think,
        warmup,
        tuple(b - a for a, b in zip(gc0[0], gc1[0], strict=True)),
        tuple(b - a for a, b in zip(gc0[1], gc1[1], strict=True)),
        _value(page, "carom_gc_longest_pause_seconds"),
        gc1[2] - gc0[2],
    )


def _one(rooms: int, seconds: float, think: bool = True, warmup: float = 0.0) -> Result:
    with (
        tempfile.TemporaryDirectory() as tmp,
        ServerProcess(
            os.path.join(tmp, "load.db"),
            workers=WORKERS,
            # Its own session, like a server a service manager started: with autogroup
            # scheduling (Linux's default) the bench's clients would otherwise share one CPU
            # share with the server on this shared machine (docs/benchmarks.md, round 4).
            new_session=OWN_SESSION,
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
        return asyncio.run(_drive(server.port, server.proc.pid, rooms, seconds, think, warmup))


def _ms(xs: list[float], q: float) -> str:
    return f"{_pct(xs, q) * 1000:.1f}"


def _cpu_line(name: str, c: Cpu) -> str:
    return (
        f"{name} server {c.share(c.server + c.workers):.0f}% of a core (event loop "
        f"{c.share(c.server):.0f}%, physics {c.share(c.workers):.0f}%), clients "
        f"{c.share(c.clients):.0f}%; waiting for a CPU: event loop {c.share(c.server_wait):.0f}%"
        f", physics {c.share(c.workers_wait):.0f}%, clients {c.share(c.clients_wait):.0f}% of "
        "the time"
    )


def report(label: str, r: Result) -> list[str]:
    """The lines for one run."""
    st = r.stats
    per_conn_rss = (r.rss_loaded - r.rss_idle) / max(1, r.connections)
    lags = list(st.lags.values())
    if r.think:
        burst, steady = r.window(False), r.window(True)
        head = [
            f"{label}: {r.rooms} rooms, {r.connections} connections, {r.seconds:.0f} s from a "
            f"synchronized start (load average {r.load_before:.1f} -> {r.load_after:.1f}): "
            f"{st.strokes / r.seconds:.1f} strokes/s",
            f"  stroke -> stroke_played: all p50 {_ms(st.latencies, 0.5)} ms p99 "
            f"{_ms(st.latencies, 0.99)} ms max {_ms(st.latencies, 1.0)} ms ({len(st.latencies)})",
            f"    start burst (until the last room's break, {st.burst_end() - st.started:.0f} s): "
            f"p50 {_ms(burst, 0.5)} ms p99 {_ms(burst, 0.99)} ms ({len(burst)} strokes)",
            f"    steady state (sent after it): p50 {_ms(steady, 0.5)} ms p99 "
            f"{_ms(steady, 0.99)} ms ({len(steady)} strokes, "
            f"{len(steady) / max(1e-9, r.cpu_steady.seconds):.1f}/s)",
        ]
        cpu: tuple[str, ...] = (
            _cpu_line("whole run", r.cpu),
            _cpu_line("burst", r.cpu_burst),
            _cpu_line("steady", r.cpu_steady),
        )
        strokes = st.strokes
    else:
        measured = r.measured()
        strokes = len(measured)
        head = [
            f"{label}: {r.rooms} rooms, {r.connections} connections, no think time "
            f"(strike as soon as the balls rest), {r.warmup:.0f} s warm-up then "
            f"{r.seconds:.0f} s measured (load average {r.load_before:.1f} -> "
            f"{r.load_after:.1f}): {strokes / r.seconds:.1f} strokes/s",
            f"  stroke -> stroke_played at the client, measured window: p50 "
            f"{_ms(measured, 0.5)} ms p99 {_ms(measured, 0.99)} ms max {_ms(measured, 1.0)} ms "
            f"({strokes} strokes; {st.unanswered} unanswered at the end)",
        ]
        cpu = (_cpu_line("warm-up", r.cpu_burst), _cpu_line("measured", r.cpu_steady))
    return [
        *head,
        f"  lag stroke -> lag_result: p50 {_ms(lags, 0.5)} ms p99 {_ms(lags, 0.99)} ms "
        f"({len(lags)} lags in {len({k[0] for k in st.lags})} rooms)",
        *r.server.lines(strokes),
        "  CPU: " + "; ".join(cpu),
        f"  server RSS {r.rss_idle / 2**20:.0f} MiB idle -> {r.rss_loaded / 2**20:.0f} MiB "
        f"loaded ({per_conn_rss / 1024:.1f} KiB per connection); messages received "
        f"{st.messages}; errors {len(st.errors)} {sorted(set(st.errors))}; seq gaps {st.gaps}",
        "  garbage collector during the run: "
        + ", ".join(
            f"generation {g} {r.gc_collections[g]:.0f}x {r.gc_seconds[g] * 1000:.0f} ms"
            for g in range(3)
        )
        + f" ({r.gc_sweeps:.0f} of the full ones were sweeps of the frozen heap); longest "
        f"collection since the server started {r.gc_longest_s * 1000:.0f} ms",
    ]


def run(
    rooms: int | tuple[int, ...] = ROOM_SIZES,
    seconds: float | None = None,
    think: bool = THINK,
    warmup: float = WARMUP_SECONDS,
) -> list[str]:
    load_before = os.getloadavg()[0]
    sizes = (rooms,) if isinstance(rooms, int) else rooms
    if think:
        light = _one(LIGHT_ROOMS, LIGHT_SECONDS)
        loads = [_one(n, SECONDS if seconds is None else seconds) for n in sizes]
    else:
        light = _one(LIGHT_ROOMS, LIGHT_NO_THINK_SECONDS, False, LIGHT_WARMUP_SECONDS)
        measured = NO_THINK_SECONDS if seconds is None else seconds
        loads = [_one(n, measured, False, warmup) for n in sizes]
    lines = [
        f"{os.cpu_count()} cores, physics workers {WORKERS}; machine load average "
        f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after (above the core count, "
        "latencies measure the neighbours too)"
    ]
    for label, r in (("baseline", light), *(("load", full) for full in loads)):
        lines += report(label, r)
    if think:
        base = light.window(True) or light.stats.latencies
        for full in loads:
            steady = full.window(True)
            lines.append(
                f"{full.rooms} rooms / baseline (steady state): p50 "
                f"{_pct(steady, 0.5) / _pct(base, 0.5):.2f}x, p99 "
                f"{_pct(steady, 0.99) / _pct(base, 0.99):.2f}x; start burst p99 "
                f"{_pct(full.window(False), 0.99) / _pct(base, 0.99):.2f}x"
            )
    else:
        base = light.measured()
        for full in loads:
            m = full.measured()
            lines.append(
                f"{full.rooms} rooms / baseline (measured window, no think time): p50 "
                f"{_pct(m, 0.5) / _pct(base, 0.5):.2f}x, p99 "
                f"{_pct(m, 0.99) / _pct(base, 0.99):.2f}x"
            )
    return lines


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--rooms", default=",".join(map(str, ROOM_SIZES)), help="one size or several: 1000,2000"
    )
    parser.add_argument("--seconds", type=float, default=None, help="measured seconds")
    parser.add_argument(
        "--no-think",
        dest="think",
        action="store_false",
        default=THINK,
        help="players strike as soon as the balls rest (CAROM_BENCH_THINK=0)",
    )
    parser.add_argument(
        "--warmup", type=float, default=WARMUP_SECONDS, help="unmeasured seconds (no-think mode)"
    )
    a = parser.parse_args()
    rooms = tuple(int(n) for n in str(a.rooms).split(","))
    for line in run(rooms, a.seconds, a.think, a.warmup):
        print(line)
