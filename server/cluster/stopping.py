"""Stopping a node's background loops for sure.

On Python 3.11 a cancellation that arrives while a Redis command's own timeout fires can come
out as ``TimeoutError`` (an ``OSError``, which the loops treat as "Redis unreachable, go on"):
the cancellation is lost and a single ``cancel()`` would leave ``stop()`` waiting for ever. So
``cancel`` asks again until the task has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any


async def cancel(task: asyncio.Task[Any] | None) -> None:
    """Cancel ``task`` and wait until it has ended (whatever it ended with)."""
    if task is None:
        return
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.2)
    if not task.cancelled():
        task.exception()  # retrieved: an error on the way out is not reported as lost
