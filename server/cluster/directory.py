"""What the nodes of a cluster share in Redis: who is alive, which rooms each one runs, and who
owns each room (a lease). Only Redis commands, no game logic, so each piece is tested against
a real redis-server on its own.

Keys (all under ``carom:``; docs/cluster.md has the picture):

``node:{name}``      a live node: JSON ``{"url", "instance", "started_ms"}``, expires unless
                     renewed (presence); ``nodes`` is the set of names ever seen, pruned lazily.
``rooms:{name}``     hash room_id -> JSON summary of the rooms that node runs; expires with it,
                     so a dead node's rooms leave the lobby by themselves.
``lease:{room_id}``  ``{name}/{instance}`` of the node that runs the room. Set only if absent
                     (SET NX PX), renewed and released only by its holder (compare in Lua).
``open``             set of every open room's id: where a node looks for rooms nobody holds.
"""

from __future__ import annotations

import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Final, cast

import redis.asyncio as aioredis

PREFIX: Final = "carom:"

# KEYS[1] the lease, KEYS[2] its fencing counter; ARGV[1] the holder; ARGV[2] ttl in ms.
# A new holder gets the next fencing token (PostgreSQL refuses writes from lower ones).
_ACQUIRE: Final = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return redis.call('INCR', KEYS[2])
end
return 0
"""
# ARGV[3]: a floor (PostgreSQL's fence of the room, if Redis lost its counter).
_BUMP: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    if tonumber(redis.call('GET', KEYS[2]) or '0') < tonumber(ARGV[3]) then
        redis.call('SET', KEYS[2], ARGV[3])
    end
    return redis.call('INCR', KEYS[2])
end
return 0
"""
_RENEW: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
_RELEASE: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""
# ARGV[3]: the new holder. The lease changes hands without ever being free.
_HAND_OVER: Final = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[2])
    return redis.call('INCR', KEYS[2])
end
return 0
"""


class NodeNameTaken(Exception):
    """Another running process already uses this node name."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


MAX_CONNECTIONS: Final = 64  # a node's connections to Redis (two held by its subscriptions)


def connect(url: str) -> aioredis.Redis:
    """A client for ``redis://HOST:PORT/N``; commands fail after 2 s instead of hanging. At most
    ``MAX_CONNECTIONS`` at once: a burst of commands (a thousand clients connecting, each
    counted against its address's cap) waits for a free one, up to 2 s, instead of failing."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=MAX_CONNECTIONS,
        timeout=2.0,
        socket_timeout=2.0,
        socket_connect_timeout=2.0,
    )
    return aioredis.Redis.from_pool(pool)  # closing the client closes its pool


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def holder(node: str, instance: str) -> str:
    return f"{node}/{instance}"


class Leases:
    """Room leases of one node process. A lease says which node runs a room's actor, clock and
    physics; at most one holds it at a time, for ``ttl_ms`` unless renewed."""

    def __init__(self, r: aioredis.Redis, node: str, instance: str, ttl_ms: int) -> None:
        self.r = r
        self.node = node
        self.me = holder(node, instance)
        self.ttl_ms = ttl_ms
        self._acquire = r.register_script(_ACQUIRE)
        self._bump = r.register_script(_BUMP)
        self._renew = r.register_script(_RENEW)
        self._release = r.register_script(_RELEASE)
        self._hand_over = r.register_script(_HAND_OVER)

    @staticmethod
    def key(room_id: str) -> str:
        return f"{PREFIX}lease:{room_id}"

    @staticmethod
    def fence_key(room_id: str) -> str:
        return f"{PREFIX}fence:{room_id}"

    async def acquire(self, room_id: str) -> int:
        """Take the room if nobody holds it: its fencing token (1, 2, … one more at every new
        holder), or 0 when another node holds it."""
        keys = [self.key(room_id), self.fence_key(room_id)]
        return int(await self._acquire(keys=keys, args=[self.me, self.ttl_ms]))

    async def bump(self, room_id: str, floor: int) -> int:
        """A fencing token above ``floor`` for a lease we hold (Redis lost its counter and
        PostgreSQL has seen higher ones), or 0 if the lease is not ours."""
        keys = [self.key(room_id), self.fence_key(room_id)]
        return int(await self._bump(keys=keys, args=[self.me, self.ttl_ms, floor]))

    async def renew(self, room_ids: list[str]) -> set[str]:
        """Extend ours by ``ttl_ms``; the ids whose lease is no longer ours (expired, taken)."""
        if not room_ids:
            return set()
        async with self.r.pipeline(transaction=False) as pipe:
            for room_id in room_ids:
                await self._renew(
                    keys=[self.key(room_id)], args=[self.me, self.ttl_ms], client=pipe
                )
            results = await pipe.execute()
        return {room_id for room_id, ok in zip(room_ids, results, strict=True) if not ok}

    async def release(self, room_id: str) -> bool:
        """Give the room up (after its last write): another node may take it at once."""
        return bool(await self._release(keys=[self.key(room_id)], args=[self.me]))

    async def hand_over(self, room_id: str, to: str) -> int:
        """Make holder ``to`` (``name/instance``) the room's owner, if we still hold it: the
        new holder's fencing token, or 0."""
        keys = [self.key(room_id), self.fence_key(room_id)]
        return int(await self._hand_over(keys=keys, args=[self.me, self.ttl_ms, to]))

    async def owner(self, room_id: str) -> str | None:
        """The node name holding the room, or None."""
        value = await self.r.get(self.key(room_id))
        return None if value is None else cast(bytes, value).decode().split("/", 1)[0]


