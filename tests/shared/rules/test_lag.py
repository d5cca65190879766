"""The lag (RULES.md §2): judged from one simulation of both strokes (R-LAG-3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from shared.physics.types import Stroke
from shared.rules import (
    ChooseBreak,
    IllegalAction,
    LagResult,
    LagStroke,
    MatchOptions,
    MatchState,
    Phase,
    Start,
    Termination,
    Tick,
    apply,
    lag_balls,
    lag_strokes,
    new_match,
    next_deadline,
)
from shared.rules.lag import LagOutcome, judge_lag
from shared.rules.placement import lag_position
from shared.rules.referee import LAG_REPEAT_LIMIT, coin_toss
from shared.table import MATCH, Point
from tests.shared.rules.builders import make_result
from tests.shared.rules.conftest import T0, lag_result

WHITE_NEAR = {"white": (0.05, 0.20), "yellow": (0.40, 1.22)}
START = dict(zip(("white", "yellow", "red"), lag_position(MATCH), strict=True))
STROKES = {"white": Stroke(0.0, 2.0), "yellow": Stroke(0.0, 2.0)}
BOTH_TOP = ["white>top", "yellow>top"]  # R-LAG-2: both lag balls went onto the top cushion


def judged(
    steps: Sequence[str],
    final: Mapping[str, Point | None],
    after: Mapping[int, Mapping[str, Point]] | None = None,
) -> LagOutcome:
    result = make_result(START, STROKES, steps, final, after=after)
    return judge_lag(result, {0: "white", 1: "yellow"}, MATCH)


CASES = [
    pytest.param(
        BOTH_TOP, WHITE_NEAR, None, 0, "nearer", id="R-LAG-2 nearer the bottom cushion wins"
    ),
    pytest.param(
        ["yellow>top"],
        WHITE_NEAR,
        None,
        1,
        "no_top_cushion",
        id="R-LAG-2 a ball that never touches the top cushion loses even when nearer",
    ),
    pytest.param(
        ["white>bottom"],
        WHITE_NEAR,
        None,
        None,
        "no_top_cushion",
        id="R-LAG-2 neither ball touches the top cushion: repeat",
    ),
    pytest.param(
        ["white>top", "yellow>top", "white>bottom"],
        {"white": (0.20, 0.2), "yellow": (0.25, 1.2)},
        None,
        0,
        "nearer",
        id="R-LAG-2 a touch of the bottom cushion still counts",
    ),
    pytest.param(
        BOTH_TOP,
        {"white": (0.1000, 0.2), "yellow": (0.1008, 1.2)},
        None,
        None,
        "equal",
        id="R-LAG-4 equal distance within 1 mm repeats",
    ),
    pytest.param(
        ["white*yellow"],
        {"white": (0.1, 0.9), "yellow": (0.3, 1.2)},
        {1: {"white": (2.5, 0.75), "yellow": (2.5, 0.8115)}},
        1,
        "crossed",
        id="R-LAG-4 the ball outside its own half at the contact loses",
    ),
    pytest.param(
        ["white*yellow"],
        {"white": (0.1, 0.9), "yellow": (0.3, 0.3)},
        {1: {"white": (2.5, 0.74), "yellow": (2.5, 0.68)}},
        None,
        "balls_touched",
        id="R-LAG-4 both outside their halves repeats",
    ),
    pytest.param(
        ["white*yellow"],
        {"white": (0.1, 0.2), "yellow": (0.3, 1.2)},
        None,
        None,
        "balls_touched",
        id="R-LAG-4 contact that cannot be decided repeats",
    ),
    pytest.param(
        ["yellow*red"],
        WHITE_NEAR | {"yellow": (0.01, 1.2)},
        None,
        0,
        "touched_red",
        id="R-LAG-5 touching the red loses even when nearer",
    ),
    pytest.param(
        ["yellow*red", "white*red"],
        WHITE_NEAR,
        None,
        None,
        "both_touched_red",
        id="R-LAG-5 both touching the red repeats",
    ),
    pytest.param(
        ["off:white"],
        {"yellow": (0.4, 1.2)},
        None,
        1,
        "off_table",
        id="R-LAG-2 decision a lag ball off the table loses",
    ),
]


@pytest.mark.parametrize(("steps", "final", "after", "winner", "reason"), CASES)
def test_lag_cases(steps, final, after, winner, reason) -> None:  # type: ignore[no-untyped-def]
    outcome = judged(steps, final, after)
    assert (outcome.winner, outcome.reason) == (winner, reason)


def lag_state() -> MatchState:
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0 + 100)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 200)
    return s


def test_R_LAG_3_both_strokes_are_simulated_together() -> None:
    s = lag_state()
    strokes = lag_strokes(s)
    assert strokes == {"white": Stroke(0.0, 2.0), "yellow": Stroke(0.0, 2.0)}
    assert lag_balls(s) == {0: "white", 1: "yellow"}
    s2, v = apply(s, lag_result(s, BOTH_TOP, WHITE_NEAR), T0 + 300)
    assert v.lag_winner == 0 and s2.phase is Phase.BREAK_CHOICE


def test_R_LAG_3_a_result_from_other_strokes_is_refused() -> None:
    s = lag_state()
    bad = make_result(
        START, {"white": Stroke(0.0, 5.0), "yellow": Stroke(0.0, 2.0)}, [], WHITE_NEAR
    )
    with pytest.raises(ValueError, match="lag strokes"):
        apply(s, LagResult(bad), T0 + 300)


def test_R_LAG_4_repeat_resets_the_strokes_and_clock() -> None:
    s = lag_state()
    s2, v = apply(s, lag_result(s, BOTH_TOP, {"white": (0.1, 0.2), "yellow": (0.1, 1.2)}), T0 + 300)
    assert v.lag_repeat and s2.phase is Phase.LAG
    assert s2.lag_strokes == (None, None)
    assert s2.deadline_ms == s2.resting_at_ms + 30_000


def test_R_LAG_6_repeats_are_nobodys_doing_and_a_coin_toss_cuts_them() -> None:
    # R-LAG-6 as amended: online the strokes are simultaneous, so a repeat costs nobody the lag.
    s = lag_state()
    for repeats in range(1, LAG_REPEAT_LIMIT):
        s, v = apply(s, lag_result(s, ["yellow*red", "white*red"], WHITE_NEAR), T0 + 300)
        assert v.lag_repeat and v.lag_winner is None and s.phase is Phase.LAG
        assert s.lag_repeats == repeats
        s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0 + 400)
        s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 500)
    # The next repeat is cut: a coin toss, announced as such, decides the lag.
    lag = lag_result(s, ["yellow*red", "white*red"], WHITE_NEAR)
    s2, v = apply(s, replace(lag, seed="match-42"), T0 + 600)
    assert v.lag_reason == "coin_toss" and not v.lag_repeat
    assert v.lag_winner == coin_toss("match-42", LAG_REPEAT_LIMIT)
    assert s2.phase is Phase.BREAK_CHOICE and s2.lag_winner == v.lag_winner
    assert any("coin toss" in c.text and c.rule_id == "R-LAG-6" for c in v.calls)
    # The toss is a pure function of the match: the same match always tosses the same way,
    # and over many matches both seats win it.
    s3, v3 = apply(s, replace(lag, seed="match-42"), T0 + 600)
    assert (s3, v3) == (s2, v)
    assert {coin_toss(f"match-{i}", LAG_REPEAT_LIMIT) for i in range(20)} == {0, 1}


def test_R_LAG_6_no_lag_stroke_before_the_clock_loses() -> None:
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 100)
    s2, v = apply(s, Tick(), T0 + 30_000)
    assert (v.lag_winner, v.lag_reason) == (1, "no_lag_stroke")
    assert s2.phase is Phase.BREAK_CHOICE


def test_R_LAG_3_clock_stops_once_both_lag_strokes_are_in() -> None:
    # The server simulates the two strokes together; a late tick must not judge a lag that
    # both players played in time, whatever the simulation costs.
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 100)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0 + 200)
    assert s.deadline_ms is None and next_deadline(s) is None
    s2, v = apply(s, Tick(), T0 + 60_000)
    assert s2 == s and v.lag_winner is None and v.calls == ()


def test_R_LAG_6_neither_player_lags_abandons_the_match() -> None:
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    _s2, v = apply(s, Tick(), T0 + 30_000)
    assert v.game_over is not None and v.game_over.reason is Termination.ABANDONED


def test_R_LAG_7_break_choice_on_the_clock_defaults_to_the_winner() -> None:
    s = lag_state()
    s, _ = apply(s, lag_result(s, BOTH_TOP, WHITE_NEAR), T0 + 300)
    assert s.deadline_ms is not None
    s2, _v = apply(s, Tick(), s.deadline_ms)
    assert s2.phase is Phase.PLAY and s2.shooter == 0 and s2.white_seat == 0


def test_R_LAG_7_lag_stroke_in_the_wrong_phase_is_refused() -> None:
    s = lag_state()
    s, _ = apply(s, lag_result(s, BOTH_TOP, WHITE_NEAR), T0 + 300)
    with pytest.raises(IllegalAction) as err:
        apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0 + 400)
    assert err.value.code == "wrong_phase"
    s2, _ = apply(s, ChooseBreak(0, 1), s.resting_at_ms)
    assert s2.shooter == 1 and s2.ball_of(1) == "white" and s2.ball_of(0) == "yellow"
