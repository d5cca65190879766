"""Motion phases of one ball on the cloth, in closed form (PHYSICS.md "Cloth").

A ball is in exactly one phase at a time. Within a phase every force is constant, so position is
quadratic and angular velocity linear in time; :func:`start_phase` builds that segment from a
state and says when and how the phase ends.

- sliding: the contact point slips with velocity ``u = v + w × (−R·ẑ)``. Friction ``μs·m·g``
  opposes ``u``; ``du/dt = −(7/2)·μs·g·û``, so ``û`` never turns and the phase lasts
  ``2|u|/(7·μs·g)``. The path is a parabola whenever ``û`` is not along ``v`` (draw, follow and
  massé curves).
- rolling: ``u = 0``; rolling resistance decelerates at ``μr·g`` along ``v``, and at the larger
  ``μr_slow·g`` once the ball is slower than ``roll_slow_speed`` (the slow end of the roll: a
  second rolling segment, no event).
- spinning: only z-spin is left; it decays at a constant rate.
- airborne: free flight under gravity; spin is constant. Each landing bounces with ``e_slate``
  and the cloth's friction acts on the slip during it (:func:`slate_friction`).
- stationary.

z-spin decays at the same constant rate in every phase on the slate; when it reaches zero inside
a sliding or rolling phase the segment is split (no event is logged for that).
"""

from __future__ import annotations

import math
from typing import Final, Literal

from shared.physics.spec import PhysicsSpec
from shared.physics.types import Segment

Phase = Literal["stationary", "spinning", "rolling", "sliding", "airborne"]
# What happens when a phase ends: start rolling, stop translating, z-spin reaches zero, land,
# a rolling ball reaches the slow end of its roll.
PhaseEnd = Literal["roll", "stop", "wz", "land", "slow", "never"]

Vec3 = tuple[float, float, float]
ZERO3: Final[Vec3] = (0.0, 0.0, 0.0)
INF: Final = math.inf


class Motion:
    """One ball's current segment, its phase, and when the phase ends (absolute time)."""

    __slots__ = ("end", "phase", "seg", "t_end")

    def __init__(self, seg: Segment, phase: Phase, t_end: float, end: PhaseEnd) -> None:
        self.seg = seg
        self.phase = phase
        self.t_end = t_end
        self.end = end


def state_at(seg: Segment, t: float) -> tuple[Vec3, Vec3, Vec3]:
    """Position, velocity and angular velocity of a segment at absolute time ``t``."""
    tau = t - seg.t0
    p, v, a, w, al = seg.pos, seg.vel, seg.acc, seg.spin, seg.spin_acc
    h = 0.5 * tau * tau
    return (
        (p[0] + v[0] * tau + a[0] * h, p[1] + v[1] * tau + a[1] * h, p[2] + v[2] * tau + a[2] * h),
        (v[0] + a[0] * tau, v[1] + a[1] * tau, v[2] + a[2] * tau),
        (w[0] + al[0] * tau, w[1] + al[1] * tau, w[2] + al[2] * tau),
    )


def _z_spin(wz: float, spec: PhysicsSpec) -> tuple[float, float]:
    """(z angular acceleration, time until z-spin is zero) for a ball on the slate."""
    if abs(wz) <= spec.eps_spin:
        return 0.0, INF
    return -math.copysign(spec.spin_decel, wz), abs(wz) / spec.spin_decel


