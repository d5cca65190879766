"""The bot's brain: choose a stroke by simulating candidates with ``shared.physics`` and judging
them with ``shared.rules`` — the same physics and referee the server uses.

Search (docs/bots.md "How the bots think"):

1. **Sweep.** Directions that hit each object ball first (its whole window of cut angles, at
   the level's fine step) and, for the stronger levels, a coarser sweep of the full circle for
   cushion-first (bank) strokes, each at a few (speed, spin) styles. Levels 4–5 jump over a
   ball that blocks the straight line to an object ball (``blocked.py``) and, when nothing
   else scores, try massé strokes that curve round it.
2. **Judge.** Each result goes through the referee's ``judge_stroke``: points, fouls, zone
   rules, the break's red-first rule. A stroke that does not score gets a *near miss* distance:
   how close the cue ball came to the second ball once the discipline's conditions (first ball
   hit, cushions made) were met. It turns a yes/no outcome into something to climb.
3. **Refine.** The best candidates are improved by a local search on direction, speed and
   spin around them (a pattern search).
4. **Robustness.** A scoring stroke is re-simulated with small aim and speed errors; the share
   that still scores is its value (a stroke that scores only at one exact angle is a bad bet).
   Strong levels add a small bonus for the position left for the next stroke.

Everything here is a pure function of its arguments (plus the wall clock, for the budget), so it
can run in a worker process. Weaker levels then add human-like error to the chosen stroke.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from client.bot import blocked as blocking
from client.bot.levels import Level, level
from client.bot.problem import Balls, LagProblem, Problem
from shared import rules
from shared.physics.types import MISCUE_LIMIT, Segment, ShotResult, Stroke
from shared.protocol.views import CueParams
from shared.table import BALLS, BallName, TableSpec, table_by_name

MISS = 10.0  # near-miss value when the conditions were never met

# How a stroke was found, for the explanation and the bench: a level cue (at a ball or off a
# cushion), a jump over a ball in the way, or a massé curving round it.
StrokeKind = Literal["flat", "jump", "masse"]


@dataclass(frozen=True, slots=True)
class Plan:
    """The chosen stroke (cue parameters) and what the bot expects of it."""

    cue: CueParams  # what the ``stroke`` message sends (``spot`` on a break with a choice)
    respot: bool = False  # ask for a re-spot instead (R-FROZEN-1a)
    expected: float = 0.0  # estimated probability of scoring (the search's robust estimate)
    # The attack's share of scoring replays with the level's execution error (``executed_chance``),
    # measured when the bot may defend; None when not measured.
    executed: float | None = None
    sims: int = 0  # simulations used
    think_s: float = 0.0  # wall-clock seconds spent
    reason: str = ""  # the choice in one sentence for people ("plays safe: …")
    safety: bool = False  # a defensive stroke (client/bot/defence.py)
    kind: StrokeKind = "flat"  # how the chosen stroke was found (a jump, a massé)

    def stroke(self) -> Stroke:
        """The physics engine's form of the cue parameters."""
        return self.cue.physics()

    def describe(self) -> str:
        c = self.cue
        spot = f" from the {c.spot} spot" if c.spot else ""
        raised = f", cue at {c.elevation:.0f}°" if c.elevation else ""
        return (
            f"{c.direction:.2f}° at {c.speed:.2f} m/s, tip ({c.tip_x:+.2f}, {c.tip_y:+.2f})"
            f"{raised}{spot}"
        )


# Physics and referee adapters ----------------------------------------------------------------
def simulate(table: TableSpec, balls: Balls, cue: BallName, stroke: Stroke) -> ShotResult:
    from shared.physics import simulate as physics_simulate

    positions = dict(zip(BALLS, balls, strict=True))
    result: ShotResult = physics_simulate(table, positions, cue, stroke)
    return result


@dataclass(frozen=True, slots=True)
class Outcome:
    points: int
    foul: bool
    near: float  # near-miss distance (m) when points == 0; 0 when it scored
    final: Balls | None  # where the balls stopped (None if one left the table)
    duration: float = 0.0  # s of table time until every ball rests


