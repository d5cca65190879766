"""The core flow: lag, break, strokes, innings, clock, game end (table-driven by rule id)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.physics.types import Stroke
from shared.rules import (
    ChooseBreak,
    Concede,
    Discipline,
    Disconnected,
    GameOver,
    IllegalAction,
    LagStroke,
    MatchOptions,
    MatchState,
    Phase,
    Place,
    Reconnected,
    Rematch,
    Respot,
    Resume,
    Start,
    Termination,
    Tick,
    TimeOut,
    apply,
    cue_ball,
    match_view,
    new_match,
    next_deadline,
    scoresheet,
    state_to_dict,
)
from shared.table import MATCH
from tests.shared.rules.conftest import T0, lag_result, play, to_play

POINT_3C = ["top", "red", "left", "bottom", "yellow"]
MISS = ["red"]


def test_R_LAG_1_lag_position_and_R_LAG_3_strokes_hidden_until_both_in() -> None:
    s = new_match(MatchOptions(), T0)
    s, _ = apply(s, Start(), T0)
    assert s.phase is Phase.LAG
    assert s.positions["red"] == MATCH.top_spot
    assert s.positions["white"][0] == s.positions["yellow"][0] == MATCH.length / 4
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 10)
    view = match_view(s)
    assert view["lag"]["played"] == [False, True]
    assert "stroke" not in str(view["lag"])
    with pytest.raises(IllegalAction) as err:
        apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 20)
    assert err.value.code == "already_played"


def test_R_LAG_7_winner_chooses_breaker_who_plays_white() -> None:
    s = to_play(breaker=1)
    assert s.phase is Phase.PLAY and s.shooter == 1 and cue_ball(s) == "white"
    assert s.white_seat == 1


def test_R_LAG_7_only_the_winner_chooses() -> None:
    s = new_match(MatchOptions(), T0)
    s, _ = apply(s, Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0)
    s, v = apply(s, lag_result(s, [], {"white": (0.30, 0.2), "yellow": (0.10, 1.22)}), T0)
    assert v.lag_winner == 1 and v.lag_reason == "nearer"
    with pytest.raises(IllegalAction) as err:
        apply(s, ChooseBreak(0, 0), s.resting_at_ms)
    assert err.value.code == "not_your_turn"


def test_R_PLAY_1_point_keeps_the_turn_and_R_PLAY_2_miss_ends_the_inning(playing) -> None:  # type: ignore[no-untyped-def]
    s, v = play(playing, POINT_3C)
    assert v.points == 1 and v.next_shooter == 0 and v.calls[0].code == "good"
    s, v = play(s, POINT_3C)
    s, v = play(s, MISS)
    assert v.points == 0 and v.next_shooter == 1
    sheet = scoresheet(s).sets[0].lines
    assert (sheet[0].points, sheet[0].innings, sheet[0].high_run) == (2, 1, 2)
    assert sheet[0].average == 2.0
    assert s.shooter == 1 and cue_ball(s) == "yellow"


def test_R_CLOCK_1_R_FOUL_CLOCK_shot_clock_foul_passes_the_turn(playing) -> None:  # type: ignore[no-untyped-def]
    deadline = next_deadline(playing)
    assert deadline is not None and deadline == playing.resting_at_ms + 30_000
    same, v = apply(playing, Tick(), deadline - 1)
    assert same == playing and v.foul is None
    s, v = apply(playing, Tick(), deadline + 5000)
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-CLOCK"
    assert s.shooter == 1 and s.current.innings == (1, 0)
    # The new clock counts from the expiry, not from the late tick.
    assert s.deadline_ms == deadline + 30_000


def test_R_END_1_reaching_the_distance_wins_without_equalizing_when_off() -> None:
    s = to_play(MatchOptions(distance=2, equalizing=False))
    s, _ = play(s, POINT_3C)
    s, v = play(s, POINT_3C)
    assert v.game_over is not None and v.game_over.winner == 0
    assert s.phase is Phase.OVER and v.game_over.reason is Termination.DISTANCE


def test_R_END_5_concede_loses(playing) -> None:  # type: ignore[no-untyped-def]
    _, v = apply(playing, Concede(0), T0 + 99_999)
    assert v.game_over is not None and v.game_over.winner == 1
    assert v.game_over.reason is Termination.CONCEDE


# R-END-2 equalizing inning ---------------------------------------------------------------------


def test_R_END_2_breaker_at_distance_gives_the_other_an_equalizing_inning() -> None:
    s = to_play(MatchOptions(distance=2))
    s, _ = play(s, POINT_3C)
    s, v = play(s, POINT_3C)
    assert v.game_over is None and any(c.code == "equalizing" for c in v.calls)
    assert s.shooter == 1 and s.equalizing and s.break_shot and s.spot_choice
    assert s.positions["yellow"] == MATCH.right_start_spot  # from the break position
    assert s.positions["white"] == MATCH.bottom_spot
    # The equalizing inning falls short: the breaker wins.
    s2, _v2 = play(s, POINT_3C)
    s3, v3 = play(s2, MISS)
    assert v3.game_over is not None and v3.game_over.winner == 0
    assert scoresheet(s3).sets[0].lines[1].innings == 1


def test_R_END_2_equalizing_to_the_distance_is_a_draw() -> None:
    s = to_play(MatchOptions(distance=1))
    s, _ = play(s, POINT_3C)
    s, v = play(s, ["top", "left", "bottom", "red", "white"], spot="left")
    assert v.game_over is not None and v.game_over.winner is None
    assert v.game_over.reason is Termination.EQUALIZED
    assert scoresheet(s).sets[0].lines[0].innings == scoresheet(s).sets[0].lines[1].innings == 1


def test_R_END_2_equalizing_break_must_hit_the_red_first() -> None:
    s = to_play(MatchOptions(distance=1))
    s, _ = play(s, POINT_3C)
    s, v = play(s, ["white", "top", "left", "bottom", "red"])
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-BREAK"
    assert v.game_over is not None and v.game_over.winner == 0


def test_R_END_2_non_breaker_at_distance_wins_at_once() -> None:
    s = to_play(MatchOptions(distance=1))
    s, _ = play(s, MISS)
    s, v = play(s, POINT_3C)
    assert v.game_over == GameOver(1, Termination.DISTANCE)


# R-END-3 innings limit, R-END-4 sets ------------------------------------------------------------


def test_R_END_3_innings_limit_more_points_wins() -> None:
    s = to_play(MatchOptions(innings_limit=2))
    s, _ = play(s, POINT_3C)
    s, _ = play(s, MISS)  # seat 0: 1 point in 1 inning
    s, _ = play(s, MISS)  # seat 1: 0 in 1
    s, v = play(s, MISS)  # seat 0: inning 2 reached, seat 1 still plays its second
    assert v.game_over is None and s.shooter == 1
    s, v = play(s, MISS)
    assert v.game_over == GameOver(0, Termination.INNINGS_LIMIT)


def test_R_END_3_innings_limit_equal_points_is_a_draw() -> None:
    s = to_play(MatchOptions(innings_limit=1))
    s, _ = play(s, MISS)
    s, v = play(s, MISS)
    assert v.game_over == GameOver(None, Termination.INNINGS_LIMIT)


def test_R_END_4_sets_alternate_the_break_and_turn_off_equalizing() -> None:
    s = to_play(MatchOptions(distance=1, sets=3))
    assert not s.options.equalizing_applies
    s, v = play(s, POINT_3C)  # seat 0 wins set 1 at once: no equalizing inning in set play
    assert v.set_over == GameOver(0, Termination.DISTANCE) and v.game_over is None
    assert len(s.sets) == 2 and s.shooter == 1 and cue_ball(s) == "yellow"  # seat 1 breaks
    assert s.break_shot and s.positions["yellow"] == MATCH.right_start_spot
    s, v = play(s, MISS)
    s, v = play(s, POINT_3C)  # seat 0 wins set 2: 2 of 3
    assert v.game_over == GameOver(0, Termination.DISTANCE)
    sheet = scoresheet(s)
    assert sheet.sets_won == (2, 0) and len(sheet.sets) == 2
    assert sheet.match[0].points == 2 and sheet.match[0].innings == 2


# R-TIMEOUT-1 -----------------------------------------------------------------------------------


def test_R_TIMEOUT_1_pauses_the_shot_clock_once_per_game(playing) -> None:  # type: ignore[no-untyped-def]
    t = playing.resting_at_ms + 10_000
    s, _ = apply(playing, TimeOut(0), t)
    assert s.phase is Phase.TIMEOUT and s.paused_ms == 20_000 and s.deadline_ms == t + 60_000
    with pytest.raises(IllegalAction) as err:
        play(s, POINT_3C, now=t + 1000)
    assert err.value.code == "wrong_phase"
    s, _v = apply(s, Resume(0), t + 5000)
    assert s.phase is Phase.PLAY and s.deadline_ms == t + 5000 + 20_000
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(0), t + 6000)
    assert err.value.code == "no_timeouts_left"


def test_R_TIMEOUT_1_ends_by_itself_and_only_at_the_start_of_an_inning(playing) -> None:  # type: ignore[no-untyped-def]
    s, _ = apply(playing, TimeOut(0), playing.resting_at_ms)
    s, _v = apply(s, Tick(), playing.resting_at_ms + 60_000)
    assert s.phase is Phase.PLAY and s.deadline_ms == playing.resting_at_ms + 90_000
    s, _ = play(s, POINT_3C, now=playing.resting_at_ms + 61_000)
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(0), s.resting_at_ms)
    assert err.value.code == "not_start_of_inning"
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(1), s.resting_at_ms)
    assert err.value.code == "not_your_turn"


# R-END-5 forfeit, concede, no-show; clocks paused while away -------------------------------------


def test_R_END_5_disconnected_shooter_clock_pauses_then_forfeits(playing) -> None:  # type: ignore[no-untyped-def]
    t = playing.resting_at_ms + 10_000
    s, _ = apply(playing, Disconnected(0), t)
    assert s.deadline_ms is None and s.paused_ms == 20_000 and s.grace_deadline[0] == t + 60_000
    assert next_deadline(s) == t + 60_000
    s2, _ = apply(s, Reconnected(0), t + 30_000)
    assert s2.deadline_ms == t + 30_000 + 20_000 and s2.grace_deadline == (None, None)
    s3, v = apply(s, Tick(), t + 60_000)
    assert v.game_over == GameOver(1, Termination.FORFEIT) and s3.phase is Phase.OVER


def test_R_END_5_no_show_before_the_start_forfeits() -> None:
    s = new_match(MatchOptions(), T0)
    s, _ = apply(s, Disconnected(1), T0)
    assert s.grace_deadline[1] == T0 + 120_000
    s, v = apply(s, Tick(), T0 + 120_000)
    assert v.game_over == GameOver(0, Termination.NO_SHOW)


def test_R_END_5_the_opponents_clock_pauses_when_their_turn_comes_while_away(playing) -> None:  # type: ignore[no-untyped-def]
    s, _ = apply(playing, Disconnected(1), playing.resting_at_ms)
    assert s.deadline_ms is not None  # seat 0 is shooting: its clock runs
    s, _ = play(s, MISS)
    assert s.shooter == 1 and s.deadline_ms is None and s.paused_ms == 30_000


# R-PLAY-3, R-PLAY-4, R-CLOCK-2, R-CLOCK-3 ---------------------------------------------------------


def test_R_PLAY_4_no_stroke_while_the_balls_move(playing) -> None:  # type: ignore[no-untyped-def]
    s, _ = play(playing, POINT_3C, duration=6.0)
    with pytest.raises(IllegalAction) as err:
        play(s, POINT_3C, now=s.resting_at_ms - 1)
    assert err.value.code == "balls_moving"
    assert s.deadline_ms == s.resting_at_ms + 30_000  # R-CLOCK-1: counted from rest


def test_R_PLAY_3_each_player_strikes_their_own_ball(playing) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(IllegalAction) as err:
        play(playing, POINT_3C, seat=1)
    assert err.value.code == "not_your_turn"
    s, _ = play(playing, MISS)
    assert cue_ball(s) == "yellow"
    s, _ = play(s, MISS)
    assert cue_ball(s) == "white"


def test_R_CLOCK_3_deadlines_are_absolute_server_times_and_time_is_never_read(playing) -> None:  # type: ignore[no-untyped-def]
    a = play(playing, POINT_3C)
    b = play(playing, POINT_3C)
    assert a == b  # same inputs, same outputs: no hidden clock
    assert match_view(a[0])["deadline_ms"] == a[0].resting_at_ms + 30_000
    with pytest.raises(IllegalAction) as err:
        play(playing, POINT_3C, now=playing.resting_at_ms + 30_000)
    assert err.value.code == "clock_expired"


R = MATCH.ball_radius


def frozen_state(discipline: Discipline) -> MatchState:
    s = to_play(MatchOptions(discipline=discipline))
    balls = ((1.0, 0.7), (2.0, 1.1), (1.0 + 2 * R, 0.7))  # white touches the red
    return replace(s, balls=balls, break_shot=False, spot_choice=False)


def test_R_CALL_3_frozen_is_announced_at_the_start_of_the_turn() -> None:
    s = to_play()
    frozen = replace(s, balls=((1.0, 0.7), (2.0, 1.1), (2.5, 0.4)))
    _s2, v = play(frozen, POINT_3C, {"white": (1.0, 0.4), "red": (1.0 + 2 * R, 0.4)})
    assert any(c.code == "frozen" and "red" in c.text for c in v.calls)


@pytest.mark.parametrize(
    ("discipline", "expected"),
    [
        pytest.param(
            Discipline.THREE_CUSHION,
            {"white": MATCH.bottom_spot, "red": MATCH.top_spot},
            id="R-FROZEN-4 R-FROZEN-1 three-cushion re-spots only the touching balls",
        ),
        pytest.param(
            Discipline.STRAIGHT_RAIL,
            {"white": MATCH.right_start_spot, "yellow": MATCH.bottom_spot, "red": MATCH.top_spot},
            id="R-FROZEN-4 straight rail re-spots the break position",
        ),
        pytest.param(
            Discipline.ONE_CUSHION,
            {"white": MATCH.right_start_spot, "yellow": MATCH.bottom_spot, "red": MATCH.top_spot},
            id="R-FROZEN-4 one-cushion re-spots the break position",
        ),
    ],
)
def test_respot_request(discipline, expected) -> None:  # type: ignore[no-untyped-def]
    s = frozen_state(discipline)
    s2, v = apply(s, Respot(0), s.resting_at_ms + 1000)
    assert dict(v.respots) == expected
    assert s2.shooter == 0 and s2.deadline_ms == s.resting_at_ms + 1000 + 30_000  # R-CLOCK-2
    with pytest.raises(IllegalAction) as err:
        apply(s2, Respot(0), s2.resting_at_ms + 2000)
    assert err.value.code == "not_frozen"


def test_R_CLOCK_2_respot_choice_is_on_the_shot_clock() -> None:
    s = frozen_state(Discipline.THREE_CUSHION)
    with pytest.raises(IllegalAction) as err:
        apply(s, Respot(0), s.resting_at_ms + 30_000)
    assert err.value.code == "clock_expired"


@pytest.mark.parametrize(
    ("discipline", "moved"),
    [
        pytest.param(Discipline.THREE_CUSHION, {"red"}, id="R-RESPOT-3C only the jumped ball"),
        pytest.param(
            Discipline.ONE_CUSHION,
            {"white", "yellow", "red"},
            id="R-RESPOT-OTHER one-cushion all three to the break position",
        ),
        pytest.param(
            Discipline.BALKLINE_71_2,
            {"white", "yellow", "red"},
            id="R-RESPOT-OTHER balkline all three to the break position",
        ),
    ],
)
def test_off_table_respot(discipline, moved) -> None:  # type: ignore[no-untyped-def]
    s = replace(to_play(MatchOptions(discipline=discipline)), break_shot=False)
    s2, v = play(s, ["red", "off:red"])
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-OFF"
    assert set(v.respots) == moved and s2.shooter == 1
    if discipline is not Discipline.THREE_CUSHION:
        assert s2.positions["yellow"] == MATCH.right_start_spot and s2.spot_choice  # seat 1's ball


@pytest.mark.parametrize(
    ("discipline", "calls"),
    [
        pytest.param(
            Discipline.THREE_CUSHION,
            ["3 to go.", "2 to go.", "1 to go."],
            id="R-CALL-2 three-cushion counts down from 3",
        ),
        pytest.param(
            Discipline.STRAIGHT_RAIL,
            ["5 to go.", "4 to go.", "3 to go.", "2 to go.", "1 to go."],
            id="R-CALL-2 other disciplines count down from 5",
        ),
    ],
)
def test_countdown(discipline, calls) -> None:  # type: ignore[no-untyped-def]
    s = replace(to_play(MatchOptions(discipline=discipline, distance=8)), break_shot=False)
    heard = []
    for _ in range(7):
        s, v = play(s, POINT_3C)
        heard += [c.text for c in v.calls if c.code == "to_go"]
    assert heard == calls


def test_R_CALL_1_every_turn_change_carries_its_reason(playing) -> None:  # type: ignore[no-untyped-def]
    _, v = play(playing, ["red"])
    assert v.calls[0].code == "miss" and "red" in v.calls[0].text
    _, v = apply(playing, Tick(), playing.deadline_ms or 0)
    assert v.calls[0].code == "foul" and v.calls[0].rule_id == "R-FOUL-CLOCK"


# Practice and rematch --------------------------------------------------------------------------


def test_practice_has_no_lag_no_clock_and_allows_place() -> None:
    s = new_match(MatchOptions(practice=True), T0)
    s, _v = apply(s, Start(), T0)
    assert s.phase is Phase.PLAY and s.shooter == 0 and next_deadline(s) is None
    s, _ = play(s, MISS)
    assert s.shooter == 0  # one player: the turn never passes
    s, _ = apply(s, Place({"red": (1.0, 1.0)}), s.resting_at_ms)
    assert s.positions["red"] == (1.0, 1.0)
    with pytest.raises(IllegalAction) as err:
        apply(s, Place({"red": s.positions["white"]}), s.resting_at_ms)
    assert err.value.code == "bad_field"
    with pytest.raises(IllegalAction) as err:
        apply(to_play(), Place({"red": (1.0, 1.0)}), T0 + 99_999)
    assert err.value.code == "not_practice"


def test_rematch_needs_both_seats_and_alternates_the_breaker() -> None:
    s = to_play(MatchOptions(distance=1, equalizing=False))
    s, _ = play(s, POINT_3C)
    assert s.phase is Phase.OVER
    s, _ = apply(s, Rematch(1), s.resting_at_ms)
    assert s.phase is Phase.OVER and s.rematch == (False, True)
    s, _v = apply(s, Rematch(0), s.resting_at_ms)
    assert s.phase is Phase.PLAY and s.shooter == 1 and cue_ball(s) == "white"
    assert scoresheet(s).match[0].points == 0


def test_illegal_actions_change_nothing(playing) -> None:  # type: ignore[no-untyped-def]
    before = state_to_dict(playing)
    for action in (Start(), ChooseBreak(0, 0), Resume(0), Respot(0), Rematch(0)):
        with pytest.raises(IllegalAction):
            apply(playing, action, playing.resting_at_ms)
    assert state_to_dict(playing) == before


def test_R_OFF_1_a_ball_that_touched_the_rail_top_and_came_back_is_off(playing) -> None:  # type: ignore[no-untyped-def]
    s = replace(playing, break_shot=False)
    s2, v = play(s, ["red", "off:red"], {"red": (2.0, 0.5)})  # the log says off; it came back
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-OFF"
    assert v.respots == {"red": MATCH.top_spot} and s2.positions["red"] == MATCH.top_spot
