"""Physics off the event loop: worker processes run the jobs; a dead worker is replaced."""

from __future__ import annotations

import asyncio
import os
import signal

from server.room import SimJob
from server.simulation import PhysicsPool, run_job
from shared.physics import Stroke, decode_trajectory
from shared.rules.placement import break_position
from shared.table import BALLS, MATCH


def _job(n: int, direction: float = 90.0) -> SimJob:
    balls = dict(zip(BALLS, break_position(MATCH, "white"), strict=True))
    return SimJob(n, "stroke", "match", balls, {"white": Stroke(direction, 1.0)}, 0, None, 0)


async def test_worker_processes_match_the_in_process_engine() -> None:
    pool = PhysicsPool(2)
    try:
        await pool.warm_up()
        jobs = [_job(i, 10.0 * i) for i in range(1, 9)]
        outs = await asyncio.gather(*(pool.run(j) for j in jobs))
        for job, out in zip(jobs, outs, strict=True):
            local = run_job(job)
            assert out.job == job.job and out.result is not None, out.failure
            assert out.result.final == local.result.final  # type: ignore[union-attr]
            assert out.trajectory == local.trajectory and out.events == local.events
        # The wire forms decode to the exact segments.
        assert outs[0].result is not None
        assert decode_trajectory(outs[0].trajectory) == {
            b: tuple(s) for b, s in outs[0].result.trajectory.items()
        }
    finally:
        await pool.shutdown()


async def test_a_dead_worker_fails_its_stroke_and_is_replaced() -> None:
    pool = PhysicsPool(1)
    try:
        await pool.warm_up()
        ok = await pool.run(_job(1))
        assert ok.result is not None and ok.failure is None and ok.cpu_s > 0
        (pid,) = pool.pids()
        os.kill(pid, signal.SIGKILL)  # the OOM killer, a segfault …
        failed = await pool.run(_job(2))
        assert failed.result is None and failed.failure and "died" in failed.failure
        again = await pool.run(_job(3))
        assert again.result is not None and pool.pids() != [pid]
        assert again.result.final == ok.result.final  # deterministic across processes
    finally:
        await pool.shutdown()