class Judge:
    """Simulates and judges strokes for one problem, counting simulations."""

    def __init__(self, problem: Problem, balls: Balls | None = None) -> None:
        from shared.rules.scoring import required_cushions
        from shared.rules.zones import zones_for

        self.problem = problem
        self.state = problem.state
        self.table = self.state.options.table_spec
        self.balls = balls if balls is not None else problem.balls
        self.discipline = self.state.options.discipline
        self.zones = zones_for(self.discipline, self.table, problem.zone_leg())
        self.need = required_cushions(self.discipline)
        self.sims = 0
        self.cache: dict[tuple[float, ...], Outcome] = {}

    def run(self, stroke: Stroke) -> Outcome:
        key = (stroke.direction, stroke.speed, stroke.tip_x, stroke.tip_y, stroke.elevation)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        self.sims += 1
        result = simulate(self.table, self.balls, self.problem.cue, stroke)
        # The referee's own judgement of this stroke from this state (one function for the
        # server and the bot: they agree on every table).
        judged = rules.judge(self.state, stroke, result, self.balls)
        final: Balls | None = None
        if all(result.final.get(b) is not None for b in BALLS):
            w, y, r = (result.final[b] for b in BALLS)
            assert w is not None and y is not None and r is not None
            final = (w, y, r)
        near = 0.0 if judged.points else self._near_miss(result, judged.foul is not None)
        out = Outcome(judged.points, judged.foul is not None, near, final, result.duration)
        self.cache[key] = out
        return out

    def _near_miss(self, result: ShotResult, foul: bool) -> float:
        """How close the cue ball came to the second object ball once it had hit the first one
        and made the cushions the discipline needs (m, centre distance minus contact)."""
        if foul:
            return MISS
        cue = self.problem.cue
        first_t: float | None = None
        first_ball: BallName | None = None
        cushion_times: list[float] = []
        for e in result.events:
            if cue not in e.balls:
                continue
            if e.kind == "ball_ball" and first_ball is None:
                first_ball = e.balls[0] if e.balls[1] == cue else e.balls[1]
                first_t = e.t
            elif e.kind == "ball_cushion":
                cushion_times.append(e.t)
        if first_ball is None or first_t is None:
            return 2.0 + MISS / 2
        if self.problem.break_shot and first_ball != "red":
            return MISS
        second: BallName = next(b for b in BALLS if b not in (cue, first_ball))
        if len(cushion_times) < self.need:
            return 1.0 + (self.need - len(cushion_times)) * 0.5
        start = max(first_t, cushion_times[self.need - 1] if self.need else first_t)
        gap = _closest_approach(
            result.trajectory.get(cue, ()),
            result.trajectory.get(second, ()),
            start,
            result.duration,
        )
        return max(0.0, gap - 2 * self.table.ball_radius)


def _closest_approach(
    a: Sequence[Segment], b: Sequence[Segment], start: float, end: float, dt: float = 0.03
) -> float:
    """Smallest centre distance between two balls from ``start`` on, sampled every ``dt``
    (a guide for the search, not a referee decision: a few centimetres of step are plenty).
    Each segment's terms are read once, not at every sample: the search calls this for every
    stroke that misses."""
    if not a or not b:
        return math.inf
    last_a, last_b = len(a) - 1, len(b) - 1
    ia = ib = 0
    best = math.inf
    t = start
    stop = end + dt
    cur_a = cur_b = -1
    at0 = apx = apy = avx = avy = ahx = ahy = 0.0
    bt0 = bpx = bpy = bvx = bvy = bhx = bhy = 0.0
    rests = False
    while t <= stop:
        while ia < last_a and a[ia + 1].t0 <= t:
            ia += 1
        while ib < last_b and b[ib + 1].t0 <= t:
            ib += 1
        if ia != cur_a:
            cur_a, sa = ia, a[ia]
            at0, (apx, apy, _), (avx, avy, _) = sa.t0, sa.pos, sa.vel
            ahx, ahy = 0.5 * sa.acc[0], 0.5 * sa.acc[1]
            rests = ia == last_a and _still(sa)
        if ib != cur_b:
            cur_b, sb = ib, b[ib]
            bt0, (bpx, bpy, _), (bvx, bvy, _) = sb.t0, sb.pos, sb.vel
            bhx, bhy = 0.5 * sb.acc[0], 0.5 * sb.acc[1]
        ta, tb = t - at0, t - bt0
        dx = (apx + avx * ta + ahx * ta * ta) - (bpx + bvx * tb + bhx * tb * tb)
        dy = (apy + avy * ta + ahy * ta * ta) - (bpy + bvy * tb + bhy * tb * tb)
        d = dx * dx + dy * dy
        if d < best:
            best = d
        if rests:
            break  # the cue ball rests: it will come no closer on its own
        t += dt
    return math.sqrt(best)


def _still(seg: Segment) -> bool:
    return seg.vel[0] == seg.vel[1] == seg.acc[0] == seg.acc[1] == 0.0


