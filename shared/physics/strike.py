"""The cue strike: an instantaneous impulse at the tip contact point.

Model (Leckie & Greenspan 2006; Alciatore TP A.30 for the cue–ball collision, TP A.31 for
squirt). The cue of mass ``M`` moves along its axis ``d`` (heading ``direction``, tilted down by
``elevation``) and meets the ball at ``r = a·e_r + b·e_u − c·d``, where ``a = tip_x·R`` is the
side offset, ``b = tip_y·R`` the offset perpendicular to the cue in its vertical plane and
``c = √(R² − a² − b²)``. The tip is frictionless, so the impulse ``F·d`` lies on the cue axis.
Treating the cue as a rigid mass ``M`` and the ball as a free sphere, the impulse is

    F = (1 + e_tip)·V / (1/M + 1/m + (a² + b²)/I),

since ``|r × d|² = a² + b²``. Then ``v = F·d/m`` and ``ω = F·(a·e_u − b·e_r)/I``.

Squirt: a real shaft's end mass moves sideways with the tip, so the ball leaves off the cue line,
away from the english side, by ``atan(2.5·s·√(1−s²) / (1 + m/m_e + 2.5·(1−s²)))`` with
``s = a/R`` (TP A.31). We rotate the horizontal velocity by that angle.

An elevated cue drives the ball into the slate (``v_z = −F·sin θ / m``); the slate returns it
with restitution ``e_slate``: a hop or a jump — unless the cue, still moving along its axis at
``V − F/M``, is faster along that axis than the rebounding ball, in which case it pins the ball
(no jump; with the default constants, above about 40° for a centre hit). Friction of the slate
during the strike is not modelled.
"""

from __future__ import annotations

import math

from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.types import Stroke

Vec3 = tuple[float, float, float]


def squirt_angle(side: float, ball_mass: float, spec: PhysicsSpec) -> float:
    """Squirt angle in radians for side offset ``side`` (ball radii); > 0 turns the ball left."""
    s = side
    root = math.sqrt(max(0.0, 1.0 - s * s))
    return math.atan(2.5 * s * root / (1.0 + ball_mass / spec.cue_end_mass + 2.5 * (1.0 - s * s)))


def strike(stroke: Stroke, radius: float, mass: float, spec: PhysicsSpec) -> tuple[Vec3, Vec3]:
    """Linear and angular velocity of the ball just after the cue leaves it (and the slate)."""
    phi = math.radians(stroke.direction)
    th = math.radians(stroke.elevation)
    cphi, sphi, cth, sth = math.cos(phi), math.sin(phi), math.cos(th), math.sin(th)
    d = (cth * cphi, cth * sphi, -sth)  # cue axis, towards the ball
    e_r = (sphi, -cphi, 0.0)  # the shooter's right, horizontal
    e_u = (sth * cphi, sth * sphi, cth)  # e_r × d: "up" on the ball face seen along the cue
    a = stroke.tip_x * radius
    b = stroke.tip_y * radius
    inertia = 0.4 * mass * radius * radius
    f = (
        (1.0 + spec.cue_tip_restitution)
        * stroke.speed
        / (1.0 / spec.cue_mass + 1.0 / mass + (a * a + b * b) / inertia)
    )
    lin = f / mass
    vx, vy, vz = lin * d[0], lin * d[1], lin * d[2]
    k = f / inertia
    w = (
        k * (a * e_u[0] - b * e_r[0]),
        k * (a * e_u[1] - b * e_r[1]),
        k * (a * e_u[2] - b * e_r[2]),
    )
    psi = squirt_angle(stroke.tip_x, mass, spec)
    if psi != 0.0:
        c, s = math.cos(psi), math.sin(psi)
        vx, vy = c * vx - s * vy, s * vx + c * vy
    # The slate stops the downward part and returns e_slate of it, unless the cue, still moving
    # along its axis after the impact, would meet the rebounding ball again: then it pins the
    # ball to the slate and there is no jump (why a steep massé cue does not make the ball fly,
    # while a 10–35° cue can hop or jump it).
    up = -spec.e_slate * vz
    cue_after = stroke.speed - f / spec.cue_mass
    ball_along_cue = lin * cth * cth + up * d[2]  # (v_horizontal, up) · d, before squirt
    if up < spec.min_bounce_speed or ball_along_cue < cue_after:
        up = 0.0
    return (vx, vy, up), w


def aim_direction(
    start: tuple[float, float],
    target: tuple[float, float],
    tip_x: float = 0.0,
    ball_mass: float = 0.210,
    spec: PhysicsSpec = DEFAULT_SPEC,
) -> float:
    """Cue ``direction`` (degrees, [0, 360)) that sends a ball at ``start`` off towards
    ``target`` with side english ``tip_x``: the aim line corrected for squirt. For bots and
    aiming aids; the curve of an elevated cue (swerve, massé) is not corrected."""
    heading = math.degrees(math.atan2(target[1] - start[1], target[0] - start[0]))
    return (heading - math.degrees(squirt_angle(tip_x, ball_mass, spec))) % 360.0
