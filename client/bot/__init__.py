"""Bots: a brain that searches strokes with the real physics and referee (``brain``), skill
levels (``levels``), and a player that drives a :class:`client.session.Session` (``player``).

Importing this package is light; ``brain`` imports the physics (pymunk) only when used.
"""
