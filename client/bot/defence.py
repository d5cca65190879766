"""Defence and personalities: when the best attack is unlikely to score, leave the opponent the
hardest position the search can find (docs/bots.md "Defence and personalities").

The opponent's chance from a position is measured the way a player would guess it: a quick
ball-first sweep from the opponent's cue ball (level 3's sweep, at most 300 simulations), then
the three best scoring strokes found are replayed with a good player's execution error
(level 3's spread, six perturbations each, as the planner's robustness check); the chance is
the best share. A position with no scoring stroke in the sweep counts 0.

``choose_safety`` tries the candidate strokes the attack search has already simulated (no foul,
every ball still on the table), the ``SAFETIES`` most different in direction, and keeps the one
that leaves the lowest chance; ``safety_pays`` then compares it with the attack (one point of
look-ahead), so a safety that leaves more than the attack's miss would is not played.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import Final, Literal, cast

from client.bot.levels import level
from client.bot.plan import Candidate, Judge, Search, StrokeKind
from client.bot.problem import Balls, Problem
from shared.physics.types import Stroke
from shared.table import BALLS, BallName, TableSpec

Personality = Literal["attacking", "balanced", "safe"]
PERSONALITIES: Final[tuple[Personality, ...]] = ("attacking", "balanced", "safe")
# Defend when the attack's estimated chance is below this (attacking: never).
DEFEND_BELOW: Final[dict[str, float]] = {"attacking": 0.0, "balanced": 0.3, "safe": 0.45}


def defend_below(personality: str) -> float:
    """The attack's chance below which ``personality`` considers a safety."""
    for name, below in DEFEND_BELOW.items():
        if name == personality:
            return below
    raise ValueError(f"unknown personality {personality!r}; known: {', '.join(DEFEND_BELOW)}")


SAFETIES: Final = 6  # candidate safeties whose leave is measured
OPPONENT_SIMS: Final = 300  # simulations of the opponent's sweep, per candidate


@dataclass(frozen=True, slots=True)
class Safety:
    stroke: Stroke
    leave: float  # the opponent's chance from the position this stroke leaves
    attack: float  # the attack's own estimated chance, for comparison
    kind: StrokeKind = "flat"  # a level cue, a jump or a massé (as the search found it)


def opponent_of(cue: BallName) -> BallName:
    return "yellow" if cue == "white" else "white"


def opponent_chance(problem: Problem, balls: Balls, seed: int, budget_s: float = 5.0) -> float:
    """The opponent's chance of scoring from ``balls`` (see the module doc), measured within
    ``budget_s`` seconds (a cut sweep finds fewer strokes; an untested one counts 0.5)."""
    opp = Problem.of(problem.discipline, problem.table, balls, opponent_of(problem.cue))
    search = Search(opp, level(3), budget_s, random.Random(seed))
    search.sims_cap = OPPONENT_SIMS
    judge = Judge(opp)
    found = [c for c in search.sweep(judge) if c.outcome.points]
    if not found:
        return 0.0
    search.level = replace(level(3), sims=10**6)
    search.sims_cap = 10**6
    best = found[:3]
    search.robustness(judge, best)
    return max(c.value for c in best)


def _spread(cands: list[Candidate], n: int) -> list[Candidate]:
    """Up to ``n`` candidates far apart in direction (one per sector of the circle)."""
    sectors: dict[int, Candidate] = {}
    for c in cands:
        sectors.setdefault(int(c.stroke.direction // (360.0 / (n * 3))), c)
    picked = list(sectors.values())
    step = max(1, len(picked) // n)
    return picked[::step][:n]


def choose_safety(
    problem: Problem, cands: list[Candidate], attack: float, seed: int, budget_s: float
) -> Safety | None:
    """The candidate that leaves the opponent the lowest chance (None if none qualifies)."""
    deadline = time.monotonic() + budget_s
    playable = [c for c in cands if not c.outcome.foul and c.outcome.final is not None]
    best: Safety | None = None
    for i, c in enumerate(_spread(playable, SAFETIES)):
        if time.monotonic() > deadline:
            break
        assert c.outcome.final is not None
        left = deadline - time.monotonic()
        leave = opponent_chance(problem, c.outcome.final, seed + i, max(0.05, left))
        if time.monotonic() > deadline:
            break  # cut short by the clock: a measure that finds less than it should
        if best is None or leave < best.leave:
            best = Safety(c.stroke, leave, attack, c.kind)
    return best


def safety_pays(
    problem: Problem, attack: Candidate, safety: Safety, seed: int, budget_s: float = 5.0
) -> bool:
    """A one-point look ahead: the attack is worth its chance ``p`` of a point, less the
    opponent's chance from what a miss leaves, ``(1 − p)·leave``; the safety is worth minus the
    opponent's chance from what it leaves. Play safe when that is worth more."""
    p = min(1.0, max(0.0, attack.value))
    final = attack.outcome.final
    ends = time.monotonic() + budget_s
    leave = 1.0 if final is None else opponent_chance(problem, final, seed + 97, budget_s)
    if time.monotonic() > ends:
        return False  # no time to compare them: the attack, as a bot without defence would
    return -safety.leave > p - (1.0 - p) * leave


def in_tenths(p: float) -> str:
    """A chance as players say it: "about 3 times in 10", "almost never", "almost always"."""
    k = round(p * 10)
    if k <= 0:
        return "almost never"
    if k >= 10:
        return "almost always"
    return f"about {k} time{'s' if k > 1 else ''} in 10"


def safety_reason(problem: Problem, safety: Safety, table: TableSpec) -> str:
    """The safety in one sentence: what it leaves, in words."""
    from client.bot.plan import simulate
    from shared.rules.placement import contact_of

    result = simulate(table, problem.balls, problem.cue, safety.stroke)
    final = result.final
    detail = ""
    if all(b in final and final[b] is not None for b in BALLS):
        balls = cast(Balls, tuple(final[b] for b in BALLS))
        opp = opponent_of(problem.cue)
        touching = contact_of(balls, opp, table)
        if touching.cushions:
            detail = f"the {opp} on the cushion, "
        elif touching.balls:
            detail = f"the {opp} frozen to the {touching.balls[0]}, "
    return (
        f"plays safe: leaves {detail}the opponent scoring {in_tenths(safety.leave)} "
        f"(the attack would score {in_tenths(safety.attack)})"
    )
