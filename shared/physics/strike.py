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
with restitution ``e_slate``. The ball is then squeezed between tip and slate: if the cue, still
moving along its axis at ``V − F/M``, is faster along that axis than the contact point of the
rebounding ball, it hits the ball again, the slate answers again, and so on. The squeeze is
resolved as that sequence of pairwise impacts (cue–ball with ``e_tip``, ball–slate with
``e_slate``), each impulse along its own normal, until the cue no longer approaches the ball
and the ball no longer moves into the slate. Each hit adds forward speed, so the ball always
gets out: a hop at a few degrees of elevation, a jump at 20–35°, and above about 40° (where a
single hit used to be taken as pinning the ball, so nothing jumped) a lower jump after a second
or third hit, as real steep jump strokes do. Friction of the slate during the strike is not
modelled (tried: with the cloth's μs at each slate contact, the steepest massé strokes hop
5–6 cm and leave 30° off the cue line, which real massé strokes do not; the squeeze's contact
is not the cloth's sliding contact, and no measurement was at hand).
"""

from __future__ import annotations

import math

from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.types import Stroke
from shared.table import MATCH

Vec3 = tuple[float, float, float]

# The cue–ball–slate squeeze converges geometrically (each round trip keeps at most
# e_tip·e_slate of the approach); no stroke in the allowed ranges needs more than a few hits.
_MAX_HITS = 20


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
    # Effective inverse mass of the cue–ball contact along the cue axis.
    denom = 1.0 / spec.cue_mass + 1.0 / mass + (a * a + b * b) / inertia
    f = (1.0 + spec.cue_tip_restitution) * stroke.speed / denom
    lin = f / mass
    vx, vy, vz = lin * d[0], lin * d[1], lin * d[2]
    k = f / inertia
    # r × d: the axis the tip's impulse turns the ball about, per unit impulse times I.
    rxd = (a * e_u[0] - b * e_r[0], a * e_u[1] - b * e_r[1], a * e_u[2] - b * e_r[2])
    w = (k * rxd[0], k * rxd[1], k * rxd[2])
    cue = stroke.speed - f / spec.cue_mass  # the cue's speed along its axis after the hit
    hits = 1
    while True:
        # The slate stops the downward motion and returns e_slate of it (a rebound too slow
        # to leave the slate leaves the ball on it).
        if vz < 0.0:
            up = -spec.e_slate * vz
            vz = up if up >= spec.min_bounce_speed else 0.0
        # Speed of the ball's contact point along the cue axis: v·d + (ω × r)·d = v·d + ω·(r × d).
        along = vx * d[0] + vy * d[1] + vz * d[2] + w[0] * rxd[0] + w[1] * rxd[1] + w[2] * rxd[2]
        approach = cue - along
        if approach <= 0.0 or hits >= _MAX_HITS:
            break
        # The cue catches the ball again: another cue–ball impact on the same axis.
        f = (1.0 + spec.cue_tip_restitution) * approach / denom
        hits += 1
        lin, k = f / mass, f / inertia
        vx, vy, vz = vx + lin * d[0], vy + lin * d[1], vz + lin * d[2]
        w = (w[0] + k * rxd[0], w[1] + k * rxd[1], w[2] + k * rxd[2])
        cue -= f / spec.cue_mass
    if vz < 0.0:
        vz = 0.0  # only after _MAX_HITS: the slate holds the ball (never adds energy)
    psi = squirt_angle(stroke.tip_x, mass, spec)
    if psi != 0.0:
        c, s = math.cos(psi), math.sin(psi)
        vx, vy = c * vx - s * vy, s * vx + c * vy
    return (vx, vy, vz if vz > 0.0 else 0.0), w


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


def masse_heading(stroke: Stroke, radius: float = MATCH.ball_radius) -> float:
    """Heading (degrees, [0, 360)) a massé ends its curve on: Coriolis's rule.

    Coriolis (1835); Alciatore, "Coriolis was brilliant ... Part V: massé shot aiming"
    (Billiards Digest, Nov. 2005) and TP A.19: once the curve is over, the ball rolls along
    the line from where it rested to the point where the cue's line, through the tip's contact
    point, meets the cloth. The slate's and the cloth's forces act at the contact point, so the
    angular momentum about it is the cue's; the engine keeps it exactly, and differs from the
    rule only by squirt (1–3° at the end of a massé curve, docs/physics.md). For aiming
    massé strokes; meaningless for a level cue (the cue's line never meets the cloth).
    """
    phi, th = math.radians(stroke.direction), math.radians(stroke.elevation)
    if th <= 0.0:
        raise ValueError("a massé needs an elevated cue")
    cphi, sphi, cth, sth = math.cos(phi), math.sin(phi), math.cos(th), math.sin(th)
    d = (cth * cphi, cth * sphi, -sth)
    e_r = (sphi, -cphi)
    e_u = (sth * cphi, sth * sphi, cth)
    a, b = stroke.tip_x * radius, stroke.tip_y * radius
    c = math.sqrt(max(0.0, radius * radius - a * a - b * b))
    tip = (
        a * e_r[0] + b * e_u[0] - c * d[0],
        a * e_r[1] + b * e_u[1] - c * d[1],
        b * e_u[2] - c * d[2],
    )
    s = (-radius - tip[2]) / d[2]  # along the cue's line down to the cloth
    return math.degrees(math.atan2(tip[1] + s * d[1], tip[0] + s * d[0])) % 360.0
