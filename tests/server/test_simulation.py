"""Physics off the event loop: a worker process runs the job; a dead worker is replaced."""

from __future__ import annotations

import os
import signal
from concurrent.futures import ProcessPoolExecutor

from server.room import SimJob
from server.simulation import PhysicsPool
from shared.physics import Stroke, decode_trajectory
from shared.rules.placement import break_position
from shared.table import BALLS, MATCH


def _job(n: int) -> SimJob:
    balls = dict(zip(BALLS, break_position(MATCH, "white"), strict=True))
    return SimJob(n, "stroke", "match", balls, {"white": Stroke(90.0, 1.0)}, 0, None, 0)


async def test_a_dead_worker_fails_one_stroke_and_the_pool_recovers() -> None:
    pool = PhysicsPool(1)
    try:
        await pool.warm_up()
        ok = await pool.run(_job(1))
        assert ok.result is not None and ok.failure is None and ok.cpu_s > 0
        # The wire forms are built in the worker and decode to the same segments.
        assert decode_trajectory(ok.trajectory) == {
            b: tuple(s) for b, s in ok.result.trajectory.items()
        }
        assert ok.events[0]["kind"] == "strike"
        executor = pool.executor
        assert isinstance(executor, ProcessPoolExecutor)
        for pid in list(executor._processes):  # the OOM killer, a segfault …
            os.kill(pid, signal.SIGKILL)
        failed = await pool.run(_job(2))
        assert failed.result is None and failed.failure and "died" in failed.failure
        again = await pool.run(_job(3))
        assert again.result is not None and pool.executor is not executor
        assert again.result.final == ok.result.final  # deterministic across processes
    finally:
        pool.shutdown()
