"""Bot strength: the share of strokes that score on a fixed, seeded set of random three-cushion
positions, per level, and how long each level thinks (docs/benchmarks.md "## Bots").

Each level plays the same positions (the cue ball is white; no break, no zones). A stroke
"scores" when the referee (``shared.rules``) gives it the point after the physics
(``shared.physics``) ran the stroke the bot actually sent, with the level's execution error.
Level 1 is the baseline. It also reports each level's share of jump strokes (over a ball in the
way; levels 4-5) and massé strokes (curving round it; levels 4-5, when no flat stroke scores),
how many of those scored, and the slowest think against the level's budget. Levels run in
parallel worker processes, each on all ``POSITIONS`` positions (about 10 minutes on 2 cores;
``CAROM_BENCH_BOT_POSITIONS=N`` for a quicker look, ``CAROM_BENCH_BOT_LEVELS=4,5`` for some
levels only: level 1 stays in as the baseline). Then levels 3 to 5 on ``BLOCKED`` straight-rail
breaks with a ball in the way of the red (``CAROM_BENCH_BOT_BLOCKED=N``), where jumps and massé
pay. Last, ``bench/defence.py``: a defensive bot against the same level without defence, in
matches on a real server (``CAROM_BENCH_DEFENCE=0`` leaves it out).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor

from client.bot.levels import level

SEED = 2026
POSITIONS = int(os.environ.get("CAROM_BENCH_BOT_POSITIONS", "200"))
# Every level plays the whole set (the table is per level over the same positions).
LEVELS = {1, *(int(x) for x in os.environ.get("CAROM_BENCH_BOT_LEVELS", "1,2,3,4,5").split(","))}
PER_LEVEL = dict.fromkeys(sorted(LEVELS), POSITIONS)
THINK_CAP_S = 10.0  # the bots' own cap, well inside the 30 s shot clock
CHUNK = 10

Balls = tuple[tuple[float, float], tuple[float, float], tuple[float, float]]


def positions(n: int = POSITIONS, seed: int = SEED) -> list[Balls]:
    """``n`` random resting positions: balls fully on the cloth, not touching each other."""
    from shared.table import MATCH

    rng = random.Random(seed)
    r = MATCH.ball_radius
    out: list[Balls] = []
    while len(out) < n:
        pts = [
            (
                rng.uniform(r + 0.005, MATCH.length - r - 0.005),
                rng.uniform(r + 0.005, MATCH.width - r - 0.005),
            )
            for _ in range(3)
        ]
        if all(math.dist(a, b) > 2 * r + 0.005 for i, a in enumerate(pts) for b in pts[i + 1 :]):
            out.append((pts[0], pts[1], pts[2]))
    return out


Row = tuple[int, float, int, str]  # scored 0/1, think seconds, simulations, kind of stroke


BLOCKED = int(os.environ.get("CAROM_BENCH_BOT_BLOCKED", "20"))


def blocked_positions(n: int = BLOCKED, seed: int = SEED) -> list[Balls]:
    """``n`` breaks (R-BREAK-2: the red first) with the yellow on the line from the white to the
    red, within 2 cm of it, so every flat stroke at the red takes the yellow first: the
    positions massé is for. Straight rail, so that curving round the yellow can score."""
    from shared.table import MATCH

    rng = random.Random(seed)
    r = MATCH.ball_radius
    out: list[Balls] = []
    while len(out) < n:
        w = (rng.uniform(0.3, 2.5), rng.uniform(0.25, 1.17))
        ang = rng.uniform(0, 2 * math.pi)
        d = rng.uniform(0.35, 0.9)
        f, lat = rng.uniform(0.25, 0.6), rng.uniform(-0.02, 0.02)
        red = (w[0] + d * math.cos(ang), w[1] + d * math.sin(ang))
        yellow = (
            w[0] + f * d * math.cos(ang) - lat * math.sin(ang),
            w[1] + f * d * math.sin(ang) + lat * math.cos(ang),
        )
        pts = (w, yellow, red)
        inside = all(
            r + 0.02 < x < MATCH.length - r - 0.02 and r + 0.02 < y < MATCH.width - r - 0.02
            for x, y in pts
        )
        if inside and min(math.dist(a, b) for i, a in enumerate(pts) for b in pts[i + 1 :]) > (
            2 * r + 0.01
        ):
            out.append(pts)
    return out


REPLAYS = 20  # executions of each chosen stroke with the level's error, on the blocked set


def evaluate_blocked(level_number: int, first: int, balls: list[Balls]) -> list[Row]:
    """As :func:`evaluate`, on :func:`blocked_positions` (straight-rail breaks), except that the
    stroke chosen (without error) is executed ``REPLAYS`` times with the level's error: the
    first column is then how many of them scored (0 to ``REPLAYS``), a much steadier measure
    of a choice than one execution."""
    import random as rnd

    from client.bot.levels import level as level_of
    from client.bot.plan import Judge, plan_stroke, with_error
    from client.bot.problem import Problem

    out: list[Row] = []
    for i, b in enumerate(balls):
        problem = Problem.of("straight_rail", "match", b, "white", break_shot=True)
        seed = SEED + first + i
        plan = plan_stroke(problem, level_number, seed, THINK_CAP_S, humanise=False)
        judge = Judge(problem)
        rng = rnd.Random(seed)
        lvl = level_of(level_number)
        scored = sum(judge.run(with_error(plan.stroke(), lvl, rng)).points for _ in range(REPLAYS))
        out.append((scored, plan.think_s, plan.sims, plan.kind))
    return out


def evaluate(level_number: int, first: int, balls: list[Balls]) -> list[Row]:
    """(scored 0/1, think seconds, simulations, kind) for each position, as the bot would play
    it; the kind is how the search found the stroke: "flat", "jump" (over a ball in the way)
    or "masse" (curving round it)."""
    from client.bot.plan import Judge, plan_stroke
    from client.bot.problem import Problem

    out: list[Row] = []
    for i, b in enumerate(balls):
        problem = Problem.of("three_cushion", "match", b, "white")
        plan = plan_stroke(problem, level_number, SEED + first + i, THINK_CAP_S)
        stroke = plan.stroke()
        scored = Judge(problem).run(stroke).points
        out.append((scored, plan.think_s, plan.sims, plan.kind))
    return out


def _kinds(rows: list[Row], replays: int = 1) -> str:
    """The share of jump and massé strokes and how often they scored (of ``replays``
    executions each)."""
    parts = []
    for kind in ("jump", "masse"):
        picked = [r for r in rows if r[3] == kind]
        parts.append(
            f"{100 * len(picked) / len(rows):5.1f}% ({sum(r[0] for r in picked)}/"
            f"{replays * len(picked)})"
        )
    return "  ".join(parts)


def run() -> list[str]:
    started = time.perf_counter()
    pos = positions()
    workers = max(1, min(2, os.cpu_count() or 1))
    ctx = multiprocessing.get_context("spawn")
    results: dict[int, list[Row]] = {lv: [] for lv in PER_LEVEL}
    with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
        # Longest jobs first so that the two workers finish together.
        order = sorted(PER_LEVEL, reverse=True)
        jobs = [(lv, k) for lv in order for k in range(0, PER_LEVEL[lv], CHUNK)]
        futures = {
            (lv, k): pool.submit(evaluate, lv, k, pos[k : min(k + CHUNK, PER_LEVEL[lv])])
            for lv, k in jobs
        }
        for (lv, _k), fut in sorted(futures.items()):
            results[lv].extend(fut.result())
    base = _share(results[1])
    lines = [
        f"three-cushion, {POSITIONS} random positions (seed {SEED}), think cap {THINK_CAP_S:.0f} s,"
        f" {workers} worker processes",
        "level  positions  scoring  vs L1  median think  p90 think  max think / budget  "
        "median sims  jump (scored/played)  masse (scored/played)",
    ]
    for lv in sorted(results):
        rows = results[lv]
        share = _share(rows)
        think = sorted(r[1] for r in rows)
        ratio = f"{share / base:5.1f}x" if base > 0 else "  n/a"
        p90 = think[int(0.9 * (len(think) - 1))]
        sims = statistics.median(r[2] for r in rows)
        lines.append(
            f"{lv:>5}  {len(rows):>9}  {100 * share:6.1f}%  {ratio}  "
            f"{statistics.median(think):10.2f} s  {p90:7.2f} s  {think[-1]:7.2f} / "
            f"{level(lv).think_s:4.1f} s  {sims:11.0f}  {_kinds(rows)}"
        )
    lines += blocked_lines(pool_size=workers)
    lines.append(f"wall time {time.perf_counter() - started:.0f} s")
    if os.environ.get("CAROM_BENCH_DEFENCE", "1") != "0":
        from bench import defence  # defensive against attacking, same level (docs/bots.md)

        lines += ["defence:", *(f"  {line}" for line in defence.run())]
    return lines


def blocked_lines(pool_size: int = 2) -> list[str]:
    """Levels 3-5 on the blocked breaks: how often each jumps or plays massé, how often that
    scores, and how long it thinks against its budget (level 3, which does neither, for
    comparison)."""
    pos = blocked_positions()
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(pool_size, mp_context=ctx) as pool:
        futures = {
            (lv, k): pool.submit(evaluate_blocked, lv, k, pos[k : k + CHUNK])
            for lv in (5, 4, 3)
            for k in range(0, len(pos), CHUNK)
        }
        rows: dict[int, list[Row]] = {5: [], 4: [], 3: []}
        for (lv, _k), fut in sorted(futures.items()):
            rows[lv].extend(fut.result())
    out = [
        f"straight-rail breaks with the yellow in the way of the red: {len(pos)} positions, "
        f"each chosen stroke executed {REPLAYS} times with the level's error",
        "level  scoring  median think  max think / budget  jump (scored/played)  "
        "masse (scored/played)",
    ]
    for lv in (3, 4, 5):
        think = sorted(r[1] for r in rows[lv])
        out.append(
            f"{lv:>5}  {100 * _share(rows[lv]) / REPLAYS:6.1f}%  "
            f"{statistics.median(think):10.2f} s  {think[-1]:7.2f} / {level(lv).think_s:4.1f} s  "
            f"{_kinds(rows[lv], REPLAYS)}"
        )
    return out


def _share(rows: list[Row]) -> float:
    return sum(r[0] for r in rows) / len(rows) if rows else 0.0


if __name__ == "__main__":
    for line in run():
        print(line)
