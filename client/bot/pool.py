"""The bots' thinking process, started and, above all, stopped.

A bot's search runs in a spawned worker process (it holds the GIL for seconds while the
connection must keep answering pings). The ``spawn`` start method also starts multiprocessing's
resource tracker. Both must end with the program that started them: a worker left thinking, or
a tracker that exits after its parent (an orphan nothing reaps), is a leaked process.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import resource_tracker


def thinking_pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(
        max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=die_with_parent
    )


def die_with_parent() -> None:
    """In the worker: on Linux, have the kernel end it when the process that started it dies,
    SIGKILL included. Nothing else would: the worker waits on a task pipe that it holds open
    itself, and it keeps the program's output open, so whoever waits for that output (a
    terminal's pipe, a test) would wait for ever. Elsewhere nothing changes. The kernel's
    "parent" is the thread that started the worker, which the executor does on the first
    ``submit``: submit from a thread that lives as long as the pool (a bot's event loop)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Shut the pool down now, ending a search in progress rather than waiting for it (it may
    run for seconds after the bot was told to stop). The executor has no public way to end its
    workers, hence its private process map."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
        proc.join(2)
    pool.shutdown(wait=True)  # its manager thread notices the ended worker and returns


def stop_resource_tracker() -> None:
    """Stop and reap multiprocessing's resource tracker, last thing before the program exits
    (once every pool and queue is gone: their finalizers still talk to it). Otherwise it
    outlives us by a moment as an orphan, a zombie wherever init does not reap orphans."""
    gc.collect()
    with contextlib.suppress(Exception):
        # closes its pipe, then waits for it (private, so not in the stubs)
        resource_tracker._resource_tracker._stop()  # type: ignore[attr-defined]
