"""The in-process attempt counter behind server/core/limits.py's interface (one server; the
Redis one is tests/server/cluster/test_limits.py): the same answers as the Redis one for the same
tries."""

from __future__ import annotations

from server.core.limits import Attempts, LocalAttempts


async def test_local_attempts_allow_a_few_then_wait_for_the_oldest_to_leave() -> None:
    attempts: Attempts = LocalAttempts(limit=3, window_ms=1000)
    for t in (0, 100, 200):
        assert await attempts.wait_ms("ann", t) == 0
        await attempts.count("ann", t)
    assert await attempts.wait_ms("ann", 300) == 700
    assert await attempts.wait_ms("bob", 300) == 0
    assert await attempts.wait_ms("ann", 1000) == 0
    await attempts.clear("ann")
    assert await attempts.wait_ms("ann", 300) == 0
