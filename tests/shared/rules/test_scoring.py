"""Scoring from the event log: the carom, each discipline's condition, the break, push and
off-table fouls (RULES.md §3, §5, §6, §8), one row per case, each naming its rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from shared.physics.types import Stroke
from shared.rules.events import (
    by_ball,
    by_kind,
    cushions_before,
    filter_events,
    object_ball_contacts,
    off_table_balls,
)
from shared.rules.options import Discipline
from shared.rules.placement import Balls
from shared.rules.scoring import StrokeJudgment, judge_stroke
from shared.rules.zones import zones_for
from shared.table import MATCH, BallName, Point
from tests.shared.rules.builders import STROKE, make_result

OPEN: Balls = ((0.71, 0.5275), (0.71, 0.71), (2.13, 0.71))  # break position, white to play
MID: Balls = ((1.0, 0.4), (1.8, 1.0), (2.2, 0.5))  # nothing touching


def judge(
    steps: Sequence[str],
    discipline: Discipline = Discipline.THREE_CUSHION,
    *,
    balls: Balls = MID,
    stroke: Stroke = STROKE,
    cue: BallName = "white",
    break_shot: bool = False,
    final: Mapping[BallName, Point | None] | None = None,
) -> StrokeJudgment:
    start = dict(zip(("white", "yellow", "red"), balls, strict=True))
    result = make_result(start, {cue: stroke}, steps, final)
    return judge_stroke(
        discipline=discipline,
        table=MATCH,
        zones=zones_for(discipline, MATCH, 0.71),
        cue=cue,
        balls=balls,
        stroke=stroke,
        result=result,
        break_shot=break_shot,
        zone_counts={},
    )


TC, OC, SR = Discipline.THREE_CUSHION, Discipline.ONE_CUSHION, Discipline.STRAIGHT_RAIL
CASES = [
    # (steps, discipline, points, foul code, first call code)
    pytest.param(
        ["top", "red", "left", "bottom", "yellow"],
        TC,
        1,
        None,
        "good",
        id="R-DISC-3C three cushions before the second ball",
    ),
    pytest.param(
        ["top", "left", "bottom", "red", "yellow"],
        TC,
        1,
        None,
        "good",
        id="R-DISC-3C cushions before the first ball count",
    ),
    pytest.param(
        ["top", "red", "left", "yellow", "bottom"],
        TC,
        0,
        None,
        "miss",
        id="R-DISC-3C two cushions before the second ball is a miss",
    ),
    pytest.param(
        ["red", "red>top", "red>left", "red>bottom", "yellow"],
        TC,
        0,
        None,
        "miss",
        id="R-DISC-3C object ball cushions do not count",
    ),
    pytest.param(["red", "yellow"], OC, 0, None, "miss", id="R-DISC-1C no cushion is a miss"),
    pytest.param(
        ["red", "top", "yellow"],
        OC,
        1,
        None,
        "good",
        id="R-DISC-1C one cushion before the second ball",
    ),
    pytest.param(
        ["red", "yellow", "top"],
        OC,
        0,
        None,
        "miss",
        id="R-DISC-1C cushion after the second ball is a miss",
    ),
    pytest.param(["red", "yellow"], SR, 1, None, "good", id="R-DISC-FREE any carom counts"),
    pytest.param(["red"], SR, 0, None, "miss", id="R-PLAY-1 one ball only is a miss"),
    pytest.param([], SR, 0, None, "miss", id="R-PLAY-1 no ball is a miss"),
    pytest.param(
        ["red", "yellow", "off:red"],
        SR,
        0,
        "off_table",
        "foul",
        id="R-OFF-1 R-FOUL-OFF a carom with a ball off the table scores nothing",
    ),
    pytest.param(
        ["top", "off:white"], TC, 0, "off_table", "foul", id="R-FOUL-OFF the cue ball off the table"
    ),
]


@pytest.mark.parametrize(("steps", "discipline", "points", "foul", "call"), CASES)
def test_scoring_cases(steps, discipline, points, foul, call) -> None:  # type: ignore[no-untyped-def]
    j = judge(steps, discipline)
    assert j.points == points
    assert (j.foul.code if j.foul else None) == foul
    assert j.calls[0].code == call


@pytest.mark.parametrize(
    ("steps", "cushions_word"),
    [
        pytest.param(
            ["red", "yellow"], "No cushion", id="R-CALL-1 R-DISC-3C miss announced no cushion"
        ),
        pytest.param(
            ["red", "top", "yellow"], "One cushion", id="R-CALL-1 miss announced one cushion"
        ),
        pytest.param(
            ["red", "top", "left", "yellow"],
            "Two cushions",
            id="R-CALL-1 miss announced two cushions",
        ),
    ],
)
def test_R_DISC_3C_miss_is_announced_by_cushions(steps, cushions_word) -> None:  # type: ignore[no-untyped-def]
    j = judge(steps)
    assert j.calls[0].text.startswith(cushions_word)
    assert j.calls[0].rule_id == "R-DISC-3C"


@pytest.mark.parametrize(
    ("steps", "foul"),
    [
        pytest.param(
            ["top", "left", "red", "bottom", "yellow"], None, id="R-BREAK-2 red first off cushions"
        ),
        pytest.param(
            ["red", "top", "left", "bottom", "yellow"], None, id="R-BREAK-2 red first directly"
        ),
        pytest.param(
            ["yellow", "top", "left", "bottom", "red"],
            "break",
            id="R-BREAK-2 R-FOUL-BREAK the other cue ball first",
        ),
    ],
)
def test_break_must_hit_red_first(steps, foul) -> None:  # type: ignore[no-untyped-def]
    j = judge(steps, balls=OPEN, break_shot=True)
    assert (j.foul.code if j.foul else None) == foul
    assert j.points == (0 if foul else 1)


def test_R_BREAK_2_applies_only_to_the_break() -> None:
    j = judge(["yellow", "top", "left", "bottom", "red"], balls=OPEN, break_shot=False)
    assert j.points == 1


R = MATCH.ball_radius
FROZEN_RED: Balls = ((1.0, 0.7), (2.0, 1.0), (1.0 + 2 * R, 0.7))  # red touches white on +x
FROZEN_CUSHION: Balls = ((1.0, R), (2.0, 1.0), (2.2, 0.5))  # white on the right cushion (y=0)


@pytest.mark.parametrize(
    ("balls", "stroke", "steps", "foul"),
    [
        pytest.param(
            FROZEN_RED,
            Stroke(0.0, 3.0),
            ["red"],
            "push",
            id="R-FROZEN-2 R-FOUL-PUSH straight into the touching ball",
        ),
        pytest.param(
            FROZEN_RED,
            Stroke(60.0, 3.0),
            ["red"],
            "push",
            id="R-FROZEN-2 a cut into the touching ball is still a push",
        ),
        pytest.param(
            FROZEN_RED,
            Stroke(180.0, 3.0),
            ["bottom"],
            None,
            id="R-FROZEN-1 playing away from the touching ball",
        ),
        pytest.param(
            FROZEN_RED,
            Stroke(90.0, 3.0),
            ["left"],
            None,
            id="R-FROZEN-1 playing along the touching ball",
        ),
        pytest.param(
            FROZEN_RED,
            Stroke(0.0, 3.0, elevation=45.0),
            ["left", "red"],
            None,
            id="R-FROZEN-1 a masse may hit the touching ball first after curving",
        ),
        pytest.param(
            FROZEN_RED,
            Stroke(0.0, 3.0, elevation=29.9),
            ["left", "red"],
            "push",
            id="R-FROZEN-2 below 30 degrees is not a masse",
        ),
        pytest.param(
            FROZEN_RED,
            Stroke(0.0, 3.0, elevation=45.0),
            ["red@0.001"],
            "push",
            id="R-FROZEN-1 a masse that moves the touching ball at once is a push",
        ),
        pytest.param(
            FROZEN_CUSHION,
            Stroke(270.0, 3.0),
            ["right"],
            "push",
            id="R-FROZEN-3 R-FOUL-PUSH into the touching cushion",
        ),
        pytest.param(
            FROZEN_CUSHION,
            Stroke(45.0, 3.0),
            ["left"],
            None,
            id="R-FROZEN-3 away from the touching cushion",
        ),
        pytest.param(
            FROZEN_CUSHION,
            Stroke(300.0, 3.0, elevation=60.0),
            ["left"],
            "push",
            id="R-FROZEN-3 a masse toward the touching cushion is a push too",
        ),
        pytest.param(
            FROZEN_CUSHION,
            Stroke(60.0, 3.0, elevation=60.0),
            ["left"],
            None,
            id="R-FROZEN-3 a masse away from the touching cushion is fine",
        ),
    ],
)
def test_push_fouls(balls, stroke, steps, foul) -> None:  # type: ignore[no-untyped-def]
    j = judge(steps, Discipline.STRAIGHT_RAIL, balls=balls, stroke=stroke)
    assert (j.foul.code if j.foul else None) == foul
    if foul:
        assert j.foul is not None and j.foul.rule_id == "R-FOUL-PUSH"


def test_event_filters_read_the_log_like_pooltool() -> None:
    start = dict(zip(("white", "yellow", "red"), MID, strict=True))
    r = make_result(
        start, {"white": STROKE}, ["top", "red", "red>left", "left", "red", "yellow", "off:red"]
    )
    assert [b for _, b in object_ball_contacts(r.events, "white")] == ["red", "yellow"]
    second = object_ball_contacts(r.events, "white")[1][0]
    assert cushions_before(r.events, "white", second) == 2
    assert len(filter_events(r.events, by_kind("ball_cushion"), by_ball("red"))) == 1
    assert off_table_balls(r.events) == ["red"]
