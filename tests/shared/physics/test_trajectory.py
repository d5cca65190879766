"""Trajectory evaluation and the wire codec."""

from __future__ import annotations

import math

import msgpack
import pytest

from shared.physics import (
    Segment,
    Stroke,
    decode_trajectory,
    encode_trajectory,
    position_at,
    simulate,
)
from shared.physics.trajectory import Trajectory, height_at, state_at
from shared.table import MATCH, BallName, Point

BALLS: dict[BallName, Point] = {"white": (0.7, 0.9), "yellow": (0.7, 0.5), "red": (2.1, 0.7)}


def test_position_at_evaluates_the_parabola() -> None:
    seg = Segment(
        1.0, (0.5, 0.5, 0.0), (1.0, 0.0, 0.0), (-2.0, 1.0, 0.0), (0.0, 0.0, 3.0), (0.0, 0.0, -1.0)
    )
    traj: Trajectory = {"white": (seg,)}
    assert position_at(traj, "white", 1.5) == pytest.approx((0.5 + 0.5 - 0.25, 0.5 + 0.125))
    assert position_at(traj, "white", 0.0) == (0.5, 0.5)  # before the first segment: its start
    assert state_at(traj["white"], 2.0)[2] == pytest.approx((0.0, 0.0, 2.0))


def test_codec_round_trip_is_exact_and_compact() -> None:
    r = simulate(MATCH, BALLS, "white", Stroke(20.0, 4.0, 0.4, 0.2, 8.0))
    wire = msgpack.packb(encode_trajectory(r.trajectory))
    back = decode_trajectory(msgpack.unpackb(wire))
    assert back == r.trajectory
    assert len(wire) < 6000
    # Zeros travel as one byte: a ball at rest the whole stroke costs little.
    hit = {b for e in r.events if e.kind == "ball_ball" for b in e.balls}
    untouched = [b for b in ("yellow", "red") if b not in hit]
    assert untouched
    for ball in untouched:
        assert len(msgpack.packb(encode_trajectory({ball: r.trajectory[ball]}))) < 60


def test_height_of_a_jump() -> None:
    r = simulate(MATCH, BALLS, "white", Stroke(0.0, 3.0, 0.0, 0.0, 30.0))
    assert any(e.kind == "airborne" for e in r.events)
    assert max(height_at(r, "white", t / 100) for t in range(30)) > 0.01


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1, 2], "map"),
        ({"blue": [0] * 16}, "unknown ball"),
        ({"white": [0] * 15}, "16"),
        ({"white": []}, "16"),
        ({"white": [math.nan] + [0] * 15}, "non-finite"),
        ({"white": ["x"] + [0] * 15}, "non-number"),
        ({"white": [1.0] + [0] * 15 + [0.5] + [0] * 15}, "backwards"),
    ],
)
def test_decode_refuses_garbage(bad: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        decode_trajectory(bad)
