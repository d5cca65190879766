"""The referee's actions: lag, break choice, strokes, re-spots, practice, rematch."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.physics.types import ShotResult, Stroke
from shared.rules import (
    ChooseBreak,
    Concede,
    Discipline,
    Disconnected,
    IllegalAction,
    LagStroke,
    MatchOptions,
    Phase,
    Place,
    PlayStroke,
    Rematch,
    Respot,
    Resume,
    Start,
    Termination,
    Tick,
    apply,
    cue_ball,
    new_match,
    next_deadline,
    scoresheet,
    state_to_dict,
)
from shared.table import MATCH
from shared.wireviews import match_view
from tests.shared.rules.builders import STROKE, make_result
from tests.shared.rules.conftest import (
    MISS,
    POINT_3C,
    T0,
    frozen_state,
    lag_result,
    play,
    to_play,
)


def test_R_LAG_1_lag_position_and_R_LAG_3_strokes_hidden_until_both_in() -> None:
    s = new_match(MatchOptions(), T0)
    s, _ = apply(s, Start(), T0)
    assert s.phase is Phase.LAG
    assert s.positions["red"] == MATCH.top_spot
    assert s.positions["white"][0] == s.positions["yellow"][0] == MATCH.length / 4
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 10)
    view = match_view(s)
    assert view.lag is not None and view.lag.played == (False, True)
    assert "stroke" not in str(view.lag.to_wire())
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
    s, v = apply(
        s,
        lag_result(s, ["white>top", "yellow>top"], {"white": (0.30, 0.2), "yellow": (0.10, 1.22)}),
        T0,
    )
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


def test_R_END_5_concede_loses(playing) -> None:  # type: ignore[no-untyped-def]
    _, v = apply(playing, Concede(0), T0 + 99_999)
    assert v.game_over is not None and v.game_over.winner == 1
    assert v.game_over.reason is Termination.CONCEDE


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


def test_practice_rematch_gives_the_one_player_the_table_again() -> None:
    # A practice room has only seat 0: its rematch must not hand the turn to an empty seat.
    s = new_match(MatchOptions(practice=True), T0)
    s, _ = apply(s, Start(), T0)
    s, _ = apply(s, Concede(0), T0 + 1_000)
    assert s.phase is Phase.OVER
    s, v = apply(s, Rematch(0), T0 + 2_000)
    assert s.phase is Phase.PLAY and s.shooter == 0 and v.next_shooter == 0
    s, _ = play(s, MISS)
    assert s.shooter == 0


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


def test_a_result_not_from_the_state_is_a_server_bug_not_a_player_mistake(playing) -> None:  # type: ignore[no-untyped-def]
    elsewhere = make_result(
        {"white": (1, 1), "yellow": (2, 1), "red": (2.5, 0.5)}, {"white": STROKE}
    )
    with pytest.raises(ValueError, match="positions"):
        apply(playing, PlayStroke(0, STROKE, elsewhere), playing.resting_at_ms)
    good = make_result(playing.positions, {"white": STROKE}, POINT_3C)
    partial = ShotResult(good.initial, good.strokes, good.events, {}, {"white": (1.0, 1.0)}, 1.0)
    with pytest.raises(ValueError, match="final state"):
        apply(playing, PlayStroke(0, STROKE, partial), playing.resting_at_ms)
    other = make_result(playing.positions, {"white": Stroke(10.0, 1.0)}, POINT_3C)
    with pytest.raises(ValueError, match="this stroke"):
        apply(playing, PlayStroke(0, STROKE, other), playing.resting_at_ms)


# Round 2: the rule books read line by line --------------------------------------------------


def test_R_FROZEN_1_free_game_frozen_balls_go_to_the_break_position_before_the_stroke() -> None:
    # PT Art. 15.1: in straight rail there is no "play away" choice. A miss leaves the yellow
    # (the next shooter's ball) touching the red: the referee re-spots all three at once.
    s = replace(to_play(MatchOptions(discipline=Discipline.STRAIGHT_RAIL)), break_shot=False)
    touching = {"white": (2.0, 0.4), "yellow": (1.0, 0.7), "red": (1.0 + 2 * 0.03075, 0.7)}
    s2, v = play(s, ["red"], touching)
    assert s2.shooter == 1 and cue_ball(s2) == "yellow"
    assert s2.positions == {
        "white": MATCH.bottom_spot,
        "yellow": MATCH.right_start_spot,
        "red": MATCH.top_spot,
    }
    assert dict(v.respots) == s2.positions  # announced with the verdict, before the stroke
    assert [c.code for c in v.calls if c.rule_id == "R-FROZEN-1"] == ["respot"]
    assert "frozen" not in [c.code for c in v.calls]  # nothing is left touching
    assert s2.spot_choice  # the shooter's ball on a starting spot of their choice (R-FROZEN-4)


def test_R_FROZEN_1_other_disciplines_keep_the_choice() -> None:
    s = replace(to_play(MatchOptions(discipline=Discipline.ONE_CUSHION)), break_shot=False)
    touching = {"white": (2.0, 0.4), "yellow": (1.0, 0.7), "red": (1.0 + 2 * 0.03075, 0.7)}
    s2, v = play(s, ["red"], touching)
    assert s2.positions == touching and not v.respots
    assert "frozen" in [c.code for c in v.calls]


@pytest.mark.parametrize(
    ("discipline", "distance", "to_go"),
    [
        pytest.param(Discipline.THREE_CUSHION, 3, "3 to go.", id="R-CALL-2 three-cushion from 3"),
        pytest.param(Discipline.STRAIGHT_RAIL, 5, "5 to go.", id="R-CALL-2 other from 5"),
    ],
)
def test_R_CALL_2_n_to_go_when_a_turn_starts(discipline, distance, to_go) -> None:  # type: ignore[no-untyped-def]
    # The breaker comes to the table needing the whole distance: it is called at the break.
    opts = MatchOptions(discipline=discipline, distance=distance)
    s = new_match(opts, T0)
    s, _ = apply(s, Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0)
    lag = lag_result(s, ["white>top", "yellow>top"], {"white": (0.1, 0.2), "yellow": (0.3, 1.2)})
    s, _ = apply(s, lag, T0)
    s, v = apply(s, ChooseBreak(0, 0), s.resting_at_ms)
    assert [c.text for c in v.calls if c.code == "to_go"] == [to_go]
    # A miss: the other player comes to the table needing the distance too, and hears it.
    s, v = play(s, MISS)
    assert s.shooter == 1
    assert [c.text for c in v.calls if c.code == "to_go"] == [to_go]


def test_R_CALL_2_not_called_when_far_from_the_distance(playing) -> None:  # type: ignore[no-untyped-def]
    s, v = play(playing, MISS)  # 25 to go in three-cushion: no countdown yet
    assert s.shooter == 1 and "to_go" not in [c.code for c in v.calls]


def test_R_END_5_rematch_with_a_seat_away_still_has_a_deadline() -> None:
    # A player votes for the rematch and drops; the other votes: the new match must not wait
    # forever for a seat that is away with no grace deadline.
    s = to_play(MatchOptions(distance=1, equalizing=False))
    s, _ = play(s, POINT_3C)
    s, _ = apply(s, Rematch(1), s.resting_at_ms)
    s, _ = apply(s, Disconnected(1), s.resting_at_ms)
    s, _ = apply(s, Rematch(0), s.resting_at_ms + 10)
    assert s.phase is Phase.PLAY and s.shooter == 1 and not s.connected[1]
    deadline = next_deadline(s)
    assert deadline is not None and deadline == s.grace_deadline[1]
    s2, v = apply(s, Tick(), deadline)
    assert s2.phase is Phase.OVER and v.game_over is not None
    assert v.game_over.reason is Termination.FORFEIT and v.game_over.winner == 0
