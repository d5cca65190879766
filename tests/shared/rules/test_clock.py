"""Time: the shot clock, time-outs, deadlines and clocks paused while a player is away."""

from __future__ import annotations

import pytest

from shared.physics.types import Stroke
from shared.rules import (
    Discipline,
    Disconnected,
    GameOver,
    IllegalAction,
    LagStroke,
    MatchOptions,
    Phase,
    Reconnected,
    Respot,
    Resume,
    Start,
    Termination,
    Tick,
    TimeOut,
    apply,
    new_match,
    next_deadline,
    stroke_start,
)
from shared.wireviews import match_view
from tests.shared.rules.conftest import (
    MISS,
    POINT_3C,
    T0,
    frozen_state,
    play,
    to_play,
)


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


def test_R_CLOCK_3_deadlines_are_absolute_server_times_and_time_is_never_read(playing) -> None:  # type: ignore[no-untyped-def]
    a = play(playing, POINT_3C)
    b = play(playing, POINT_3C)
    assert a == b  # same inputs, same outputs: no hidden clock
    assert match_view(a[0]).deadline_ms == a[0].resting_at_ms + 30_000
    with pytest.raises(IllegalAction) as err:
        play(playing, POINT_3C, now=playing.resting_at_ms + 30_000)
    assert err.value.code == "clock_expired"


def test_R_CLOCK_2_respot_choice_is_on_the_shot_clock() -> None:
    s = frozen_state(Discipline.THREE_CUSHION)
    with pytest.raises(IllegalAction) as err:
        apply(s, Respot(0), s.resting_at_ms + 30_000)
    assert err.value.code == "clock_expired"


def test_R_CLOCK_1_R_END_5_one_late_tick_applies_every_due_deadline_in_order(playing) -> None:  # type: ignore[no-untyped-def]
    # Seat 1 drops while seat 0 shoots; seat 0's clock runs out, then seat 1's grace.
    s, _ = apply(playing, Disconnected(1), playing.resting_at_ms)
    s2, v = apply(s, Tick(), playing.resting_at_ms + 90_000)
    assert [c.code for c in v.calls][:1] == ["foul"] and v.calls[-1].code == "game_over"
    assert v.game_over == GameOver(0, Termination.FORFEIT)
    assert s2.current.innings == (1, 0)  # the clock foul was applied first, at its own time


def test_R_END_5_both_gone_past_the_grace_abandons_the_match(playing) -> None:  # type: ignore[no-untyped-def]
    t = playing.resting_at_ms
    s, _ = apply(playing, Disconnected(0), t)
    s, _ = apply(s, Disconnected(1), t)
    s, v = apply(s, Tick(), t + 60_000)
    assert v.game_over == GameOver(None, Termination.ABANDONED)


def test_R_CLOCK_2_lag_clock_pauses_for_a_missing_lag_stroke_while_away() -> None:
    s, _ = apply(new_match(MatchOptions(), T0), Start(), T0)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.0)), T0 + 1000)
    s, _ = apply(s, Disconnected(0), T0 + 10_000)
    assert s.deadline_ms is None and s.paused_ms == 20_000
    s, _ = apply(s, Reconnected(0), T0 + 40_000)
    assert s.deadline_ms == T0 + 60_000
    s2, v = apply(s, Tick(), T0 + 60_000)
    assert (v.lag_winner, v.lag_reason) == (1, "no_lag_stroke") and s2.phase is Phase.BREAK_CHOICE


def test_R_TIMEOUT_1_runs_on_while_the_player_is_away(playing) -> None:  # type: ignore[no-untyped-def]
    t = playing.resting_at_ms
    s, _ = apply(playing, TimeOut(0), t + 5000)
    s, _ = apply(s, Disconnected(0), t + 6000)
    assert s.phase is Phase.TIMEOUT and s.deadline_ms == t + 65_000
    s, _ = apply(s, Tick(), t + 65_000)
    # The time-out is over; the shooter is still away, so the shot clock stays paused.
    assert s.phase is Phase.PLAY and s.deadline_ms is None and s.paused_ms == 25_000


# Round 2 ---------------------------------------------------------------------------------------


def test_R_TIMEOUT_1_one_per_match_not_per_set_and_one_more_in_the_deciding_set() -> None:
    s = to_play(MatchOptions(distance=1, sets=3))
    assert s.current.timeouts_left == (1, 1)
    s, _ = apply(s, TimeOut(0), s.resting_at_ms)  # seat 0 uses its time-out in set 1
    s, _ = apply(s, Resume(0), s.resting_at_ms + 1000)
    s, _ = play(s, POINT_3C, now=s.resting_at_ms + 2000)  # seat 0 wins set 1
    assert len(s.sets) == 2 and s.shooter == 1
    # Set 2: no fresh time-out for seat 0; seat 1 still has its one.
    assert s.current.timeouts_left == (0, 1)
    s, _ = play(s, MISS)
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(0), s.resting_at_ms)
    assert err.value.code == "no_timeouts_left"
    s, _ = play(s, MISS)
    s, _ = play(s, POINT_3C)  # seat 1 wins set 2: the third set decides
    assert len(s.sets) == 3
    # The deciding set (3rd of 3) gives each player one more, used or not (RU App. 1 §12).
    assert s.current.timeouts_left == (1, 2)


def test_R_TIMEOUT_1_none_in_the_equalizing_inning() -> None:
    s = to_play(MatchOptions(distance=1))
    s, _ = play(s, POINT_3C)
    assert s.equalizing and s.shooter == 1 and s.current.timeouts_left[1] == 1
    with pytest.raises(IllegalAction) as err:
        apply(s, TimeOut(1), s.resting_at_ms)
    assert err.value.code == "no_timeouts_left" and "equalizing" in err.value.message


def test_R_FOUL_CLOCK_after_a_clock_foul_on_the_break_the_balls_are_played_as_they_lie() -> None:
    s = to_play()
    assert s.spot_choice and s.deadline_ms is not None
    s2, v = apply(s, Tick(), s.deadline_ms)
    assert v.foul is not None and v.foul.rule_id == "R-FOUL-CLOCK" and s2.shooter == 1
    # R-BREAK-1: the starting-spot choice was the breaker's; seat 1 may not rebuild the table.
    assert not s2.spot_choice and s2.positions == s.positions
    with pytest.raises(IllegalAction) as err:
        stroke_start(s2, "left")
    assert err.value.code == "bad_field"


def test_R_FOUL_CLOCK_after_a_respot_to_the_break_position_and_a_clock_foul() -> None:
    s = frozen_state(Discipline.ONE_CUSHION)
    s, _ = apply(s, Respot(0), s.resting_at_ms)
    assert s.spot_choice and s.deadline_ms is not None
    s2, _ = apply(s, Tick(), s.deadline_ms)
    assert s2.shooter == 1 and not s2.spot_choice and s2.positions == s.positions
    with pytest.raises(IllegalAction):
        stroke_start(s2, "right")
