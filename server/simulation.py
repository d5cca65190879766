"""Physics off the event loop: a job in, the result and its wire forms out.

``run_job`` is a top-level function so a ``ProcessPoolExecutor`` can pickle it. The wire forms
(the encoded trajectory, the event list) are built in the worker too, so the event loop only
forwards bytes. Measured on the reference machine (docs/server.md): a three-cushion stroke costs
1–3 ms of CPU and its result pickles to ~4 KB, so a pool of processes adds about a millisecond of
latency and keeps a slow stroke (or a physics bug that spins) from stalling every room.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import BrokenExecutor, Executor, ProcessPoolExecutor, ThreadPoolExecutor
from multiprocessing import get_context
from typing import Any

from server.room import SimJob, SimOutcome
from shared.physics.types import Event
from shared.table import table_by_name


def event_wire(e: Event) -> dict[str, Any]:
    """One entry of ``stroke_played.events``."""
    out: dict[str, Any] = {"t": e.t, "kind": e.kind, "balls": list(e.balls)}
    if e.cushion is not None:
        out["cushion"] = e.cushion
    if e.speeds:
        out["speeds"] = list(e.speeds)
    return out


def run_job(job: SimJob) -> SimOutcome:
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
        events = [event_wire(e) for e in result.events]
    except Exception as exc:  # a physics bug must not take the room down; report it
        return SimOutcome(
            job.job, None, {}, [], time.process_time() - start, f"{type(exc).__name__}: {exc}"
        )
    return SimOutcome(job.job, result, trajectory, events, time.process_time() - start)


def warm_up() -> bool:
    """Import the engine in a fresh worker before the first stroke needs it."""
    from shared.physics import engine  # noqa: F401

    return True


class PhysicsPool:
    """The executor physics runs in, replaced if a worker process dies.

    A dead worker (killed by the OOM killer, a segfault in a C extension) breaks a
    ``ProcessPoolExecutor`` for good: every later job would fail. The job that was running fails
    (its room answers ``internal_error`` and nothing changes); the next job gets a fresh pool.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.executor = self._new()

    def _new(self) -> Executor:
        if self.workers > 0:
            # spawn, not fork: forking a process that runs an event loop and threads is unsafe.
            return ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"))
        return ThreadPoolExecutor(1, thread_name_prefix="physics")

    async def warm_up(self) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self.executor, warm_up) for _ in range(max(1, self.workers)))
        )

    async def run(self, job: SimJob) -> SimOutcome:
        loop = asyncio.get_running_loop()
        used = self.executor
        try:
            return await loop.run_in_executor(used, run_job, job)
        except BrokenExecutor as exc:
            broken = used
            if broken is self.executor:  # the first job to notice replaces the pool
                self.executor = self._new()
                broken.shutdown(wait=False, cancel_futures=True)
            return SimOutcome(job.job, None, {}, [], 0.0, f"physics worker died: {exc}")

    def shutdown(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
