"""Domain events: what happened in a room that other parts of the server react to.

The room core puts them among its effects (``Effects.events``) where the thing happens: a match
began, a stroke was played, a match finished. The room's actor publishes them on the server's
:class:`EventBus` only after the effects are durable, so a subscriber never hears of something
a crash could take back. Subscribers are told in the order they subscribed; one that fails is
logged and counted, and the others are still told.

What must stay atomic with a result (its rating change) is applied inside the store's
transaction that records the result (``Store.finish_match``), not by a subscriber: after a kill
at the moment a match ends, the result and the ratings are both there or both not. The bus
tells the rest — the rated players' own changes, metrics, and what later features (a
tournament bracket, statistics) need — from the committed facts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

log = logging.getLogger("carom.events")


@dataclass(frozen=True, slots=True)
class MatchStarted:
    room_id: str
    match_id: int
    discipline: str
    players: tuple[str, ...]  # player ids, by seat
    at_ms: int


@dataclass(frozen=True, slots=True)
class StrokePlayed:
    room_id: str
    match_id: int | None
    seat: int
    points: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class MatchFinished:
    room_id: str
    match_id: int | None
    discipline: str
    players: tuple[str, ...]  # player ids, by seat
    winner: int | None  # the seat; None: a draw or abandoned
    reason: str
    at_ms: int


DomainEvent = MatchStarted | StrokePlayed | MatchFinished
Handler = Callable[[DomainEvent], None]


class EventBus:
    """In-process publish and subscribe (one per server process). In cluster mode each node's
    bus carries the events of the rooms that node runs; a subscriber that needs every room's
    events reads the store, which every node writes."""

    def __init__(self) -> None:
        self._handlers: list[tuple[type[DomainEvent] | None, Handler]] = []
        self.published = 0
        self.failures = 0

    def subscribe(self, handler: Handler, kind: type[DomainEvent] | None = None) -> None:
        """Call ``handler`` for each event (of ``kind`` only, if given)."""
        self._handlers.append((kind, handler))

    def publish(self, event: DomainEvent) -> None:
        self.published += 1
        for kind, handler in self._handlers:
            if kind is not None and not isinstance(event, kind):
                continue
            try:
                handler(event)
            except Exception:
                self.failures += 1
                log.exception("a subscriber failed on %s", type(event).__name__)
