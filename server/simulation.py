"""Physics off the event loop: a job in, the result and its wire forms out.

``run_job`` does one simulation; the wire forms (the encoded trajectory, the event list) are
built there too, so the event loop only forwards them. ``PhysicsPool`` runs jobs in worker
processes (``python -m server.worker``) that it talks to over their stdin/stdout pipes with
asyncio streams: no helper threads at all.

Why not ``concurrent.futures.ProcessPoolExecutor``: measured under load (bench/server_load.py,
docs/server.md) its feeder and result threads must take the GIL from the busy event-loop thread
at every hand-off, which cost ~20 ms per stroke at light load and 1.5 s at 600 rooms, for 1.4 ms
of physics. Over plain pipes read by the event loop a round trip costs well under a millisecond.
"""

from __future__ import annotations

import asyncio
import contextlib
import copyreg
import dataclasses
import heapq
import itertools
import logging
import pickle
import struct
import sys
import time
from dataclasses import replace
from typing import Any

from server.room import SimJob, SimOutcome, event_views
from shared.physics.trajectory import event_wire
from shared.physics.types import BallState, Event, Segment, ShotResult
from shared.protocol.views import EventView
from shared.table import table_by_name


def run_job(job: SimJob) -> SimOutcome:
    began = time.monotonic()
    start = time.process_time()
    try:
        from shared.physics import encode_trajectory, simulate, simulate_lag

        table = table_by_name(job.table)
        if job.kind == "lag":
            result = simulate_lag(table, job.balls, job.strokes)
        else:
            ((ball, stroke),) = job.strokes.items()
            result = simulate(table, job.balls, ball, stroke)
        trajectory: dict[str, Any] = dict(encode_trajectory(result.trajectory))
        events = event_views([event_wire(e) for e in result.events])
        if not job.segments:
            result = replace(result, trajectory={})  # see SimJob.segments
    except Exception as exc:  # a physics bug must not take the room down; report it
        failure = f"{type(exc).__name__}: {exc}"
        cpu = time.process_time() - start
        return SimOutcome(job.job, None, {}, (), cpu, failure, began, time.monotonic())
    cpu = time.process_time() - start
    return SimOutcome(job.job, result, trajectory, events, cpu, None, began, time.monotonic())


def warm_up() -> bool:
    """Import the engine in a fresh worker before the first stroke needs it."""
    from shared.physics import engine  # noqa: F401

    return True


def _pickled_by_fields(cls: type[Any]) -> None:
    """Pickle ``cls`` (a dataclass without validation) as a call of the class with its fields.

    A slotted dataclass otherwise unpickles through ``dataclasses._dataclass_setstate``, Python
    code that looks up the field list for every object: a result holds ~50 of them (events and
    the balls' states after each), and unpickling results was ~10 % of the event loop's time at
    2 000 rooms (docs/benchmarks.md); this way takes ~20 % less."""
    names = tuple(f.name for f in dataclasses.fields(cls))

    def reduce(obj: Any) -> tuple[type[Any], tuple[Any, ...]]:
        return cls, tuple(getattr(obj, n) for n in names)

    copyreg.pickle(cls, reduce)


for _cls in (BallState, Event, Segment, ShotResult, SimOutcome):
    _pickled_by_fields(_cls)


_VIEW_FIELDS: dict[type[Any], tuple[str, ...]] = {}


def _view(cls: type[Any], values: tuple[Any, ...]) -> Any:
    """A view back from its field values, without checking them again (the worker built it
    through its checks; this is the same code on the other end of a private pipe)."""
    obj = object.__new__(cls)
    for name, value in zip(_VIEW_FIELDS[cls], values, strict=True):
        object.__setattr__(obj, name, value)
    return obj


def _pickled_view(cls: type[Any]) -> None:
    names = _VIEW_FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))

    def reduce(obj: Any) -> tuple[Any, tuple[Any, ...]]:
        return _view, (cls, tuple(getattr(obj, n) for n in names))

    copyreg.pickle(cls, reduce)


_pickled_view(EventView)

log = logging.getLogger("carom.physics")
# Jobs in each worker's pipe at once. The worker itself runs strokes before lags among what
# it has received (server/worker.py), so the pipe may hold many: the bound is only a guard on
# memory; past it, jobs wait in Slots, strokes first too.
IN_FLIGHT = 256
_HEADER = struct.Struct("!I")  # frame length; each frame is one pickle


