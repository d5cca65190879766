"""The plus system on the simulated match table (shared/physics/diamonds.py; docs/analysis.md
"The plus system"): from start number S through first-rail number F the cue ball reaches
third-rail number S + F, counted from the near cushion. Played soft (1.5 m/s) with a touch of
running english (0.05 R), it holds for first-rail numbers 3 to 5."""

from __future__ import annotations

import math

import pytest

from shared.physics import DEFAULT_SPEC, simulate
from shared.physics.diamonds import (
    DIAMOND_LINE_OFFSET,
    Arrival,
    plus_arrival,
    plus_first_point,
    plus_start_point,
    plus_stroke,
    third_rail_arrival,
)
from shared.physics.strike import squirt_angle
from shared.table import MATCH, BallName, Point

DIA = MATCH.length / 8
PARKED: dict[BallName, Point] = {"yellow": (0.05, 0.05), "red": (0.05, 0.12)}


def arrival(start: float, first: float, speed: float = 1.5, english: float = 0.05) -> Arrival:
    cue, stroke = plus_stroke(MATCH, start, first, speed, english)
    got = plus_arrival(simulate(MATCH, {"white": cue, **PARKED}, "white", stroke), MATCH)
    assert got is not None, f"start {start}, first rail {first}: not a right-top-left path"
    return got


@pytest.mark.parametrize(
    ("start", "first", "point"),
    [
        (3.0, 3.0, (3 * DIA, MATCH.width + DIAMOND_LINE_OFFSET)),
        (1.0, 4.0, (1 * DIA, MATCH.width + DIAMOND_LINE_OFFSET)),
    ],
)
def test_the_systems_aim_for_known_numbers(
    start: float, first: float, point: tuple[float, float]
) -> None:
    # Start numbers: diamonds up the left rail from the near cushion; first-rail numbers: two a
    # diamond down the right rail from the far cushion (3 is a diamond and a half from it).
    assert plus_start_point(MATCH, start) == pytest.approx(point)
    fx, fy = plus_first_point(MATCH, first)
    assert fx == pytest.approx(MATCH.length - first / 2 * DIA)
    assert fy == pytest.approx(-DIAMOND_LINE_OFFSET)
    # The stroke leaves from the line through both sighting points, the cue turned by squirt
    # so that the ball runs on it, with running (left) english.
    cue, stroke = plus_stroke(MATCH, start, first, 1.5, 0.05)
    (sx, sy), (ax, ay) = plus_start_point(MATCH, start), (fx, fy)
    cross = (ax - sx) * (cue[1] - sy) - (ay - sy) * (cue[0] - sx)
    assert abs(cross) / math.hypot(ax - sx, ay - sy) < 1e-9
    line = math.degrees(math.atan2(ay - sy, ax - sx))
    squirt = math.degrees(squirt_angle(-0.05, MATCH.ball_mass, DEFAULT_SPEC))
    assert (stroke.direction + squirt - line) % 360.0 == pytest.approx(0.0, abs=1e-9)
    assert stroke.tip_x == -0.05 and stroke.speed == 1.5


def test_numbers_out_of_the_scale_are_refused() -> None:
    with pytest.raises(ValueError, match="start numbers"):
        plus_start_point(MATCH, 7.5)
    with pytest.raises(ValueError, match="first-rail numbers"):
        plus_first_point(MATCH, 16.0)


@pytest.mark.parametrize(("start", "first"), [(1.0, 4.0), (2.0, 3.0), (3.0, 3.0), (4.0, 3.0)])
def test_soft_with_a_touch_of_english_the_ball_lands_on_start_plus_first(
    start: float, first: float
) -> None:
    # Measured (docs/analysis.md): 4.96, 5.22, 6.22, 7.15 for 5, 5, 6, 7.
    got = arrival(start, first)
    assert abs(got.at_rail - (start + first)) <= 0.3, got


def test_the_count_is_the_corner_five_reading_from_the_other_end() -> None:
    cue, stroke = plus_stroke(MATCH, 2.0, 4.0, 1.5, 0.05)
    result = simulate(MATCH, {"white": cue, **PARKED}, "white", stroke)
    far, near = third_rail_arrival(result, MATCH), plus_arrival(result, MATCH)
    assert far is not None and near is not None
    assert near.at_rail == pytest.approx(8.0 - far.at_rail)
    assert near.at_line == pytest.approx(8.0 - far.at_line)


def test_medium_speed_with_more_english_runs_past_the_number() -> None:
    # Why the plus drill is played soft with a touch of english: at the corner-5's 2.5 m/s
    # and 0.2 english the line from 2 through 3 runs long, two thirds of a diamond past 5
    # (measured 5.66), where the soft stroke lands on it (5.22).
    assert arrival(2.0, 3.0, 2.5, 0.2).at_rail - 5.0 > 0.5
    assert abs(arrival(2.0, 3.0).at_rail - 5.0) <= 0.3
