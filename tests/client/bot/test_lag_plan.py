"""R-LAG-2 (round 2): the bots' lag goes onto the top cushion on every table, at every level, and
the referee judges two bots' lags as a real lag (nobody loses for a tap that stays short)."""

from __future__ import annotations

import pytest

from client.bot.plan import plan_lag
from client.bot.problem import LagProblem
from shared.physics import simulate_lag
from shared.rules.lag import judge_lag
from shared.rules.placement import lag_position
from shared.table import TABLES


@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("level", [1, 5])
def test_bot_lags_reach_the_top_cushion_and_are_judged_by_distance(table: str, level: int) -> None:
    spec = TABLES[table]
    balls = lag_position(spec)
    strokes = {
        cue: plan_lag(LagProblem(table, balls, cue), level, seed=7 + i).stroke()
        for i, cue in enumerate(("white", "yellow"))
    }
    start = dict(zip(("white", "yellow", "red"), balls, strict=True))
    result = simulate_lag(spec, start, strokes)
    for cue in strokes:
        assert any(
            e.kind == "ball_cushion" and e.cushion == "top" and cue in e.balls
            for e in result.events
        ), f"the {cue} lag never reached the top cushion on {table}"
    outcome = judge_lag(result, {0: "white", 1: "yellow"}, spec)
    assert outcome.reason != "no_top_cushion"
