"""Limits that must hold across the nodes of a cluster, behind one small interface, with an
in-process implementation here (one server) and a Redis one in server/cluster/limits.py (a
cluster node; docs/cluster.md "Limits across nodes").

``Attempts``: at most ``limit`` attempts per key within a sliding window (failed logins per
account name). No Redis import here: ``carom serve`` without ``--redis`` needs no Redis client.
"""

from __future__ import annotations

from typing import Protocol

from server.core.accounts import AttemptLimiter


class Attempts(Protocol):
    """A sliding-window attempt counter (time passed in, in ms)."""

    async def wait_ms(self, key: str, now_ms: int) -> int:
        """0 if an attempt is allowed now, else how long to wait."""
        ...

    async def count(self, key: str, now_ms: int) -> None: ...

    async def clear(self, key: str) -> None: ...


class LocalAttempts:
    """One server's attempts, in its memory (``AttemptLimiter``)."""

    def __init__(self, limit: int, window_ms: int) -> None:
        self.limiter = AttemptLimiter(limit, window_ms)

    async def wait_ms(self, key: str, now_ms: int) -> int:
        return self.limiter.wait_ms(key, now_ms)

    async def count(self, key: str, now_ms: int) -> None:
        self.limiter.count(key, now_ms)

    async def clear(self, key: str) -> None:
        self.limiter.clear(key)
