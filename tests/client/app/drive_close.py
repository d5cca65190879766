"""Driver for test_close.py, run under ``xvfb-run``: ``carom play`` (a local game against the
bot, as ``make play`` starts it) in a real window, ended the way a person or the system ends it.

``python drive_close.py HOW OUT.json``, HOW one of:

- ``wm-close``: the window manager's close button (``WM_DELETE_WINDOW``, wm_close.py);
- ``sigterm``: SIGTERM to the client (a session logging out, ``kill``);
- ``sigint``: SIGINT to the client alone (the others get nothing);
- ``ctrl-c``: SIGINT to the client's whole process group, as Ctrl-C in its terminal sends it
  (the local server and its worker get one too; the bot, in its own group, does not).

It waits until the match is under way (the local server, the bot and the bot's thinking worker
are all there and the window shows the table), ends the client, then watches the process tree
(from /proc) until everything it saw is gone or 30 s pass, and writes what it saw.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository, for tests.procs

import pyglet.libs.x11.xlib as xlib  # noqa: E402

from tests.client.app.wm_close import close_windows, window_titles  # noqa: E402
from tests.procs import Proc, alive, descendants  # noqa: E402

HOW, OUT = sys.argv[1], sys.argv[2]
CAROM = str(Path(sys.executable).parent / "carom")


def listening_port(pid: int) -> int | None:
    """The TCP port process ``pid`` listens on (the local server's port 0 became one)."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
    except OSError:
        return None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as fh:
            for row in fh.readlines()[1:]:
                f = row.split()
                if f[3] == "0A" and f[9] in inodes:  # LISTEN
                    return int(f[1].rsplit(":", 1)[1], 16)
    return None


def bot_has_lagged(port: int, titles: list[str]) -> bool:
    """The bot has played its lag stroke (the window would ask before leaving the match): a
    spectator's snapshot of the room named in the window's title says so. (The lag itself ends
    only when the player in the window plays or runs out of time.)"""
    import asyncio

    from websockets.exceptions import WebSocketException

    from shared.protocol import to_client as tc
    from shared.protocol import to_server as ts
    from tests.server.wire import Wire

    rooms = [t.rsplit("room ", 1)[1].strip() for t in titles if "room " in t]
    if not rooms:
        return False

    async def look() -> bool:
        w = await Wire.open(f"ws://127.0.0.1:{port}/", "watcher")
        try:
            snap = await w.request(ts.Spectate(room_id=rooms[0]), tc.Snapshot)
        finally:
            await w.close()
        lag = snap.match.lag
        return lag is not None and any(lag.played)

    try:
        return asyncio.run(look())
    except (OSError, AssertionError, TimeoutError, WebSocketException):
        return False  # not up yet, or the room not yet open: the caller asks again


def match_under_way(cmds: list[str], titles: list[str]) -> bool:
    """The bot has played a stroke of the match (its lag): the lag is on in the window too."""
    for line in cmds:
        if "-m server" in line and "server.sim.worker" not in line:
            port = listening_port(int(line.split()[0]))
            return port is not None and bot_has_lagged(port, titles)
    return False


def display_opens(within: float = 10.0) -> int:
    """How many tries it took to open ``$DISPLAY`` (0: not within ``within`` seconds). The game
    once could not open a display whose socket was there (two suite runs out of a dozen: the X
    server was resetting after this very check left it, which ``-noreset`` in tests/display.py
    now prevents): this tells a display that was not answering yet from one that never did."""
    deadline = time.monotonic() + within
    tries = 0
    while True:
        tries += 1
        display = xlib.XOpenDisplay(None)
        if display:
            xlib.XCloseDisplay(display)
            return tries
        if time.monotonic() >= deadline:
            return 0
        time.sleep(0.2)


def main() -> dict[str, object]:
    display = os.environ.get("DISPLAY", "")
    # Which display the game was given and whether its X server was there (when it is not).
    report: dict[str, object] = {
        "how": HOW,
        "display": display,
        "x_socket": Path(f"/tmp/.X11-unix/X{display.lstrip(':')}").exists(),
        "xauthority": os.environ.get("XAUTHORITY", ""),
        "display_tries": display_opens(),
    }
    if not report["display_tries"]:
        report["ready"] = False
        return report
    # Ctrl-C as a terminal's foreground job gets it. A shell starts its background jobs with
    # SIGINT ignored, and an ignored signal stays ignored in every program started from there
    # (``carom play`` keeps it so, as it should): where this suite was started that way, the
    # game would never see the SIGINT this test sends. A handler is reset to the default on
    # exec, which is what the game must start with.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    proc = subprocess.Popen(
        [CAROM, "play", "--level", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "CAROM_AA": "0"},
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    seen: set[Proc] = set()
    try:
        deadline = time.monotonic() + 90
        ready = False
        while time.monotonic() < deadline and proc.poll() is None:
            now = descendants(proc.pid)
            seen |= now
            cmds = alive(now)
            titles = window_titles()
            # The match is under way: its room is in the window's title, the bot thinks, and
            # it has played its lag stroke (the window would ask before leaving it).
            ready = (
                any("client.cli bot" in c for c in cmds)
                and any("spawn_main" in c for c in cmds)
                and any("room" in t for t in titles)
                and match_under_way(cmds, titles)
            )
            if ready:
                break
            time.sleep(0.1)
        report["ready"] = ready
        report["started"] = alive(seen)
        report["titles"] = window_titles()
        if not ready:
            return report
        t0 = time.monotonic()
        if HOW == "wm-close":
            report["windows_closed"] = close_windows("Carom")
        elif HOW == "sigterm":
            proc.send_signal(signal.SIGTERM)
        elif HOW == "sigint":
            proc.send_signal(signal.SIGINT)
        elif HOW == "ctrl-c":
            os.killpg(proc.pid, signal.SIGINT)
        else:
            raise SystemExit(f"unknown HOW {HOW!r}")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                # Reaped: its pid may already be another test's process, whose children are
                # none of ours (and would be killed below). Its own children are in ``seen``.
                if not alive(seen):
                    break
            else:
                seen |= descendants(proc.pid)
            time.sleep(0.05)
        report["seconds"] = round(time.monotonic() - t0, 2)
        report["exited"] = proc.poll() is not None
        report["left"] = alive(seen)
        return report
    finally:
        if proc.poll() is None:
            proc.kill()
        out, _ = proc.communicate(timeout=30)
        report["output"] = out[-3000:]
        report["returncode"] = proc.returncode
        for line in alive(seen):  # whatever is left: end it, so the test run leaves nothing
            pid = int(line.split()[0])
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


if __name__ == "__main__":
    result = main()
    Path(OUT).write_text(json.dumps(result))
