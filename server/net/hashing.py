"""Password hashing off the event loop, in a small bounded pool.

scrypt costs ~50 ms of CPU and releases the GIL, so it runs in worker threads. The pool is
small (default one thread: guessers must not take every core from the rooms) and its queue is
bounded: beyond it a request is refused at once (:class:`Busy`) instead of queueing without end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


class Busy(Exception):
    """Too many password checks are waiting already."""


class HashPool:
    def __init__(self, workers: int = 1, queue: int = 16) -> None:
        self.limit = workers + queue
        self.pending = 0
        self._executor = ThreadPoolExecutor(max(1, workers), thread_name_prefix="scrypt")

    async def run(self, fn: Callable[..., T], *args: object) -> T:
        if self.pending >= self.limit:
            raise Busy
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        finally:
            self.pending -= 1

    def shutdown(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
