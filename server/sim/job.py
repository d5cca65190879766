"""One physics job, in a worker process or on the event loop: a job in, the result and its
wire forms out.

``run_job`` does one simulation and builds the wire forms (the encoded trajectory, the event
list) there too, so the event loop only forwards them. This module is all a physics worker
(``python -m server.sim.worker``) imports of the server: no asyncio, no subprocess, no logging,
so a worker starts in less time than the pool that talks to it (server/sim/pool.py).

Importing it also registers the compact pickled forms of the results, which both ends of a
worker's pipe use.
"""

from __future__ import annotations

import copyreg
import dataclasses
import time
from dataclasses import replace
from typing import Any

from server.core.sim_jobs import SimJob, SimOutcome
from shared.physics.types import BallState, Event, Segment, ShotResult
from shared.protocol.views import EventView
from shared.table import table_by_name
from shared.wireviews import event_views


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
        events = event_views(result.events)
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