# Candidate generation -------------------------------------------------------------------------
STYLES: tuple[tuple[float, float, float], ...] = (
    # (speed m/s, tip_x, tip_y): medium strokes with running or reverse english first, the
    # bread and butter of three-cushion; then softer and harder, follow and draw.
    (3.2, 0.35, 0.15),
    (3.2, -0.35, 0.15),
    (4.2, 0.3, -0.1),
    (4.2, -0.3, -0.1),
    (2.4, 0.0, 0.3),
    (5.2, 0.0, -0.3),
)
EASY_STYLES: tuple[tuple[float, float, float], ...] = ((2.0, 0.0, 0.2), (1.4, 0.0, 0.0))
# Massé styles (speed m/s, side spin, follow/draw, elevation °). The cue is aimed off the object
# ball and the side spin, on the side it was aimed to, bends the path back towards it: a steep
# cue bends more and sooner (docs/physics.md "Jumps and massé": the curve is a parabola that
# ends rolling at v0 − (2/7)·u0). Side spin 0.4 (0.35 with draw) keeps within the miscue limit.
MASSE_STYLES: tuple[tuple[float, float, float, float], ...] = (
    (2.5, 0.4, 0.0, 60.0),
    (4.0, 0.4, 0.0, 45.0),
    (1.8, 0.35, -0.3, 75.0),
    (3.0, 0.35, -0.3, 70.0),
    (2.0, 0.4, 0.0, 85.0),
    (5.0, 0.4, 0.0, 35.0),
)
# How far off the object ball's direction a massé is aimed (degrees, either side): the steepest
# bend the path by up to about 90° (docs/physics.md "Jumps and massé").
MASSE_OFFSETS: tuple[float, ...] = tuple(float(d) for d in range(4, 90, 3))
MASSE_ENOUGH = 3  # scoring massé strokes after which the massé sweep stops


def _ball_windows(problem: Problem, balls: Balls, table: TableSpec, step: float) -> list[float]:
    """Directions whose straight line hits an object ball first, across its whole cut range."""
    cue = balls[BALLS.index(problem.cue)]
    out: list[float] = []
    for name in BALLS:
        if name == problem.cue or (problem.break_shot and name != "red"):
            continue
        q = balls[BALLS.index(name)]
        d = math.dist(cue, q)
        centre = math.degrees(math.atan2(q[1] - cue[1], q[0] - cue[0]))
        half = math.degrees(math.asin(min(1.0, 2 * table.ball_radius / max(d, 1e-6)))) * 0.97
        n = max(1, int(2 * half / step))
        out.extend(centre - half + (i + 0.5) * (2 * half / n) for i in range(n))
    return out


def _circle(step: float, offset: float) -> list[float]:
    n = round(360.0 / step)
    return [offset + i * step for i in range(n)]


def _stroke(direction: float, style: tuple[float, float, float], elevation: float = 0.0) -> Stroke:
    speed, tx, ty = style
    return Stroke(direction % 360.0, min(8.0, max(0.3, speed)), tx, ty, elevation)


@dataclass(slots=True)
class Candidate:
    stroke: Stroke
    outcome: Outcome
    value: float = 0.0  # robustness-weighted estimate
    kind: StrokeKind = "flat"  # which sweep found it (kept by the refinement and centring)


def _rank(c: Candidate) -> tuple[int, float]:
    return (c.outcome.points, -c.outcome.near)


def _key(c: Candidate) -> tuple[float, int, float]:
    return (c.value, *_rank(c))


