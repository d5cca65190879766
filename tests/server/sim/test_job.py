"""One physics job as a worker or the event loop runs it (server/sim/job.py): the result and
its wire forms, a physics failure reported instead of raised, and the compact pickled form
the results cross a worker's pipe in."""

from __future__ import annotations

import pickle

from server.core.sim_jobs import SimJob
from server.sim.job import run_job
from shared.physics import encode_trajectory, simulate
from shared.physics.types import Stroke
from shared.rules.placement import break_position
from shared.table import BALLS, MATCH
from shared.wireviews import event_views


def _job(segments: bool = True, balls: dict[str, tuple[float, float]] | None = None) -> SimJob:
    start = balls or dict(zip(BALLS, break_position(MATCH, "white"), strict=True))
    cue = {"white": Stroke(direction=80.0, speed=2.5, tip_x=0.2)}
    return SimJob(7, "stroke", "match", start, cue, 0, None, 0, segments)  # type: ignore[arg-type]


def test_a_stroke_comes_back_with_the_engines_result_and_its_wire_forms() -> None:
    job = _job()
    out = run_job(job)
    direct = simulate(MATCH, job.balls, "white", job.strokes["white"])
    assert out.job == 7 and out.failure is None and out.result is not None
    assert out.result.final == direct.final
    assert out.trajectory == dict(encode_trajectory(direct.trajectory))
    assert out.events == event_views(direct.events)
    assert out.began_s <= out.ended_s and out.cpu_s >= 0.0


def test_without_segments_the_result_leaves_the_paths_out_but_not_the_wire_form() -> None:
    out = run_job(_job(segments=False))
    assert out.result is not None and out.result.trajectory == {}
    assert out.trajectory  # the wire form still travels to the clients


def test_a_physics_failure_is_reported_not_raised() -> None:
    """Two balls on one spot: the engine refuses the position; the room gets a failure it can
    answer with, and the worker goes on."""
    out = run_job(_job(balls={"white": (1.0, 0.7), "yellow": (1.0, 0.7), "red": (2.0, 0.7)}))
    assert out.result is None and out.trajectory == {} and out.events == ()
    assert out.failure is not None and out.failure.startswith("PositionError: ")
    assert "overlap" in out.failure


def test_an_outcome_crosses_a_pipe_unchanged() -> None:
    out = run_job(_job())
    back = pickle.loads(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == out
    assert back.result is not None and out.result is not None
    assert back.result.events == out.result.events and back.events == out.events
