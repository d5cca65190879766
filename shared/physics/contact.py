"""Collision laws: ball–ball and ball–cushion, as instantaneous impulses.

Ball–ball (Alciatore TP A.14): an instantaneous impulse. Normal impulse with restitution
``e_b``, then a Coulomb friction impulse at the contact point opposing the slip there, capped at
the impulse that would stop the slip (so it only dissipates). The friction coefficient depends on
the slip speed, ``μ = a + b·exp(−c·|u_t|)``. Friction is what throws the object ball on a cut
and transfers side spin.

Ball–cushion: the nose touches the ball above its equator at ``θ = asin(h/R − 1)`` (11.7° for a
37 mm nose and a 61.5 mm ball; Han 2005, "Dynamics in carom and three cushion billiards"), so
the cushion pushes along the line from the nose to the centre, partly into the slate. The
impact is integrated over the normal impulse, after Mathavan, Jackson & Parkin 2010 ("A
theoretical analysis of billiard ball dynamics under cushion impacts"): in small impulse steps,
Coulomb friction acts at the nose (``mu_cushion``) and, for a ball on the slate, at the cloth
contact under the ball (``mu_slide``, pressed by the downward part of the push), each opposing
its own slip and never pushing past zero slip (stick). Compression lasts until the contact
stops approaching; restitution returns ``e²`` of the compression work (energetic restitution,
Stronge), so without friction a square hit on the slate keeps ``e`` of its speed. Because the
slip directions are followed through the impact, sliding can turn into sticking mid-impact
(running english near the natural amount, a rolling ball's topspin), which the one-shot closed
form (Han) cannot do. Friction capped at zero slip and ``e ≤ 1`` make every cushion hit dissipative.
"""

from __future__ import annotations

import math

from shared.physics.spec import PhysicsSpec

Vec3 = tuple[float, float, float]


def _cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def ball_ball(
    p1: Vec3,
    v1: Vec3,
    w1: Vec3,
    p2: Vec3,
    v2: Vec3,
    w2: Vec3,
    radius: float,
    mass: float,
    spec: PhysicsSpec,
) -> tuple[Vec3, Vec3, Vec3, Vec3]:
    """New (v1, w1, v2, w2) after ball 1 at ``p1`` hits ball 2 at ``p2``."""
    dx, dy, dz = p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]
    dist = math.sqrt(dx * dx + dy * dy + dz * dz)
    n = (dx / dist, dy / dist, dz / dist)
    vr = (v1[0] - v2[0], v1[1] - v2[1], v1[2] - v2[2])
    vn = vr[0] * n[0] + vr[1] * n[1] + vr[2] * n[2]
    if vn <= 0.0:
        return v1, w1, v2, w2  # already separating
    pn = (1.0 + spec.e_ball) * 0.5 * mass * vn
    # Slip of the contact point of ball 1 relative to ball 2.
    ws = (w1[0] + w2[0], w1[1] + w2[1], w1[2] + w2[2])
    rw = _cross(ws, n)
    u = (vr[0] + radius * rw[0], vr[1] + radius * rw[1], vr[2] + radius * rw[2])
    un = u[0] * n[0] + u[1] * n[1] + u[2] * n[2]
    ut = (u[0] - un * n[0], u[1] - un * n[1], u[2] - un * n[2])
    slip = math.sqrt(ut[0] * ut[0] + ut[1] * ut[1] + ut[2] * ut[2])
    j = (-pn * n[0], -pn * n[1], -pn * n[2])  # impulse on ball 1
    dw: Vec3 = (0.0, 0.0, 0.0)
    if slip > 0.0:
        mu = spec.ball_friction_a + spec.ball_friction_b * math.exp(-spec.ball_friction_c * slip)
        # Each ball's contact point moves 7/(2m) per unit tangential impulse: 7/m relative.
        lam = min(mu * pn, mass * slip / 7.0)
        j = (j[0] - lam * ut[0] / slip, j[1] - lam * ut[1] / slip, j[2] - lam * ut[2] / slip)
        inertia = 0.4 * mass * radius * radius
        tq = _cross(n, j)
        # r1 × J = R·n × J, and for ball 2 (−R·n) × (−J) is the same.
        dw = (radius * tq[0] / inertia, radius * tq[1] / inertia, radius * tq[2] / inertia)
    im = 1.0 / mass
    nv1 = (v1[0] + j[0] * im, v1[1] + j[1] * im, v1[2] + j[2] * im)
    nv2 = (v2[0] - j[0] * im, v2[1] - j[1] * im, v2[2] - j[2] * im)
    nw1 = (w1[0] + dw[0], w1[1] + dw[1], w1[2] + dw[2])
    nw2 = (w2[0] + dw[0], w2[1] + dw[1], w2[2] + dw[2])
    return nv1, nw1, nv2, nw2


# Pieces per phase (compression, restitution) of the integrated cushion impact. Friction
# directions are held for one piece; 12 keeps every corner-5 reading within 0.01 diamond of a
# 400-piece integration.
_STEPS = 12


def nose_angle(cushion_height: float, radius: float) -> float:
    """Angle of the cushion contact above the ball's equator, radians (PHYSICS.md: ≈ 11.7°)."""
    return math.asin(max(-1.0, min(1.0, cushion_height / radius - 1.0)))


