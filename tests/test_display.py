"""The virtual display the window tests run on stays open between one client and the next."""

from __future__ import annotations

import subprocess
import sys

from tests.display import ON_XVFB, xvfb_run

pytestmark = ON_XVFB

# Open the display, close it, again and again: what a driver that checks the display and then
# starts the game does. Prints how many openings failed.
OPEN_CLOSE = """
import ctypes, ctypes.util
x = ctypes.CDLL(ctypes.util.find_library("X11"))
x.XOpenDisplay.restype = ctypes.c_void_p
x.XCloseDisplay.argtypes = [ctypes.c_void_p]
failed = 0
for _ in range(300):
    d = x.XOpenDisplay(None)
    if d:
        x.XCloseDisplay(d)
    else:
        failed += 1
print(failed)
"""


def test_a_client_can_connect_right_after_the_last_one_left() -> None:
    # An X server that resets when its last client leaves refuses connections meanwhile: the
    # game, started just after its driver closed its check of the display, could not open it.
    proc = subprocess.run(
        [*xvfb_run("640x480x24"), sys.executable, "-c", OPEN_CLOSE],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0"], proc.stdout + proc.stderr
