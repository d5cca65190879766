"""``python -m server.sim.worker``: a physics worker speaking length-prefixed pickles on stdio.

Started only by :class:`server.sim.pool.PhysicsPool` (trusted, same code): it reads
``(key, SimJob)`` frames from stdin and writes ``(key, SimOutcome)`` frames to stdout. Anything
else that would print goes to stderr, so the result stream stays clean.

Jobs wait here, strokes before lags. Between two simulations the worker takes in every frame
that has arrived, and runs the most urgent one next: a stroke written behind a hundred lags of
a start burst waits for at most the simulation in progress, not for the hundred (the pipe is a
FIFO; when the queue was kept in the server with only a few jobs in the pipe, every result had
to wait for the busy event loop to hand the worker its next job, and at 2 000 rooms that round
trip, not the physics, limited how many strokes were simulated per second: docs/benchmarks.md).
"""

from __future__ import annotations

import contextlib
import fcntl
import heapq
import itertools
import os
import pickle
import select
import struct
import sys
from typing import Any

HEADER = struct.Struct("!I")
READ_SIZE = 1 << 20
# The result pipe holds this much (Linux default: 64 KiB, ~20 results). The event loop empties
# the pipe once per loop iteration, and under load an iteration takes tens of milliseconds; with
# 64 KiB the worker sat blocked on a full pipe most of that time (at 2 000 rooms: 20 % busy, lags
# waiting seconds). 1 MiB is Linux's limit for an unprivileged process (fs.pipe-max-size).
PIPE_SIZE = 1 << 20


def widen(fd: int) -> None:
    """Give the pipe at ``fd`` PIPE_SIZE bytes of buffer, as far as the system allows."""
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)


def priority(job: Any) -> int:
    """Strokes first: a shooter waits for the result; a lag's players wait for each other."""
    return 0 if job.kind == "stroke" else 1


class Inbox:
    """Frames read from a non-blocking file descriptor, kept in priority order."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buf = bytearray()
        self.jobs: list[tuple[int, int, int, Any]] = []
        self.order = itertools.count()
        self.eof = False

    def take_in(self, wait: float | None) -> None:
        """Read what has arrived (waiting up to ``wait`` seconds for the first byte; None: as
        long as it takes) and queue every complete frame."""
        while not self.eof:
            ready, _, _ = select.select([self.fd], [], [], wait)
            if not ready:
                break
            try:
                chunk = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                break
            if not chunk:
                self.eof = True  # the server closed our stdin: it is shutting down
                break
            self.buf += chunk
            wait = 0.0  # then only what is already there
        self._frames()

    def _frames(self) -> None:
        buf, at = self.buf, 0
        while len(buf) - at >= HEADER.size:
            (size,) = HEADER.unpack_from(buf, at)
            if len(buf) - at - HEADER.size < size:
                break
            start = at + HEADER.size
            key, job = pickle.loads(buf[start : start + size])
            heapq.heappush(self.jobs, (priority(job), next(self.order), key, job))
            at = start + size
        del buf[:at]

    def next(self) -> tuple[int, Any] | None:
        if not self.jobs:
            return None
        _, _, key, job = heapq.heappop(self.jobs)
        return key, job


def main() -> int:
    out = os.fdopen(os.dup(1), "wb")
    widen(out.fileno())
    widen(0)
    os.dup2(2, 1)  # stray prints (a library's banner) must not corrupt the result stream
    from server.sim.job import run_job, warm_up

    warm_up()
    fd = sys.stdin.fileno()
    os.set_blocking(fd, False)
    inbox = Inbox(fd)
    while True:
        # Block only when there is nothing to do; otherwise just pick up what arrived.
        inbox.take_in(None if not inbox.jobs else 0.0)
        item = inbox.next()
        if item is None:
            if inbox.eof:
                return 0
            continue
        key, job = item
        data = pickle.dumps((key, run_job(job)), protocol=pickle.HIGHEST_PROTOCOL)
        out.write(HEADER.pack(len(data)) + data)
        out.flush()


if __name__ == "__main__":
    sys.exit(main())
