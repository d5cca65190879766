"""Hints in practice (docs/analysis.md "Hints"): from a position where the simulator laid out
an around-the-table point, the planner's best strokes, each scoring when played as planned
and rated by how often it still scores under a good player's execution error."""

from __future__ import annotations

from dataclasses import replace

from client.bot.hints import DISTINCT_DEG, chance, hints
from client.bot.plan import Judge
from client.bot.problem import Problem
from shared.analysis.patterns import Pattern
from shared.table import BALLS
from tests.shared.analysis.layouts import CASES


def _problem() -> Problem:
    layout = next(c for c in CASES if c.pattern is Pattern.AROUND_THE_TABLE).build()
    return Problem.of("three_cushion", "match", tuple(layout.balls[b] for b in BALLS), "white")


def test_hints_score_as_planned_and_are_rated_under_error() -> None:
    problem = _problem()
    found = hints(problem, budget_s=10.0, seed=1)
    assert 1 <= len(found) <= 3
    judge = Judge(problem)
    for h in found:
        assert judge.run(h.stroke).points == 1  # the referee's own judgement (R-DISC-3C)
        assert 0.0 <= h.chance <= 1.0 and h.trials == 24
        assert h.chance == chance(Judge(problem), h.stroke, h.trials, 1)  # seeded: repeatable
        assert h.path[0] == problem.position("white")
        assert h.sentence.endswith("of the time with a good player's error")
    assert [h.chance for h in found] == sorted((h.chance for h in found), reverse=True)
    for i, a in enumerate(found):
        for b in found[i + 1 :]:
            apart = abs((a.stroke.direction - b.stroke.direction + 180) % 360 - 180)
            assert apart >= DISTINCT_DEG or a.route != b.route


def test_a_lucky_stroke_rates_below_a_robust_one() -> None:
    # The error trials tell a stroke on the edge of its scoring window from one in its middle:
    # the best hint's chance is at least that of the same stroke nudged to where it barely
    # scores.
    problem = _problem()
    best = hints(problem, budget_s=10.0, seed=1)[0]
    judge = Judge(problem)
    edge = best.stroke
    step = 0.05
    while judge.run(replace(edge, direction=(edge.direction + step) % 360)).points:
        edge = replace(edge, direction=(edge.direction + step) % 360)
    assert chance(judge, edge, 24, 1) <= best.chance
