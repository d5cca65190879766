"""A ball in the way (client/bot/blocked.py, docs/bots.md "How the bots think"): the bots that
jump clear it and score, level 4 curves round it with massé where nothing else it tries scores,
and the sentence a bot says names the jump or the massé. Real physics and referee; straight-rail
breaks (R-BREAK-2: the red first), where the yellow lies across the line to the red."""

from __future__ import annotations

import random

import pytest

from client.bot import blocked
from client.bot.levels import level
from client.bot.plan import Candidate, Judge, Plan, Search, plan_stroke, simulate
from client.bot.problem import Balls, Problem
from shared.physics.types import ShotResult
from shared.table import MATCH

# The yellow 0.27 m from the white, across the line to the red (found among
# bench.bots.blocked_positions(60, seed=11), rounded to 0.1 mm).
JUMP = ((0.7325, 1.1241), (0.922, 0.9296), (1.236, 0.6642))
# The yellow 0.21 m from the white, across the line to the red, which lies 0.2 m beyond it
# (bench.bots.blocked_positions(60, seed=5)).
MASSE = ((1.7187, 0.8055), (1.702, 0.5919), (1.7017, 0.3909))
BUDGET_S = 60.0  # far above what the simulation cap needs: the search is deterministic
R = MATCH.ball_radius

# Level 4 and 5 searches (about a second each): started first, like test_plan.py's.
pytestmark = pytest.mark.slow


def _problem(balls: Balls) -> Problem:
    return Problem.of("straight_rail", "match", balls, "white", break_shot=True)


@pytest.fixture(scope="module")
def jump_plan() -> Plan:
    return plan_stroke(_problem(JUMP), 4, seed=1, budget_s=BUDGET_S, humanise=False)


@pytest.fixture(scope="module")
def masse_plan() -> Plan:
    return plan_stroke(_problem(MASSE), 4, seed=1, budget_s=BUDGET_S, humanise=False)


def _first_contact(result: ShotResult) -> tuple[float, set[str]]:
    first = next(e for e in result.events if e.kind == "ball_ball")
    return first.t, set(first.balls)


def test_the_yellow_blocks_the_line_to_the_red() -> None:
    (line,) = blocked.blocked_lines(JUMP, "white", R, 0.75, ["red"])
    assert (line.target, line.blocker) == ("red", "yellow") and line.directions
    for d in line.directions:
        assert blocked.first_ball_on_line(JUMP, "white", d, R) == "yellow"
    # Nothing in the way of the yellow itself, nor of the red once the yellow is gone.
    assert blocked.blocked_lines(JUMP, "white", R, 0.75, ["yellow"]) == []
    away = (JUMP[0], (0.3, 1.2), JUMP[2])
    assert blocked.blocked_lines(away, "white", R, 0.75, ["red"]) == []


def test_a_level_that_jumps_clears_the_ball_in_the_way_and_scores(jump_plan: Plan) -> None:
    stroke = jump_plan.stroke()
    assert jump_plan.kind == "jump"
    assert 40.0 <= stroke.elevation <= 60.0 and stroke.speed <= 4.5 * 1.2  # a jump's range
    assert jump_plan.sims <= level(4).sims + level(4).jump_sims + 10
    result = simulate(MATCH, JUMP, "white", stroke)
    t, first = _first_contact(result)
    # In the air before it meets a ball, over the yellow, onto the red (R-BREAK-2) ...
    assert any(e.kind == "airborne" and e.balls == ("white",) and e.t < t for e in result.events)
    assert blocked.jumped_over(result.trajectory, t, JUMP, "white", R) == "yellow"
    assert first == {"white", "red"}
    assert not any(e.kind == "off_table" for e in result.events)  # R-OFF-1
    # ... and the referee gives the point.
    out = Judge(_problem(JUMP)).run(stroke)
    assert out.points == 1 and not out.foul
    # The explanation says it in plain words.
    assert jump_plan.reason.startswith("jumps over the yellow and goes for the point: scores ")


def _level_4_flat_search(problem: Problem) -> tuple[Search, Judge, list[Candidate]]:
    """Level 4's own flat search: ball first, then off a cushion, leaving its share of the
    simulations for jumps and massé."""
    lvl = level(4)
    search = Search(problem, lvl, BUDGET_S, random.Random(1))
    judge = Judge(problem)
    flat = search.sweep(judge) + search.sweep_banks(judge, keep=lvl.masse_sims + lvl.jump_sims)
    return search, judge, flat


def test_the_jump_won_on_its_robust_chance_over_level_strokes_that_score(
    jump_plan: Plan,
) -> None:
    # Level 4's own flat search (ball first, then off a cushion, with the share it leaves for
    # jumps and massé) finds strokes that score here too; the jump was chosen over them.
    _, _, flat = _level_4_flat_search(_problem(JUMP))
    assert any(c.outcome.points for c in flat)
    assert all(c.stroke.elevation == 0.0 for c in flat)
    assert jump_plan.expected > 0.5


def test_level_3_does_not_jump() -> None:
    plan = plan_stroke(_problem(JUMP), 3, seed=1, budget_s=BUDGET_S, humanise=False)
    assert plan.kind == "flat" and plan.stroke().elevation == 0.0


def test_level_4_curves_round_with_masse_where_nothing_else_it_tries_scores(
    masse_plan: Plan,
) -> None:
    problem, lvl = _problem(MASSE), level(4)
    search, judge, tried = _level_4_flat_search(problem)
    lines = search.blocked(judge)
    assert [(b.target, b.blocker) for b in lines] == [("red", "yellow")]
    tried += search.sweep_jump(judge, lines)
    assert not any(c.outcome.points for c in tried)  # at a ball, off a cushion, jumping
    stroke = masse_plan.stroke()
    assert masse_plan.kind == "masse" and stroke.is_masse and abs(stroke.tip_x) >= 0.2
    assert masse_plan.sims <= lvl.sims + lvl.jump_sims + 10
    result = simulate(MATCH, MASSE, "white", stroke)
    _t, first = _first_contact(result)
    assert first == {"white", "red"}  # round the yellow, onto the red first (R-BREAK-2)
    out = Judge(problem).run(stroke)
    assert out.points == 1 and not out.foul
    assert masse_plan.reason.startswith(
        "curves round the yellow with massé and goes for the point: scores "
    )
