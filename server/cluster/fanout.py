"""Spectator fan-out over Redis pub/sub: one publish per broadcast, whatever the number of nodes
watching (docs/cluster.md "Spectator fan-out").

Owner side (``Publisher``): a room's connections that are other nodes' hubs (server/cluster/
hub.py; they say so with the cluster's secret) are not sent the room's broadcasts one by one;
the broadcast is published **once** on ``carom:fan:ROOM`` instead. One task publishes, in the
order the room made them, on one connection (pipelined when several are waiting), so a
channel's messages arrive in ``seq`` order.

Watching side (``Subscriber``): one pub/sub connection per node, subscribed to the channels of
the rooms it has hubs for; each message goes to that room's hub, which passes it on to its
spectators in ``seq`` order (and syncs them all once on a gap).

Why pub/sub and not a stream: a broadcast is only useful to whoever watches now, and a missed
one is already repaired by ``sync`` (the snapshot carries the room's state and ``seq``), so
Redis need not store anything: no trimming, no per-node read positions, nothing growing when a
node is slow. What a stream would add (replay after a reconnect) the hub gets from one sync.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import msgpack
import redis.asyncio as aioredis
import redis.exceptions

from server.cluster.stopping import cancel

if TYPE_CHECKING:
    from server.core.room import ConnId
    from server.net.gateway import GameServer

log = logging.getLogger("carom.cluster.fanout")

PREFIX: Final = "carom:fan:"
BATCH: Final = 256  # publishes sent in one pipeline at most
OUTBOX: Final = 10_000  # broadcasts waiting to be published; beyond: dropped (hubs sync)


def channel(room_id: str) -> str:
    return PREFIX + room_id


def is_broadcast(data: bytes) -> bool:
    """A room broadcast (``seq``, no ``re``, not a snapshot): what a hub may get from Redis."""
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return False
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("seq"), int)
        and obj.get("re") is None
        and obj.get("t") != "snapshot"
    )


class Publisher:
    """The owner's side: which connections are hubs, and the one task that publishes."""

    def __init__(self, r: aioredis.Redis, server: GameServer) -> None:
        self.r = r
        self.server = server
        self.hub_conns: set[ConnId] = set()  # connections that are other nodes' hubs
        self.published = 0  # PUBLISH commands sent (one per broadcast of a watched room)
        self.dropped = 0  # broadcasts not published (Redis unreachable, outbox full)
        self.lag_s = 0.0  # the last batch: from the broadcast to Redis having it
        self._outbox: asyncio.Queue[tuple[str, bytes, float]] = asyncio.Queue(OUTBOX)
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="fanout-publisher")

    async def stop(self) -> None:
        await cancel(self._task)

    def prune(self) -> None:
        """Forget hubs whose connection ended (connection ids are never reused)."""
        self.hub_conns &= self.server.clients.keys()

    def route(self, conns: tuple[ConnId, ...], data: bytes) -> tuple[ConnId, ...]:
        """The connections still to be sent ``data`` one by one: a broadcast is published once
        for every hub among ``conns``; anything else (a snapshot, an answer) goes to them as
        to anyone."""
        hubs = [c for c in conns if c in self.hub_conns]
        if not hubs or not is_broadcast(data):
            return conns
        client = self.server.clients.get(hubs[0])
        actor = client.room if client is not None else None
        if actor is None:
            return conns
        try:
            self._outbox.put_nowait(
                (channel(actor.room.room_id), data, asyncio.get_running_loop().time())
            )
        except asyncio.QueueFull:
            self.dropped += 1  # the hubs see a gap and sync
        return tuple(c for c in conns if c not in self.hub_conns)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < BATCH and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                pipe = self.r.pipeline(transaction=False)
                for name, data, _ in batch:
                    pipe.publish(name, data)
                await pipe.execute()
                self.published += len(batch)
                self.lag_s = loop.time() - batch[0][2]
            except (redis.exceptions.RedisError, OSError) as exc:
                self.dropped += len(batch)  # the hubs see a gap and sync
                log.warning("fan-out: %d broadcast(s) not published: %s", len(batch), exc)


class Subscriber:
    """The watching side: one pub/sub connection for all the rooms this node has hubs for."""

    def __init__(self, r: aioredis.Redis, deliver: Callable[[str, bytes], None]) -> None:
        self.r = r
        self.deliver = deliver  # (room_id, data) -> the room's hub
        self.rooms: set[str] = set()
        self.received = 0
        self._pubsub: aioredis.client.PubSub | None = None
        self._task: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def subscribe(self, room_id: str) -> None:
        async with self._lock:
            self.rooms.add(room_id)
            if self._pubsub is None:
                self._pubsub = self.r.pubsub(ignore_subscribe_messages=True)
            await self._pubsub.subscribe(channel(room_id))
            if self._task is None:
                self._task = asyncio.create_task(self._run(), name="fanout-subscriber")

    async def unsubscribe(self, room_id: str, wanted: Callable[[], bool] = lambda: False) -> None:
        """Leave the room's channel, unless ``wanted()`` says it is in use again."""
        async with self._lock:
            if wanted():
                return
            self.rooms.discard(room_id)
            if self._pubsub is not None:
                with contextlib.suppress(redis.exceptions.RedisError, OSError):
                    await self._pubsub.unsubscribe(channel(room_id))

    async def stop(self) -> None:
        await cancel(self._task)
        self._task = None
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = None

    async def _run(self) -> None:
        while True:
            pubsub = self._pubsub
            try:
                assert pubsub is not None
                message = await pubsub.get_message(timeout=1.0)
            except (redis.exceptions.RedisError, OSError, RuntimeError) as exc:
                # Lost (Redis restarted, network): a new connection, every channel again;
                # what was published meanwhile shows as a gap, and the hubs sync.
                log.warning("fan-out subscription lost: %s", exc)
                await asyncio.sleep(0.5)
                await self._resubscribe()
                continue
            if message is None or message.get("type") != "message":
                continue
            name = message["channel"]
            name = name.decode() if isinstance(name, bytes) else str(name)
            data = message["data"]
            if isinstance(data, bytes) and name.startswith(PREFIX):
                self.received += 1
                self.deliver(name[len(PREFIX) :], data)

    async def _resubscribe(self) -> None:
        async with self._lock:
            if self._pubsub is not None:
                with contextlib.suppress(Exception):
                    await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            self._pubsub = self.r.pubsub(ignore_subscribe_messages=True)
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                if self.rooms:
                    await self._pubsub.subscribe(*(channel(r) for r in self.rooms))
