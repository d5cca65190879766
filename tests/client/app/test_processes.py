"""Issue 13 point 11: every process the client starts ends with it — the local server, the bot,
the bot's thinking worker and multiprocessing's resource tracker — and a local server that dies
is reaped and reported, not left a zombie. The process tree is read from /proc."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.app.local import LocalGame
from client.session import Session
from tests.imports import fresh_python_prints
from tests.procs import Proc, alive, descendants, still_alive_after

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)"),
]

CAROM = str(Path(sys.executable).parent / "carom")


def _watch(proc: subprocess.Popen[str], seen: set[Proc], cmds: set[str]) -> None:
    while proc.poll() is None:
        now = descendants(proc.pid)
        seen |= now
        cmds.update(alive(now))
        time.sleep(0.1)


def test_carom_play_screenshot_leaves_no_process_behind(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ARCADE_HEADLESS", "PYGLET_AUDIO")}
    # A home of its own shows what the run leaves in one; Mesa's shader cache stays shared.
    env |= {"HOME": str(home), "XDG_CACHE_HOME": str(Path.home() / ".cache")}
    proc = subprocess.Popen(
        [CAROM, "play", "--offscreen", "--screenshot", str(tmp_path / "s.png"), "--after", "9"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    seen: set[Proc] = set()
    cmds: set[str] = set()
    _watch(proc, seen, cmds)
    assert proc.returncode == 0, proc.stderr.read() if proc.stderr else ""
    # It did start what it should: the server, the bot and the bot's thinking worker.
    assert any("-m server" in c for c in cmds)
    assert any("client.cli bot" in c for c in cmds)
    assert any("spawn_main" in c for c in cmds), cmds
    assert still_alive_after(seen) == []
    # Offscreen, it opens no audio device: no sound server's runtime folder is made in /tmp and
    # linked from ~/.config/pulse.
    kept = sorted(str(p.relative_to(home)) for p in home.rglob("*"))
    assert not any(k.startswith(".config/pulse") for k in kept), kept


def test_a_local_game_that_closes_ends_its_server_bot_and_workers() -> None:
    import asyncio

    game = LocalGame()
    before = descendants(os.getpid())
    try:
        url = game.start_server()

        async def make_room() -> str:
            async with Session(url, "host", remember_identity=False) as s:
                room: str = await s.create_room("three_cushion")
                await s.join(room)  # the bot's opponent: the match and its lag start
                game.start_bot(room, level=1)
                # Until the bot's thinking worker runs (it thinks about its lag stroke).
                for _ in range(400):
                    if any("spawn_main" in c for c in alive(descendants(os.getpid()) - before)):
                        break
                    await asyncio.sleep(0.05)
                return room

        asyncio.run(make_room())
        started = descendants(os.getpid()) - before
        assert any("spawn_main" in c for c in alive(started)), alive(started)
    finally:
        game.stop()
    assert still_alive_after(started) == []


def test_a_local_server_that_dies_is_reaped_reported_and_can_be_restarted() -> None:
    game = LocalGame()
    try:
        url = game.start_server()
        assert game.server is not None
        first = game.server.proc.pid
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 5
        while not game.server_died() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert game.server_died()
        assert not Path(f"/proc/{first}").exists()  # reaped: no zombie left
        assert game.restart_server() == url  # same port, same database
        assert not game.server_died()
    finally:
        game.stop()


def test_opening_the_window_runs_no_compiler_or_linker() -> None:
    # pyglet looks for optional libraries through ctypes, which falls back on gcc and ld for
    # one it cannot find in ldconfig's list; the game needs none of those (FFmpeg).
    code = (
        "import json, os, sys\n"
        "ran = []\n"
        "sys.addaudithook(lambda e, a: ran.append(os.path.basename(str(a[0])))"
        " if e == 'subprocess.Popen' else None)\n"
        "os.environ['ARCADE_HEADLESS'] = '1'\n"
        "from client.app.app import make_window\n"
        "window = make_window(visible=False)\n"
        "window.close()\n"
        "print(json.dumps(ran))"
    )
    ran = json.loads(fresh_python_prints(code))
    assert ran, "pyglet reads ldconfig's list of libraries: the hook saw nothing"
    assert [p for p in ran if p != "ldconfig"] == [], ran
