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

An elevated cue drives the ball into the slate while the tip is still on it: the tip stays
on the ball 1–2 ms (the Jacksonville high-speed films, Billiards Digest April 1999) and the
slate answers within that time. :func:`squeeze` solves both contacts together, each a
compliant spring–dashpot with its own contact time and restitution, with the cue's mass
behind the tip: a hop at a few degrees, a jump from about 20° to the maximum, highest near
50°, and the ball springs up as the tip's push falls (issue 26: impacts in sequence — the tip's
impact, then the slate's, then the still-moving cue's again — left nothing jumping a ball
20–30 cm away above 50°). A level cue never presses the ball into the slate and keeps the
impulse above, which the squeeze meets as the elevation goes to zero. Friction of the slate
during the strike is not modelled (tried with the impacts in sequence: with the cloth's μs at
each slate contact, the steepest massé strokes hopped 5–6 cm and left 30° off the cue line,
which real massé strokes do not; no measurement of that contact was at hand).
"""

from __future__ import annotations

import functools
import math

from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.types import Stroke
from shared.table import MATCH

Vec3 = tuple[float, float, float]

# The squeeze is integrated at this many steps per contact time (100 agree with 2 000 within
# 1 % of the cue's speed, tests/shared/physics/test_strike.py), for at most 60 contact times
# (the squeezes of the allowed strokes last under 10).
STEPS_PER_CONTACT = 100
_MAX_CONTACTS = 60


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
    # r × d: the axis the tip's impulse turns the ball about, per unit impulse times I.
    rxd = (a * e_u[0] - b * e_r[0], a * e_u[1] - b * e_r[1], a * e_u[2] - b * e_r[2])
    if sth > 0.0:
        # The tip drives the ball into the slate, which answers while the tip is still on the
        # ball: both contacts are solved together.
        (vx, vy, vz), w = squeeze(stroke.speed, d, rxd, mass, inertia, spec)
    else:
        lin, k = f / mass, f / inertia
        vx, vy, vz = lin * d[0], lin * d[1], 0.0
        w = (k * rxd[0], k * rxd[1], k * rxd[2])
    psi = squirt_angle(stroke.tip_x, mass, spec)
    if psi != 0.0:
        c, s = math.cos(psi), math.sin(psi)
        vx, vy = c * vx - s * vy, s * vx + c * vy
    return (vx, vy, vz if vz > 0.0 else 0.0), w


@functools.lru_cache(maxsize=16)
def _damper(e: float, period: float, mass: float) -> tuple[float, float]:
    """Stiffness and damping of a linear spring–dashpot contact on ``mass`` that lasts
    ``period`` and keeps ``e`` of the approach speed in an isolated impact.

    The contact ends when its force falls to zero (it cannot pull), before the spring is back
    at rest; Schwager & Pöschel ("Coefficient of restitution and linear–dashpot model
    revisited", Granular Matter 9, 2007) give that impact in closed form: with ``β = c/2m``,
    ``ω² = k/m − β²`` and ``x = β/ω``, it lasts ``φ/ω`` and keeps ``exp(−x·φ)`` of the speed,
    ``φ = π − atan(2x/(1 − x²))``. ``x`` is found by bisection (``e`` falls as ``x`` grows).
    """
    lo, hi = 0.0, 0.99
    for _ in range(60):
        x = 0.5 * (lo + hi)
        phi = math.pi - math.atan2(2.0 * x, 1.0 - x * x)
        if math.exp(-x * phi) > e:
            lo = x
        else:
            hi = x
    x = 0.5 * (lo + hi)
    phi = math.pi - math.atan2(2.0 * x, 1.0 - x * x)
    omega = phi / period
    beta = x * omega
    return mass * (omega * omega + beta * beta), 2.0 * mass * beta


def squeeze(
    speed: float,
    d: Vec3,
    rxd: Vec3,
    mass: float,
    inertia: float,
    spec: PhysicsSpec,
    steps_per_contact: int = STEPS_PER_CONTACT,
) -> tuple[Vec3, Vec3]:
    """The ball between the cue tip and the slate, both contacts compliant and acting at once.

    The cue (a rigid mass ``M`` moving along its axis ``d`` at ``speed``) meets the ball at
    rest on the slate. ``rxd`` is ``r × d`` for the tip's contact point ``r``: the tip pushes
    along ``d`` through it, as in the impulsive strike (TP A.30), so the push also spins the
    ball. Each contact is a linear spring with a dashpot, set so that an isolated impact
    lasts its contact time and keeps its restitution of the approach speed: the tip
    (``tip_contact_time`` for a centre hit, ``e_tip``) and the ball on cloth and slate
    (``slate_contact_time``, ``e_slate``, vertical); gravity acts; neither contact pulls.
    The motion is integrated (semi-implicit Euler, ``steps_per_contact`` steps per contact
    time) until the tip has let go and does not approach, and the ball has left the slate or
    risen and sunk back into the cloth (then it stays on the slate). Unlike impacts in
    sequence, the slate answers while the tip is still on the ball, and the ball springs up
    as the tip's push falls — how a jump stroke is described (the ball is pressed into the
    cloth and slate and springs up when the cue's push is released). The ball's few
    millimetres of motion during the contact are left out of its position.
    """
    g = spec.g
    m_cue = spec.cue_mass
    m_tip = 1.0 / (1.0 / m_cue + 1.0 / mass)  # a centre hit
    k_t, c_t = _damper(spec.cue_tip_restitution, spec.tip_contact_time, m_tip)
    k_s, c_s = _damper(spec.e_slate, spec.slate_contact_time, mass)
    h = min(spec.tip_contact_time, spec.slate_contact_time) / steps_per_contact
    # Every force acts along d (the tip) or z (the slate, gravity), so the state is the tip's
    # and the slate's impulses so far and the time: v = (j_t·d + (j_s − m·g·t)·z)/m and
    # ω = j_t·(r × d)/I, and the contact point's speed along d is j_t·inv + d_z·(j_s/m − g·t).
    inv = 1.0 / mass + (rxd[0] * rxd[0] + rxd[1] * rxd[1] + rxd[2] * rxd[2]) / inertia
    dz = d[2]
    j_t = j_s = t = 0.0
    tip = 0.0  # compression of the tip along d (m)
    slate = mass * g / k_s  # compression of cloth and slate under the ball's weight (m)
    f_t, f_s = 0.0, mass * g
    rising = False
    for _ in range(_MAX_CONTACTS * steps_per_contact):
        vz = (j_t * dz + j_s) / mass - g * t
        if f_t == 0.0 and speed - j_t / m_cue <= j_t * inv + dz * (j_s / mass - g * t):
            # The tip has let go and does not approach.
            if f_s == 0.0:  # off the slate: the flight is the engine's
                break
            if rising and vz <= 0.0:  # rose and sank back within the cloth: it stays
                break
        rising = vz > 0.0
        j_t += f_t * h
        j_s += f_s * h
        t += h
        vz = (j_t * dz + j_s) / mass - g * t
        closing = speed - j_t / m_cue - j_t * inv - dz * (j_s / mass - g * t)
        tip += closing * h
        slate -= vz * h
        f_t = max(0.0, k_t * tip + c_t * closing) if tip > 0.0 else 0.0
        f_s = max(0.0, k_s * slate - c_s * vz) if slate > 0.0 else 0.0
    lin, k = j_t / mass, j_t / inertia
    vx, vy = lin * d[0], lin * d[1]
    vz = lin * dz + j_s / mass - g * t
    if rising and vz <= 0.0 and f_s > 0.0:
        vz = 0.0
    if vz < spec.min_bounce_speed:
        vz = 0.0  # too slow to leave the slate (or, at the step limit, held by it)
    return (vx, vy, vz), (k * rxd[0], k * rxd[1], k * rxd[2])


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
