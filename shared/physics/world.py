"""The pymunk world: bodies and shapes for the balls and cushions, advanced event to event.

This is the only module that imports pymunk. The event solver (``engine.py``) knows the exact
motion between events in closed form and the exact time of the next event; the world then
advances every body to that time with **one** ``Space.step`` whose velocity is the chord velocity
of the phase (``v0 + a·τ/2``), so pymunk's C integrator lands each body exactly on its parabola
(``p0 + v0·τ + a·τ²/2``, up to rounding) with no Python in any per-step path. The body
positions it produces are the positions the engine uses for the next segments.

pymunk's broad and narrow phase run at every step. Contacts are never resolved by pymunk (the
collision laws are ours, at the exact time of impact): a pre-solve handler rejects every contact
and records any penetration deeper than :data:`PENETRATION_LIMIT`, which would mean the analytic
solver missed a collision. That is a bug, raised as :class:`PhysicsBug`.

Units are metres, so ``collision_slop`` is set to a micrometre (pymunk's default 0.1 would be
10 cm); the space is single-threaded; every step depends only on the previous state, so results
are bit-identical for identical inputs. See docs/physics.md for why the step is per event rather
than a fixed 1 kHz tick (measured in bench/physics.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

import pymunk

from shared.table import BallName, Point, TableSpec

PENETRATION_LIMIT: Final = 1e-6  # m; rounding at an exact contact is ~1e-15 m
_BALL: Final = 1
_CUSHION: Final = 2


class PhysicsBug(RuntimeError):
    """The engine broke one of its own invariants (two bodies interpenetrate)."""


class World:
    """A pymunk Space mirroring the table: static cushion segments and one body per ball."""

    def __init__(self, table: TableSpec, positions: Mapping[BallName, Point]) -> None:
        space = pymunk.Space(threaded=False)
        space.collision_slop = PENETRATION_LIMIT
        space.gravity = (0.0, 0.0)
        space.damping = 1.0  # cloth friction is ours, per phase; no pymunk damping
        length, width = table.length, table.width
        corners = [(0.0, 0.0), (length, 0.0), (length, width), (0.0, width)]
        for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
            seg = pymunk.Segment(space.static_body, a, b, 0.0)
            seg.collision_type = _CUSHION
            space.add(seg)
        self._space = space
        self._bodies: dict[BallName, pymunk.Body] = {}
        self._shape_ball: dict[pymunk.Shape, BallName] = {}
        self.airborne: set[BallName] = set()
        self._violations: list[str] = []
        self._velocity: dict[BallName, tuple[float, float]] = {}
        mass, r = table.ball_mass, table.ball_radius
        for name, (x, y) in positions.items():
            body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0.0, r))
            body.position = (x, y)
            shape = pymunk.Circle(body, r)
            shape.collision_type = _BALL
            space.add(body, shape)
            self._bodies[name] = body
            self._shape_ball[shape] = name
        # Every ball it was made with, also those that leave the table in a run (``reset``).
        self._every_body: dict[BallName, pymunk.Body] = dict(self._bodies)
        handler = space.add_default_collision_handler()
        handler.pre_solve = self._pre_solve

    @property
    def balls(self) -> tuple[BallName, ...]:
        """The balls this world was made with, in the order it was given them."""
        return tuple(self._every_body)

    def reset(self, positions: Mapping[BallName, Point]) -> None:
        """Every ball back on the table at ``positions``, at rest, as a new World would have
        them (the same balls it was made with).

        A space with its cushions and bodies costs about a millisecond to build, as much as a
        short simulation, and a bot's search runs hundreds; a reset costs a fiftieth of that.
        (pymunk calls the pre-solve check at every step of a contact, so nothing it remembers
        of the last run's contacts skips a check in the next.)"""
        if positions.keys() != self._every_body.keys():
            raise ValueError(f"this world has {sorted(self._every_body)}, not {sorted(positions)}")
        space = self._space
        for name, body in self._every_body.items():
            if name not in self._bodies:  # it left the table in the last run
                space.add(body, *body.shapes)
                for shape in body.shapes:
                    self._shape_ball[shape] = name
            body.position = positions[name]
            body.velocity = (0.0, 0.0)
            # The shapes' cached positions, which shape queries (``overlaps``) read.
            space.reindex_shapes_for_body(body)
        self._bodies = dict(self._every_body)
        self.airborne.clear()
        self._violations.clear()
        self._velocity.clear()

    def _pre_solve(self, arbiter: Any, space: Any, data: Any) -> bool:
        names = [self._shape_ball.get(s) for s in arbiter.shapes]
        # An airborne ball may pass over another ball in the plane; the 3-D solver handles it.
        if not any(n is not None and n in self.airborne for n in names):
            depth = max((-p.distance for p in arbiter.contact_point_set.points), default=0.0)
            if depth > PENETRATION_LIMIT:
                self._violations.append(f"{names} interpenetrate by {depth:.3g} m")
        return False  # never let pymunk resolve a contact: the collision laws are ours

    def step(self, dt: float, velocities: Mapping[BallName, tuple[float, float]]) -> None:
        """Advance every body by ``dt`` seconds at the given (chord) velocities."""
        for name, vel in velocities.items():
            if self._velocity.get(name) != vel:  # resting balls keep theirs: skip the call
                self._bodies[name].velocity = vel
                self._velocity[name] = vel
        if dt > 0.0:
            self._space.step(dt)
        if self._violations:
            raise PhysicsBug("; ".join(self._violations))

    def position(self, name: BallName) -> Point:
        p = self._bodies[name].position
        return (p.x, p.y)

    def place(self, name: BallName, pos: Point) -> None:
        self._bodies[name].position = pos

    def remove(self, name: BallName) -> None:
        body = self._bodies.pop(name)
        for shape in list(body.shapes):
            del self._shape_ball[shape]
        self._space.remove(body, *body.shapes)

    def overlaps(self, names: Iterable[BallName]) -> list[str]:
        """Pairs (ball–ball or ball–cushion) that interpenetrate now, via pymunk shape queries."""
        out: list[str] = []
        for name in names:
            if name in self.airborne or name not in self._bodies:
                continue
            for shape in self._bodies[name].shapes:
                for hit in self._space.shape_query(shape):
                    other = self._shape_ball.get(hit.shape, "cushion") if hit.shape else "?"
                    if other in self.airborne:
                        continue
                    depth = max((-p.distance for p in hit.contact_point_set.points), default=0.0)
                    if depth > PENETRATION_LIMIT:
                        out.append(f"{name}/{other} by {depth:.3g} m")
        return out
