"""Small filters over the physics event log, in the style of pooltool's ``filter_events``.

Scoring rules are written as compositions of these, e.g. the first object ball the cue ball
touched is ``first(filter_events(events, by_kind("ball_ball"), by_ball(cue)))``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from shared.physics.types import Event, EventKind
from shared.table import BallName

EventFilter = Callable[[int, Event], bool]  # (index in the log, event) -> keep?


def filter_events(events: Sequence[Event], *filters: EventFilter) -> list[tuple[int, Event]]:
    """The events (with their index in the log) that pass every filter, in log order."""
    out: list[tuple[int, Event]] = []
    for i, e in enumerate(events):
        # A plain loop, not all(genexpr): bots judge hundreds of candidate strokes per turn.
        for f in filters:
            if not f(i, e):
                break
        else:
            out.append((i, e))
    return out


def by_kind(*kinds: EventKind) -> EventFilter:
    return lambda _i, e: e.kind in kinds


def by_ball(*balls: BallName) -> EventFilter:
    """Events that involve every one of ``balls``."""
    return lambda _i, e: all(b in e.balls for b in balls)


def before(index: int | None) -> EventFilter:
    """Events strictly before log position ``index`` (None: no bound)."""
    return lambda i, _e: index is None or i < index


def first(found: Iterable[tuple[int, Event]]) -> tuple[int, Event] | None:
    return next(iter(found), None)


def other_ball(event: Event, ball: BallName) -> BallName:
    """The ball ``ball`` collided with in a ball_ball event."""
    a, b = event.balls
    return b if a == ball else a


def object_ball_contacts(events: Sequence[Event], cue: BallName) -> list[tuple[int, BallName]]:
    """Each object ball the cue ball touched, once, in order of first contact (log index)."""
    seen: list[tuple[int, BallName]] = []
    for i, e in filter_events(events, by_kind("ball_ball"), by_ball(cue)):
        other = other_ball(e, cue)
        if all(b != other for _, b in seen):
            seen.append((i, other))
    return seen


def cushions_before(events: Sequence[Event], ball: BallName, index: int | None) -> int:
    """Cushion contacts of ``ball`` before log position ``index`` (R-DISC-3C, R-DISC-1C)."""
    return len(filter_events(events, by_kind("ball_cushion"), by_ball(ball), before(index)))


def off_table_balls(events: Sequence[Event]) -> list[BallName]:
    """R-OFF-1: every ball that left the table, in order."""
    out: list[BallName] = []
    for _, e in filter_events(events, by_kind("off_table")):
        out.extend(b for b in e.balls if b not in out)
    return out
