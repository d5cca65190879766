"""The command line that runs a program on a virtual display of its own (``xvfb-run``).

``xvfb-run -a`` looks for a free display number from 99 upwards and only then starts Xvfb, so
two started at the same moment (the suite's workers run in parallel) can pick the same number;
the loser then talks to the other test's display. Each worker searches from a range of its own.
"""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest

_NEXT = itertools.count()

# The marks of a test module that runs programs under xvfb-run: counted as an Xvfb test
# (tests/strict.py), and skipped, saying what to install, where there is no xvfb-run (an error
# in CI, which installs it).
ON_XVFB = [
    pytest.mark.xvfb,
    pytest.mark.skipif(
        shutil.which("xvfb-run") is None,
        reason="xvfb-run is not installed (apt-get install -y xvfb): no virtual display",
    ),
]


def xvfb_run(screen: str = "1280x800x24", errors: Path | None = None) -> list[str]:
    """``errors``: a file for what ``xauth`` and Xvfb print (xvfb-run drops it otherwise)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    base = 200 + 40 * (int(worker) if worker.isdigit() else 0) + 4 * (next(_NEXT) % 10)
    logged = ["-e", str(errors)] if errors is not None else []
    # -noreset: an X server resets when its last client disconnects, and refuses connections
    # while it does. A driver that checks the display (open, close) and then starts the game
    # lost that race now and then: the game could not open a display whose socket was there.
    # Of 300 openings each right after a close, 8 to 18 failed without it, none with it
    # (tests/test_display.py).
    server = f"-screen 0 {screen} -noreset"
    return ["xvfb-run", "-a", "-n", str(base), *logged, "-s", server]
