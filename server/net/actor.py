"""The asyncio task that owns one room: its inbox, its timer, its physics jobs, its persistence.

Connection handlers never touch a room; they put items in its inbox. The task takes one item at a
time, hands it to the sans-I/O :class:`~server.core.room.Room` with the current server time, and
carries out the effects in a fixed order: persist first (a stroke is durable before anyone hears
of it, DESIGN.md "Life of a stroke" step 6), then update which connections are in the room, then
queue the messages, then start physics jobs.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgpack

from server.core.events import EventBus
from server.core.record import RoomRecord
from server.core.room import ConnId, Effects, Member, Room
from server.core.sim_jobs import SimJob, SimOutcome
from server.redact import redacted
from server.sim.pool import PhysicsPool
from server.store.api import GameStore
from shared import rules
from shared.protocol import ErrorCode, encode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage

if TYPE_CHECKING:
    from server.net.metrics import Metrics

log = logging.getLogger("carom.room")
RETRY_MS = 1000  # after a failed save, the room's timer tries again this much later


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True, slots=True)
class Inbound:
    """A client message for the room."""

    who: Member
    msg: ClientMessage


@dataclass(frozen=True, slots=True)
class Enter:
    """join / spectate / rejoin, after the lobby checked the password and hashed the token."""

    who: Member
    msg: ts.Join | ts.Spectate | ts.Rejoin
    token: str = ""
    token_hash: str = ""


@dataclass(frozen=True, slots=True)
class Gone:
    conn: ConnId


@dataclass(frozen=True, slots=True)
class Simulated:
    outcome: SimOutcome
    wall_s: float
    received_ms: int = 0  # when the stroke (or the second lag stroke) arrived
    submitted_s: float = 0.0  # time.monotonic() when the job was submitted


class Stop:
    """Persist and end the task (server shutdown)."""


class Close:
    """The room is empty and done: mark it closed in the store and end the task."""


Item = Inbound | Enter | Gone | Simulated | Stop | Close


class RoomActor:
    def __init__(
        self,
        room: Room,
        store: GameStore,
        physics: PhysicsPool,
        deliver: Callable[[tuple[ConnId, ...], bytes, bool], None],
        membership: Callable[[ConnId, RoomActor | None], None],
        metrics: Metrics,
        on_close: Callable[[RoomActor], None],
        events: EventBus,
    ) -> None:
        self.room = room
        self.events = events
        self.store = store
        self.physics = physics
        self.deliver = deliver
        self.membership = membership
        self.metrics = metrics
        self.on_close = on_close
        self.inbox: asyncio.Queue[Item] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None
        self.idle_since: int | None = now_ms()  # nobody is in a new or restored room
        self.retry_at = 0  # after a failed save, the timer waits until then (no busy retry)

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"room-{self.room.room_id}")
        self.task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("room %s stopped", self.room.room_id, exc_info=task.exception())
            self.metrics.internal_errors += 1

    def post(self, item: Item) -> None:
        self.inbox.put_nowait(item)

    def record(self) -> RoomRecord:
        return self.room.to_record()

    async def _run(self) -> None:
        while True:
            wake = self.room.next_wake()
            if wake is not None:
                wake = max(wake, self.retry_at)  # after a failed save, ticks wait a moment
            timeout = None if wake is None else max(0.0, (wake - now_ms()) / 1000)
            item: Item | None = None
            try:
                async with asyncio.timeout(timeout):
                    item = await self.inbox.get()
            except TimeoutError:
                item = None
            if isinstance(item, Stop):
                await self._persist_now()
                return
            if isinstance(item, Close):
                if self.room.is_empty() and self.room.pending is None and await self._close():
                    return
                continue
            now = now_ms()
            try:
                point = self.room.save_point()
                fx = self._dispatch(item, now)
                if await self._apply(fx, now, item, point):
                    wake = self.room.next_wake()
                    if wake is not None and wake <= now and self.retry_at <= now:
                        point = self.room.save_point()
                        await self._apply(self.room.tick(now), now, None, point)
            except Exception:
                # Our bug. The room's state is whatever the referee last returned (it is
                # immutable, so never half-changed); tell the sender and carry on.
                log.exception("room %s failed on %s", self.room.room_id, redacted(item))
                self.metrics.internal_errors += 1
                if isinstance(item, Inbound | Enter):
                    data = encode(error(ErrorCode.INTERNAL_ERROR, "Server error; nothing changed."))
                    self.deliver((item.who.conn,), data, False)
            self._track_idle(now)

    def _dispatch(self, item: Item | None, now: int) -> Effects:
        room = self.room
        if item is None:
            return room.tick(now)
        if isinstance(item, Inbound):
            if item.who.conn not in room.conns():
                fx = Effects()
                fx.to(
                    [item.who.conn],
                    error(ErrorCode.NOT_IN_ROOM, "You are not in this room.", item.msg.id),
                )
                return fx
            return room.handle(item.who, item.msg, now)
        if isinstance(item, Enter):
            if isinstance(item.msg, ts.Join):
                return room.join(item.who, item.msg, item.token_hash, item.token, now)
            if isinstance(item.msg, ts.Spectate):
                return room.spectate(item.who, item.msg, now)
            return room.rejoin(item.who, item.msg, item.token_hash, now)
        if isinstance(item, Gone):
            return room.disconnect(item.conn, now)
        if isinstance(item, Simulated):
            self.metrics.simulations += 1
            self.metrics.simulation_cpu_s += item.outcome.cpu_s
            self.metrics.simulation_wall_s += item.wall_s
            out = item.outcome
            if out.began_s:  # a worker's result (a replaced worker's failure has no stamps)
                self.metrics.observe_simulation(
                    item.submitted_s,
                    out.began_s,
                    out.ended_s,
                    out.read_s or out.ended_s,
                    time.monotonic(),
                )
            fx = room.simulated(item.outcome, now)
            if fx.strokes and any(s.kind == "stroke" for s in fx.strokes):
                self.metrics.strokes += 1
            return fx
        raise TypeError(f"unknown inbox item {item!r}")

    async def _apply(
        self, fx: Effects, now: int, item: Item | None, point: tuple[Any, ...]
    ) -> bool:
        """Carry out ``fx``: persist, then membership, sends and jobs. When the write fails the
        room goes back to ``point`` (as before the input) and nothing is sent but the refusal;
        returns whether the effects took place."""
        room = self.room
        # A stroke's record is its broadcast's wire form: encoded once, stored and sent.
        encoded = {
            id(e.sent): msgpack.packb(e.record, use_bin_type=True)
            for e in fx.strokes
            if e.sent is not None
        }
        if fx.new_match or fx.strokes or fx.save or fx.finished is not None:
            # Durable before anyone hears of it. Store.run runs inline on the event loop (~0.6 ms
            # a stroke, see Store's docstring), so every room waits that long too, by design.
            t0 = time.perf_counter()
            if fx.strokes and room.match_id is None:
                room.begin_match(fx, now)  # a row from before match ids were drawn by the room
            blobs = [
                (
                    e.kind,
                    e.seat,
                    e.played_ms,
                    encoded.get(id(e.sent)) or msgpack.packb(e.record, use_bin_type=True),
                )
                for e in fx.strokes
            ]
            try:
                await self.store.run(
                    self._persist,
                    room.to_record(),
                    fx.new_match,
                    room.match_players(),
                    blobs,
                    fx.finished,
                    now,
                )
            except (sqlite3.Error, OSError) as exc:
                self.metrics.store_s += time.perf_counter() - t0
                if not self._save_failed(item, point, exc, now):
                    return False
            else:
                self.retry_at = 0
                self.metrics.store_s += time.perf_counter() - t0
        for conn in fx.detach:
            self.membership(conn, None)
        for conn in fx.attach:
            self.membership(conn, self)
        if isinstance(item, Enter) and item.who.conn not in room.conns():
            self.membership(item.who.conn, None)  # refused (room full, bad token …)
        if isinstance(item, Simulated) and any(e.kind == "stroke" for e in fx.strokes):
            # Stroke received → stroke_played queued to everyone: the server's share of what a
            # player waits for (GET /metrics, carom_stroke_seconds).
            self.metrics.observe_stroke((now_ms() - item.received_ms) / 1000)
        for conns, msg in fx.sends:
            # Chat may be dropped for a client that is falling behind; game messages never.
            data = encoded.get(id(msg)) or encode(msg)
            self.deliver(conns, data, isinstance(msg, tc.ChatLine))
        if fx.snapshot_all:
            for conn in room.conns():
                self.deliver((conn,), encode(room.snapshot(room.seat_of(conn), now=now)), False)
        for job in fx.jobs:
            self._submit(job)
        # Durable and sent: now the rest of the server may react (server/core/events.py).
        for event in fx.events:
            self.events.publish(event)
        return True

    def _save_failed(
        self, item: Item | None, point: tuple[Any, ...], exc: BaseException, now: int
    ) -> bool:
        """The input's effects could not be written (disk full, database gone). Refuse it:
        the room goes back to how it was, the sender hears ``unavailable``, the operator sees
        it in the log and on /health. Returns True only for a dropped connection, which is a
        fact rather than a request: the room keeps it in memory and the next save writes it."""
        room = self.room
        self.metrics.store_failures += 1
        self.retry_at = now + RETRY_MS
        why = self.store.failure or str(exc)
        if isinstance(item, Gone):
            log.error(
                "room %s: could not save after %s: %s; kept in memory, written with the next save",
                room.room_id,
                redacted(item),
                why,
            )
            return True
        log.error(
            "room %s: could not save after %s: %s; refused, the room is unchanged",
            room.room_id,
            redacted(item),
            why,
        )
        room.roll_back(point)
        text = (
            "The server cannot save right now (its storage is failing); nothing changed. "
            "Please try again in a moment."
        )
        if isinstance(item, Inbound | Enter):
            data = encode(error(ErrorCode.UNAVAILABLE, text, item.msg.id))
            self.deliver((item.who.conn,), data, False)
            if isinstance(item, Enter) and item.who.conn not in room.conns():
                self.membership(item.who.conn, None)
        elif isinstance(item, Simulated):
            # The stroke was simulated but cannot be recorded: it is not played. The balls
            # stay where they were and the shooter may play it again.
            job = room.pending
            room.pending = None
            if job is not None and job.seat is not None:
                holder = room.seats[job.seat]
                if holder is not None and holder.conn is not None:
                    data = encode(
                        error(
                            ErrorCode.UNAVAILABLE,
                            "The server could not save your stroke (its storage is failing), "
                            "so it was not played; the balls are where they were. "
                            "Please play it again in a moment.",
                        )
                    )
                    self.deliver((holder.conn,), data, False)
        return False

    def _persist(
        self,
        record: RoomRecord,
        new_match: bool,
        players: list[dict[str, str]],
        blobs: list[tuple[str, int | None, int, bytes]],
        finished: tuple[int | None, str, dict[str, Any]] | None,
        now: int,
    ) -> None:
        """Everything one input changed, in one transaction."""
        with self.store.transaction():
            self._persist_all(record, new_match, players, blobs, finished, now)

    def _persist_all(
        self,
        record: RoomRecord,
        new_match: bool,
        players: list[dict[str, str]],
        blobs: list[tuple[str, int | None, int, bytes]],
        finished: tuple[int | None, str, dict[str, Any]] | None,
        now: int,
    ) -> None:
        store = self.store
        if new_match:
            store.start_match(
                record.room_id,
                self.room.options.discipline.value,
                record.options,
                players,
                now,
                private=record.private,
                match_id=record.match_id,
            )
        for kind, seat, played_ms, data in blobs:
            store.commit_stroke(record, kind, seat, played_ms, data, now)
        if not blobs:
            store.save_room(record, now)
        if finished is not None and record.match_id is not None:
            winner, reason, sheet = finished
            store.finish_match(record.match_id, winner, reason, sheet, now)

    def _submit(self, job: SimJob) -> None:
        # No task per job: the pool calls back from the worker pipe's read callback, and the
        # result goes straight into the inbox (server/sim/pool.py, Worker).
        started = time.monotonic()

        def done(outcome: SimOutcome) -> None:
            self.post(Simulated(outcome, time.monotonic() - started, job.received_ms, started))

        self.physics.submit(job, done)

    async def _persist_now(self) -> None:
        try:
            await self.store.run(self.store.save_room, self.record(), now_ms())
        except (sqlite3.Error, OSError):
            log.error(
                "could not save room %s on the way down: %s; it restarts from its last save",
                self.room.room_id,
                self.store.failure,
            )

    def _track_idle(self, now: int) -> None:
        """Remember since when nobody is in the room (the lobby's sweeper closes it later)."""
        if not self.room.is_empty() or self.room.pending is not None:
            self.idle_since = None
        elif self.idle_since is None:
            self.idle_since = now

    async def _close(self) -> bool:
        try:
            await self.store.run(self.store.close_room, self.room.room_id, now_ms())
        except (sqlite3.Error, OSError):
            # Stays open (and is closed on a later sweep); a restart would bring it back.
            log.error(
                "room %s: could not record its closing: %s", self.room.room_id, self.store.failure
            )
            return False
        self.room.closed = True
        self.on_close(self)
        return True


def room_record(r: Room) -> RoomRecord:
    """The room as its database row (:meth:`Room.to_record`)."""
    return r.to_record()


def restore_room(record: RoomRecord, now: int) -> Room:
    """A room back from its row after a restart (:meth:`Room.from_record`: clocks moved on by
    the downtime, seats disconnected)."""
    return Room.from_record(record, now)


def idle_expired(
    actor: RoomActor, now: int, idle_s: float, finished_s: float, unjoined_s: float | None = None
) -> bool:
    """Whether the lobby's sweeper should close this room."""
    if actor.idle_since is None:
        return False
    phase = actor.room.state.phase
    limit = finished_s if phase is rules.Phase.OVER else idle_s
    if (
        unjoined_s is not None
        and phase is rules.Phase.WAITING
        and all(s is None for s in actor.room.seats)
    ):
        limit = min(limit, unjoined_s)  # nobody sat down: squatting costs it its life
    if phase not in (rules.Phase.WAITING, rules.Phase.OVER):
        return False  # a running match ends by the referee's grace, not by the sweeper
    return now - actor.idle_since >= limit * 1000
