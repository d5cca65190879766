"""The pattern of a stroke as a client or the store has it: the wire's events and trajectory.

The wire's events carry no positions (docs/protocol.md); the trajectory does, so a
``stroke_played`` (live or from a replay) is read exactly as the server's own result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from shared.analysis.patterns import Reading, classify
from shared.physics.types import Event, EventKind
from shared.protocol.to_client import StrokePlayed
from shared.protocol.views import EventView
from shared.table import TableSpec


def events_from_views(views: Sequence[EventView]) -> tuple[Event, ...]:
    """The physics events of a wire event list (kind, balls, cushion, time, speeds)."""
    return tuple(
        Event(
            v.t,
            cast(EventKind, str(v.kind)),  # the wire's word is the physics' kind
            v.balls,
            v.cushion,
            tuple(v.speeds or ()),
        )
        for v in views
    )


def classify_played(msg: StrokePlayed, table: TableSpec) -> Reading | None:
    """The name of the point a ``stroke_played`` scored in three-cushion, or None."""
    cue = msg.stroke.ball
    return classify(events_from_views(msg.events), msg.trajectory.segments(), cue, table)