def start_phase(
    t0: float, pos: Vec3, vel: Vec3, spin: Vec3, radius: float, spec: PhysicsSpec
) -> Motion:
    """Classify the state and build the closed-form segment that starts at ``t0``."""
    x, y, z = pos
    vx, vy, vz = vel
    wx, wy, wz = spin
    r = radius
    if z > 0.0 or vz > 0.0:
        g = spec.g
        # Land when z(τ) = z + vz·τ − g·τ²/2 reaches 0 (positive root).
        tau = (vz + math.sqrt(vz * vz + 2.0 * g * max(z, 0.0))) / g
        seg = Segment(t0, (x, y, max(z, 0.0)), (vx, vy, vz), (0.0, 0.0, -g), (wx, wy, wz), ZERO3)
        return Motion(seg, "airborne", t0 + tau, "land")
    ux = vx - r * wy
    uy = vy + r * wx
    slip = math.hypot(ux, uy)
    alz, t_wz = _z_spin(wz, spec)
    if alz == 0.0:
        wz = 0.0
    if slip > spec.eps_speed:
        f = spec.mu_slide * spec.g
        ax, ay = -f * ux / slip, -f * uy / slip
        # The cloth force m·a acts at the contact point (0, 0, −R): dω/dt = (5/(2R))·(ay, −ax).
        k = 2.5 / r
        t_slide = 2.0 * slip / (7.0 * f)
        seg = Segment(
            t0, (x, y, 0.0), (vx, vy, 0.0), (ax, ay, 0.0), (wx, wy, wz), (k * ay, -k * ax, alz)
        )
        if t_wz < t_slide:
            return Motion(seg, "sliding", t0 + t_wz, "wz")
        return Motion(seg, "sliding", t0 + t_slide, "roll")
    speed = math.hypot(vx, vy)
    if speed > spec.eps_speed:
        # Above the slow speed (with a little slack, so the segment that starts exactly there
        # does not split again on rounding) the cloth's ordinary rolling resistance; below it
        # the slow-end resistance.
        v_slow = spec.roll_slow_speed
        fast = speed > v_slow * (1.0 + 1e-9) and spec.mu_roll_slow != spec.mu_roll
        f = (spec.mu_roll if fast else spec.mu_roll_slow) * spec.g
        ax, ay = -f * vx / speed, -f * vy / speed
        # Rolling without slip: wx = −vy/R, wy = vx/R, kept exact by construction.
        seg = Segment(
            t0,
            (x, y, 0.0),
            (vx, vy, 0.0),
            (ax, ay, 0.0),
            (-vy / r, vx / r, wz),
            (-ay / r, ax / r, alz),
        )
        t_stop = (speed - v_slow) / f if fast else speed / f
        if t_wz < t_stop:
            return Motion(seg, "rolling", t0 + t_wz, "wz")
        return Motion(seg, "rolling", t0 + t_stop, "slow" if fast else "stop")
    if wz != 0.0:
        seg = Segment(t0, (x, y, 0.0), ZERO3, ZERO3, (0.0, 0.0, wz), (0.0, 0.0, alz))
        return Motion(seg, "spinning", t0 + t_wz, "stop")
    return Motion(Segment(t0, (x, y, 0.0), ZERO3, ZERO3, ZERO3, ZERO3), "stationary", INF, "never")


def slow_end_of_roll(seg: Segment, spec: PhysicsSpec) -> tuple[Segment, float] | None:
    """The slow end of the roll that ``seg`` runs into, rebuilt from ``seg`` alone: ``(the
    segment the engine starts when the speed falls to roll_slow_speed, the time that segment's
    ball stops)``; None unless ``seg`` is a rolling segment above ``roll_slow_speed``.

    The wire leaves that second segment out (issue 26: the switch cost 16 numbers per ball that
    rolls to rest) and the decoder puts it back with this function, so a rolling segment on the
    wire carries the two-phase law. A segment is taken as rolling when it lies on the slate,
    decelerates at exactly ``μr·g`` against its velocity (no other phase has that acceleration)
    and spins as a rolling ball does; the ball radius is read from that spin."""
    z, (vx, vy, vz), (ax, ay, az) = seg.pos[2], seg.vel, seg.acc
    if z != 0.0 or vz != 0.0 or az != 0.0 or spec.mu_roll_slow == spec.mu_roll:
        return None
    speed = math.hypot(vx, vy)
    v_slow = spec.roll_slow_speed
    if not speed > v_slow * (1.0 + 1e-9):  # the same slack as start_phase's
        return None
    f = spec.mu_roll * spec.g
    tol = 1e-9
    if abs(ax * speed + f * vx) > tol * f * speed or abs(ay * speed + f * vy) > tol * f * speed:
        return None
    (wx, wy, _), (alx, aly, _) = seg.spin, seg.spin_acc
    k = math.hypot(wx, wy) / speed  # 1/R for a rolling ball
    if not k > 0.0:
        return None
    roll = abs(wx + k * vy) + abs(wy - k * vx) <= tol * k * speed
    if not roll or abs(alx + k * ay) + abs(aly - k * ax) > tol * k * f:
        return None
    # What the engine does when the fast segment ends ("slow" in start_phase and end_phase).
    t_s = seg.t0 + (speed - v_slow) / f
    p, v, w = state_at(seg, t_s)
    r = 1.0 / k
    slow = start_phase(t_s, (p[0], p[1], 0.0), v, (-v[1] / r, v[0] / r, w[2]), r, spec)
    if slow.phase != "rolling":
        return None
    s = slow.seg
    return s, t_s + math.hypot(s.vel[0], s.vel[1]) / (spec.mu_roll_slow * spec.g)


