"""``Verdict.rules``: every transition names the RULES.md rules it applied, and only those.

Built with the real referee on results of the real simulator (the strokes of
``test_physics_cases.py``, re-found by ``find_strokes.situation`` after a physics change), so a
rule is named because the referee really decided it on a real stroke. Rule coverage
(``tests/rule_coverage.py``) counts these ids over the whole suite.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.physics import simulate, simulate_lag
from shared.physics.types import Stroke
from shared.rules import (
    Concede,
    IllegalAction,
    LagResult,
    LagStroke,
    MatchOptions,
    MatchState,
    PlayStroke,
    Respot,
    Resume,
    Start,
    Tick,
    TimeOut,
    Verdict,
    apply,
    cue_ball,
    lag_strokes,
    new_match,
)
from shared.rules.options import Discipline
from shared.rules.placement import as_tuple
from shared.rules.verdict import Call, named
from shared.table import MATCH, BallName, Point
from tests.rule_coverage import doc_rows
from tests.shared.rules.conftest import T0, to_play
from tests.shared.rules.find_strokes import BALK, FROZEN, JUMP, OPEN, situation

RULE_IDS = set(doc_rows())


def at(options: MatchOptions, balls: dict[BallName, Point]) -> MatchState:
    return replace(to_play(options), balls=as_tuple(balls), break_shot=False, spot_choice=False)


def play(state: MatchState, stroke: Stroke, result: object = None) -> tuple[MatchState, Verdict]:
    assert state.shooter is not None
    if result is None:
        result = simulate(MATCH, state.positions, cue_ball(state), stroke)
    s, v = apply(state, PlayStroke(state.shooter, stroke, result), state.resting_at_ms)  # type: ignore[arg-type]
    assert set(v.rules) <= RULE_IDS, "a verdict names an id that RULES.md does not have"
    assert len(set(v.rules)) == len(v.rules), "each id once"
    return s, v


def test_a_real_three_cushion_point_names_the_discipline_scoring_rule() -> None:
    stroke, result = situation("point3c", Stroke(340.0, 4.39, tip_x=0.2, tip_y=0.2))
    _, v = play(at(MatchOptions(), dict(OPEN)), stroke, result)
    assert v.points == 1
    for rule in ("R-PLAY-1", "R-DISC-3C", "R-CALL-1", "R-PLAY-2", "R-PLAY-3", "R-CLOCK-1"):
        assert rule in v.rules
    # Not decided by this stroke: no foul, no other discipline, no re-spot, no frozen ball.
    assert not [r for r in v.rules if r.startswith(("R-FOUL", "R-RESPOT", "R-FROZEN"))]
    assert "R-DISC-1C" not in v.rules and "R-BREAK-2" not in v.rules


def test_the_same_stroke_in_one_cushion_names_one_cushion() -> None:
    stroke, result = situation("point3c", Stroke(340.0, 4.39, tip_x=0.2, tip_y=0.2))
    _, v = play(at(MatchOptions(discipline=Discipline.ONE_CUSHION), dict(OPEN)), stroke, result)
    assert v.points == 1 and "R-DISC-1C" in v.rules and "R-DISC-3C" not in v.rules


def test_a_real_two_cushion_kiss_is_a_miss_by_the_three_cushion_rule() -> None:
    stroke, result = situation("kiss2", Stroke(34.5, 3.17, tip_x=-0.1, tip_y=0.1))
    _, v = play(at(MatchOptions(), dict(OPEN)), stroke, result)
    assert v.points == 0 and v.foul is None
    assert {"R-DISC-3C", "R-PLAY-1", "R-CALL-1"} <= set(v.rules)


def test_a_real_break_onto_the_yellow_names_the_break_rule_and_its_foul() -> None:
    s = to_play()
    stroke, result = situation("breakyellow", Stroke(107.4, 3.1, tip_x=-0.1, tip_y=0.1))
    _, v = play(s, stroke, result)
    assert v.foul is not None
    assert {"R-BREAK-2", "R-FOUL-BREAK", "R-BREAK-1"} <= set(v.rules)
    assert "R-DISC-3C" not in v.rules  # the carom was never judged


def test_a_real_jump_names_off_table_and_the_three_cushion_respot() -> None:
    stroke, result = situation("jump", Stroke(305.0, 7.06, tip_x=-0.2, elevation=25.0))
    _, v = play(at(MatchOptions(), dict(JUMP)), stroke, result)
    assert v.foul is not None and v.respots
    assert {"R-OFF-1", "R-FOUL-OFF", "R-RESPOT-3C", "R-RESPOT-GEOM"} <= set(v.rules)
    assert "R-RESPOT-OTHER" not in v.rules


def test_a_real_push_into_a_touching_ball_names_the_push_rules() -> None:
    _, v = play(at(MatchOptions(), dict(FROZEN)), Stroke(0.0, 2.0))
    assert v.foul is not None and v.foul.code == "push"
    assert {"R-FROZEN-2", "R-FROZEN-5", "R-BALL-1", "R-FOUL-PUSH"} <= set(v.rules)


@pytest.mark.parametrize(
    ("discipline", "respot_rules"),
    [
        (Discipline.THREE_CUSHION, {"R-RESPOT-3C", "R-RESPOT-GEOM"}),
        (Discipline.ONE_CUSHION, {"R-BREAK-1", "R-SPOT-1"}),
    ],
)
def test_a_frozen_respot_names_the_discipline_respot(
    discipline: Discipline, respot_rules: set[str]
) -> None:
    s = at(MatchOptions(discipline=discipline), dict(FROZEN))
    _, v = apply(s, Respot(0), s.resting_at_ms)
    assert {"R-FROZEN-1", "R-FROZEN-4", "R-CLOCK-2", *respot_rules} <= set(v.rules)


def test_a_refused_respot_names_the_frozen_rule() -> None:
    s = at(MatchOptions(), dict(OPEN))
    with pytest.raises(IllegalAction) as refused:
        apply(s, Respot(0), s.resting_at_ms)
    assert refused.value.rule_id == "R-FROZEN-1"


def test_a_real_balkline_second_carom_names_the_zone_rules() -> None:
    s = at(MatchOptions(discipline=Discipline.BALKLINE_47_2), dict(BALK))
    stroke, result = situation("balk", Stroke(268.0, 1.48, tip_x=-0.2, tip_y=-0.2))
    s1, v1 = play(s, stroke, result)
    assert v1.points == 1 and "R-DISC-BALK" in v1.rules and "R-FOUL-ZONE" not in v1.rules
    stroke2, result2 = situation("balk", Stroke(193.0, 0.61, tip_x=0.3, tip_y=0.3), s1.positions)
    _, v2 = play(s1, stroke2, result2)
    assert v2.foul is not None and {"R-DISC-BALK", "R-FOUL-ZONE"} <= set(v2.rules)


def test_a_time_out_names_the_time_out_rule_and_a_second_one_is_refused_by_it() -> None:
    s = to_play()
    s1, v = apply(s, TimeOut(0), s.resting_at_ms)
    assert v.rules == ("R-TIMEOUT-1",)
    s2, v = apply(s1, Resume(0), s.resting_at_ms + 1000)
    assert "R-TIMEOUT-1" in v.rules
    with pytest.raises(IllegalAction) as refused:
        apply(s2, TimeOut(0), s.resting_at_ms + 2000)
    assert (refused.value.code, refused.value.rule_id) == ("no_timeouts_left", "R-TIMEOUT-1")


def test_a_shot_clock_running_out_names_the_clock_rules() -> None:
    s = to_play()
    assert s.deadline_ms is not None
    _, v = apply(s, Tick(), s.deadline_ms)
    assert {"R-FOUL-CLOCK", "R-CLOCK-1", "R-CLOCK-3", "R-PLAY-2", "R-CALL-1"} <= set(v.rules)


def test_a_stroke_while_the_balls_move_is_refused_by_r_play_4() -> None:
    stroke, result = situation("point3c", Stroke(340.0, 4.39, tip_x=0.2, tip_y=0.2))
    s, _ = play(at(MatchOptions(), dict(OPEN)), stroke, result)
    with pytest.raises(IllegalAction) as refused:
        apply(s, PlayStroke(0, stroke, result), s.resting_at_ms - 1)
    assert refused.value.rule_id == "R-PLAY-4"


def test_a_concession_names_r_end_5_though_its_call_keeps_r_end_1_on_the_wire() -> None:
    _, v = apply(to_play(), Concede(0), T0 + 10_000)
    assert [c.rule_id for c in v.calls] == ["R-END-1"]
    assert v.rules == ("R-END-5",)


def test_a_real_lag_names_the_rule_that_decided_it() -> None:
    s, v = apply(new_match(MatchOptions(), T0), Start(), T0)
    assert {"R-LAG-1", "R-LAG-2", "R-CLOCK-2"} <= set(v.rules)
    s, _ = apply(s, LagStroke(0, Stroke(180.0, 0.3)), T0 + 100)  # a tap that stays at the bottom
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 3.6)), T0 + 200)
    strokes = lag_strokes(s)
    assert strokes is not None
    _, v = apply(s, LagResult(simulate_lag(MATCH, s.positions, strokes)), T0 + 300)
    assert v.lag_reason == "no_top_cushion"
    assert {"R-LAG-3", "R-LAG-2", "R-LAG-7"} <= set(v.rules)
    assert "R-LAG-4" not in v.rules and "R-LAG-5" not in v.rules


def test_named_adds_the_foul_and_the_calls_rules_once() -> None:
    calls = (
        Call("good", "Good.", "R-PLAY-1"),
        Call("zone_line", "On the line.", "R-ZONE-CALL"),
        Call("game_over", "Seat 0 wins (concede).", "R-END-1"),
    )
    v = named(Verdict(calls=calls, rules=("R-PLAY-1", "R-END-5")))
    assert v.rules == ("R-PLAY-1", "R-END-5", "R-CALL-1", "R-ZONE-CALL", "R-CALL-4", "R-ZONE-LINE")


@pytest.mark.parametrize(
    ("direction", "push"),
    [pytest.param(180.0, True, id="into the cushion"), pytest.param(0.0, False, id="away")],
)
def test_a_real_stroke_from_a_touching_cushion_is_judged_by_r_frozen_3(
    direction: float, push: bool
) -> None:
    # The white's centre one radius from the bottom cushion's nose: touching it (R-FROZEN-5).
    s = at(MatchOptions(), {**OPEN, "white": (MATCH.ball_radius, 0.4)})
    _, v = play(s, Stroke(direction, 1.5, elevation=40.0))  # a massé: still a push (HE d)
    assert {"R-FROZEN-3", "R-FROZEN-5", "R-BALL-1"} <= set(v.rules)
    assert (v.foul is not None and v.foul.code == "push") is push
    assert ("R-FOUL-PUSH" in v.rules) is push
