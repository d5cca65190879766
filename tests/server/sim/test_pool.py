"""Physics off the event loop: worker processes run the jobs; a dead worker is replaced."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

from server.core.events import EventBus
from server.core.room import Room, settings_from_wire
from server.core.sim_jobs import SimJob
from server.net.actor import RoomActor, Simulated
from server.net.metrics import Metrics
from server.sim.job import run_job
from server.sim.pool import PhysicsPool
from server.store.sqlite import Store
from shared.physics import Stroke, decode_trajectory
from shared.physics.trajectory import segments_close
from shared.protocol import to_server as ts
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
        # The wire forms decode to the engine's segments (the slow ends of rolls, which the
        # wire leaves out, rebuilt within rounding).
        assert outs[0].result is not None
        wire = decode_trajectory(outs[0].trajectory)
        assert wire.keys() == outs[0].result.trajectory.keys()
        for b, segs in outs[0].result.trajectory.items():
            assert len(wire[b]) == len(segs) and all(map(segments_close, wire[b], segs))
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


def _lag(n: int) -> SimJob:
    from shared.rules.placement import lag_position

    white, yellow, red = lag_position(MATCH)
    balls = {"white": white, "yellow": yellow, "red": red}
    strokes = {"white": Stroke(0.0, 1.4), "yellow": Stroke(0.0, 1.6)}
    return SimJob(n, "lag", "match", balls, strokes, None, None, 0)


async def test_a_stroke_overtakes_the_lags_already_in_the_workers_pipe() -> None:
    """A start burst: 60 lags are handed to the one worker, then a stroke. The worker runs
    the stroke next instead of after every lag (before, it read its pipe in order; the server
    kept only 16 jobs in it, and at 2 000 rooms that limit left strokes waiting ~1.4 s)."""
    pool = PhysicsPool(1)
    try:
        await pool.warm_up()
        done: list[str] = []

        async def run(job: SimJob) -> None:
            out = await pool.run(job)
            assert out.result is not None, out.failure
            done.append(job.kind)

        lags = [asyncio.create_task(run(_lag(i))) for i in range(1, 61)]
        await asyncio.sleep(0)  # every lag is written to the pipe first
        await asyncio.gather(run(_job(100)), *lags)
        assert len(done) == 61
        assert done.index("stroke") < 10, done  # behind at most the few already taken in
    finally:
        await pool.shutdown()


def test_the_worker_queues_what_it_reads_strokes_first() -> None:
    import pickle

    from server.sim.worker import HEADER, Inbox

    r, w = os.pipe()
    try:
        os.set_blocking(r, False)
        frames = b""
        for key, job in ((1, _lag(1)), (2, _lag(2)), (3, _job(3)), (4, _lag(4)), (5, _job(5))):
            data = pickle.dumps((key, job))
            frames += HEADER.pack(len(data)) + data
        os.write(w, frames[:-7])  # the last frame is cut: it waits for the rest
        inbox = Inbox(r)
        inbox.take_in(0.0)
        assert [inbox.next()[0] for _ in range(4)] == [3, 1, 2, 4]  # type: ignore[index]
        assert inbox.next() is None and not inbox.eof
        os.write(w, frames[-7:])
        os.close(w)
        w = -1
        inbox.take_in(None)
        assert inbox.next()[0] == 5 and inbox.eof  # type: ignore[index]
    finally:
        os.close(r)
        if w != -1:
            os.close(w)


async def test_a_result_reaches_its_room_in_the_loop_iteration_that_reads_it(
    tmp_path: Path,
) -> None:
    """At 2 000 rooms a result used to cross three more loop iterations after its bytes were
    readable (a reader task woke, resolved a future, which woke a task per job, which posted
    to the room), and each iteration of a busy loop is long. Here every iteration is made long
    (a callback that blocks 20 ms, as a busy loop's work would), and we count the iterations
    that begin between the worker finishing the simulation and the result being in the room's
    inbox: at most the one in which it finished (then it is read at the next select). Three
    results are timed and the best counts: on a busy machine the worker can be descheduled
    between finishing and writing, which no design can help; the old route took three more
    iterations every time."""
    pool = PhysicsPool(1)
    store = Store(str(tmp_path / "carom.db"))
    try:
        await pool.warm_up()
        room = Room("r1", settings_from_wire(ts.CreateRoom(discipline="three_cushion")), 0)
        actor = RoomActor(
            room,
            store,
            pool,
            lambda *a: None,
            lambda *a: None,
            Metrics(),
            lambda a: None,
            EventBus(),
        )
        loop = asyncio.get_running_loop()
        counts = []
        for job in (1, 2, 3):
            began: list[float] = []  # when each busy iteration's work began
            arrived = loop.create_future()

            def busy(began: list[float] = began, arrived: asyncio.Future[float] = arrived) -> None:
                if not actor.inbox.empty() and not arrived.done():
                    arrived.set_result(time.monotonic())
                    return
                began.append(time.monotonic())
                time.sleep(0.02)
                loop.call_soon(busy)

            loop.call_soon(busy)
            actor._submit(_job(job))
            seen = await asyncio.wait_for(arrived, 30)
            item = actor.inbox.get_nowait()
            assert isinstance(item, Simulated) and item.outcome.result is not None
            ended = item.outcome.ended_s
            assert 0 < ended < seen
            counts.append(len([t for t in began if ended < t < seen]))
        assert min(counts) <= 1, counts
    finally:
        await pool.shutdown()
        store.close()
