"""Ball motion for drawing: exact positions from segments, rotation that follows the roll."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from client.app.motion import BallPath, StrokeMotion, quat_from_rotvec, quat_mul, rotate
from client.app.scenes import ROLL_DECEL, rolling_path, still
from shared.physics.types import Segment
from shared.table import MATCH

R = MATCH.ball_radius


def test_position_is_the_segments_closed_form_at_any_frame_time() -> None:
    seg = Segment(0.5, (1.0, 0.7, 0.0), (2.0, -1.0, 0.0), (-0.4, 0.2, 0.0), (0, 0, 0), (0, 0, 0))
    path = BallPath(
        [seg, Segment(3.0, (3.0, 0.0, 0.0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0))]
    )
    for t in (0.5, 0.51, 1.234, 2.9):
        tau = t - 0.5
        p = path.pose(t)
        assert p.x == pytest.approx(1.0 + 2.0 * tau - 0.2 * tau * tau, abs=1e-12)
        assert p.y == pytest.approx(0.7 - tau + 0.1 * tau * tau, abs=1e-12)
    # Before the first segment the ball waits at its start; after the last it rests.
    assert (path.pose(0.0).x, path.pose(0.0).y) == (1.0, 0.7)
    assert (path.pose(99.0).x, path.pose(99.0).y) == (3.0, 0.0)


def test_a_rolling_ball_turns_by_distance_over_radius_so_its_top_mark_moves_forward() -> None:
    """Rolling without slip: angle = distance / R, the top of the ball leads (x direction)."""
    segs = rolling_path(MATCH, (0.5, 0.71), 0.0, 0.3)
    path = BallPath(segs)
    t = 0.2
    pose = path.pose(t)
    travelled = pose.x - 0.5
    top = rotate(pose.orientation, (0.0, 0.0, 1.0))
    angle = math.atan2(top[0], top[2])
    assert angle == pytest.approx(travelled / R, rel=1e-6)
    assert top[0] > 0  # moved toward +x, the direction of travel


def test_orientation_is_continuous_across_segment_boundaries() -> None:
    segs = rolling_path(MATCH, (0.4, 0.3), 40.0, 2.5)
    assert len(segs) > 3  # bounced off cushions
    path = BallPath(segs)
    for seg in segs[1:-1]:
        before = path.pose(seg.t0 - 1e-7).orientation
        after = path.pose(seg.t0).orientation
        dot = abs(sum(a * b for a, b in zip(before, after, strict=True)))
        assert dot == pytest.approx(1.0, abs=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.0, 6.0), st.floats(0.0, 6.0))
def test_pose_is_a_pure_function_of_time(t1: float, t2: float) -> None:
    """A late joiner computing t directly draws exactly what a client that drew every frame
    draws: no per-frame accumulation."""
    motion = StrokeMotion(
        {"white": rolling_path(MATCH, (0.7, 0.5), 35.0, 1.6), "red": still((2, 1))}
    )
    direct = motion.poses(t2)["white"]
    motion.poses(t1)
    again = motion.poses(t2)["white"]
    assert direct == again


def test_rolling_path_stops_where_rolling_resistance_says() -> None:
    v = 0.3  # stops 1.15 m on, before the top cushion
    segs = rolling_path(MATCH, (0.5, 0.71), 0.0, v)
    end = segs[-1]
    assert end.pos[0] - 0.5 == pytest.approx(v * v / (2 * ROLL_DECEL), rel=1e-9)
    assert end.t0 == pytest.approx(v / ROLL_DECEL, rel=1e-9)


def test_quaternion_helpers_compose_rotations() -> None:
    q = quat_mul(quat_from_rotvec((0, 0, math.pi / 2)), quat_from_rotvec((0, 0, math.pi / 2)))
    x = rotate(q, (1.0, 0.0, 0.0))
    assert x == pytest.approx((-1.0, 0.0, 0.0), abs=1e-12)


def test_bad_paths_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one segment"):
        BallPath([])
    a = Segment(1.0, (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0))
    b = Segment(0.5, (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0))
    with pytest.raises(ValueError, match="ordered"):
        BallPath([a, b])
