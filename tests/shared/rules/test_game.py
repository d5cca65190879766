"""Sets, innings and the end of a game (RULES.md §4) and the calls at the start of a turn."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rules import (
    Discipline,
    GameOver,
    MatchOptions,
    Phase,
    Termination,
    cue_ball,
    scoresheet,
)
from shared.table import MATCH
from tests.shared.rules.conftest import (
    MISS,
    POINT_3C,
    R,
    play,
    to_play,
)


def test_R_END_1_reaching_the_distance_wins_without_equalizing_when_off() -> None:
    s = to_play(MatchOptions(distance=2, equalizing=False))
    s, _ = play(s, POINT_3C)
    s, v = play(s, POINT_3C)
    assert v.game_over is not None and v.game_over.winner == 0
    assert s.phase is Phase.OVER and v.game_over.reason is Termination.DISTANCE


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


def test_R_CALL_3_frozen_is_announced_at_the_start_of_the_turn() -> None:
    s = to_play()
    frozen = replace(s, balls=((1.0, 0.7), (2.0, 1.1), (2.5, 0.4)))
    _s2, v = play(frozen, POINT_3C, {"white": (1.0, 0.4), "red": (1.0 + 2 * R, 0.4)})
    assert any(c.code == "frozen" and "red" in c.text for c in v.calls)


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
