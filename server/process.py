"""The real server as a child process (``python -m server``), for whoever needs one running.

``carom play`` (local game), ``make demo``, the load bench and the restart tests all start the
production server exactly as ``carom serve`` runs it, on a free port, and need the same three
things: wait for the ready line, keep reading its output so a full pipe never blocks it, and stop
it (SIGTERM, so it drains) or kill it (SIGKILL, to test a crash).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

# server/cli.py prints exactly this, flushed, once the port is bound.
READY_PREFIX = "carom server listening on "


class ServerProcess:
    """A started ``python -m server`` on ``host``; ``url`` is its ``ws://`` address."""

    def __init__(
        self,
        db: str | Path,
        *,
        workers: int | None = None,
        log_level: str = "WARNING",
        extra_args: Sequence[str] = (),
        timeout: float = 30.0,
        drain_seconds: float | None = 0.0,
        new_session: bool = False,
    ) -> None:
        """``drain_seconds``: how long SIGTERM keeps /health at 503 before closing. 0 by
        default: nothing balances load in front of these servers, and whoever stops one wants
        it gone (a window closing, a test); None keeps ``carom serve``'s default (5 s).
        ``--drain-seconds`` in ``extra_args`` wins.

        ``new_session``: start it in a session of its own (``setsid``), as a service manager
        would, rather than in the caller's. On Linux with autogroup scheduling (the default) a
        session shares the CPU fairly with the others, so a load generator that keeps the server
        in its own session takes its CPU out of the server's share."""
        cmd = [sys.executable, "-m", "server", "--port", "0", "--db", str(db)]
        if workers is not None:
            cmd += ["--workers", str(workers)]
        if drain_seconds is not None and "--drain-seconds" not in extra_args:
            cmd += ["--drain-seconds", f"{drain_seconds:g}"]
        cmd += ["--log-level", log_level, *extra_args]
        self.log: list[str] = []  # the last 2000 lines the server printed
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=new_session,
        )
        self.url = self._wait_ready(timeout)
        self.port = int(self.url.rstrip("/").rsplit(":", 1)[1])
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_ready(self, timeout: float) -> str:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:  # the server exited before it was ready
                break
            self.log.append(line.rstrip())
            if line.startswith(READY_PREFIX):
                return line[len(READY_PREFIX) :].strip()
        self.kill()
        raise RuntimeError("the server did not start:\n" + "\n".join(self.log[-20:]))

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.log.append(line.rstrip())
            del self.log[:-2000]

    def kill(self) -> None:
        """SIGKILL: no draining, no goodbye (what a crash looks like)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM (the server drains, persists and closes clients with 1001), then wait; kill
        it if it does not exit in ``timeout`` seconds. Returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.proc.returncode

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
