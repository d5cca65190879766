"""The server as a child process: ready line, draining stop, crash, and a clear failure."""

from __future__ import annotations

import signal
import urllib.request
from pathlib import Path

import pytest

from server.process import ServerProcess


def test_started_server_answers_health_then_drains_on_stop(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "carom.db", workers=0) as server:
        assert server.url == f"ws://127.0.0.1:{server.port}/"
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/health", timeout=10) as r:
            assert r.status == 200
        code = server.stop()
    # SIGTERM drains and exits cleanly (DESIGN.md "Shutdown drains").
    assert code == 0
    assert (tmp_path / "carom.db").exists()


def test_kill_is_a_crash_not_a_drain(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "carom.db", workers=0)
    server.kill()
    assert server.proc.returncode == -signal.SIGKILL


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    # The database's folder does not exist: the server exits before its ready line.
    with pytest.raises(RuntimeError, match="did not start"):
        ServerProcess(tmp_path / "missing" / "carom.db", workers=0, timeout=20)
