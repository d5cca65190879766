"""The Redis side of the limits that hold across a cluster's nodes (docs/cluster.md "Limits
across nodes"); the interface and one server's implementation are in server/core/limits.py.

``RedisAttempts`` (``Attempts``): failed logins per account name as a sorted set of attempt
times per key, trimmed and counted in one script, so a guesser spreading their tries over the
nodes is counted once.

``Holdings`` (one server counts these in the lobby itself): things a key holds at once — open
connections per address, open rooms per identity and per address — taken against a cap in one
atomic script that adds up every live node's counts. Each node keeps its own counts in its own
hash (``carom:held:NODE/INSTANCE``), which expires with the node: a node that dies stops counting
against anyone, and the node that takes over its rooms counts them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from typing import Final

import redis.asyncio as aioredis
import redis.exceptions

log = logging.getLogger("carom.cluster.limits")

PREFIX: Final = "carom:"
# Wrong private-room passwords counted over every node, in a sliding ten minutes. Each node's own
# backoff (server/core/guard.py) lets an identity try 6 and an address 12 before it must wait; these
# caps bound what spreading the guesses over rooms on many nodes could add to that.
PASSWORD_WINDOW_MS: Final = 600_000
PASSWORD_FAILURES: Final = {"identity": 12, "address": 48}

# KEYS[1] the key's sorted set of attempt times; ARGV[1] now, ARGV[2] window, ARGV[3] limit;
# ARGV[4]: 1 to count an attempt now. Returns the wait in ms (0: allowed).
_ATTEMPTS: Final = """
local now, window, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[4] == '1' then
    redis.call('ZADD', KEYS[1], now, now .. ':' .. redis.call('INCR', KEYS[1] .. ':n'))
    redis.call('PEXPIRE', KEYS[1] .. ':n', window)
    local extra = redis.call('ZCARD', KEYS[1]) - limit
    if extra > 0 then redis.call('ZREMRANGEBYRANK', KEYS[1], 0, extra - 1) end
end
redis.call('PEXPIRE', KEYS[1], window)
if redis.call('ZCARD', KEYS[1]) < limit then return 0 end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return math.max(1, tonumber(oldest[2]) + window - now)
"""


class RedisAttempts:
    """The cluster's attempts: every node counts into the same key in Redis."""

    def __init__(self, r: aioredis.Redis, kind: str, limit: int, window_ms: int) -> None:
        self.kind = kind
        self.limit = limit
        self.window_ms = window_ms
        self.r = r
        self._script = r.register_script(_ATTEMPTS)

    def _key(self, key: str) -> str:
        return f"{PREFIX}attempts:{self.kind}:{key}"

    async def _run(self, key: str, now_ms: int, add: bool) -> int:
        args = [now_ms, self.window_ms, self.limit, 1 if add else 0]
        return int(await self._script(keys=[self._key(key)], args=args))

    async def wait_ms(self, key: str, now_ms: int) -> int:
        return await self._run(key, now_ms, False)

    async def count(self, key: str, now_ms: int) -> None:
        await self._run(key, now_ms, True)

    async def clear(self, key: str) -> None:
        await self.r.delete(self._key(key), self._key(key) + ":n")


# KEYS[1] this node's hash of counts. ARGV[1] the key, ARGV[2] the cap (-1: none, just count),
# ARGV[3] the hash's ttl. Adds up the key's count over every live node's hash (the nodes' set
# and presence are the directory's: server/cluster/directory.py); below the cap, counts one
# more here. Returns {1 taken or 0 refused, the total before}.
_TAKE: Final = """
local total = 0
for _, name in ipairs(redis.call('SMEMBERS', 'carom:nodes')) do
    local info = redis.call('GET', 'carom:node:' .. name)
    if info then
        local held = 'carom:held:' .. name .. '/' .. cjson.decode(info)['instance']
        total = total + tonumber(redis.call('HGET', held, ARGV[1]) or '0')
    end
end
local cap = tonumber(ARGV[2])
if cap >= 0 and total >= cap then return {0, total} end
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, total}
"""
_GIVE: Final = """
if tonumber(redis.call('HINCRBY', KEYS[1], ARGV[1], -1)) <= 0 then
    redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
"""


class Holdings:
    """Counts held across the cluster. ``take`` is atomic over all nodes; ``give`` is sent in
    the background (the local count is the truth: ``beat`` puts it back if Redis lost it)."""

    def __init__(self, r: aioredis.Redis, node: str, instance: str, ttl_ms: int) -> None:
        self.r = r
        self.key = f"{PREFIX}held:{node}/{instance}"
        self.ttl_ms = ttl_ms
        self.mine: Counter[str] = Counter()  # what this node holds (mirrored in Redis)
        self._take = r.register_script(_TAKE)
        self._give = r.register_script(_GIVE)
        self._pending: set[asyncio.Task[None]] = set()
        self._dirty = False  # a give-back failed: Redis counts more than we hold

    async def take(self, key: str, cap: int) -> int | None:
        """Hold one more of ``key`` if the cluster holds fewer than ``cap``: None when taken,
        else how many are held (the refusal says so)."""
        ok, total = await self._take(keys=[self.key], args=[key, cap, self.ttl_ms])
        if not int(ok):
            return int(total)
        self.mine[key] += 1
        return None

    async def add(self, key: str) -> None:
        """Hold one more whatever the cap (a room taken over from a dead node)."""
        await self._take(keys=[self.key], args=[key, -1, self.ttl_ms])
        self.mine[key] += 1

    def give(self, key: str) -> None:
        if self.mine[key] <= 0:
            return
        self.mine[key] -= 1
        if self.mine[key] <= 0:
            del self.mine[key]

        async def send() -> None:
            try:
                await self._give(keys=[self.key], args=[key])
            except (redis.exceptions.RedisError, OSError) as exc:
                self._dirty = True
                log.warning("could not give back %s: %s (fixed at the next beat)", key, exc)

        task = asyncio.get_running_loop().create_task(send())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def beat(self) -> None:
        """Keep the hash alive with the node (it expires with it); if Redis lost it (restarted
        empty) or a give-back failed, write it again from what this node holds."""
        if await self.r.pexpire(self.key, self.ttl_ms) and not self._dirty:
            return
        self._dirty = False
        async with self.r.pipeline(transaction=True) as pipe:
            pipe.delete(self.key)
            if self.mine:
                pipe.hset(self.key, mapping=dict(self.mine))  # type: ignore[arg-type]
                pipe.pexpire(self.key, self.ttl_ms)
            await pipe.execute()

    async def stop(self) -> None:
        await asyncio.gather(*self._pending, return_exceptions=True)
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            await self.r.delete(self.key)
