"""``carom bot`` and ``carom watch`` say plainly when there is no server, and exit non-zero."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("command", ["bot", "watch"])
def test_no_server_is_a_clear_error(command: str) -> None:
    url = f"ws://127.0.0.1:{_closed_port()}/"
    proc = subprocess.run(
        [sys.executable, "-m", "client.cli", command, "--url", url, "--room", "r1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert f"cannot reach {url}" in proc.stderr
    assert "Traceback" not in proc.stderr
