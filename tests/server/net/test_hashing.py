"""Password hashing in a bounded pool (issue 12, point 12)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from server.credentials import check_password, hash_password
from server.net.hashing import Busy, HashPool


async def test_hashes_run_off_the_loop_and_a_full_queue_refuses_at_once() -> None:
    pool = HashPool(workers=1, queue=2)
    stored = hash_password("pw")
    loop_thread = threading.get_ident()
    seen: list[int] = []

    def check(password: str) -> bool:
        seen.append(threading.get_ident())
        return check_password(password, stored)

    try:
        running = [asyncio.create_task(pool.run(check, "pw")) for _ in range(3)]
        await asyncio.sleep(0)  # all three are in: one hashing, two waiting
        with pytest.raises(Busy):
            await pool.run(check, "pw")
        # The loop stays free meanwhile: a short sleep is not held up by ~3 scrypt runs.
        await asyncio.sleep(0.001)
        assert await asyncio.gather(*running) == [True, True, True]
        assert seen and loop_thread not in seen
        assert len(set(seen)) == 1  # one worker thread: guessers cannot take every core
        assert await pool.run(check, "nope") is False  # room again
    finally:
        pool.shutdown()
