"""Event-driven simulation of a stroke to rest: ``simulate`` and ``simulate_lag``.

Theory of operation. Every ball is always in one closed-form motion phase (``motion.py``). The
next event is the earliest of: a ball's phase end (known from its phase), a ball reaching a
cushion line (first root of a quadratic) and two balls touching (first root of the quartic
``|Δp(t)|² = (2R)²``), each solved exactly (``roots.py``), so contact normals are exact at any
speed. The pymunk world (``world.py``) advances every body to that time in one step; the event's
law (``strike.py``, ``contact.py``) changes the velocities and spins of the balls involved, and
only those balls start new segments. The loop ends when every ball is stationary (a ``rest``
event) or at the hard stop ``spec.max_time``.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping
from typing import Final

from shared.physics.contact import ball_ball, ball_cushion, nose_angle
from shared.physics.motion import INF, Motion, Vec3, end_phase, start_phase, state_at
from shared.physics.roots import first_down_crossing
from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.strike import strike
from shared.physics.types import (
    BallState,
    Event,
    EventKind,
    PositionError,
    Segment,
    ShotResult,
    Stroke,
    StrokeError,
)
from shared.physics.world import PhysicsBug, World
from shared.table import BALLS, BallName, CushionName, Point, TableSpec

# Slack for start positions that touch a cushion or another ball (respotted balls sit exactly
# on the tolerance); deeper overlap is refused.
_PLACEMENT_SLACK: Final = 1e-9  # m

# A pair colliding this many times in a row, each within this gap of the previous, is a push.
_CHATTER_RUN: Final = 8
_CHATTER_GAP: Final = 1e-3  # s

# The event logged when a phase ends, by the phase that follows (any stop is "spin_to_rest").
_PHASE_EVENT: Final[dict[str, EventKind]] = {
    "rolling": "slide_to_roll",
    "spinning": "roll_to_spin",
    "stationary": "spin_to_rest",
}

_INWARD: Final[dict[CushionName, tuple[float, float]]] = {
    "bottom": (1.0, 0.0),
    "top": (-1.0, 0.0),
    "right": (0.0, 1.0),
    "left": (0.0, -1.0),
}


class _SpareWorlds(threading.local):
    """One idle pymunk world per table and set of balls, per thread: a simulation takes it
    (reset to its start) instead of building a space, and gives it back when it ends. Per
    thread, because a world is in use for the whole of a run."""

    def __init__(self) -> None:
        self.idle: dict[tuple[TableSpec, tuple[BallName, ...]], World] = {}

    def take(self, table: TableSpec, start: Mapping[BallName, Point]) -> World:
        world = self.idle.pop((table, tuple(start)), None)
        if world is None:
            return World(table, start)
        world.reset(start)
        return world

    def give_back(self, table: TableSpec, world: World) -> None:
        self.idle[(table, world.balls)] = world


_SPARE_WORLDS: Final = _SpareWorlds()


class _Ball:
    __slots__ = ("cushion_hit", "motion", "name", "segments")

    def __init__(self, name: BallName, motion: Motion) -> None:
        self.name = name
        self.motion = motion
        self.segments: list[Segment] = [motion.seg]
        self.cushion_hit: tuple[float, CushionName] | None = None


def _check_inputs(
    table: TableSpec, balls: Mapping[BallName, Point], strokes: Mapping[BallName, Stroke]
) -> None:
    if not strokes:
        raise StrokeError("no ball is struck")
    for name, stroke in strokes.items():
        if not isinstance(stroke, Stroke):
            raise StrokeError(f"stroke for {name} must be a Stroke, got {type(stroke).__name__}")
        if name not in balls:
            raise PositionError(f"struck ball {name!r} is not on the table")
    r = table.ball_radius
    pts: list[tuple[str, float, float]] = []
    for name, p in balls.items():
        if name not in BALLS:
            raise PositionError(f"unknown ball {name!r}; known: {', '.join(BALLS)}")
        try:
            x, y = float(p[0]), float(p[1])
        except (TypeError, ValueError, IndexError):
            raise PositionError(f"position of {name} must be (x, y), got {p!r}") from None
        if not (math.isfinite(x) and math.isfinite(y)):
            raise PositionError(f"position of {name} must be finite, got {p!r}")
        s = _PLACEMENT_SLACK
        if not (r - s <= x <= table.length - r + s and r - s <= y <= table.width - r + s):
            raise PositionError(
                f"{name} at ({x:.4f}, {y:.4f}) is not fully on the {table.length} × "
                f"{table.width} m playing surface (ball radius {r} m)"
            )
        for other, ox, oy in pts:
            if math.hypot(x - ox, y - oy) < 2 * r - _PLACEMENT_SLACK:
                raise PositionError(f"{name} and {other} overlap")
        pts.append((name, x, y))


class _Run:
    """One simulation: mutable while it runs, frozen into a ShotResult at the end."""

    def __init__(
        self,
        table: TableSpec,
        balls: Mapping[BallName, Point],
        strokes: Mapping[BallName, Stroke],
        spec: PhysicsSpec,
    ) -> None:
        self.table = table
        self.spec = spec
        self.r = table.ball_radius
        self.m = table.ball_mass
        self.theta = nose_angle(table.cushion_height, self.r)
        order = [b for b in BALLS if b in balls]
        start = {b: (float(balls[b][0]), float(balls[b][1])) for b in order}
        self.initial = start
        self.strokes = {b: strokes[b] for b in order if b in strokes}
        self.world = _SPARE_WORLDS.take(table, start)
        self.balls: list[_Ball] = [
            _Ball(b, start_phase(0.0, (*start[b], 0.0), (0.0,) * 3, (0.0,) * 3, self.r, spec))
            for b in order
        ]
        self.all_balls = list(self.balls)
        self.events: list[Event] = []
        self.now = 0.0
        self.final: dict[BallName, Point | None] = {}
        self._pair_run: dict[tuple[BallName, BallName], tuple[int, float]] = {}
        self._rail_run: dict[tuple[BallName, CushionName], tuple[int, float]] = {}

    # -- bookkeeping ---------------------------------------------------------------------
    def _set_motion(self, ball: _Ball, motion: Motion) -> None:
        ball.motion = motion
        if ball.segments and ball.segments[-1].t0 == motion.seg.t0:
            ball.segments[-1] = motion.seg  # several events at one instant: keep the last
        else:
            ball.segments.append(motion.seg)
        ball.cushion_hit = self._cushion_hit(motion)
        if motion.phase == "airborne":
            self.world.airborne.add(ball.name)
        else:
            self.world.airborne.discard(ball.name)

    def _log(
        self,
        kind: EventKind,
        balls: tuple[_Ball, ...],
        cushion: CushionName | None = None,
        speeds: tuple[float, ...] = (),
    ) -> None:
        after = {}
        for b in balls:
            s = b.motion.seg
            after[b.name] = BallState((s.pos[0], s.pos[1]), (s.vel[0], s.vel[1]))
        self.events.append(
            Event(self.now, kind, tuple(b.name for b in balls), cushion, speeds, after)
        )

    def _state(self, ball: _Ball) -> tuple[Vec3, Vec3, Vec3]:
        """State at ``now``, with the position pymunk advanced the body to."""
        p, v, w = state_at(ball.motion.seg, self.now)
        x, y = self.world.position(ball.name)
        return (x, y, p[2]), v, w

    # -- event times ---------------------------------------------------------------------
    def _cushion_hit(self, m: Motion) -> tuple[float, CushionName] | None:
        if m.phase in ("stationary", "spinning"):
            return None
        s = m.seg
        horizon = m.t_end - s.t0
        r, length, width = self.r, self.table.length, self.table.width
        x, y, _ = s.pos
        vx, vy, _ = s.vel
        hx, hy = 0.5 * s.acc[0], 0.5 * s.acc[1]
        best: tuple[float, CushionName] | None = None
        gaps: tuple[tuple[CushionName, tuple[float, float, float]], ...] = (
            ("bottom", (x - r, vx, hx)),  # distance of the centre from its contact line
            ("top", (length - r - x, -vx, -hx)),
            ("right", (y - r, vy, hy)),
            ("left", (width - r - y, -vy, -hy)),
        )
        for name, coeffs in gaps:
            c0, c1, c2 = coeffs
            # Positive at both ends of the phase, it can only reach zero at an inner minimum.
            ends_apart = c0 > 0.0 and c0 + (c1 + c2 * horizon) * horizon > 0.0
            no_dip = c2 <= 0.0 or not 0.0 < -c1 < 2.0 * c2 * horizon or c0 * c2 * 4.0 > c1 * c1
            if ends_apart and no_dip:
                continue  # the ball cannot reach this cushion line in this phase
            tau = first_down_crossing(coeffs, horizon)
            if tau is not None and (best is None or s.t0 + tau < best[0]):
                best = (s.t0 + tau, name)
        return best

    def _pair_hit(self, a: _Ball, b: _Ball, horizon: float) -> float | None:
        ma, mb = a.motion, b.motion
        still = ("stationary", "spinning")
        if ma.phase in still and mb.phase in still:
            return None
        # Both balls' position and velocity now, as ``state_at`` forms them (written out: this
        # runs for every pair at every event, and the spins are not needed).
        sa, sb = ma.seg, mb.seg
        aa, ab = sa.acc, sb.acc
        ta, tb = self.now - sa.t0, self.now - sb.t0
        ha, hb = 0.5 * ta * ta, 0.5 * tb * tb
        p, v, q, u = sa.pos, sa.vel, sb.pos, sb.vel
        ax = (p[0] + v[0] * ta + aa[0] * ha) - (q[0] + u[0] * tb + ab[0] * hb)
        ay = (p[1] + v[1] * ta + aa[1] * ha) - (q[1] + u[1] * tb + ab[1] * hb)
        az = (p[2] + v[2] * ta + aa[2] * ha) - (q[2] + u[2] * tb + ab[2] * hb)
        bx = (v[0] + aa[0] * ta) - (u[0] + ab[0] * tb)
        by = (v[1] + aa[1] * ta) - (u[1] + ab[1] * tb)
        bz = (v[2] + aa[2] * ta) - (u[2] + ab[2] * tb)
        cx, cy, cz = 0.5 * (aa[0] - ab[0]), 0.5 * (aa[1] - ab[1]), 0.5 * (aa[2] - ab[2])
        dia = 2.0 * self.r
        aa2 = ax * ax + ay * ay + az * az
        bb2 = bx * bx + by * by + bz * bz
        cc2 = cx * cx + cy * cy + cz * cz
        # Cheap exclusion: the gap cannot close within the horizon.
        reach = math.sqrt(bb2) * horizon + math.sqrt(cc2) * horizon * horizon
        if math.sqrt(aa2) - reach > dia * (1.0 + 1e-9):
            return None
        ab_ = ax * bx + ay * by + az * bz
        ac = ax * cx + ay * cy + az * cz
        bc = bx * cx + by * cy + bz * cz
        coeffs = (aa2 - dia * dia, 2.0 * ab_, bb2 + 2.0 * ac, 2.0 * bc, cc2)
        return first_down_crossing(coeffs, horizon)

    # -- the loop ------------------------------------------------------------------------
    def run(self) -> ShotResult:
        spec = self.spec
        for ball in self.balls:
            if ball.name in self.strokes:
                v, w = strike(self.strokes[ball.name], self.r, self.m, spec)
                p = ball.motion.seg.pos
                self._set_motion(ball, start_phase(0.0, p, v, w, self.r, spec))
                self._log("strike", (ball,), speeds=(math.hypot(v[0], v[1]),))
                if ball.motion.phase == "airborne":
                    self._log("airborne", (ball,))
        while True:
            alive = self.balls
            best_t = INF
            kind = ""
            who: tuple[_Ball, ...] = ()
            for ball in alive:
                if ball.motion.t_end < best_t:
                    best_t, kind, who = ball.motion.t_end, "phase", (ball,)
            for ball in alive:
                hit = ball.cushion_hit
                if hit is not None and hit[0] < best_t:
                    best_t, kind, who = hit[0], "cushion", (ball,)
            for i, a in enumerate(alive):
                for b in alive[i + 1 :]:
                    horizon = min(best_t, a.motion.t_end, b.motion.t_end) - self.now
                    if horizon < 0.0:
                        continue
                    tau = self._pair_hit(a, b, horizon)
                    if tau is not None and self.now + tau <= best_t:
                        best_t, kind, who = self.now + tau, "pair", (a, b)
            if kind == "":
                break
            if best_t > spec.max_time or len(self.events) >= spec.max_events:
                self._hard_stop(min(best_t, spec.max_time))
                break
            self._advance(best_t)
            if kind == "phase":
                self._phase_end(who[0])
            elif kind == "cushion":
                self._cushion(who[0])
            else:
                self._collide(who[0], who[1])
        overlaps = self.world.overlaps(b.name for b in self.balls)
        if overlaps:
            raise PhysicsBug("balls overlap at rest: " + "; ".join(overlaps))
        self._log("rest", ())
        for ball in self.balls:
            s = ball.segments[-1]
            self.final[ball.name] = (s.pos[0], s.pos[1])
        order = [b for b in BALLS if b in self.initial]
        # Only a run that ended cleanly gives its world back: one that raised may be anywhere.
        _SPARE_WORLDS.give_back(self.table, self.world)
        return ShotResult(
            initial=dict(self.initial),
            strokes=dict(self.strokes),
            events=tuple(self.events),
            trajectory={b.name: tuple(b.segments) for b in self.all_balls},
            final={b: self.final.get(b) for b in order},
            duration=self.now,
        )

    def _advance(self, t: float) -> None:
        dt = t - self.now
        vels: dict[BallName, tuple[float, float]] = {}
        for ball in self.balls:
            s = ball.motion.seg
            tau = self.now - s.t0 + 0.5 * dt  # chord velocity = velocity at mid-interval
            vels[ball.name] = (s.vel[0] + s.acc[0] * tau, s.vel[1] + s.acc[1] * tau)
        self.world.step(dt, vels)
        self.now = t

    def _phase_end(self, ball: _Ball) -> None:
        m = ball.motion
        p, v, w = self._state(ball)
        new, bounced = end_phase(m, p, v, w, self.r, self.spec)
        self._set_motion(ball, new)
        if m.end == "land":
            self._log("land", (ball,))
            if bounced:
                self._log("airborne", (ball,))
        elif m.end not in ("wz", "slow"):  # splits inside a phase log nothing
            self._log(_PHASE_EVENT.get(new.phase, "slide_to_roll"), (ball,))

    def _cushion(self, ball: _Ball) -> None:
        assert ball.cushion_hit is not None
        cushion = ball.cushion_hit[1]
        p, v, w = self._state(ball)
        speed = math.hypot(v[0], v[1])
        airborne = ball.motion.phase == "airborne"
        theta = self.theta
        if airborne:
            if p[2] >= self.table.cushion_height:
                # R-OFF-1: the whole ball is above the nose when it crosses the cushion line, so
                # it flies over the rail (or lands on the rail top).
                self._off_table(ball, p, v, cushion, speed)
                return
            # A hopping ball meets the nose wherever it is. Above its equator the nose pushes it
            # down as usual; with its centre above the nose, the receding upper face of the
            # cushion meets it too, so the contact is taken as horizontal (no kick upwards).
            theta = max(0.0, nose_angle(self.table.cushion_height - p[2], self.r))
        key = (ball.name, cushion)
        count, last = self._rail_run.get(key, (0, -INF))
        count = count + 1 if self.now - last < _CHATTER_GAP else 1
        self._rail_run[key] = (count, self.now)
        if count >= _CHATTER_RUN and not airborne:
            # Spin keeps driving the ball back into the rail in ever smaller bounces: finish
            # the slide, drop the velocity into the cushion, and roll along it.
            v, w = self._finish_slide(ball, v, w)
            nx, ny = _INWARD[cushion]
            into = min(0.0, v[0] * nx + v[1] * ny)
            vx, vy = v[0] - into * nx, v[1] - into * ny
            nv, nw = (vx, vy, 0.0), (-vy / self.r, vx / self.r, w[2])
            self._rail_run[key] = (0, self.now)
        else:
            nv, nw = ball_cushion(
                v, w, _INWARD[cushion], theta, self.r, self.m, self.spec, on_slate=not airborne
            )
        # The cushion neither lifts a ball nor drives it down: on the slate the downward part
        # of the impulse goes into the slate (no hop), and a hopping ball keeps at most its
        # vertical speed (no rail-climb launch, no slam into a higher bounce). Only removes
        # energy.
        nv = (nv[0], nv[1], min(max(nv[2], min(v[2], 0.0)), max(v[2], 0.0)))
        self._set_motion(ball, start_phase(self.now, p, nv, nw, self.r, self.spec))
        self._log("ball_cushion", (ball,), cushion, (speed,))

    def _off_table(self, ball: _Ball, p: Vec3, v: Vec3, cushion: CushionName, speed: float) -> None:
        m = ball.motion
        seg = Segment(self.now, p, v, m.seg.acc, state_at(m.seg, self.now)[2], m.seg.spin_acc)
        ball.motion = Motion(seg, "airborne", INF, "never")
        ball.segments.append(seg)
        self._log("off_table", (ball,), cushion, (speed,))
        self.final[ball.name] = None
        self.world.remove(ball.name)
        self.world.airborne.discard(ball.name)
        self.balls = [b for b in self.balls if b is not ball]

    def _collide(self, a: _Ball, b: _Ball) -> None:
        pa, va, wa = self._state(a)
        pb, vb, wb = self._state(b)
        speeds = (math.hypot(va[0], va[1]), math.hypot(vb[0], vb[1]))
        key = (a.name, b.name)
        count, last = self._pair_run.get(key, (0, -INF))
        count = count + 1 if self.now - last < _CHATTER_GAP else 1
        self._pair_run[key] = (count, self.now)
        airborne = "airborne" in (a.motion.phase, b.motion.phase)
        if count >= _CHATTER_RUN and airborne:
            # A ball came down on top of another and is bouncing on it ever lower: it would
            # roll off. Set it down on the slate beside the other ball instead (only potential
            # energy is lost).
            top, low = (a, b) if pa[2] >= pb[2] else (b, a)
            if self._set_down_beside(top, low):
                self._pair_run[key] = (0, self.now)
                return
        if count >= _CHATTER_RUN and not airborne:
            # One ball is pushing the other (a spinning ball driving into a slower one): the
            # exact event sequence would be an endless, ever-faster run of tiny collisions
            # (inelastic collapse). Resolve the push at once: finish both slides (the state
            # cloth friction reaches anyway) and let the pair roll on together at their mean
            # velocity. Each step only removes energy.
            va, wa = self._finish_slide(a, va, wa)
            vb, wb = self._finish_slide(b, vb, wb)
            vx, vy = 0.5 * (va[0] + vb[0]), 0.5 * (va[1] + vb[1])
            r = self.r
            nva, nvb = (vx, vy, 0.0), (vx, vy, 0.0)
            nwa, nwb = (-vy / r, vx / r, wa[2]), (-vy / r, vx / r, wb[2])
            self._pair_run[key] = (0, self.now)
        else:
            nva, nwa, nvb, nwb = ball_ball(pa, va, wa, pb, vb, wb, self.r, self.m, self.spec)
        if a.motion.phase != "airborne":
            nva = (nva[0], nva[1], 0.0)
        if b.motion.phase != "airborne":
            nvb = (nvb[0], nvb[1], 0.0)
        self._set_motion(a, start_phase(self.now, pa, nva, nwa, self.r, self.spec))
        self._set_motion(b, start_phase(self.now, pb, nvb, nwb, self.r, self.spec))
        self._log("ball_ball", (a, b), speeds=speeds)

    def _set_down_beside(self, top: _Ball, low: _Ball) -> bool:
        """Move ``top`` onto the slate touching ``low``, if there is room; False if not."""
        pt, vt, wt = self._state(top)
        pl = self._state(low)[0]
        dx, dy = pt[0] - pl[0], pt[1] - pl[1]
        norm = math.hypot(dx, dy)
        if norm < 1e-9:
            dx, dy, norm = vt[0], vt[1], math.hypot(vt[0], vt[1])
        if norm < 1e-9:
            dx, dy, norm = 1.0, 0.0, 1.0
        ux, uy = dx / norm, dy / norm
        r, gap = self.r, 2.0 * self.r * (1.0 + 1e-9)
        others = [self._state(b)[0] for b in self.balls if b is not top and b is not low]
        for cx, cy in ((ux, uy), (-uy, ux), (uy, -ux), (-ux, -uy)):
            x, y = pl[0] + cx * gap, pl[1] + cy * gap
            inside = r <= x <= self.table.length - r and r <= y <= self.table.width - r
            if inside and all(math.hypot(x - o[0], y - o[1]) >= gap for o in others):
                self.world.place(top.name, (x, y))
                p: Vec3 = (x, y, 0.0)
                self._set_motion(
                    top, start_phase(self.now, p, (vt[0], vt[1], 0.0), wt, r, self.spec)
                )
                self._log("land", (top,))
                return True
        return False

    def _finish_slide(self, ball: _Ball, v: Vec3, w: Vec3) -> tuple[Vec3, Vec3]:
        if ball.motion.phase != "sliding":
            return v, w
        r = self.r
        ux, uy = v[0] - r * w[1], v[1] + r * w[0]
        # Sliding ends at v − (2/7)·u (du/dt = 7/2·dv/dt), rolling.
        vx, vy = v[0] - 2.0 / 7.0 * ux, v[1] - 2.0 / 7.0 * uy
        return (vx, vy, v[2]), (-vy / r, vx / r, w[2])

    def _hard_stop(self, t: float) -> None:
        self._advance(t)
        flying = [b for b in self.balls if b.motion.phase == "airborne"]
        for ball in self.balls:
            x, y = self.world.position(ball.name)
            self._set_motion(
                ball, start_phase(t, (x, y, 0.0), (0.0,) * 3, (0.0,) * 3, self.r, self.spec)
            )
        # A ball stopped in the air above another is set down beside it.
        for top in flying:
            for low in self.balls:
                if low is not top:
                    pt, pl = self.world.position(top.name), self.world.position(low.name)
                    if math.dist(pt, pl) < 2.0 * self.r:
                        self._set_down_beside(top, low)
                        break


def _simulate(
    table: TableSpec,
    balls: Mapping[BallName, Point],
    strokes: Mapping[BallName, Stroke],
    spec: PhysicsSpec,
) -> ShotResult:
    _check_inputs(table, balls, strokes)
    return _Run(table, balls, strokes, spec).run()


def simulate(
    table: TableSpec,
    balls: Mapping[BallName, Point],
    cue: BallName,
    stroke: Stroke,
    spec: PhysicsSpec = DEFAULT_SPEC,
) -> ShotResult:
    """Simulate one stroke of the ``cue`` ball from the given positions to rest."""
    return _simulate(table, balls, {cue: stroke}, spec)


def simulate_lag(
    table: TableSpec,
    balls: Mapping[BallName, Point],
    strokes: Mapping[BallName, Stroke],
    spec: PhysicsSpec = DEFAULT_SPEC,
) -> ShotResult:
    """R-LAG-3: both lag strokes start together at t = 0 (two struck balls, red on the table)."""
    return _simulate(table, balls, strokes, spec)
