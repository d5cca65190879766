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
from pathlib import Path

from server.process import ServerProcess


class LocalGame:
    def __init__(self) -> None:
        self.server: ServerProcess | None = None
        self.bot: subprocess.Popen[str] | None = None
        self.url: str | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="carom-play-")
        self.log: list[str] = []

    def start_server(self, timeout: float = 20.0) -> str:
        """Start ``python -m server`` on a free port; returns its ws:// URL."""
        try:
            self.server = ServerProcess(Path(self._dir.name) / "carom.db", timeout=timeout)
        except RuntimeError:
            self.stop()
            raise
        self.url = self.server.url
        return self.url

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
        if self.bot is not None and self.bot.poll() is None:
            self.bot.terminate()
            try:
                self.bot.wait(5)
            except subprocess.TimeoutExpired:
                self.bot.kill()
        if self.server is not None:
            self.server.stop(timeout=5)
        with contextlib.suppress(OSError):
            self._dir.cleanup()