class Search:
    def __init__(self, problem: Problem, lvl: Level, budget_s: float, rng: random.Random) -> None:
        self.problem = problem
        self.level = lvl
        self.deadline = time.monotonic() + budget_s
        self.rng = rng
        self.sims_cap = lvl.sims
        self.tempo = 0.0  # value lost per second of table time (a quick player's taste)
        self.last_cands: list[Candidate] = []  # every candidate of the last position searched

    def out_of_budget(self, judge: Judge) -> bool:
        return judge.sims >= self.sims_cap or time.monotonic() >= self.deadline

    def styles(self) -> list[tuple[float, float, float]]:
        styles = list(STYLES[: self.level.styles])
        if self.problem.discipline is not rules.Discipline.THREE_CUSHION:
            styles = list(EASY_STYLES) + styles
        return styles

    def sweep(self, judge: Judge) -> list[Candidate]:
        """Ball-first strokes: every cut on each object ball, at the level's fine step."""
        fine = _ball_windows(self.problem, judge.balls, judge.table, self.level.sweep_step / 2)
        return self._run_jobs(judge, [(d, s) for s in self.styles() for d in fine])

    def sweep_banks(self, judge: Judge, keep: int = 0) -> list[Candidate]:
        """Cushion-first strokes: the whole circle, coarser (used when no ball-first stroke
        scored: it costs many simulations and rarely beats a good ball-first stroke). Leaves
        ``keep`` simulations of the budget unused."""
        step = self.level.sweep_step * 2
        coarse = _circle(step, self.rng.uniform(0, step))
        jobs = [(d, s) for s in self.styles()[:2] for d in coarse]
        return self._run_jobs(judge, jobs, stop=self.sims_cap - keep)

    def _run_jobs(
        self,
        judge: Judge,
        jobs: list[tuple[float, tuple[float, float, float]]],
        stop: int | None = None,
    ) -> list[Candidate]:
        # Shuffled so that a budget cut leaves a spread of directions and styles.
        self.rng.shuffle(jobs)
        out: list[Candidate] = []
        for direction, style in jobs:
            if self.out_of_budget(judge) or (stop is not None and judge.sims >= stop):
                break
            stroke = _stroke(direction, style)
            out.append(Candidate(stroke, judge.run(stroke)))
        return out

    def sweep_masse(self, judge: Judge) -> list[Candidate]:
        """Massé strokes (levels with ``masse_sims``): aimed off each object ball, to either
        side, with side spin on that side so the path curves back to it, round a ball that is
        in the way. Sampled at random within the level's share of simulations, so a budget cut
        leaves a spread of aims and styles; the refinement and the robustness check then treat
        them like any other stroke (they keep their elevation)."""
        balls = judge.balls
        cue = balls[BALLS.index(self.problem.cue)]
        jobs: list[Stroke] = []
        for name in BALLS:
            if name == self.problem.cue or (self.problem.break_shot and name != "red"):
                continue
            q = balls[BALLS.index(name)]
            centre = math.degrees(math.atan2(q[1] - cue[1], q[0] - cue[0]))
            # Right english (tip_x > 0) bends the path clockwise: aim left of the ball (a
            # positive offset) with right english, right of it with left english.
            for off in MASSE_OFFSETS:
                for side in (1.0, -1.0):
                    for speed, tx, ty, elev in MASSE_STYLES:
                        d = (centre + side * off) % 360.0
                        jobs.append(Stroke(d, speed, side * tx, ty, elev))
        self.rng.shuffle(jobs)
        stop = judge.sims + self.level.masse_sims
        out: list[Candidate] = []
        scored = 0
        # A few scorers are enough: the rest of the budget is better spent centring them and
        # checking their robustness (a massé misses on smaller errors than a flat stroke).
        for stroke in jobs:
            if judge.sims >= stop or self.out_of_budget(judge) or scored >= MASSE_ENOUGH:
                break
            out.append(Candidate(stroke, judge.run(stroke), kind="masse"))
            scored += out[-1].outcome.points > 0
        return out

    def blocked(self, judge: Judge) -> list[blocking.Blocked]:
        """The object balls whose straight line is in part blocked by the other one (empty for
        levels that never jump)."""
        if not self.level.jump_sims:
            return []
        targets = [
            n
            for n in BALLS
            if n != self.problem.cue and not (self.problem.break_shot and n != "red")
        ]
        step = self.level.sweep_step
        return blocking.blocked_lines(
            judge.balls, self.problem.cue, judge.table.ball_radius, step, targets
        )

    def sweep_jump(self, judge: Judge, blocked: list[blocking.Blocked]) -> list[Candidate]:
        """Jump strokes over a ball in the way (client/bot/blocked.py): the blocked directions
        to each object ball, with a raised cue at a jump's speed, drawn at random within the
        level's ``jump_sims``. They then compete with every other scoring stroke on their
        robust chance."""
        jobs = blocking.jump_strokes(blocked)
        self.rng.shuffle(jobs)
        stop = judge.sims + self.level.jump_sims
        out: list[Candidate] = []
        scored = 0
        for stroke in jobs:
            if judge.sims >= stop or self.out_of_budget(judge) or scored >= blocking.JUMP_ENOUGH:
                break
            out.append(Candidate(stroke, judge.run(stroke), kind="jump"))
            scored += out[-1].outcome.points > 0
        return out

    def refine(
        self, judge: Judge, cands: list[Candidate], keep: int, reserve: int = 0
    ) -> list[Candidate]:
        """Pattern search around the best candidates on direction, speed and side spin,
        leaving ``reserve`` simulations of the budget for the robustness check."""
        best = sorted(cands, key=_rank, reverse=True)[:keep]
        out = list(cands)
        stop = self.sims_cap - reserve
        for cand in best:
            cur = cand
            step = self.level.sweep_step / 2
            while step > 0.02 and not self.out_of_budget(judge) and judge.sims < stop:
                improved = False
                s = cur.stroke
                for trial in (
                    replace(s, direction=(s.direction + step) % 360.0),
                    replace(s, direction=(s.direction - step) % 360.0),
                    replace(s, speed=min(8.0, s.speed * 1.08)),
                    replace(s, speed=max(0.3, s.speed / 1.08)),
                    _with_tip(s, s.tip_x + 0.1, s.tip_y),
                    _with_tip(s, s.tip_x - 0.1, s.tip_y),
                ):
                    if self.out_of_budget(judge):
                        break
                    c = Candidate(trial, judge.run(trial), kind=cand.kind)
                    out.append(c)
                    if _rank(c) > _rank(cur):
                        cur, improved = c, True
                        break
                if cur.outcome.points:
                    break
                if not improved:
                    step /= 2
        return out

    def robustness(self, judge: Judge, scoring: list[Candidate]) -> None:
        """Value = share of perturbed strokes (aim, speed, side spin each way, by about the
        level's execution error) that still score, plus the position and tempo terms."""
        lvl = self.level
        da = max(0.08, lvl.aim_sigma)
        fs = 1 + max(0.03, 1.5 * lvl.speed_sigma)
        dt = max(0.03, 1.5 * lvl.tip_sigma)
        for cand in scoring:
            if self.out_of_budget(judge):
                # Untested: a coin flip for a level stroke; a jump or a massé, which misses on
                # smaller errors, is not played on trust.
                cand.value = cand.value or (0.5 if cand.kind == "flat" else 0.0)
                continue
            s = cand.stroke
            trials = [
                replace(s, direction=(s.direction + da) % 360.0),
                replace(s, direction=(s.direction - da) % 360.0),
                replace(s, speed=min(8.0, s.speed * fs)),
                replace(s, speed=max(0.3, s.speed / fs)),
                _with_tip(s, s.tip_x + dt, s.tip_y),
                _with_tip(s, s.tip_x - dt, s.tip_y),
            ]
            if cand.kind != "flat":
                # A jump or a massé misses on errors that come together (docs/bots.md step 7):
                # aim and speed off at once, each way.
                trials += [
                    replace(
                        s,
                        direction=(s.direction + a * da) % 360.0,
                        speed=min(8.0, max(0.3, s.speed * fs**v)),
                    )
                    for a, v in ((1, 1), (1, -1), (-1, 1), (-1, -1))
                ]
            hits = 1 + sum(judge.run(t).points for t in trials)
            cand.value = hits / (1 + len(trials))
            if self.level.position_play and cand.outcome.final is not None:
                cand.value += 0.1 * _position_bonus(cand.outcome.final, judge)
            cand.value -= self.tempo * cand.outcome.duration

    def centre(self, judge: Judge, cand: Candidate) -> Candidate:
        """Move a scoring stroke to the middle of its scoring interval in direction, then in
        speed: a stroke on the edge of the interval misses on the slightest error."""
        s = cand.stroke

        def reach(make: Any, limit: int) -> int:
            n = 0
            while n < limit and not self.out_of_budget(judge) and judge.run(make(n + 1)).points:
                n += 1
            return n

        step = 0.05  # degrees
        lo = reach(lambda k: replace(s, direction=(s.direction - k * step) % 360.0), 8)
        hi = reach(lambda k: replace(s, direction=(s.direction + k * step) % 360.0), 8)
        s = replace(s, direction=(s.direction + (hi - lo) * step / 2) % 360.0)
        f = 1.015
        slow = reach(lambda k: replace(s, speed=max(0.3, s.speed / f**k)), 6)
        fast = reach(lambda k: replace(s, speed=min(8.0, s.speed * f**k)), 6)
        s = replace(s, speed=min(8.0, max(0.3, s.speed * f ** ((fast - slow) / 2))))
        if s == cand.stroke or self.out_of_budget(judge):
            return cand
        moved = Candidate(s, judge.run(s), kind=cand.kind)
        if not moved.outcome.points:
            return cand
        self.robustness(judge, [moved])
        return moved if moved.value > cand.value else cand