def ball_cushion(
    v: Vec3,
    w: Vec3,
    inward: tuple[float, float],
    theta: float,
    radius: float,
    mass: float,
    spec: PhysicsSpec,
    on_slate: bool = False,
    steps: int = 0,
) -> tuple[Vec3, Vec3]:
    """New (v, w) after a ball hits a cushion whose inward normal (into the table) is ``inward``.

    ``on_slate``: the ball rests on the cloth during the impact, so the downward part of the
    cushion's push presses it into the slate and cloth friction acts at the bottom too.
    ``steps``: pieces per phase (0: the engine's ``_STEPS``), to check convergence.
    """
    if v[0] * inward[0] + v[1] * inward[1] >= 0.0:
        return v, w  # moving away from the cushion
    ct, st = math.cos(theta), math.sin(theta)
    nx, ny, nz = -inward[0] * ct, -inward[1] * ct, st  # centre → contact point (unit)
    vx, vy, vz = v
    if on_slate:
        vz = 0.0
    vn = vx * nx + vy * ny + vz * nz
    if vn <= 0.0:
        # A flying ball rising past a nose below its equator: the tilted normal sees it leaving,
        # yet it moves into the cushion line; take the contact as horizontal.
        nx, ny, nz = -inward[0], -inward[1], 0.0
        vn = vx * nx + vy * ny
    wx, wy, wz = w
    rx, ry, rz = radius * nx, radius * ny, radius * nz
    m = mass
    inertia = 0.4 * m * radius * radius
    # Impulse that stops the slip of one contact point of a free sphere: 2m/7 per m/s.
    stop = 2.0 * m / 7.0
    mu_c, mu_s = spec.mu_cushion, spec.mu_slide
    # The compression impulse is m·vn/(1 − nz²) on the slate (the slate takes the vertical
    # part), m·vn in the air, give or take friction; split each phase into _STEPS pieces.
    pieces = steps if steps > 0 else _STEPS
    dp = m * vn / ((1.0 - nz * nz) if on_slate else 1.0) / pieces
    compressing = True
    work_c = work_r = target = 0.0
    # Loop invariants, computed once (the same products the steps used to form each time).
    sqrt, hypot = math.sqrt, math.hypot
    cap_c = mu_c * dp
    pnx, pny, pnz = nx * dp, ny * dp, nz * dp
    for _ in range(8 * pieces):
        # Slip of the cushion contact point, tangential part only.
        ux = vx + wy * rz - wz * ry
        uy = vy + wz * rx - wx * rz
        uz = vz + wx * ry - wy * rx
        un = ux * nx + uy * ny + uz * nz
        ux, uy, uz = ux - un * nx, uy - un * ny, uz - un * nz
        slip = sqrt(ux * ux + uy * uy + uz * uz)
        fx = fy = fz = 0.0
        if slip > 0.0:
            cap = stop * slip
            lam = (cap if cap < cap_c else cap_c) / slip  # min(cap_c, cap)
            fx, fy, fz = -lam * ux, -lam * uy, -lam * uz
        jx, jy, jz = fx - pnx, fy - pny, fz - pnz
        # Torque of the cushion friction (the normal impulse passes through the centre).
        tx, ty, tz = ry * fz - rz * fy, rz * fx - rx * fz, rx * fy - ry * fx
        if on_slate:
            # The slate holds the ball down with the impulse that keeps v_z = 0; cloth
            # friction there opposes the slip of the bottom point (Mathavan 2010).
            pc = -jz if -jz > 0.0 else 0.0  # max(0.0, -jz)
            jz = 0.0
            cx, cy = vx - radius * wy, vy + radius * wx
            cs = hypot(cx, cy)
            if cs > 0.0 and pc > 0.0:
                cap_s, cap = mu_s * pc, stop * cs
                lam = (cap if cap < cap_s else cap_s) / cs  # min(cap_s, cap)
                gx, gy = -lam * cx, -lam * cy
                jx, jy = jx + gx, jy + gy
                # r = (0, 0, −R): r × g = (R·gy, −R·gx, 0).
                tx, ty = tx + radius * gy, ty - radius * gx
        dvx, dvy, dvz = jx / m, jy / m, jz / m
        dwx, dwy, dwz = tx / inertia, ty / inertia, tz / inertia
        # The contact point's normal speed is v·n (ω × r is tangential); within a step the
        # rates are constant, so it changes linearly and each phase can end exactly.
        dvn = dvx * nx + dvy * ny + dvz * nz
        frac = 1.0
        done = False
        if compressing:
            if vn + dvn <= 0.0:
                frac = vn / (vn - dvn) if dvn < 0.0 else 1.0
                work_c += 0.5 * vn * frac * dp
                compressing = False
                target = spec.e_cushion * spec.e_cushion * work_c
            else:
                work_c += (vn + 0.5 * dvn) * dp
        else:
            # Work of the restitution phase over the fraction f of the step:
            # −(vn·f + dvn·f²/2)·dp; find the f that reaches e²·(compression work).
            rem = target - work_r
            a, b = -0.5 * dvn * dp, -vn * dp
            full = a + b
            if full >= rem:
                disc = b * b + 4.0 * a * rem
                frac = 2.0 * rem / (b + math.sqrt(max(0.0, disc))) if b > 0.0 or a > 0.0 else 0.0
                done = True
            else:
                work_r += full
        vx, vy, vz = vx + frac * dvx, vy + frac * dvy, vz + frac * dvz
        wx, wy, wz = wx + frac * dwx, wy + frac * dwy, wz + frac * dwz
        vn = vx * nx + vy * ny + vz * nz
        if done or (not compressing and target <= work_r):
            break
    into = vx * inward[0] + vy * inward[1]
    if into < 0.0:
        # Only at speeds so small (denormal) that the impulse steps underflow: stop the ball
        # square to the rail, which can only remove energy.
        vx, vy = vx - into * inward[0], vy - into * inward[1]
    return (vx, vy, vz), (wx, wy, wz)
