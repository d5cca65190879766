"""The Arcade desktop client (``carom play``).

This subpackage is the only place in the project that imports arcade or pyglet, and even here
only the view, drawing and window modules do: ``model``, ``layout``, ``motion`` and ``aim`` are
pure so tests and benchmarks can reason about what should be on screen without a GL context.
"""
