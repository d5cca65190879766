"""``carom play`` without ``--url``: a local server and a bot opponent, as subprocesses.

Subprocesses rather than threads: the server's physics and the bot's search both burn CPU, and
the window must keep its frame rate. Both are the project's own commands (``python -m server``,
``carom bot``), started with this interpreter, and stopped with the window.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from server.process import ServerProcess

PR_SET_CHILD_SUBREAPER = 36  # linux/prctl.h
# A local game is one table, and a table simulates one stroke (or one lag) at a time, in 1 to
# 5 ms: on the server's own event loop, where nothing else waits but this table's two players.
# A physics process (`carom serve` starts one by default) would only cost the player's machine its
# start (a quarter to a third of a second of CPU), its memory and one more process to end.
LOCAL_WORKERS = 0


def adopt_orphans() -> bool:
    """Make this process the "subreaper" of everything it starts (Linux): a grandchild whose
    parent exits first (the bot's resource tracker outlives the bot by a moment) is handed to
    us instead of to init, so ``stop`` can reap it. Where init does not reap orphans (some
    containers), they would otherwise stay zombies. False where it is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def reap_group(pgid: int, timeout: float = 3.0) -> None:
    """Wait for every child of ours in process group ``pgid`` (adopted orphans included)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-pgid, os.WNOHANG)
        except ChildProcessError:
            return  # none left
        if pid == 0:
            time.sleep(0.02)


class LocalGame:
    def __init__(self, adopt: bool = False) -> None:
        """``adopt``: make this process the subreaper of what it starts (``adopt_orphans``);
        ``carom play`` does, a test process running other tools besides should not."""
        if adopt:
            adopt_orphans()
        self.server: ServerProcess | None = None
        self.bot: subprocess.Popen[str] | None = None
        self.url: str | None = None
        self._dir = tempfile.TemporaryDirectory(prefix="carom-play-")
        self.log: list[str] = []

    def start_server(self, timeout: float = 20.0) -> str:
        """Start ``python -m server`` on a free port; returns its ws:// URL."""
        try:
            self.server = ServerProcess(
                Path(self._dir.name) / "carom.db", workers=LOCAL_WORKERS, timeout=timeout
            )
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
            # Its own process group: its thinking worker and multiprocessing's resource tracker
            # join it, so stop() can make sure none of them outlives the window.
            start_new_session=True,
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

    def server_died(self) -> bool:
        """True when our server exited on its own (crashed or killed). Polling also reaps it,
        so a dead server never lingers as a zombie."""
        return self.server is not None and self.server.proc.poll() is not None

    def restart_server(self, timeout: float = 20.0) -> str:
        """Start the server again on the same port and database: the rooms it saved come back,
        and the window's session, which keeps reconnecting to that URL, finds its seat."""
        if self.server is None or self.url is None:
            return self.start_server(timeout)
        port = self.server.port
        self.server.stop(timeout=5)
        self.server = ServerProcess(
            Path(self._dir.name) / "carom.db",
            workers=LOCAL_WORKERS,
            extra_args=["--port", str(port)],
            timeout=timeout,
        )
        return self.url

    def stop(self) -> None:
        if self.bot is not None:
            if self.bot.poll() is None:
                self.bot.terminate()  # the bot stops its worker on the way out
                try:
                    self.bot.wait(5)
                except subprocess.TimeoutExpired:
                    self.bot.kill()
                    self.bot.wait(5)
            # Whatever of its group is left (a worker of a bot that was killed, its resource
            # tracker, adopted by us when the bot exited): end it and reap it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.bot.pid, signal.SIGKILL)
            reap_group(self.bot.pid)
        if self.server is not None:
            self.server.stop(timeout=5)
        with contextlib.suppress(OSError):
            self._dir.cleanup()
