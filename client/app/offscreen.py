"""Set up a process to draw offscreen, before arcade is first imported.

Arcade reads ``ARCADE_HEADLESS`` when it is imported and then draws through EGL, with no display.
Such a run plays no sound either, so pyglet is told (``PYGLET_AUDIO``, read when pyglet is
imported) to open no audio device: otherwise it goes through OpenAL and PulseAudio, which costs a
tenth of a second of CPU and, without a sound server, leaves a runtime folder in /tmp and a link
to it under ``~/.config/pulse`` on every machine it runs on.
"""

from __future__ import annotations

import os


def draw_offscreen() -> None:
    os.environ["ARCADE_HEADLESS"] = "1"
    os.environ.setdefault("PYGLET_AUDIO", "silent")
