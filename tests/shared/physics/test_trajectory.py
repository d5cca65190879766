"""Trajectory evaluation and the wire codec."""

from __future__ import annotations

import math
import random

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
from shared.physics.motion import slow_end_of_roll
from shared.physics.spec import DEFAULT_SPEC
from shared.physics.trajectory import (
    Trajectory,
    height_at,
    segments_close,
    state_at,
    wire_segments,
    with_slow_ends,
)
from shared.table import MATCH, BallName, Point

BALLS: dict[BallName, Point] = {"white": (0.7, 0.9), "yellow": (0.7, 0.5), "red": (2.1, 0.7)}
# White rolls up the table, off the top cushion and back to rest, touching nothing else.
ALONE: dict[BallName, Point] = {"white": (0.5, 0.7), "yellow": (0.1, 0.1), "red": (0.1, 1.3)}


def test_position_at_evaluates_the_parabola() -> None:
    seg = Segment(
        1.0, (0.5, 0.5, 0.0), (1.0, 0.0, 0.0), (-2.0, 1.0, 0.0), (0.0, 0.0, 3.0), (0.0, 0.0, -1.0)
    )
    traj: Trajectory = {"white": (seg,)}
    assert position_at(traj, "white", 1.5) == pytest.approx((0.5 + 0.5 - 0.25, 0.5 + 0.125))
    assert position_at(traj, "white", 0.0) == (0.5, 0.5)  # before the first segment: its start
    assert state_at(traj["white"], 2.0)[2] == pytest.approx((0.0, 0.0, 2.0))


def _same(a: Trajectory, b: Trajectory) -> bool:
    return a.keys() == b.keys() and all(
        len(a[k]) == len(b[k]) and all(map(segments_close, a[k], b[k])) for k in a
    )


def test_codec_round_trip_is_exact_and_compact() -> None:
    r = simulate(MATCH, BALLS, "white", Stroke(20.0, 4.0, 0.4, 0.2, 8.0))
    wire = msgpack.packb(encode_trajectory(r.trajectory))
    back = decode_trajectory(msgpack.unpackb(wire))
    assert _same(back, r.trajectory)
    # Every segment that was sent comes back bit-identical; only rebuilt slow ends may differ.
    sent = {b: wire_segments(s) for b, s in r.trajectory.items()}
    assert all(seg in back[b] for b, segs in sent.items() for seg in segs)
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


def _strokes() -> list[tuple[dict[BallName, Point], Stroke]]:
    """Varied strokes: draw, follow, english, hops, soft rolls that end in the slow phase."""
    rng = random.Random(26)
    out = []
    while len(out) < 24:
        balls: dict[BallName, Point] = {}
        for b in ("white", "yellow", "red"):
            p = (rng.uniform(0.1, MATCH.length - 0.1), rng.uniform(0.1, MATCH.width - 0.1))
            if all(math.dist(p, q) > 0.07 for q in balls.values()):
                balls[b] = p
        if len(balls) < 3:
            continue
        tip = (rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4))
        stroke = Stroke(rng.uniform(0, 360), rng.uniform(0.3, 6.0), *tip, rng.uniform(0, 10))
        out.append((balls, stroke))
    return out


def test_wire_positions_match_the_simulator_at_many_instants() -> None:
    """What a client draws from the wire (msgpack, decoded) is the simulator's motion: position,
    velocity and spin within 1e-9 at 400 instants of each stroke, through every slow end."""
    rolled_to_rest = 0
    for balls, stroke in _strokes():
        r = simulate(MATCH, balls, "white", stroke)
        wire = msgpack.packb(encode_trajectory(r.trajectory))
        back = decode_trajectory(msgpack.unpackb(wire))
        for ball, segs in r.trajectory.items():
            rolled_to_rest += len(segs) - len(wire_segments(segs))
            for i in range(401):
                t = (r.duration + 1.0) * i / 400
                want, got = state_at(segs, t), state_at(back[ball], t)
                for u, v in zip(want, got, strict=True):
                    assert math.dist(u, v) <= 1e-9, (ball, t, u, v)
    assert rolled_to_rest >= 24  # the slow ends were left out, and rebuilt


def test_a_rolling_segment_carries_its_slow_end() -> None:
    """A ball rolling to rest: the engine makes two rolling segments (0.004·g, then 0.01·g
    below 0.05 m/s); the wire sends the first; the decoder rebuilds the second."""
    r = simulate(MATCH, ALONE, "white", Stroke(0.0, 0.6, 0.0, 0.4))
    segs = r.trajectory["white"]
    fast, slow, rest = segs[-3:]
    assert math.hypot(*fast.acc[:2]) == pytest.approx(DEFAULT_SPEC.mu_roll * DEFAULT_SPEC.g)
    assert math.hypot(*slow.vel[:2]) == pytest.approx(DEFAULT_SPEC.roll_slow_speed)
    assert rest.vel == (0.0, 0.0, 0.0)
    assert wire_segments(segs) == [*segs[:-2], rest]
    rebuilt = slow_end_of_roll(fast, DEFAULT_SPEC)
    assert rebuilt is not None and segments_close(rebuilt[0], slow)
    assert rebuilt[1] == pytest.approx(rest.t0, abs=1e-12)
    assert all(map(segments_close, with_slow_ends(wire_segments(segs)), segs))


def test_trajectories_from_before_the_slow_end_read_as_before() -> None:
    """A trajectory recorded before issue 26 (one rolling law to rest, no slow segment) keeps
    its motion: the next segment starts after the slow end would have stopped the ball."""
    v, f = 0.3, DEFAULT_SPEC.mu_roll * DEFAULT_SPEC.g
    r = MATCH.ball_radius
    roll = Segment(
        0.0, (1.0, 0.7, 0.0), (v, 0.0, 0.0), (-f, 0.0, 0.0), (0.0, v / r, 0.0), (0.0, -f / r, 0.0)
    )
    x_rest = 1.0 + v * v / (2 * f)
    rest = Segment(v / f, (x_rest, 0.7, 0.0), (0.0,) * 3, (0.0,) * 3, (0.0,) * 3, (0.0,) * 3)
    assert decode_trajectory(encode_trajectory({"white": (roll, rest)})) == {"white": (roll, rest)}
    # The same segment followed by a rest within the slow end is today's form: rebuilt.
    slow = slow_end_of_roll(roll, DEFAULT_SPEC)
    assert slow is not None
    now = Segment(slow[1], (1.2, 0.7, 0.0), (0.0,) * 3, (0.0,) * 3, (0.0,) * 3, (0.0,) * 3)
    assert decode_trajectory(encode_trajectory({"white": (roll, now)}))["white"] == (
        roll,
        slow[0],
        now,
    )


def test_old_decoders_draw_the_slow_end_at_most_8_mm_ahead() -> None:
    """A client built before this wire change evaluates the rolling segment as one parabola up
    to the rest segment (docs/protocol.md): during the last half second of a roll it draws the
    ball ahead of the true path, by at most 7.7 mm (at the instant it stops), then at rest."""
    r = simulate(MATCH, ALONE, "white", Stroke(0.0, 0.6, 0.0, 0.4))
    sent = {b: tuple(wire_segments(s)) for b, s in r.trajectory.items()}
    worst = 0.0
    for i in range(2001):
        t = (r.duration + 0.5) * i / 2000
        worst = max(worst, math.dist(position_at(sent, "white", t), position_at(r, "white", t)))
    assert 0.005 < worst < 0.008
