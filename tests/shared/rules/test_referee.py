"""The core flow: lag, break, strokes, innings, clock, game end (table-driven by rule id)."""

from __future__ import annotations

import pytest

from shared.physics.types import Stroke
from shared.rules import (
    ChooseBreak,
    Concede,
    IllegalAction,
    LagStroke,
    MatchOptions,
    Phase,
    Start,
    Termination,
    Tick,
    apply,
    cue_ball,
    match_view,
    new_match,
    next_deadline,
    scoresheet,
)
from shared.table import MATCH
from tests.shared.rules.conftest import T0, lag_result, play, to_play

POINT_3C = ["top", "red", "left", "bottom", "yellow"]
MISS = ["red"]


def test_R_LAG_1_lag_position_and_R_LAG_3_strokes_hidden_until_both_in() -> None:
    s = new_match(MatchOptions(), T0)
    s, v = apply(s, Start(), T0)
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


def test_R_CLOCK_1_shot_clock_foul_passes_the_turn(playing) -> None:  # type: ignore[no-untyped-def]
    deadline = next_deadline(playing)
    assert deadline == playing.resting_at_ms + 30_000
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
    s, v = apply(playing, Concede(0), T0 + 99_999)
    assert v.game_over is not None and v.game_over.winner == 1
    assert v.game_over.reason is Termination.CONCEDE
