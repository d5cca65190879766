"""Carom physics: a stroke in, an event log, a trajectory and the final state out.

``simulate`` and ``simulate_lag`` need pymunk and load it on first use (PEP 562), so that
``import shared.physics`` / ``shared.physics.types`` stays cheap and pymunk-free for the
referee, the bots' readers and the clients.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.strike import aim_direction, masse_heading
from shared.physics.trajectory import (
    decode_trajectory,
    encode_trajectory,
    height_at,
    position_at,
    state_at,
)
from shared.physics.types import (
    BallState,
    Event,
    EventKind,
    PositionError,
    Segment,
    ShotResult,
    Stroke,
    StrokeError,
)

if TYPE_CHECKING:
    from shared.physics.engine import simulate, simulate_lag

__all__ = [
    "DEFAULT_SPEC",
    "BallState",
    "Event",
    "EventKind",
    "PhysicsSpec",
    "PositionError",
    "Segment",
    "ShotResult",
    "Stroke",
    "StrokeError",
    "aim_direction",
    "decode_trajectory",
    "encode_trajectory",
    "height_at",
    "masse_heading",
    "position_at",
    "simulate",
    "simulate_lag",
    "state_at",
]


def __getattr__(name: str) -> Any:
    if name in ("simulate", "simulate_lag"):
        from shared.physics import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'shared.physics' has no attribute {name!r}")