def _with_tip(s: Stroke, tx: float, ty: float) -> Stroke:
    r = math.hypot(tx, ty)
    if r > MISCUE_LIMIT * 0.95:
        tx, ty = tx * MISCUE_LIMIT * 0.95 / r, ty * MISCUE_LIMIT * 0.95 / r
    return replace(s, tip_x=tx, tip_y=ty)


def _position_bonus(final: Balls, judge: Judge) -> float:
    """A rough guide to the next stroke, in [-1, 1]: object balls near each other make the
    second ball a bigger target; a cue ball frozen to a cushion or a ball is awkward."""
    t = judge.table
    cue = final[BALLS.index(judge.problem.cue)]
    a, b = (final[i] for i, n in enumerate(BALLS) if n != judge.problem.cue)
    bonus = 1.0 - min(1.0, math.dist(a, b) / (t.length / 2))
    rail = min(cue[0], cue[1], t.length - cue[0], t.width - cue[1]) - t.ball_radius
    if rail < 0.03:
        bonus -= 1.0
    if min(math.dist(cue, a), math.dist(cue, b)) < 2 * t.ball_radius + 0.02:
        bonus -= 1.0
    return max(-1.0, bonus)


def _search_one(
    problem: Problem, balls: Balls, lvl: Level, search: Search
) -> tuple[Candidate | None, int]:
    judge = Judge(problem, balls)
    cands = search.sweep(judge)
    # A ball in the way of the straight line to an object ball: jump strokes may clear it.
    # They come on top of the level's simulations (its think time stays far inside its cap:
    # docs/benchmarks.md), so that the level strokes are searched as without them: taken
    # from the bank sweep, they cost level 5 more good banks than the jumps won.
    blocked = search.blocked(judge)
    if blocked:
        search.sims_cap += lvl.jump_sims
    if lvl.refine and not any(c.outcome.points for c in cands):
        # The bank sweep leaves the jump and massé shares of the budget: a flat stroke is the
        # safer bet (a massé misses on smaller errors), so massé is tried only when no flat
        # stroke, at a ball or off a cushion, scores — typically a ball in the way.
        keep = lvl.masse_sims + (lvl.jump_sims if blocked else 0)
        cands += search.sweep_banks(judge, keep=keep)
    if blocked:
        cands += search.sweep_jump(judge, blocked)
    if lvl.refine and lvl.masse_sims and not any(c.outcome.points for c in cands):
        cands += search.sweep_masse(judge)
    if lvl.refine:
        # The scorers found so far keep the simulations their robustness check needs (a jump
        # or a massé ten, a level stroke seven).
        found = [c for c in cands if c.outcome.points]
        reserve = 7 * min(12, sum(c.kind == "flat" for c in found))
        reserve += 10 * min(6, sum(c.kind != "flat" for c in found))
        cands = search.refine(judge, cands, keep=3 if lvl.number < 5 else 6, reserve=reserve)
    search.last_cands = cands
    scoring = sorted({id(c): c for c in cands if c.outcome.points}.values(), key=_rank)
    # The robustness check is the costly part: test the most promising scorers only, and
    # always a few of the jumps and massés, so that they compete on their robust chance.
    if lvl.refine and scoring:
        pick = scoring[:12]
        pick += [c for c in scoring[12:] if c.kind == "jump"][:3]
        pick += [c for c in scoring[12:] if c.kind == "masse"][:3]
        search.robustness(judge, pick)
        pick.sort(key=lambda c: c.value, reverse=True)
        if lvl.position_play:
            pick[:3] = [search.centre(judge, c) for c in pick[:3]]
        best = max(pick, key=lambda c: c.value)
        return best, judge.sims
    if scoring:
        best = scoring[0]
        best.value = 0.5
        return best, judge.sims
    if not cands:
        return None, judge.sims
    best = max(cands, key=_rank)
    best.value = 0.0
    return best, judge.sims


