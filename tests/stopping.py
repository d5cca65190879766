"""A test run stopped with SIGTERM (a CI job's timeout, ``kill``, a service manager) ends the
way Ctrl-C ends it: the running tests are interrupted and every fixture is torn down, so the
servers, engines, bots and windows the tests started end with the run instead of outliving it.

Python's default for SIGTERM is to die on the spot, which skips every ``finally``; and the
workers of a parallel run (xdist) do not hear a signal sent to the controller's pid alone, and
are then killed by xdist without their teardown. So each process of the run turns SIGTERM into
KeyboardInterrupt, and the controller first passes the SIGTERM on to its workers. (SIGTERM
rather than SIGINT: a run started in the background has SIGINT ignored, in its workers too.)
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from types import FrameType

import pytest

from tests.forking import forked_workers
from tests.procs import children

# How execnet starts an xdist worker: python -u -c "import sys;exec(eval(sys.stdin.readline()))".
_WORKER_COMMAND = "exec(eval(sys.stdin.readline()))"
_TRACKER = "multiprocessing.resource_tracker"


# How long the controller lets its workers tear down before xdist ends them: xdist interrupts a
# worker again 5 s after it tells it to stop, which would cut a teardown short.
TEARDOWN_S = 30.0
_stopping = False


def pytest_configure(config: pytest.Config) -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    global _stopping
    if _stopping:  # a second SIGTERM (the controller's after the group's) must not cut the first
        return
    _stopping = True
    workers = workers_of(os.getpid())
    for pid in workers:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    # A worker has torn its tests down when the processes they started are gone.
    deadline = time.monotonic() + TEARDOWN_S
    while time.monotonic() < deadline and any(processes_started_by(pid) for pid in workers):
        time.sleep(0.1)
    raise KeyboardInterrupt(f"stopped by signal {signum}")


def workers_of(parent: int) -> list[int]:
    """The xdist workers ``parent`` started (none in a worker or a run without xdist): found by
    their command line, or, forked (``--fork-workers``), by the pids this process forked."""
    living = children(parent)
    forked = set(forked_workers()) if parent == os.getpid() else set()
    return [pid for pid, command in living if _WORKER_COMMAND in command or pid in forked]


def processes_started_by(worker: int) -> list[int]:
    """What a worker's tests started and its teardown ends: its children but multiprocessing's
    resource tracker, which a test's process pool leaves for the worker's lifetime (it ends by
    itself with the worker)."""
    return [pid for pid, command in children(worker) if _TRACKER not in command]