class Worker:
    """One ``python -m server.worker`` process and the jobs it has been given."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pending: dict[int, asyncio.Future[SimOutcome]] = {}
        self.alive = True
        self.reader = asyncio.create_task(self._read())
        self._outbox: list[bytes] = []  # frames to write at the end of this loop iteration

    @classmethod
    async def start(cls) -> Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "server.worker",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=2**26,
        )
        return cls(proc)

    async def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while True:
                (size,) = _HEADER.unpack(await stdout.readexactly(_HEADER.size))
                key, outcome = pickle.loads(await stdout.readexactly(size))
                future = self.pending.pop(key, None)
                if future is not None and not future.done():
                    future.set_result(replace(outcome, read_s=time.monotonic()))
        except (asyncio.IncompleteReadError, ConnectionError, pickle.UnpicklingError) as exc:
            self._die(f"physics worker died ({type(exc).__name__})")

    def _die(self, why: str) -> None:
        self.alive = False
        for future in self.pending.values():
            if not future.done():
                future.set_exception(RuntimeError(why))
        self.pending.clear()

    async def run(self, key: int, job: SimJob) -> SimOutcome:
        stdin = self.proc.stdin
        assert stdin is not None
        if not self.alive:
            raise RuntimeError("physics worker died")
        future: asyncio.Future[SimOutcome] = asyncio.get_running_loop().create_future()
        self.pending[key] = future
        data = pickle.dumps((key, job), protocol=pickle.HIGHEST_PROTOCOL)
        if not self._outbox:
            # Every job submitted in this loop iteration goes in one write (a start burst
            # submits hundreds at once; one system call each was ~3 % of the loop's time).
            asyncio.get_running_loop().call_soon(self._flush)
        self._outbox += (_HEADER.pack(len(data)), data)
        return await future

    def _flush(self) -> None:
        stdin = self.proc.stdin
        assert stdin is not None
        data, self._outbox = b"".join(self._outbox), []
        if stdin.is_closing():
            self._die("physics worker died (its pipe is closed)")
            return
        try:
            stdin.write(data)  # the pipe is wide (server/worker.py); asyncio buffers the rest
        except (ConnectionError, RuntimeError) as exc:
            self._die(f"physics worker died ({type(exc).__name__})")

    async def stop(self) -> None:
        self.alive = False
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


class Slots:
    """At most ``n`` jobs handed to the workers at once; the others wait here, strokes before
    lags, each kind in arrival order.

    Measured (docs/benchmarks.md, 1 000 rooms starting together): the lag burst put up to ~440
    jobs into one worker's pipe at once, and a stroke written behind them waited ~0.4–1 s for
    0.4 ms of physics, because the worker read its pipe as a FIFO. The worker now reorders what
    it has received (strokes first, server/worker.py); this bound (IN_FLIGHT per worker) only
    keeps memory in check. With 16 jobs per worker it also capped the physics at 16 jobs per
    round trip through the busy event loop: at 2 000 rooms lags waited ~7 s and strokes
    ~1.4 s on average for an idle worker.
    """

    def __init__(self, n: int) -> None:
        self.free = n
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    async def acquire(self, priority: int) -> None:
        if self.free > 0 and not self._waiting:
            self.free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), turn))
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # granted just as we were cancelled: pass it on
            else:
                self._waiting = [w for w in self._waiting if w[2] is not turn]
                heapq.heapify(self._waiting)
            raise

    def release(self) -> None:
        while self._waiting:
            _, _, turn = heapq.heappop(self._waiting)
            if not turn.done():
                turn.set_result(None)  # the slot goes straight to the next in line
                return
        self.free += 1


class PhysicsPool:
    """Worker processes for the physics; ``workers == 0`` runs it on the event loop itself
    (tests and tiny servers: a stroke blocks the loop for its 1–5 ms).

    A worker that dies (the OOM killer, a crash in a C extension) fails only the jobs it held
    (their rooms answer ``internal_error`` and nothing changes) and is replaced on the next job.
    """

    def __init__(self, workers: int) -> None:
        self.size = workers
        self.workers: list[Worker] = []
        self._keys = itertools.count(1)
        self._replacing = asyncio.Lock()
        self.slots = Slots(max(1, workers) * IN_FLIGHT)

    async def warm_up(self) -> None:
        self.workers = [await Worker.start() for _ in range(self.size)]

    async def run(self, job: SimJob) -> SimOutcome:
        if self.size == 0:
            return run_job(job)
        if not all(w.alive for w in self.workers):
            async with self._replacing:  # one replacement, however many jobs noticed
                for i, w in enumerate(self.workers):
                    if not w.alive:
                        log.warning("replacing a dead physics worker")
                        await w.stop()
                        self.workers[i] = await Worker.start()
        await self.slots.acquire(0 if job.kind == "stroke" else 1)
        try:
            worker = min(self.workers, key=lambda w: len(w.pending))
            return await worker.run(next(self._keys), job)
        except RuntimeError as exc:
            return SimOutcome(job.job, None, {}, (), 0.0, str(exc))
        finally:
            self.slots.release()

    def pids(self) -> list[int]:
        return [w.proc.pid for w in self.workers]

    async def shutdown(self) -> None:
        for w in self.workers:
            await w.stop()
