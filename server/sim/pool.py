"""Physics off the event loop: ``PhysicsPool`` runs jobs (server/sim/job.py) in worker
processes (``python -m server.sim.worker``) that it talks to over their stdin/stdout pipes with
asyncio streams: no helper threads at all.

Why not ``concurrent.futures.ProcessPoolExecutor``: measured under load (bench/server_load.py,
docs/server.md) its feeder and result threads must take the GIL from the busy event-loop thread
at every hand-off, which cost ~20 ms per stroke at light load and 1.5 s at 600 rooms, for 1.4 ms
of physics. Over plain pipes read by the event loop a round trip costs well under a millisecond.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import logging
import pickle
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace

from server.core.sim_jobs import SimJob, SimOutcome
from server.sim.job import run_job

log = logging.getLogger("carom.physics")
# Jobs in each worker's pipe at once. The worker itself runs strokes before lags among what
# it has received (server/sim/worker.py), so the pipe may hold many: the bound is only a guard on
# memory; past it, jobs wait in the pool, strokes first too.
IN_FLIGHT = 256
_HEADER = struct.Struct("!I")  # frame length; each frame is one pickle

Done = Callable[[SimOutcome], None]


class _Results(asyncio.Protocol):
    """The worker's stdout, read by the loop's own read callback: ``data_received`` runs in
    the loop iteration whose select saw the bytes. (asyncio's subprocess transport delivers a
    pipe's data one iteration later, through ``call_soon``; so the pipes are connected here.)"""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    def data_received(self, data: bytes) -> None:
        self.worker.received(data)

    def eof_received(self) -> bool | None:
        self.worker.die("physics worker died (its output closed)")
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.die("physics worker died (its output closed)")


class _Jobs(asyncio.BaseProtocol):
    """The worker's stdin (asyncio buffers what the pipe cannot take at once)."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.die("physics worker died (its input closed)")


class Worker:
    """One ``python -m server.sim.worker`` process and the jobs it has been given.

    Its results are read by the pipe's protocol (``_Results``) and handed to whoever submitted
    the job at once, in the loop iteration that reads them. Measured at 2 000 rooms without
    think time (docs/benchmarks.md, round 4): when they went through asyncio streams — the
    pipe's read callback woke a reader task, which resolved a future, which woke the task that
    had submitted the job, which posted the result to its room — every result crossed three
    more loop iterations, and each job was handed over by a task of its own and written at the
    end of the next iteration, so a 1–2 ms simulation waited tens of milliseconds on average,
    seconds at the tail, for a busy loop.
    """

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.stdin: asyncio.WriteTransport | None = None
        self.stdout: asyncio.ReadTransport | None = None
        # pool key -> the room's job number (a failure names it) and who gets the outcome
        self.pending: dict[int, tuple[int, Done]] = {}
        self.alive = True
        self._buf = bytearray()

    @classmethod
    async def start(cls) -> Worker:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.sim.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        assert proc.stdin is not None and proc.stdout is not None
        worker = cls(proc)
        loop = asyncio.get_running_loop()
        try:
            worker.stdout, _ = await loop.connect_read_pipe(lambda: _Results(worker), proc.stdout)
            worker.stdin, _ = await loop.connect_write_pipe(lambda: _Jobs(worker), proc.stdin)
        except BaseException:
            await worker.stop()
            raise
        return worker

    @property
    def pid(self) -> int:
        return self.proc.pid

    def received(self, data: bytes | bytearray) -> None:
        """Every complete result in what arrived goes to its job's ``done`` now."""
        buf = self._buf
        buf += data
        at = 0
        try:
            while len(buf) - at >= _HEADER.size:
                (size,) = _HEADER.unpack_from(buf, at)
                if len(buf) - at - _HEADER.size < size:
                    break
                start = at + _HEADER.size
                key, outcome = pickle.loads(buf[start : start + size])
                at = start + size
                entry = self.pending.pop(key, None)
                if entry is not None:
                    _call(entry[1], replace(outcome, read_s=time.monotonic()))
        except pickle.UnpicklingError as exc:
            self.die(f"physics worker died ({type(exc).__name__})")
        finally:
            if at:
                del buf[:at]

    def die(self, why: str) -> None:
        """Fail every job this worker holds (their rooms answer ``internal_error``)."""
        self.alive = False
        pending, self.pending = self.pending, {}
        for job, done in pending.values():
            _call(done, SimOutcome(job, None, {}, (), 0.0, why))

    def send(self, key: int, job: SimJob, done: Done) -> None:
        """Hand ``job`` to the worker now; ``done`` gets its outcome (or the failure).

        One write per job, at once: the worker starts on it while the loop goes on with its
        iteration. (Jobs used to be gathered and written at the end of the loop iteration, one
        write for a start burst's hundreds of lags; every stroke then waited one more loop
        iteration before the worker saw it. A write to the pipe costs ~10 µs, so the 2 000
        lags of a synchronized start cost the loop ~20 ms.)"""
        stdin = self.stdin
        if not self.alive or stdin is None or stdin.is_closing():
            self.die("physics worker died (its input is closed)")
            _call(done, SimOutcome(job.job, None, {}, (), 0.0, "physics worker died"))
            return
        self.pending[key] = (job.job, done)
        data = pickle.dumps((key, job), protocol=pickle.HIGHEST_PROTOCOL)
        try:
            # The pipe is wide (server/sim/worker.py); asyncio buffers what does not fit.
            stdin.write(_HEADER.pack(len(data)) + data)
        except (ConnectionError, RuntimeError) as exc:
            self.die(f"physics worker died ({type(exc).__name__})")

    async def stop(self) -> None:
        """Kill the process, wait for it (no zombie) and fail what it held."""
        self.alive = False
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        for transport, pipe in ((self.stdin, self.proc.stdin), (self.stdout, self.proc.stdout)):
            if transport is not None:
                transport.close()  # closes the pipe too
            elif pipe is not None:
                pipe.close()
        await asyncio.to_thread(self.proc.wait)
        self.die("physics worker stopped")


def _call(done: Done, outcome: SimOutcome) -> None:
    """``done(outcome)``; a failing callback (our bug) must not stop the other results."""
    try:
        done(outcome)
    except Exception:
        log.exception("a physics result's callback failed")


class PhysicsPool:
    """Worker processes for the physics; ``workers == 0`` runs it on the event loop itself
    (tests and tiny servers: a stroke blocks the loop for its 1–5 ms).

    ``submit`` hands a job over without a task of its own: the job is written to the least busy
    worker at the end of the loop iteration, and ``done`` is called from the pipe's read
    callback (``Worker``). Up to IN_FLIGHT jobs per worker are in the pipes; the others wait
    here, strokes before lags, each kind in arrival order, and go out as results come back.

    A worker that dies (the OOM killer, a crash in a C extension) fails only the jobs it held
    (their rooms answer ``internal_error`` and nothing changes) and is replaced on the next job.
    """

    def __init__(self, workers: int) -> None:
        self.size = workers
        self.workers: list[Worker] = []
        self._keys = itertools.count(1)
        self._order = itertools.count()
        self._waiting: list[tuple[int, int, SimJob, Done]] = []
        self._in_flight = 0
        self._limit = max(1, workers) * IN_FLIGHT
        self._replacing: asyncio.Task[None] | None = None
        self._closing = False

    async def warm_up(self) -> None:
        self.workers = [await Worker.start() for _ in range(self.size)]

    def submit(self, job: SimJob, done: Done) -> None:
        """Run ``job``; ``done`` gets the outcome (a failure has ``result`` None), from a loop
        callback, never before this returns (or at once with ``workers == 0``)."""
        if self.size == 0:
            done(run_job(job))
            return
        heapq.heappush(
            self._waiting, (0 if job.kind == "stroke" else 1, next(self._order), job, done)
        )
        self._dispatch()

    async def run(self, job: SimJob) -> SimOutcome:
        """``submit`` as a coroutine."""
        future: asyncio.Future[SimOutcome] = asyncio.get_running_loop().create_future()

        def done(outcome: SimOutcome) -> None:
            if not future.done():
                future.set_result(outcome)

        self.submit(job, done)
        return await future

    def _dispatch(self) -> None:
        """Hand waiting jobs to live workers while there is room in the pipes."""
        if self._closing:
            return
        if any(not w.alive for w in self.workers):
            self._replace()
        live = [w for w in self.workers if w.alive]
        while self._waiting and self._in_flight < self._limit and live:
            _, _, job, done = heapq.heappop(self._waiting)
            worker = min(live, key=lambda w: len(w.pending))
            self._in_flight += 1
            worker.send(next(self._keys), job, self._finisher(done))

    def _finisher(self, done: Done) -> Done:
        def finish(outcome: SimOutcome) -> None:
            self._in_flight -= 1
            _call(done, outcome)
            if self._waiting:
                self._dispatch()

        return finish

    def _replace(self) -> None:
        """Start replacements for dead workers, once however many jobs noticed; the jobs wait
        here meanwhile."""
        if self._replacing is None or self._replacing.done():
            self._replacing = asyncio.get_running_loop().create_task(self._replace_dead())

    async def _replace_dead(self) -> None:
        for i, w in enumerate(self.workers):
            if not w.alive:
                log.warning("replacing a dead physics worker")
                await w.stop()
                try:
                    self.workers[i] = await Worker.start()
                except OSError as exc:
                    log.error("could not start a physics worker: %s", exc)
        self._dispatch()

    def pids(self) -> list[int]:
        return [w.pid for w in self.workers]

    async def shutdown(self) -> None:
        self._closing = True
        if self._replacing is not None:
            self._replacing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._replacing
        for w in self.workers:
            await w.stop()
        waiting, self._waiting = self._waiting, []
        for _, _, job, done in waiting:
            _call(done, SimOutcome(job.job, None, {}, (), 0.0, "the server is shutting down"))
