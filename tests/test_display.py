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


def _on_a_display(code: str) -> str:
    """What ``python -c code`` prints on a virtual display of its own; it must exit cleanly."""
    proc = subprocess.run(
        [*xvfb_run("640x480x24"), sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_client_can_connect_right_after_the_last_one_left() -> None:
    # An X server that resets when its last client leaves refuses connections meanwhile: the
    # game, started just after its driver closed its check of the display, could not open it.
    out = _on_a_display(OPEN_CLOSE)
    assert out.split() == ["0"], out


# A window that is gone by the time its title is read, as when the game closes its first
# window on a software renderer while the close test lists the windows (tests/client/app/
# wm_close.py): Xlib's default error handler would end the lister with "BadWindow".
GONE_WINDOW = """
import pyglet.libs.x11.xlib as xlib
from tests.client.app.wm_close import window_title, window_titles
d = xlib.XOpenDisplay(None)
root = xlib.XDefaultRootWindow(d)
w = xlib.XCreateSimpleWindow(d, root, 0, 0, 10, 10, 0, 0, 0)
xlib.XStoreName(d, w, b"Carom gone")
xlib.XSync(d, False)
print(window_titles())
xlib.XDestroyWindow(d, w)
xlib.XSync(d, False)
print(repr(window_title(d, w)), window_titles())
"""


def test_listing_windows_survives_one_that_is_gone() -> None:
    out = _on_a_display(GONE_WINDOW)
    assert out.splitlines() == ["['Carom gone']", "'' []"], out
