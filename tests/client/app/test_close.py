"""Issue 21: every way of closing the desktop client ends every process it started.

``carom play`` for a local game (the server, the bot, the bot's thinking worker and
multiprocessing's resource tracker under it) in a real window on a virtual display,
ended by the window manager's close button (``WM_DELETE_WINDOW``), by SIGTERM, by SIGINT and by
Ctrl-C (SIGINT to its process group);
the process tree is read from /proc until all of it is gone. (Esc and --screenshot:
test_processes.py.) Needs ``xvfb-run`` (Debian package ``xvfb``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.display import ON_XVFB, xvfb_run

DRIVER = Path(__file__).with_name("drive_close.py")

pytestmark = [
    *ON_XVFB,
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)"),
]


def _close(how: str, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / f"{how}.json"
    xvfb_log = tmp_path / "xvfb.log"
    proc = subprocess.run(
        [*xvfb_run(errors=xvfb_log), sys.executable, str(DRIVER), how, out],
        capture_output=True,
        text=True,
        timeout=150,
        env={"CAROM_IDENTITY": str(tmp_path / "identity.json"), **_env()},
    )
    assert out.exists(), proc.stderr[-2000:]
    report: dict[str, Any] = json.loads(out.read_text())
    # The match was under way: the local server, the bot and its thinking worker were running.
    assert report["ready"], (
        f"no match under way; carom play printed:\n{report.get('output')}\n"
        f"display {report.get('display')!r}, its socket there: {report.get('x_socket')}, "
        f"opened by the driver after {report.get('display_tries')} tries (0: never), "
        f"XAUTHORITY {report.get('xauthority')!r}; xvfb-run printed:\n{proc.stderr[-2000:]}\n"
        f"Xvfb and xauth printed:\n{_tail(xvfb_log)}"
    )
    return report


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-2000:] if path.exists() else "(nothing)"


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "CAROM_IDENTITY")}


@pytest.mark.parametrize("how", ["wm-close", "sigterm", "sigint", "ctrl-c"])
def test_closing_a_local_game_ends_every_process_it_started(how: str, tmp_path: Path) -> None:
    report = _close(how, tmp_path)
    if how == "wm-close":
        assert report["windows_closed"] == 1
    # Nothing left: not the client, not its server, the bot or their workers.
    assert report["exited"], report
    assert report["left"] == [], report
    assert "Traceback" not in report["output"], report["output"]
