"""Referee cases from REAL physics results (shared.physics.simulate, imported only in tests).

Stroke parameters were found by a seeded random search over cue parameters from each start
position and frozen below. ``situation`` re-simulates each one and checks it still makes its
situation on the current physics (a three-cushion point, a kiss …); if a physics change broke
that, it searches again with the same seed and warns with the stroke to freeze, so the referee is
always checked on a real result of the physics as it is.
"""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.physics import simulate, simulate_lag
from shared.physics.types import ShotResult, Stroke
from shared.rules import (
    LagResult,
    LagStroke,
    MatchOptions,
    MatchState,
    Phase,
    PlayStroke,
    Respot,
    Start,
    apply,
    cue_ball,
    lag_strokes,
    new_match,
    stroke_start,
)
from shared.rules.events import by_kind, filter_events
from shared.rules.options import Discipline
from shared.rules.placement import Side, as_tuple
from shared.rules.verdict import Verdict
from shared.table import MATCH, BallName, Point
from tests.shared.rules.conftest import T0, to_play
from tests.shared.rules.find_strokes import BALK, FROZEN, JUMP, OPEN, situation

R = MATCH.ball_radius


def at(
    options: MatchOptions, balls: dict[BallName, Point], *, break_shot: bool = False
) -> MatchState:
    s = to_play(options)
    return replace(s, balls=as_tuple(balls), break_shot=break_shot, spot_choice=break_shot)


def real(state: MatchState, stroke: Stroke, spot: Side | None = None) -> tuple[MatchState, Verdict]:
    assert state.shooter is not None
    result = simulate(MATCH, stroke_start(state, spot), cue_ball(state), stroke)
    return apply(state, PlayStroke(state.shooter, stroke, result), state.resting_at_ms)


def referee(state: MatchState, stroke: Stroke, result: ShotResult) -> tuple[MatchState, Verdict]:
    assert state.shooter is not None
    return apply(state, PlayStroke(state.shooter, stroke, result), state.resting_at_ms)


def test_R_DISC_3C_real_three_cushion_point() -> None:
    stroke, result = situation("point3c", Stroke(340.0, 4.39, tip_x=0.2, tip_y=0.2))
    s, v = referee(at(MatchOptions(), dict(OPEN)), stroke, result)
    assert v.points == 1 and v.foul is None and s.shooter == 0 and s.current.points == (1, 0)


def test_R_DISC_3C_real_kiss_reaches_the_second_ball_with_two_cushions() -> None:
    stroke, result = situation("kiss2", Stroke(34.5, 3.17, tip_x=-0.1, tip_y=0.1))
    s, v = referee(at(MatchOptions(), dict(OPEN)), stroke, result)
    assert v.points == 0 and v.calls[0].code == "miss"
    assert v.calls[0].text.startswith("Two cushions")
    assert s.shooter == 1


def test_R_BREAK_2_R_FOUL_BREAK_real_break_that_hits_the_yellow_first() -> None:
    s = to_play()
    assert s.break_shot
    stroke, result = situation("breakyellow", Stroke(107.4, 3.1, tip_x=-0.1, tip_y=0.1))
    s2, v = referee(s, stroke, result)
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-BREAK"
    assert v.points == 0 and s2.shooter == 1 and s2.current.points == (0, 0)


def test_R_RESPOT_3C_real_jumped_ball_respotted_onto_an_occupied_spot() -> None:
    stroke, result = situation("jump", Stroke(305.0, 7.06, tip_x=-0.2, elevation=25.0))
    s, v = referee(at(MatchOptions(), dict(JUMP)), stroke, result)
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-OFF"
    # White belongs on the centre spot (the other cue ball: yellow shoots next), which yellow
    # occupies, so it goes on yellow's spot: the bottom spot.
    assert dict(v.respots) == {"white": MATCH.bottom_spot}
    assert s.shooter == 1 and s.positions["yellow"] == MATCH.centre_spot


