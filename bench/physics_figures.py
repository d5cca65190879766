"""Massé, jump and the end of the roll against published figures, as numbers (issue 26).

``lines() -> list[str]`` is printed by ``python -m bench physics``. The tests in
``tests/shared/physics/test_published_figures.py`` and ``test_motion.py`` hold the same
figures with tolerances; here they are measured so a change of the engine shows how far it
moves them:

- massé: how far the end of the curve lies off Coriolis's line from the ball's resting point
  to where the cue's line meets the cloth (Alciatore, "Coriolis was brilliant ... Part V",
  Billiards Digest, Nov. 2005; TP A.19), with the engine's squirt and without it;
- jump: the softest cue speed that jumps a ball 20 or 30 cm away, by elevation, with the
  full 0.5 kg cue and a jump cue of half its weight (Roque: 45° for a ball a foot away;
  Cuesight and Simpson: steeper jumps need the lighter jump cue);
- the end of the roll: a slow ball's stopping time against Alciatore's measured rolling
  resistance of cloth, 0.005–0.015.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

from shared.physics import DEFAULT_SPEC, PhysicsSpec, Stroke, simulate
from shared.physics.motion import end_phase, start_phase, state_at
from shared.physics.strike import masse_heading
from shared.table import MATCH, BallName, Point

R = MATCH.ball_radius
PARKED: dict[BallName, Point] = {"yellow": (2.75, 1.33), "red": (2.75, 0.09)}
ELEVATIONS = (30.0, 45.0, 60.0, 75.0, 89.0)
TIPS = ((-0.4, 0.0), (0.4, 0.0), (-0.3, -0.3), (-0.5, 0.2), (0.3, 0.3), (0.5, -0.2))


def masse_offsets(spec: PhysicsSpec) -> list[float]:
    """Degrees between the end of each massé curve and Coriolis's line (curves that meet a
    cushion or ball first are left out)."""
    out = []
    start: Point = (1.0, 0.71)
    for elevation in ELEVATIONS:
        for tip_x, tip_y in TIPS:
            for speed in (1.0, 2.5):
                stroke = Stroke(0.0, speed, tip_x, tip_y, elevation)
                r = simulate(MATCH, {"white": start, **PARKED}, "white", stroke, spec)
                for seg in r.trajectory["white"]:
                    vx, vy, vz = seg.vel
                    slip = math.hypot(vx - R * seg.spin[1], vy + R * seg.spin[0])
                    if seg.pos[2] == 0.0 and vz == 0.0 and slip < 1e-9 and (vx or vy):
                        if any(
                            e.kind in ("ball_cushion", "ball_ball", "off_table") and e.t <= seg.t0
                            for e in r.events
                        ):
                            break
                        got = math.degrees(math.atan2(vy, vx))
                        off = (got - masse_heading(stroke, R) + 180.0) % 360.0 - 180.0
                        out.append(abs(off))
                        break
    return out


def softest_jump(distance: float, elevation: float, spec: PhysicsSpec) -> float | None:
    """The lowest cue speed (0.5 m/s steps to 8) whose centre-ball stroke lands beyond a red
    ``distance`` ahead without touching it; None if none does."""
    start: Point = (0.6, 0.71)
    balls: dict[BallName, Point] = {
        "white": start,
        "red": (start[0] + distance, start[1]),
        "yellow": (2.75, 1.33),
    }
    for k in range(2, 17):
        speed = 0.5 * k
        r = simulate(MATCH, balls, "white", Stroke(0.0, speed, 0.0, 0.0, elevation), spec)
        for e in r.events:
            if "white" not in e.balls or e.kind in ("strike", "airborne"):
                continue
            if e.kind == "land" and e.after["white"].pos[0] - start[0] <= distance:
                continue
            if e.kind == "land":
                return speed
            break
    return None


def roll_out_time(v0: float, spec: PhysicsSpec = DEFAULT_SPEC) -> float:
    """Seconds a ball rolling at ``v0`` takes to stop."""
    m = start_phase(0.0, (0.0, 0.0, 0.0), (v0, 0.0, 0.0), (0.0, v0 / R, 0.0), R, spec)
    t = 0.0
    while m.phase == "rolling":
        p, v, w = state_at(m.seg, m.t_end)
        t = m.t_end
        m, _ = end_phase(m, p, v, w, R, spec)
    return t


def lines() -> list[str]:
    spec = DEFAULT_SPEC
    with_squirt = masse_offsets(spec)
    without = masse_offsets(replace(spec, cue_end_mass=1e-15))
    out = [
        f"masse ({len(with_squirt)} strokes, 30-89 deg): end of the curve off Coriolis's line, "
        f"median {statistics.median(with_squirt):.2f} deg, worst {max(with_squirt):.2f} deg "
        f"(without squirt: worst {max(without):.1e} deg)",
    ]
    jump_cue = replace(spec, cue_mass=spec.cue_mass / 2)
    for distance in (0.20, 0.30):
        for name, s in (("full cue", spec), ("jump cue", jump_cue)):
            cells = []
            for elevation in (30.0, 35.0, 40.0, 45.0, 50.0, 55.0, 60.0):
                v = softest_jump(distance, elevation, s)
                cells.append(f"{elevation:g}:{v:g}" if v is not None else f"{elevation:g}:-")
            out.append(
                f"jump a ball {distance * 100:.0f} cm away, {name} ({s.cue_mass:g} kg), "
                f"softest cue speed m/s by elevation: {' '.join(cells)}"
            )
    slow = [(v, roll_out_time(v)) for v in (0.01, 0.02, 0.04)]
    cells = ", ".join(
        f"{v * 100:g} cm/s {t:.2f} s ({v / (0.015 * spec.g):.2f}-{v / (0.005 * spec.g):.2f})"
        for v, t in slow
    )
    out.append(f"slow ball stops (published cloth range 0.005-0.015 in brackets): {cells}")
    return out
