"""What a window manager's close button does, for test_close.py: send ``WM_DELETE_WINDOW`` to the
game's window, through Xlib (pyglet's own ctypes bindings, so no extra package).

``python wm_close.py [TITLE]``: on ``$DISPLAY``, sends a ``WM_PROTOCOLS`` client message with
``WM_DELETE_WINDOW`` to each top-level window whose title contains TITLE (default "Carom") and
prints their number. Nothing is destroyed or killed: the client decides what to do, as it would
under any window manager.
"""

from __future__ import annotations

import ctypes
import sys

import pyglet.libs.x11.xlib as xlib


def _ignore(_display: object, _event: object) -> int:
    return 0


# A window listed by XQueryTree may be gone when its title is read a moment later (the game
# closes its first window when the renderer is a software one and opens another): Xlib's
# default handler would end this process on that BadWindow. The window is then simply not
# there, which is what the callers already handle.
_HANDLER = xlib.XErrorHandler(_ignore)
xlib.XSetErrorHandler(_HANDLER)


def window_title(display: object, window: int) -> str:
    """The window's title; empty when it has none or is gone."""
    name = ctypes.c_char_p()
    if not xlib.XFetchName(display, window, ctypes.byref(name)) or not name.value:
        return ""
    text = name.value.decode("latin-1")  # WM_NAME is Latin-1 (pyglet sets it so)
    xlib.XFree(name)
    return text


def _windows(display: object, root: int) -> list[int]:
    """Every window below ``root`` (pyglet's window may sit under a frame of a window manager)."""
    out: list[int] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        root_ret, parent_ret = xlib.Window(), xlib.Window()
        children = ctypes.POINTER(xlib.Window)()
        count = ctypes.c_uint()
        if not xlib.XQueryTree(
            display,
            parent,
            ctypes.byref(root_ret),
            ctypes.byref(parent_ret),
            ctypes.byref(children),
            ctypes.byref(count),
        ):
            continue
        kids = [children[i] for i in range(count.value)]
        if children:
            xlib.XFree(children)
        out.extend(kids)
        frontier.extend(kids)
    return out


def window_titles() -> list[str]:
    """The titles of the windows on the display (empty ones left out)."""
    display = xlib.XOpenDisplay(None)
    if not display:
        return []
    try:
        root = xlib.XDefaultRootWindow(display)
        return [t for t in (window_title(display, w) for w in _windows(display, root)) if t]
    finally:
        xlib.XCloseDisplay(display)


def close_windows(title: str = "Carom") -> int:
    display = xlib.XOpenDisplay(None)
    if not display:
        raise SystemExit("wm_close: cannot open the display")
    root = xlib.XDefaultRootWindow(display)
    protocols = xlib.XInternAtom(display, b"WM_PROTOCOLS", False)
    delete = xlib.XInternAtom(display, b"WM_DELETE_WINDOW", False)
    sent = 0
    for window in _windows(display, root):
        if title not in window_title(display, window):
            continue
        event = xlib.XEvent()
        event.xclient.type = xlib.ClientMessage
        event.xclient.window = window
        event.xclient.message_type = protocols
        event.xclient.format = 32
        event.xclient.data.l[0] = delete
        event.xclient.data.l[1] = xlib.CurrentTime
        xlib.XSendEvent(display, window, False, xlib.NoEventMask, ctypes.byref(event))
        sent += 1
    xlib.XFlush(display)
    xlib.XCloseDisplay(display)
    return sent


if __name__ == "__main__":
    print(close_windows(sys.argv[1] if len(sys.argv) > 1 else "Carom"))