def with_error(stroke: Stroke, lvl: Level, rng: random.Random) -> Stroke:
    """Add the level's Gaussian execution error (aim, speed, tip)."""
    speed = min(8.0, max(0.2, stroke.speed * (1 + rng.gauss(0, lvl.speed_sigma))))
    s = replace(
        stroke, direction=(stroke.direction + rng.gauss(0, lvl.aim_sigma)) % 360.0, speed=speed
    )
    tx = s.tip_x + rng.gauss(0, lvl.tip_sigma)
    ty = s.tip_y + rng.gauss(0, lvl.tip_sigma)
    return _with_tip(s, tx, ty)


EXECUTED_TRIALS = 16  # replays of the chosen attack with the level's execution error
EXECUTED_SEED = 0x5EED  # mixed into the plan's seed: the replays draw from their own generator


def executed_chance(
    problem: Problem,
    balls: Balls,
    stroke: Stroke,
    lvl: Level,
    seed: int,
    deadline: float,
    trials: int = EXECUTED_TRIALS,
) -> float | None:
    """The share of ``trials`` replays of ``stroke``, each with the level's execution error as
    ``with_error`` adds it to the stroke sent (aim, speed and tip off together), that score —
    the attack's chance as the level really plays it. The robustness check pushes one
    parameter at a time and so overrates a stroke that misses when they err together
    (docs/analysis.md "Bots"). Seeded and deterministic; ``None`` when the clock
    (``deadline``, monotonic) stops it before half the replays ran."""
    judge = Judge(problem, balls)
    rng = random.Random(seed ^ EXECUTED_SEED)
    hits = done = 0
    for _ in range(trials):
        if time.monotonic() >= deadline:
            break
        hits += judge.run(with_error(stroke, lvl, rng)).points > 0
        done += 1
    return hits / done if 2 * done >= trials else None


