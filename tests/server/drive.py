"""A room driven by hand (h11-style): the real sans-I/O room core, the real referee and the
real physics (run in this process), a fake clock, no sockets and no sleeping.

``Drive`` plays the actor's part (server/net/actor.py) for tests: it hands each physics job to the
engine at once, feeds the result back, sends the snapshot every connection gets after a match
starts, and fires the room's timers when the test moves the clock. What a connection would
have received is kept per connection, in order.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from server.core.events import DomainEvent
from server.core.room import ConnId, Effects, Member, Room, settings_from_wire
from server.sim.job import run_job
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage, ServerMessage

M = TypeVar("M", bound=ServerMessage)

START_MS = 1_000_000  # the fake clock's first reading (server milliseconds)


@dataclass
class Drive:
    room: Room
    now: int = START_MS
    inbox: dict[ConnId, list[ServerMessage]] = field(default_factory=lambda: defaultdict(list))
    log: dict[ConnId, list[ServerMessage]] = field(default_factory=lambda: defaultdict(list))
    strokes: list[str] = field(default_factory=list)  # kinds of the stroke log, as persisted
    people: dict[str, Member] = field(default_factory=dict)  # by name
    players: list[Member] = field(default_factory=list)  # seated, in seat order
    events: list[DomainEvent] = field(default_factory=list)  # what the actor would publish
    tokens: dict[str, str] = field(default_factory=dict)  # player id -> seat token
    _conns: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    @classmethod
    def create(cls, msg: ts.CreateRoom, now: int = START_MS) -> Drive:
        return cls(Room("r1", settings_from_wire(msg), now), now)

    # People --------------------------------------------------------------------------------
    def member(self, name: str, player_id: str | None = None) -> Member:
        """A new connection that said hello as ``name``."""
        who = Member(next(self._conns), player_id or f"p-{name}", name)
        self.people.setdefault(name, who)
        return who

    def seat_all(self) -> None:
        """carol watches; alice takes seat 0 and bob seat 1 (the match starts: the lag)."""
        self.spectate(self.member("carol"))
        for name in ("alice", "bob"):
            who = self.member(name)
            assert self.join(who).seat == len(self.players)
            self.players.append(who)

    def reconnect(self, who: Member) -> Member:
        """The same identity on a new connection."""
        return Member(next(self._conns), who.player_id, who.name)

    def join(self, who: Member, token: str | None = None) -> tc.Joined:
        token = token or f"seat-token-{who.player_id}"
        self.tokens[who.player_id] = token
        self._apply(self.room.join(who, ts.Join(room_id="r1"), "h:" + token, token, self.now))
        return self.expect(who, tc.Joined)

    def refused_entry(self, who: Member, msg: ts.Join) -> tc.Error:
        self._apply(self.room.join(who, msg, "h:unused", "unused", self.now))
        return self.expect(who, tc.Error)

    def spectate(self, who: Member) -> tc.Snapshot:
        self._apply(self.room.spectate(who, ts.Spectate(room_id="r1"), self.now))
        return self.expect(who, tc.Snapshot)

    def rejoin(self, who: Member, token: str) -> None:
        msg = ts.Rejoin(room_id="r1", seat_token=token)
        self._apply(self.room.rejoin(who, msg, "h:" + token, self.now))

    def send(self, who: Member, msg: ClientMessage) -> None:
        self._apply(self.room.handle(who, msg, self.now))

    def drop(self, who: Member) -> None:
        """The connection is gone (closed, or the network dropped it)."""
        self._apply(self.room.disconnect(who.conn, self.now))

    # Time ----------------------------------------------------------------------------------
    def advance(self, ms: int) -> None:
        """Move the clock ``ms`` on, firing every timer of the room that falls due on the way."""
        end = self.now + ms
        while True:
            wake = self.room.next_wake()
            if wake is None or wake > end:
                break
            self.now = max(self.now, wake)
            fx = self.room.tick(self.now)
            self._apply(fx)
            if not (fx.sends or fx.jobs or fx.strokes) and self.room.next_wake() == wake:
                break  # nothing due after all: do not spin
        self.now = end

    def until_rest(self) -> None:
        """Move the clock to when the last stroke's balls are at rest (R-PLAY-4)."""
        rest = self.room.state.resting_at_ms
        if rest is not None and rest > self.now:
            self.advance(rest - self.now)

    # What was received -----------------------------------------------------------------------
    def expect(self, who: Member, kind: type[M], where: Callable[[M], bool] | None = None) -> M:
        """The first unread message of ``kind`` (matching ``where``) ``who`` received."""
        box = self.inbox[who.conn]
        for i, m in enumerate(box):
            if isinstance(m, kind) and (where is None or where(m)):
                del box[i]
                return m
        raise AssertionError(f"{who.name} got no {kind.TYPE}; unread: {box}")

    def refused(self, who: Member, msg: ClientMessage) -> tc.Error:
        """Send ``msg`` and return the refusal it got (and check that only ``who`` heard)."""
        others = {c: len(box) for c, box in self.log.items() if c != who.conn}
        self.send(who, msg)
        after = {c: len(box) for c, box in self.log.items() if c != who.conn}
        assert after == {c: others.get(c, 0) for c in after}, "a refusal was broadcast"
        return self.expect(who, tc.Error)

    def read(self, who: Member) -> list[ServerMessage]:
        """Everything unread for ``who``, now marked read."""
        box, self.inbox[who.conn] = self.inbox[who.conn], []
        return box

    # The actor's part -------------------------------------------------------------------------
    def _apply(self, fx: Effects) -> None:
        room = self.room
        self.strokes.extend(s.kind for s in fx.strokes)
        self.events.extend(fx.events)
        for conns, msg in fx.sends:
            for conn in conns:
                self.inbox[conn].append(msg)
                self.log[conn].append(msg)
        if fx.snapshot_all:
            for conn in room.conns():
                snap = room.snapshot(room.seat_of(conn), now=self.now)
                self.inbox[conn].append(snap)
                self.log[conn].append(snap)
        for job in fx.jobs:
            # The result comes back at once; the room applies it at the time the stroke was
            # received, as it does when a worker answers later.
            self._apply(room.simulated(run_job(job), self.now))
