"""``carom play`` without ``--url``: a local server and a bot opponent, as subprocesses.

Subprocesses rather than threads: the server's physics and the bot's search both burn CPU, and
the window must keep its frame rate. Both are the project's own commands (``python -m server``,
``carom bot``), started with this interpreter, and stopped with the window.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

READY_PREFIX = "carom server listening on "


class LocalGame:
    def __init__(self) -> None:
        self.server: subprocess.Popen[str] | None = None
        self.bot: subprocess.Popen[str] | None = None
        self.url: str | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="carom-play-")
        self.log: list[str] = []

    def start_server(self, timeout: float = 20.0) -> str:
        """Start ``python -m server`` on a free port; returns its ws:// URL."""
        db = Path(self._dir.name) / "carom.db"
        self.server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server",
                "--port",
                "0",
                "--db",
                str(db),
                "--log-level",
                "WARNING",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.server.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self.server.stdout.readline()
            if not line:
                break
            self.log.append(line.rstrip())
            if line.startswith(READY_PREFIX):
                self.url = line[len(READY_PREFIX) :].strip()
                self._drain(self.server)
                return self.url
        self.stop()
        raise RuntimeError("the local server did not start:\n" + "\n".join(self.log[-20:]))

    def start_bot(self, room_id: str, level: int = 3) -> None:
        """A bot opponent joins ``room_id`` and plays until the window closes."""
        if self.url is None:
            raise RuntimeError("start the server first")
        self.bot = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client.cli",
                "bot",
                "--url",
                self.url,
                "--room",
                room_id,
                "--level",
                str(level),
                "--matches",
                "100",
                "--quiet",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self._drain(self.bot)

    def _drain(self, proc: subprocess.Popen[str]) -> None:
        """Keep reading a child's output so a full pipe never blocks it."""

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                self.log.append(line.rstrip())
                del self.log[:-200]

        threading.Thread(target=pump, daemon=True).start()

    def stop(self) -> None:
        for proc in (self.bot, self.server):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(5)
                except subprocess.TimeoutExpired:
                    proc.kill()
        with contextlib.suppress(OSError):
            self._dir.cleanup()
