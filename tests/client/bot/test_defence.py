"""Defence and personalities (docs/bots.md "Defence and personalities"): when the attack is
unlikely, a safe bot leaves the opponent a harder position than its attack would, and says so
in one sentence; an attacking bot never plays safe."""

from __future__ import annotations

import pytest

from bench.bots import positions
from client.bot.defence import in_tenths, opponent_chance
from client.bot.plan import Plan, plan_stroke, simulate
from client.bot.problem import Problem
from shared.table import BALLS, MATCH

# Seeded random positions where level 3's best attack scores about 3 times in 10 and a safety
# pays (found once with the search; the positions and seeds are fixed).
LOW = (12, 13)


# Level 3's simulation cap ends these searches (a few seconds); a budget this large never binds,
# so a busy machine cannot cut a search short and change its choice.
BUDGET_S = 60.0


def _problem(i: int) -> Problem:
    return Problem.of("three_cushion", "match", positions(40, seed=3)[i], "white")


def _leave(problem: Problem, plan: Plan) -> float:
    result = simulate(MATCH, problem.balls, "white", plan.stroke())
    final = tuple(result.final[b] for b in BALLS)
    assert None not in final
    return opponent_chance(problem, final, 99)  # type: ignore[arg-type]


@pytest.mark.slow
@pytest.mark.parametrize("i", LOW)
def test_a_safe_bot_leaves_the_opponent_less_than_its_attack_would(i: int) -> None:
    problem = _problem(i)
    attack = plan_stroke(problem, 3, 1, BUDGET_S, humanise=False, personality="attacking")
    safe = plan_stroke(problem, 3, 1, BUDGET_S, humanise=False, personality="safe")
    assert not attack.safety and attack.reason.startswith("goes for ")
    assert attack.expected < 0.45
    assert safe.safety
    assert safe.reason.startswith("plays safe: leaves ")
    assert "the attack would score about 3 times in 10" in safe.reason
    # Measured again with another seed: the safety's leave is lower than the attack's.
    assert _leave(problem, safe) < _leave(problem, attack)


def test_a_likely_attack_is_played_whatever_the_personality() -> None:
    problem = _problem(3)
    for personality in ("attacking", "balanced", "safe"):
        plan = plan_stroke(problem, 3, 1, BUDGET_S, humanise=False, personality=personality)
        assert not plan.safety and plan.expected >= 0.45
        assert plan.reason.startswith("goes for ") and "times in 10" in plan.reason


@pytest.mark.parametrize(
    ("p", "words"),
    [
        (0.0, "almost never"),
        (0.04, "almost never"),
        (0.1, "about 1 time in 10"),
        (0.29, "about 3 times in 10"),
        (0.96, "almost always"),
        (1.07, "almost always"),
    ],
)
def test_chances_in_words(p: float, words: str) -> None:
    assert in_tenths(p) == words