def plan_stroke(
    problem: Problem,
    level_number: int,
    seed: int,
    budget_s: float,
    tempo: float = 0.0,
    humanise: bool = True,
    personality: str = "attacking",
) -> Plan:
    """Choose a stroke for ``problem`` within ``budget_s`` seconds (and the level's simulation
    budget). Deterministic for a given seed when the budget is not cut by the clock. ``tempo``
    (per second of table time) makes the bot prefer strokes that come to rest sooner, e.g. for
    a demonstration that must end in a few minutes. ``humanise=False`` returns the stroke the
    search chose, without the level's execution error."""
    started = time.monotonic()
    lvl = level(level_number)
    rng = random.Random(seed)
    search = Search(problem, lvl, budget_s, rng)
    search.tempo = tempo
    from shared.rules.placement import break_position, contact_of

    options: list[tuple[str | None, Balls]] = [(None, problem.balls)]
    if problem.spot_choice:
        table = table_by_name(problem.table)
        options = [(side, break_position(table, problem.cue, side)) for side in ("right", "left")]
        search.sims_cap = lvl.sims // 2
    best: Candidate | None = None
    best_spot: str | None = None
    best_balls = problem.balls
    sims = 0
    for spot, balls in options:
        base = search.sims_cap
        cand, used = _search_one(problem, balls, lvl, search)
        sims += used
        # (less the jump share _search_one may have added for this position)
        search.sims_cap = base + (lvl.sims // 2 if problem.spot_choice else 0)
        better = best is None or (cand is not None and _key(cand) > _key(best))
        if cand is not None and better:
            best, best_spot, best_balls = cand, spot, balls
    if best is None:  # not even one simulation fitted in the budget: a safe, gentle stroke
        fallback = Plan(CueParams(direction=0.0, speed=1.0, spot=options[0][0]), sims=sims)
        return replace(fallback, think_s=time.monotonic() - started)
    table = table_by_name(problem.table)
    frozen_to_ball = bool(contact_of(problem.balls, problem.cue, table).balls)
    if frozen_to_ball and not problem.spot_choice and best.outcome.points == 0:
        gentle = CueParams(direction=0.0, speed=1.0)
        return Plan(gentle, respot=True, sims=sims, think_s=time.monotonic() - started)
    from client.bot import defence

    below = defence.defend_below(personality)
    defends = below > 0 and lvl.refine and not problem.spot_choice and not problem.break_shot
    attack = best
    if defends and best.outcome.points:
        # Judge the attack by how the level really plays it (its joint execution error), not
        # by the robustness check's one-at-a-time pushes: a tenth of what is left at most.
        left = budget_s - (time.monotonic() - started)
        ends = time.monotonic() + 0.1 * left
        executed = executed_chance(problem, best_balls, best.stroke, lvl, seed, ends)
        if executed is not None:
            attack = replace(best, value=executed)
    chosen, reason, safe = best.stroke, _attack_reason(problem, best_balls, attack), False
    kind = best.kind
    left = budget_s - (time.monotonic() - started)
    if (
        defends
        and attack.value < below
        and left > 1.0  # the safeties and the look-ahead must fit in what is left
    ):
        # The safeties get 60 % of what is left, the look-ahead the rest: within the budget.
        safety = defence.choose_safety(problem, search.last_cands, attack.value, seed, 0.6 * left)
        rest = budget_s - (time.monotonic() - started)
        if safety is not None and defence.safety_pays(
            problem, attack, safety, seed, max(0.05, rest)
        ):
            chosen, safe, kind = safety.stroke, True, safety.kind
            reason = defence.safety_reason(problem, safety, table)
    final = with_error(chosen, lvl, rng) if humanise else chosen
    return Plan(
        CueParams.of(final, best_spot),
        expected=best.value,
        executed=attack.value if attack is not best else None,
        sims=sims,
        think_s=time.monotonic() - started,
        reason=reason,
        safety=safe,
        kind=kind,
    )


def _attack_reason(problem: Problem, balls: Balls, best: Candidate) -> str:
    """The attack in one sentence: how the cue ball gets past a ball in the way (a jump, a
    massé), the route's name and the chance, in words."""
    from client.bot.defence import in_tenths
    from shared.analysis.patterns import attempted, route

    if not best.outcome.points:
        return "finds no point here and plays the nearest miss"
    table = table_by_name(problem.table)
    result = simulate(table, balls, problem.cue, best.stroke)
    # The routes' names are three-cushion's (docs/analysis.md); other disciplines' points
    # have none.
    three_cushion = problem.discipline is rules.Discipline.THREE_CUSHION
    name = (
        attempted(route(result.events, result.trajectory, problem.cue, table))
        if three_cushion
        else None
    )
    what = name.label.lower() if name is not None else "the point"
    how = _how(problem.cue, balls, best.kind, result, table.ball_radius)
    return f"{how}goes for {what}: scores {in_tenths(best.value)}"


def _how(cue: BallName, balls: Balls, kind: StrokeKind, result: ShotResult, radius: float) -> str:
    """ "jumps over the red and ", "curves round the yellow with massé and ", or nothing."""
    if kind == "flat":
        return ""
    first = next((e for e in result.events if e.kind == "ball_ball" and cue in e.balls), None)
    if kind == "jump":
        over = blocking.jumped_over(
            result.trajectory, first.t if first else None, balls, cue, radius
        )
        return f"jumps over the {over} and " if over else "plays a jump stroke and "
    hit = None if first is None else next(b for b in first.balls if b != cue)
    round_ = None if hit is None else blocking.in_the_way(balls, cue, hit, radius)
    return (
        f"curves round the {round_} with massé and "
        if round_
        else "curves the cue ball with massé and "
    )


# The lag -------------------------------------------------------------------------------------
_LAG_CACHE: dict[tuple[str, Balls, BallName], tuple[float, float]] = {}


def _lag_finish(table: TableSpec, balls: Balls, cue: BallName, speed: float) -> float:
    """Where the lag ball stops (x, m) for a straight stroke up the table; large when it hits
    a ball or never reaches the top cushion."""
    result = simulate(table, balls, cue, Stroke(0.0, speed, 0.0, 0.0, 0.0))
    if any(e.kind == "ball_ball" for e in result.events):
        return table.length
    # R-LAG-2: a lag ball that never touches the top cushion loses, however near it stops.
    if not any(e.kind == "ball_cushion" and e.cushion == "top" for e in result.events):
        return table.length
    p = result.final.get(cue)
    return table.length if p is None else p[0]


def plan_lag(problem: LagProblem, level_number: int, seed: int) -> Plan:
    """R-LAG-2: a straight stroke to the top cushion and back, to stop as near the bottom
    cushion as possible. The speed is found by a scan then a golden-section search (cached)."""
    started = time.monotonic()
    table = table_by_name(problem.table)
    key = (problem.table, problem.balls, problem.cue)
    sims = 0
    if key not in _LAG_CACHE:
        # The cloth is fast (rolling resistance ~0.004): a ball struck at about 1 m/s already
        # reaches the top cushion and comes back down the table.
        speeds = [0.4 + 0.1 * i for i in range(27)]
        finishes = [_lag_finish(table, problem.balls, problem.cue, v) for v in speeds]
        sims += len(speeds)
        i = min(range(len(speeds)), key=lambda k: finishes[k])
        lo, hi = speeds[max(0, i - 1)], speeds[min(len(speeds) - 1, i + 1)]
        g = (math.sqrt(5) - 1) / 2
        for _ in range(10):
            a, b = hi - g * (hi - lo), lo + g * (hi - lo)
            fa = _lag_finish(table, problem.balls, problem.cue, a)
            fb = _lag_finish(table, problem.balls, problem.cue, b)
            sims += 2
            if fa <= fb:
                hi = b
            else:
                lo = a
        v = (lo + hi) / 2
        _LAG_CACHE[key] = (v, _lag_finish(table, problem.balls, problem.cue, v))
    speed, _finish = _LAG_CACHE[key]
    lvl = level(level_number)
    rng = random.Random(seed)
    # A lag a little short is safe; a little long bounces back up: aim slightly short.
    speed *= 0.985
    s = with_error(Stroke(0.0, speed, 0.0, 0.0, 0.0), lvl, rng)
    # Keep the lag straight-ish: a big aim error would cross into the other half (R-LAG-4).
    direction = max(-1.0, min(1.0, ((s.direction + 180.0) % 360.0) - 180.0)) % 360.0
    cue = CueParams(direction=direction, speed=s.speed)
    return Plan(cue, sims=sims, think_s=time.monotonic() - started)


def plan_choice_of_break(level_number: int) -> str:
    """R-LAG-7: the breaker gets the first chance to score; every level takes it."""
    return "me"


def batch(problems: Iterable[Problem], level_number: int, budget_s: float) -> list[Plan]:
    """Plan many problems in one call (the benchmark sends batches to worker processes)."""
    return [plan_stroke(p, level_number, i, budget_s) for i, p in enumerate(problems)]
