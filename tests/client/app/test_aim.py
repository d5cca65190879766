"""Aiming: the aim line's first contact, power by drag, tip inside the miscue limit."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.app.aim import FULL_PULL, AimState, clamp_tip, first_contact, heading_to
from shared.physics.types import MAX_SPEED, MISCUE_LIMIT
from shared.table import MATCH

R = MATCH.ball_radius


def test_aim_line_stops_at_the_ghost_ball_of_the_first_ball_in_the_way() -> None:
    c = first_contact(MATCH, (0.5, 0.71), 0.0, {"red": (1.5, 0.71), "yellow": (2.0, 0.71)})
    assert c.ball == "red"
    assert c.point == pytest.approx((1.5 - 2 * R, 0.71))
    assert c.object_dir == pytest.approx((1.0, 0.0))


def test_cut_shot_sends_the_object_ball_along_the_line_of_centres() -> None:
    c = first_contact(MATCH, (0.5, 0.71), 0.0, {"red": (1.5, 0.71 + R)})  # half-ball hit
    assert c.ball == "red"
    ox, oy = c.object_dir or (0, 0)
    assert math.degrees(math.atan2(oy, ox)) == pytest.approx(30.0, abs=1e-6)


def test_aim_line_without_a_ball_ends_at_the_cushion() -> None:
    c = first_contact(MATCH, (0.5, 0.71), 90.0, {"red": (2.0, 0.3)})
    assert c.ball is None
    assert c.point == pytest.approx((0.5, MATCH.width - R))


def test_mouse_heading_is_counter_clockwise_from_plus_x() -> None:
    assert heading_to((0, 0), (1, 0)) == 0.0
    assert heading_to((0, 0), (0, 1)) == pytest.approx(90.0)
    assert heading_to((0, 0), (0, -1)) == pytest.approx(270.0)


@settings(max_examples=50, deadline=None)
@given(st.floats(-3, 3), st.floats(-3, 3))
def test_tip_is_always_kept_inside_the_miscue_limit(tx: float, ty: float) -> None:
    x, y = clamp_tip(tx, ty)
    assert math.hypot(x, y) <= MISCUE_LIMIT + 1e-12
    if math.hypot(tx, ty) <= MISCUE_LIMIT:
        assert (x, y) == (tx, ty)


def test_dragging_back_loads_power_and_release_gives_a_valid_stroke() -> None:
    aim = AimState(direction=0.0)
    aim.start_pull((1.0, 0.7))
    aim.drag_to((1.0 - FULL_PULL / 2, 0.7))  # pulled back half the full pull
    assert aim.speed == pytest.approx(MAX_SPEED / 2)
    aim.drag_to((1.0 - 3 * FULL_PULL, 0.7))  # capped
    assert aim.speed == MAX_SPEED
    aim.set_tip(0.9, 0.0)
    stroke = aim.release()
    assert stroke is not None and stroke.speed == MAX_SPEED and stroke.tip_x == MISCUE_LIMIT


def test_pushing_forward_or_barely_moving_cancels_the_shot() -> None:
    aim = AimState(direction=0.0)
    aim.start_pull((1.0, 0.7))
    aim.drag_to((1.2, 0.7))  # forward, toward the aim
    assert aim.release() is None


def test_fine_adjustment_wraps_around_and_elevation_is_clamped() -> None:
    aim = AimState(direction=359.95)
    aim.nudge_direction(0.1)
    assert aim.direction == pytest.approx(0.05)
    aim.set_elevation(120)
    assert aim.elevation == 89.0
    aim.set_elevation(-5)
    assert aim.elevation == 0.0