@dataclass(frozen=True, slots=True)
class NodeInfo:
    name: str
    url: str  # where clients reach it (--public-url)
    instance: str
    started_ms: int


@dataclass(frozen=True, slots=True)
class ListedRoom:
    node: str
    url: str
    summary: dict[str, Any]


class Directory:
    """Presence of one node and the summaries of the rooms it runs; and the whole cluster's,
    read back for the lobby."""

    def __init__(
        self, r: aioredis.Redis, node: str, url: str, ttl_ms: int, instance: str | None = None
    ) -> None:
        self.r = r
        self.info = NodeInfo(node, url, instance or secrets.token_hex(6), now_ms())
        self.ttl_ms = ttl_ms
        self._published: dict[str, bytes] = {}  # what Redis has of our rooms (as we believe)

    @property
    def _node_key(self) -> str:
        return f"{PREFIX}node:{self.info.name}"

    @property
    def _rooms_key(self) -> str:
        return f"{PREFIX}rooms:{self.info.name}"

    def _info_json(self) -> str:
        i = self.info
        return json.dumps({"url": i.url, "instance": i.instance, "started_ms": i.started_ms})

    async def join(self) -> None:
        """Announce this node; NodeNameTaken while another live process has the name."""
        if not await self.r.set(self._node_key, self._info_json(), nx=True, px=self.ttl_ms):
            raise NodeNameTaken(
                f"a node named {self.info.name!r} is already running in this cluster; give "
                "each node its own --node name (or wait a few seconds if it just stopped)"
            )
        await self.r.sadd(f"{PREFIX}nodes", self.info.name)

    async def beat(self, rooms: dict[str, dict[str, Any]]) -> None:
        """Renew presence and publish what changed in our rooms' summaries since last time."""
        encoded = {rid: json.dumps(s, sort_keys=True).encode() for rid, s in rooms.items()}
        changed = {rid: v for rid, v in encoded.items() if self._published.get(rid) != v}
        gone = [rid for rid in self._published if rid not in encoded]
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.set(self._node_key, self._info_json(), px=self.ttl_ms)
            pipe.sadd(f"{PREFIX}nodes", self.info.name)  # again: Redis may have lost it
            if changed:
                # (Mapping's key type is invariant: dict[str, bytes] is what redis-py takes.)
                pipe.hset(self._rooms_key, mapping=changed)  # type: ignore[arg-type]
            if gone:
                pipe.hdel(self._rooms_key, *gone)
            pipe.pexpire(self._rooms_key, self.ttl_ms)
            results = await pipe.execute()
        self._published = encoded
        if encoded and not results[-1]:
            self._published = {}  # Redis lost the hash (restarted): publish everything next time

    async def leave(self) -> None:
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(self._node_key, self._rooms_key)
            pipe.srem(f"{PREFIX}nodes", self.info.name)
            await pipe.execute()
        self._published = {}

    async def nodes(self) -> list[NodeInfo]:
        """The live nodes, by name (those whose presence expired are dropped from the set)."""
        names = sorted(_text(n) for n in await self.r.smembers(f"{PREFIX}nodes"))
        if not names:
            return []
        values = await self.r.mget([f"{PREFIX}node:{n}" for n in names])
        live, dead = [], []
        for name, value in zip(names, values, strict=True):
            if value is None:
                dead.append(name)
                continue
            d = json.loads(value)
            live.append(NodeInfo(name, d["url"], d["instance"], d["started_ms"]))
        if dead:
            await self.r.srem(f"{PREFIX}nodes", *dead)
        return live

    async def rooms(self, limit: int = 500) -> list[ListedRoom]:
        """Every open room of every live node (at most ``limit``), oldest node first."""
        live = await self.nodes()
        async with self.r.pipeline(transaction=False) as pipe:
            for n in live:
                pipe.hgetall(f"{PREFIX}rooms:{n.name}")
            tables = await pipe.execute()
        out: list[ListedRoom] = []
        for n, table in zip(live, tables, strict=True):
            for value in table.values():
                out.append(ListedRoom(n.name, n.url, json.loads(value)))
                if len(out) >= limit:
                    return out
        return out

    async def is_private(self, room_id: str) -> bool:
        """Whether a live node lists the room as private (False when nobody lists it yet)."""
        for n in await self.nodes():
            value = await self.r.hget(f"{PREFIX}rooms:{n.name}", room_id)
            if value is not None:
                return bool(json.loads(value).get("private"))
        return False

    # The set of open rooms (for takeover) ------------------------------------------------------
    async def opened(self, *room_ids: str) -> None:
        if room_ids:
            await self.r.sadd(f"{PREFIX}open", *room_ids)

    async def closed(self, room_id: str) -> None:
        await self.r.srem(f"{PREFIX}open", room_id)

    async def unheld(self) -> list[str]:
        """Open rooms whose lease nobody holds: their node died (or is stalled past its lease)."""
        ids = sorted(_text(i) for i in await self.r.smembers(f"{PREFIX}open"))
        if not ids:
            return []
        async with self.r.pipeline(transaction=False) as pipe:
            for room_id in ids:
                pipe.exists(Leases.key(room_id))
            held = await pipe.execute()
        return [room_id for room_id, h in zip(ids, held, strict=True) if not h]
