"""Hints in practice: the best three strokes the planner finds from a position, each with its
chance of scoring when a player plays it with a player's execution error (docs/analysis.md
"Hints").

The search is the bot's own (``client/bot/plan.py``: the sweep, the bank sweep when nothing
ball-first scores, the refinement). What differs is the ranking: a hint is worth what it
scores under error, measured by replaying it ``trials`` times with the Gaussian aim, speed and
tip error of a club player (level 3) drawn from a seeded generator — robust, not lucky. Three
hints are kept that differ in direction by at least ``DISTINCT_DEG`` or in route, so the player
sees three ideas, not one idea three times.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace

from client.bot.levels import level
from client.bot.plan import Candidate, Judge, Search, simulate
from client.bot.problem import Problem
from shared.analysis.patterns import attempted, route, scoring_route
from shared.analysis.reading import path_of
from shared.physics.types import MISCUE_LIMIT, Stroke
from shared.table import Point

DISTINCT_DEG = 2.0
TRIALS = 24
ERROR_LEVEL = 3  # whose execution error the chance is measured with ("good")
SEARCH_LEVEL = 4  # how hard the search looks


@dataclass(frozen=True, slots=True)
class Hint:
    stroke: Stroke
    chance: float  # share of the error trials that scored
    trials: int
    route: str | None  # the route's name as players say it (patterns.py), if it has one
    path: tuple[Point, ...]  # the cue ball's path as intended, strike to the scoring contact

    @property
    def sentence(self) -> str:
        name = f"{self.route}: " if self.route else ""
        return f"{name}scores {self.chance:.0%} of the time with a good player's error"


def _with_error(stroke: Stroke, rng: random.Random) -> Stroke:
    lvl = level(ERROR_LEVEL)
    speed = min(8.0, max(0.2, stroke.speed * (1 + rng.gauss(0, lvl.speed_sigma))))
    tx = stroke.tip_x + rng.gauss(0, lvl.tip_sigma)
    ty = stroke.tip_y + rng.gauss(0, lvl.tip_sigma)
    r = math.hypot(tx, ty)
    if r > MISCUE_LIMIT * 0.95:
        tx, ty = tx * MISCUE_LIMIT * 0.95 / r, ty * MISCUE_LIMIT * 0.95 / r
    direction = (stroke.direction + rng.gauss(0, lvl.aim_sigma)) % 360.0
    return replace(stroke, direction=direction, speed=speed, tip_x=tx, tip_y=ty)


def chance(judge: Judge, stroke: Stroke, trials: int, seed: int) -> float:
    """Share of ``trials`` error-perturbed copies of ``stroke`` that score."""
    rng = random.Random(seed)
    return sum(judge.run(_with_error(stroke, rng)).points > 0 for _ in range(trials)) / trials


def hints(
    problem: Problem, *, budget_s: float = 20.0, seed: int = 0, trials: int = TRIALS, keep: int = 3
) -> list[Hint]:
    """Up to ``keep`` scoring strokes from ``problem``, best chance first (none if the search
    found no scoring stroke)."""
    started = time.monotonic()
    lvl = level(SEARCH_LEVEL)
    search = Search(problem, lvl, budget_s, random.Random(seed))
    judge = Judge(problem, problem.balls)
    cands = search.sweep(judge)
    if not any(c.outcome.points for c in cands):
        cands += search.sweep_banks(judge)
    cands = search.refine(judge, cands, keep=6)
    scoring = _distinct_scorers(cands)
    table = judge.table
    cue = problem.cue
    rated: list[tuple[float, Candidate]] = []
    for c in scoring[:12]:
        if time.monotonic() - started > budget_s * 2:
            break
        rated.append((chance(judge, c.stroke, trials, seed), c))
    rated.sort(key=lambda rc: -rc[0])
    out: list[Hint] = []
    for p, c in rated:
        result = simulate(table, problem.balls, cue, c.stroke)
        steps = route(result.events, result.trajectory, cue, table)
        name = attempted(steps)
        scored = scoring_route(steps)
        until = scored[-1].t if scored else None
        hint = Hint(
            c.stroke,
            p,
            trials,
            None if name is None else name.label,
            path_of(result.events, result.trajectory, cue, until),
        )
        if all(_apart(hint, h) for h in out):
            out.append(hint)
        if len(out) == keep:
            break
    return out


def _distinct_scorers(cands: list[Candidate]) -> list[Candidate]:
    seen: dict[tuple[float, ...], Candidate] = {}
    for c in cands:
        if c.outcome.points:
            s = c.stroke
            seen.setdefault((s.direction, s.speed, s.tip_x, s.tip_y, s.elevation), c)
    return list(seen.values())  # in the search's order


def _apart(a: Hint, b: Hint) -> bool:
    diff = abs((a.stroke.direction - b.stroke.direction + 180.0) % 360.0 - 180.0)
    return diff >= DISTINCT_DEG or a.route != b.route
