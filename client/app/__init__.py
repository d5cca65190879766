"""The Arcade desktop client (``carom play``).

This subpackage is the only place in the project that imports arcade or pyglet, and even here
only the view, drawing and window modules do: ``model``, ``layout``, ``motion`` and ``aim`` are
pure so tests and benchmarks can reason about what should be on screen without a GL context.
"""

import sys

# The game plays only its own WAV sounds, which pyglet decodes by itself. Its FFmpeg codec is
# never used, yet looking for the FFmpeg libraries when pyglet.media is imported runs ldconfig,
# then gcc and ld, three times where FFmpeg is not installed (that is how ctypes finds a
# library): 0.08 s of CPU at every start, and a compiler run by a game. A None entry in
# sys.modules makes that import fail at once, which pyglet takes as "no FFmpeg".
sys.modules.setdefault("pyglet.media.codecs.ffmpeg_lib", None)
