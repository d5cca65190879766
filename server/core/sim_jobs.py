"""A physics run and what comes back from it: the one thing the room core and the physics
worker processes (``server.sim``) both need.

Kept apart from ``room.py`` so that a worker process loads the physics, the table and the
protocol's event view, not the room core, the referee's whole package and every protocol
message: a worker starts on about a quarter less CPU (docs/benchmarks.md, round 11), which a
crashed worker's replacement and every server a test starts wait for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from shared.physics.types import ShotResult
from shared.physics.types import Stroke as Cue
from shared.table import BallName, Point

if TYPE_CHECKING:
    from shared.protocol import views as pv
    from shared.rules.placement import Side


@dataclass(frozen=True, slots=True)
class SimJob:
    """A physics run for the actor to do off the event loop."""

    job: int
    kind: Literal["stroke", "lag"]
    table: str
    balls: dict[BallName, Point]
    strokes: dict[BallName, Cue]  # the struck ball(s)
    seat: int | None  # the side that struck (None: the lag, both sides)
    spot: Side | None
    received_ms: int
    # The referee reads the balls' paths only to judge zones (straight rail, balkline:
    # R-DISC-FREE, R-DISC-BALK); otherwise the worker leaves them out of the result it sends
    # back, which halves what the event loop has to unpickle (the wire form travels anyway).
    segments: bool = True
    slot: int = 0  # R-TEAM-1: the partner of ``seat`` who struck


@dataclass(frozen=True, slots=True)
class SimOutcome:
    """What the worker sends back: the result plus its wire forms, built off the loop."""

    job: int
    result: ShotResult | None
    trajectory: dict[str, Any]
    # The protocol's events, built in the worker: at 2 000 rooms decoding them from their maps
    # on the event loop (``EventView.from_wire``) was ~6 % of the loop's time.
    events: tuple[pv.EventView, ...]
    cpu_s: float
    failure: str | None = None
    # When the worker began and finished the job (time.monotonic(): one clock for every process
    # on the machine), so the server can tell the wait before the physics from the physics
    # itself and from the way back (/metrics carom_simulation_*).
    began_s: float = 0.0
    ended_s: float = 0.0
    read_s: float = 0.0  # when the event loop read it from the worker's pipe (same clock)