def slate_friction(
    vel: Vec3, spin: Vec3, normal: float, radius: float, spec: PhysicsSpec
) -> tuple[Vec3, Vec3]:
    """(v, w) after the slate pushes the ball up with ``normal`` (impulse per unit mass, m/s):
    Coulomb friction ``μs`` at the contact under the ball opposes its slip, up to the impulse
    that stops the slip (a bounce can grip), the same cloth friction as in a slide and under a
    cushion impact (Mathavan 2010); an oblique bounce with friction as Cross measured it ("Grip-
    slip behavior of a bouncing ball", Am. J. Phys. 70, 2002). Horizontal slip only: the
    contact is the bottom point, so the slip there does not depend on ``w[2]``."""
    vx, vy, vz = vel
    wx, wy, wz = spin
    ux, uy = vx - radius * wy, vy + radius * wx
    slip = math.hypot(ux, uy)
    if normal <= 0.0 or slip <= 0.0:
        return vel, spin
    # Per unit mass, the bottom point's slip changes by 7/2 of the friction impulse.
    lam = min(spec.mu_slide * normal, 2.0 * slip / 7.0) / slip
    dvx, dvy = -lam * ux, -lam * uy
    k = 2.5 / radius  # r × J / I with r = (0, 0, −R): (5/(2R))·(Jy, −Jx) per unit mass
    return (vx + dvx, vy + dvy, vz), (wx + k * dvy, wy - k * dvx, wz)


def end_phase(
    m: Motion, pos: Vec3, vel: Vec3, spin: Vec3, radius: float, spec: PhysicsSpec
) -> tuple[Motion, bool]:
    """The motion after ``m`` ends at ``m.t_end`` (state there given), and whether the ball
    bounced off the slate."""
    t = m.t_end
    p, v, w = pos, vel, spin
    bounced = False
    if m.end in ("roll", "slow"):
        # Snap to exact rolling: the slip is zero up to rounding at this instant.
        w = (-v[1] / radius, v[0] / radius, w[2])
    elif m.end == "stop":
        v = ZERO3
        w = (0.0, 0.0, w[2] if m.phase == "rolling" else 0.0)
    elif m.end == "wz":
        w = (w[0], w[1], 0.0)
        if m.phase == "rolling":
            w = (-v[1] / radius, v[0] / radius, 0.0)
    elif m.end == "land":
        up = -spec.e_slate * v[2]
        vz = up if up >= spec.min_bounce_speed else 0.0
        bounced = vz > 0.0
        p = (p[0], p[1], 0.0)
        # The cloth's response: the slate's push up (vz − v_z per unit mass) presses the ball
        # into the cloth, whose friction acts on the slip of the landing ball.
        v, w = slate_friction((v[0], v[1], vz), w, vz - v[2], radius, spec)
    return start_phase(t, p, v, w, radius, spec), bounced
