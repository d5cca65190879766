"""Physics benchmark: CPU per stroke of the event-driven engine vs a naive fixed-step loop.

``run() -> list[str]`` simulates a fixed, seeded set of three-cushion-like strokes (random
positions, aim, spin, 1–6 m/s cue speed, 0–10° elevation) and prints median and p95 CPU ms per
stroke, ms per simulated second, events per stroke and msgpack bytes of the encoded trajectory.
The baseline, measured in the same run on the first strokes of the set, is the obvious way to
use pymunk: a 1 kHz fixed step with a Python ``velocity_func`` applying cloth friction and spin
on every ball at every step, collisions resolved by pymunk itself. Targets (PHYSICS.md / issue
3): median ≤ 10 ms per stroke, median encoded trajectory ≤ 6 KB.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from typing import Any

import msgpack
import pymunk

from bench import physics_figures
from shared.physics import DEFAULT_SPEC, Stroke, encode_trajectory, simulate
from shared.physics.diamonds import Arrival, corner_five_stroke, third_rail_arrival
from shared.physics.strike import strike
from shared.table import MATCH, BallName, Point, TableSpec

SEED = 2026
STROKES = 120
BASELINE_STROKES = 4


def stroke_set(n: int = STROKES, seed: int = SEED) -> list[tuple[dict[BallName, Point], Stroke]]:
    rng = random.Random(seed)
    r = MATCH.ball_radius
    out: list[tuple[dict[BallName, Point], Stroke]] = []
    while len(out) < n:
        balls: dict[BallName, Point] = {}
        for name in ("white", "yellow", "red"):
            while True:
                p = (rng.uniform(r, MATCH.length - r), rng.uniform(r, MATCH.width - r))
                if all(math.dist(p, q) >= 2 * r for q in balls.values()):
                    break
            balls[name] = p
        rad = 0.5 * math.sqrt(rng.random())
        ang = rng.uniform(0.0, 2 * math.pi)
        stroke = Stroke(
            direction=rng.uniform(0.0, 359.99),
            speed=rng.uniform(1.0, 6.0),
            tip_x=rad * math.cos(ang),
            tip_y=rad * math.sin(ang),
            elevation=rng.uniform(0.0, 10.0),
        )
        out.append((balls, stroke))
    return out


def naive_fixed_step(
    table: TableSpec, balls: dict[BallName, Point], stroke: Stroke, dt: float = 1e-3
) -> float:
    """Simulated seconds of the baseline loop (the caller times it)."""
    spec = DEFAULT_SPEC
    rad, mass = table.ball_radius, table.ball_mass
    space = pymunk.Space(threaded=False)
    space.collision_slop = 1e-5
    corners = [(0.0, 0.0), (table.length, 0.0), (table.length, table.width), (0.0, table.width)]
    for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
        seg = pymunk.Segment(space.static_body, a, b, 0.0)
        seg.elasticity = spec.e_cushion
        space.add(seg)
    spins: dict[pymunk.Body, list[float]] = {}

    def cloth(body: pymunk.Body, gravity: Any, damping: float, step: float) -> None:
        vx, vy = body.velocity
        w = spins[body]
        ux, uy = vx - rad * w[1], vy + rad * w[0]
        slip = math.hypot(ux, uy)
        f = spec.mu_slide * spec.g
        if slip > 3.5 * f * step:  # otherwise this step ends the slide: roll
            ax, ay = -f * ux / slip, -f * uy / slip
            w[0] += 2.5 / rad * ay * step
            w[1] -= 2.5 / rad * ax * step
        else:
            vx, vy = vx - ux * 2 / 7, vy - uy * 2 / 7
            speed = math.hypot(vx, vy)
            if speed < spec.mu_roll * spec.g * step:
                ax, ay = -vx / step, -vy / step
            else:
                ax, ay = -spec.mu_roll * spec.g * vx / speed, -spec.mu_roll * spec.g * vy / speed
            w[0], w[1] = -(vy + ay * step) / rad, (vx + ax * step) / rad
        w[2] = math.copysign(max(0.0, abs(w[2]) - spec.spin_decel * step), w[2])
        body.velocity = (vx + ax * step, vy + ay * step)

    bodies = []
    for name, p in balls.items():
        body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0.0, rad))
        body.position = p
        shape = pymunk.Circle(body, rad)
        shape.elasticity = spec.e_ball
        space.add(body, shape)
        v, w = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
        if name == "white":
            v, w = strike(stroke, rad, mass, spec)
        body.velocity = (v[0], v[1])
        spins[body] = list(w)
        body.velocity_func = cloth
        bodies.append(body)
    t = 0.0
    while t < spec.max_time:
        space.step(dt)
        t += dt
        if all(b.velocity.length < 1e-4 for b in bodies):
            break
    return t


def c_only_fixed_step(table: TableSpec, seconds: float, dt: float = 1e-3) -> None:
    """pymunk's own C integrator at 1 kHz with no Python per step: the floor of any
    fixed-step design (cloth forces would have to be set per phase, collisions found)."""
    rad, mass = table.ball_radius, table.ball_mass
    space = pymunk.Space(threaded=False)
    space.collision_slop = 1e-5
    for i in range(3):
        body = pymunk.Body(mass, pymunk.moment_for_circle(mass, 0.0, rad))
        body.position = (0.5 + i * 0.5, 0.7)
        body.velocity = (0.01, 0.0)
        space.add(body, pymunk.Circle(body, rad))
    for _ in range(round(seconds / dt)):
        space.step(dt)


def corner_five(
    first_rail: float, speed: float = 2.5, english: float = 0.2, origin: float = 5.0
) -> Arrival | None:
    """Third-rail number reached by a corner-5 three-rail shot from ``origin`` through
    ``first_rail`` with running english (conventions: ``shared.physics.diamonds``); the system
    says ``origin - first_rail``. None if the ball takes another route."""
    start, stroke = corner_five_stroke(MATCH, origin, first_rail, speed, english)
    balls: dict[BallName, Point] = {"white": start, "yellow": (0.05, 0.05), "red": (0.05, 0.12)}
    return third_rail_arrival(simulate(MATCH, balls, "white", stroke), MATCH)


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of ys against xs."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def corner_five_lines(speed: float = 2.5) -> list[str]:
    """The corner-5 readings printed by ``run``: per english and origin, third rail at the
    cushion (and at the diamond line) against the system, worst error and fitted slope."""
    out = []
    cases = [(5.0, e) for e in (0.2, 0.3, 0.4)] + [(4.0, 0.2), (6.0, 0.2)]
    for origin, english in cases:
        firsts = [origin - t for t in (4.0, 3.5, 3.0, 2.5, 2.0) if 0.0 < origin - t < 8.0]
        got = [(f, corner_five(f, speed, english, origin)) for f in firsts]
        hits = [(f, a) for f, a in got if a is not None]
        cells = ", ".join(
            f"{f:g}->{a.at_rail:.2f}/{a.at_line:.2f}" if a else f"{f:g}->miss" for f, a in got
        )
        if len(hits) < 2:
            out.append(f"  origin {origin:g}, english {english:g}: {cells}")
            continue
        err = max(abs(a.at_rail - (origin - f)) for f, a in hits)
        k = slope([f for f, _ in hits], [a.at_rail for _, a in hits])
        out.append(
            f"  origin {origin:g}, english {english:g}: {cells}  "
            f"(at the cushion: worst error {err:.2f} diamond, slope {k:.2f})"
        )
    return out


def corner_five_png(speed: float = 2.5, english: float = 0.2) -> bytes:
    """The corner-5 tracks from the corner for first rail 1…3 (docs/img/corner_five.png): each
    path to its fourth cushion, the sighting lines, and rings on the system's third-rail
    diamonds (``5 - first``)."""
    from shared.physics.diamonds import DIAMOND_LINE_OFFSET, first_rail_point, origin_point
    from shared.physics.picture import paths_png

    results, until, lines, marks = [], [], [], []
    for first in (1.0, 1.5, 2.0, 2.5, 3.0):
        start, stroke = corner_five_stroke(MATCH, 5.0, first, speed, english)
        balls: dict[BallName, Point] = {"white": start, "yellow": (0.05, 0.05), "red": (0.05, 0.12)}
        result = simulate(MATCH, balls, "white", stroke)
        rails = [e.t for e in result.events if e.kind == "ball_cushion"]
        results.append(result)
        until.append(rails[3] if len(rails) > 3 else result.duration)
        lines.append((origin_point(MATCH, 5.0), first_rail_point(MATCH, first)))
        marks.append(
            (MATCH.length - (5.0 - first) * MATCH.length / 8, MATCH.width + DIAMOND_LINE_OFFSET)
        )
    caption = (
        f"corner-5 from the corner, first rail 1, 1.5, 2, 2.5, 3; running english {english:g}, "
        f"{speed:g} m/s; rings: the system's third-rail diamonds 4 ... 2"
    )
    return paths_png(results, MATCH, "white", until, lines, marks, caption)


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run() -> list[str]:
    strokes = stroke_set()
    cpu_ms: list[float] = []
    sim_s: list[float] = []
    events: list[float] = []
    sizes: list[float] = []
    for balls, stroke in strokes:
        start = time.process_time()
        result = simulate(MATCH, balls, "white", stroke)
        cpu_ms.append((time.process_time() - start) * 1000.0)
        sim_s.append(result.duration)
        events.append(len(result.events))
        sizes.append(len(msgpack.packb(encode_trajectory(result.trajectory))))
    base_ms: list[float] = []
    base_s: list[float] = []
    for balls, stroke in strokes[:BASELINE_STROKES]:
        start = time.process_time()
        base_s.append(naive_fixed_step(MATCH, balls, stroke))
        base_ms.append((time.process_time() - start) * 1000.0)
    start = time.process_time()
    c_only_fixed_step(MATCH, 10.0)
    c_per_s = (time.process_time() - start) * 1000.0 / 10.0
    ours_per_s = sum(cpu_ms) / sum(sim_s)
    base_per_s = sum(base_ms) / sum(base_s)
    same = cpu_ms[:BASELINE_STROKES]
    return [
        f"{len(strokes)} seeded strokes (seed {SEED}): 1-6 m/s, random aim/spin/positions, "
        f"0-10 deg elevation",
        f"event engine  CPU ms/stroke: median {statistics.median(cpu_ms):.2f}  "
        f"p95 {_pct(cpu_ms, 0.95):.2f}  (target median <= 10)",
        f"event engine  ms per simulated second: {ours_per_s:.3f}  "
        f"(median stroke lasts {statistics.median(sim_s):.1f} s)",
        f"events/stroke: median {statistics.median(events):.0f}  p95 {_pct(events, 0.95):.0f}",
        f"encoded trajectory bytes/stroke (msgpack): median {statistics.median(sizes):.0f}  "
        f"p95 {_pct(sizes, 0.95):.0f}  (target median <= 6144)",
        f"baseline (pymunk 1 kHz fixed step, Python velocity_func), first {BASELINE_STROKES} "
        f"strokes: {statistics.median(base_ms):.1f} ms/stroke median, "
        f"{base_per_s:.2f} ms per simulated second",
        f"floor of any 1 kHz fixed step (pymunk C integrator alone, 3 bodies, no Python per "
        f"step): {c_per_s:.2f} ms per simulated second = "
        f"{c_per_s * statistics.median(sim_s):.1f} ms for a median stroke",
        "corner-5 system at 2.5 m/s, running english as given: first rail -> third rail "
        "number at the cushion/at the diamond line (system: origin - first rail)",
        *corner_five_lines(),
        *physics_figures.lines(),
        f"ratio baseline/event engine: {base_per_s / ours_per_s:.0f}x per simulated second, "
        f"{sum(base_ms) / sum(same):.0f}x on the same {BASELINE_STROKES} strokes",
    ]


if __name__ == "__main__":
    import sys

    if len(sys.argv) == 3 and sys.argv[1] == "--corner-five-png":
        with open(sys.argv[2], "wb") as fh:
            fh.write(corner_five_png())
    else:
        for line in run():
            print(line)