@pytest.mark.parametrize(
    ("discipline", "points", "respotted"),
    [
        pytest.param(
            Discipline.THREE_CUSHION,
            0,
            {"white", "red"},
            id="R-FROZEN-1 R-FROZEN-4 real frozen ball in three-cushion",
        ),
        pytest.param(
            Discipline.STRAIGHT_RAIL,
            1,
            {"white", "yellow", "red"},
            id="R-FROZEN-1 R-FROZEN-4 real frozen ball in straight rail",
        ),
    ],
)
def test_real_frozen_balls(discipline, points, respotted) -> None:  # type: ignore[no-untyped-def]
    s = at(MatchOptions(discipline=discipline), dict(FROZEN))
    # Played away from the touching red: a cushion, then both balls.
    stroke, result = situation("frozen", Stroke(217.7, 4.51, tip_x=-0.3, tip_y=-0.1))
    _, v = referee(s, stroke, result)
    assert v.foul is None and v.points == points
    # Struck straight into the touching red: a push in both disciplines (R-FROZEN-2).
    _, v = real(s, Stroke(0.0, 2.0))
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-PUSH"
    # The re-spot differs by discipline.
    _, v = apply(s, Respot(0), s.resting_at_ms)
    assert set(v.respots) == respotted


def test_R_DISC_BALK_real_47_2_second_carom_that_fails_to_drive_a_ball_out() -> None:
    s = at(MatchOptions(discipline=Discipline.BALKLINE_47_2), dict(BALK))
    stroke, result = situation("balk", Stroke(268.0, 1.48, tip_x=-0.2, tip_y=-0.2))
    s1, v1 = referee(s, stroke, result)
    assert v1.points == 1 and s1.zone_counts == (("area 1-1", 1),)
    stroke2, result2 = situation("balk", Stroke(193.0, 0.61, tip_x=0.3, tip_y=0.3), s1.positions)
    s2, v2 = referee(s1, stroke2, result2)
    assert v2.points == 0 and v2.foul is not None and v2.foul.rule_id == "R-FOUL-ZONE"
    assert s2.shooter == 1 and s2.current.points == (1, 0)


def test_R_LAG_2_R_LAG_3_real_lag_simulated_together() -> None:
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 3.4)), T0 + 100)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 3.6)), T0 + 200)
    strokes = lag_strokes(s)
    assert strokes is not None
    result = simulate_lag(MATCH, s.positions, strokes)
    assert not filter_events(result.events, by_kind("ball_ball"))  # a clean lag
    s2, v = apply(s, LagResult(result), T0 + 300)
    white, yellow = result.final["white"], result.final["yellow"]
    assert white is not None and yellow is not None
    nearer = 0 if white[0] < yellow[0] else 1
    assert (v.lag_winner, v.lag_reason) == (nearer, "nearer")
    assert s2.resting_at_ms == T0 + 300 + math.ceil(result.duration * 1000)


def test_R_LAG_2_real_backwards_tap_that_never_reaches_the_top_cushion_loses() -> None:
    # Seat 0 taps its ball backwards at 0.3 m/s: it stops by the bottom cushion, far nearer
    # than seat 1's real lag, but it never went onto the top cushion, so it loses the lag.
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(180.0, 0.3)), T0 + 100)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 3.6)), T0 + 200)
    strokes = lag_strokes(s)
    assert strokes is not None
    result = simulate_lag(MATCH, s.positions, strokes)
    tap, lag = result.final["white"], result.final["yellow"]
    assert tap is not None and lag is not None and tap[0] < lag[0]  # the tap stopped nearer
    _, v = apply(s, LagResult(result), T0 + 300)
    assert (v.lag_winner, v.lag_reason) == (1, "no_top_cushion")


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(list(Discipline)),
    st.lists(
        st.tuples(
            st.floats(0, 359.9),
            st.floats(0.5, 8.0),
            st.floats(-0.4, 0.4),
            st.floats(-0.4, 0.4),
            st.sampled_from([0.0, 0.0, 0.0, 10.0, 45.0]),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_real_random_play_keeps_the_table_sound(discipline, strokes) -> None:  # type: ignore[no-untyped-def]
    """Real simulated strokes, any discipline: the referee always leaves every ball on the table,
    none overlapping, one shooter, scores that never drop."""
    s = to_play(MatchOptions(discipline=discipline, distance=50))
    total = 0
    for direction, speed, tx, ty, elevation in strokes:
        s, v = real(s, Stroke(direction, speed, tip_x=tx, tip_y=ty, elevation=elevation))
        assert v.points in (0, 1) and (v.foul is None or v.points == 0)
        points = sum(s.current.points)
        assert points >= total
        total = points
        assert s.phase is Phase.PLAY and s.shooter in (0, 1)
        for i, p in enumerate(s.balls):
            assert MATCH.contains(p)
            for q in s.balls[i + 1 :]:
                assert math.dist(p, q) >= 2 * R - 1e-9
