"""``carom play``: options, a clear error for an unreachable server, and the default game
(a local server and a bot opponent) rendered to a screenshot."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image


def _play(*args: str, timeout: float = 90) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    return subprocess.run(
        [sys.executable, "-m", "client.cli", "play", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def test_play_help_lists_every_option() -> None:
    proc = _play("--help")
    assert proc.returncode == 0
    for opt in ("--url", "--name", "--room", "--spectate", "--screenshot", "--after"):
        assert opt in proc.stdout


def test_room_and_spectate_are_exclusive() -> None:
    proc = _play("--room", "a", "--spectate", "b")
    assert proc.returncode == 2
    assert "not allowed with" in proc.stderr


def test_no_display_is_a_clear_error_before_anything_starts() -> None:
    # Without a screen (and without --screenshot) the window cannot open: one sentence that
    # says what to do, no toolkit traceback, and no local server left behind.
    proc = _play(timeout=30)
    assert proc.returncode == 2
    assert "no display" in proc.stderr and "--screenshot" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_offscreen_without_a_screenshot_is_refused() -> None:
    proc = _play("--offscreen", timeout=30)
    assert proc.returncode == 2 and "--offscreen goes with --screenshot" in proc.stderr


@pytest.mark.slow
def test_unreachable_server_is_a_clear_error_and_the_lobby_shows_it(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    shot = tmp_path / "lobby.png"
    proc = _play("--url", f"ws://127.0.0.1:{port}/", "--screenshot", str(shot), "--after", "0.2")
    assert proc.returncode == 1
    assert f"could not connect to ws://127.0.0.1:{port}/" in proc.stderr
    assert Image.open(shot).size == (1280, 800)


@pytest.mark.slow
def test_play_without_url_starts_a_local_server_and_a_bot_and_opens_the_lag(
    tmp_path: Path,
) -> None:
    shot = tmp_path / "play.png"
    proc = _play("--name", "tester", "--screenshot", str(shot), "--after", "4", timeout=120)
    assert proc.returncode == 0, proc.stderr
    img = Image.open(shot).convert("RGB")
    # The table view is up with the cue on our lag ball (the cue's shaft colour), which only
    # happens once both seats are filled: the bot joined and the server opened the lag.
    shaft = sum(
        1
        for r, g, b in img.getdata()
        if abs(r - 228) < 12 and abs(g - 200) < 12 and abs(b - 150) < 12
    )
    assert shaft > 200
