"""Collision laws on their own: no collision adds energy; momentum and direction make sense."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.physics import DEFAULT_SPEC
from shared.physics.contact import ball_ball, ball_cushion, nose_angle
from shared.table import MATCH

R, M = MATCH.ball_radius, MATCH.ball_mass
INERTIA = 0.4 * M * R * R
speed = st.floats(-8.0, 8.0)
spin = st.floats(-400.0, 400.0)
vec = st.tuples(speed, speed, st.floats(-2.0, 2.0))
spins = st.tuples(spin, spin, spin)


def energy(v: tuple[float, ...], w: tuple[float, ...]) -> float:
    return 0.5 * M * sum(x * x for x in v) + 0.5 * INERTIA * sum(x * x for x in w)


@settings(max_examples=200, deadline=None)
@given(vec, spins, vec, spins, st.floats(0.0, 2 * math.pi), st.floats(-0.5, 0.5))
def test_ball_ball_dissipates_and_conserves_momentum(
    v1: tuple[float, float, float],
    w1: tuple[float, float, float],
    v2: tuple[float, float, float],
    w2: tuple[float, float, float],
    angle: float,
    tilt: float,
) -> None:
    p1 = (0.0, 0.0, 0.0)
    p2 = (
        2 * R * math.cos(angle) * math.cos(tilt),
        2 * R * math.sin(angle) * math.cos(tilt),
        2 * R * math.sin(tilt),
    )
    nv1, nw1, nv2, nw2 = ball_ball(p1, v1, w1, p2, v2, w2, R, M, DEFAULT_SPEC)
    before = energy(v1, w1) + energy(v2, w2)
    assert energy(nv1, nw1) + energy(nv2, nw2) <= before * (1 + 1e-12) + 1e-15
    for k in range(3):
        assert nv1[k] + nv2[k] == pytest.approx(v1[k] + v2[k], abs=1e-9)
    n = [(b - a) / (2 * R) for a, b in zip(p1, p2, strict=True)]
    approach = sum((nv1[k] - nv2[k]) * n[k] for k in range(3))
    assert approach <= 1e-9  # never still approaching afterwards


@settings(max_examples=200, deadline=None)
@given(vec, spins, st.sampled_from([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]))
def test_cushion_dissipates_and_sends_the_ball_back(
    v: tuple[float, float, float], w: tuple[float, float, float], inward: tuple[float, float]
) -> None:
    theta = nose_angle(MATCH.cushion_height, R)
    nv, nw = ball_cushion(v, w, inward, theta, R, M, DEFAULT_SPEC)
    assert energy(nv, nw) <= energy(v, w) * (1 + 1e-12) + 1e-15
    if v[0] * inward[0] + v[1] * inward[1] < 0.0:  # it was moving into the cushion
        assert nv[0] * inward[0] + nv[1] * inward[1] >= 0.0


def test_nose_angle_of_a_match_table() -> None:
    # PHYSICS.md: a 37 mm nose on a 30.75 mm ball touches it about 11.7° above the equator.
    assert math.degrees(nose_angle(0.037, 0.03075)) == pytest.approx(11.7, abs=0.05)


@settings(max_examples=40, deadline=None)
@given(
    st.tuples(speed, speed),
    st.tuples(st.floats(-200.0, 200.0), st.floats(-200.0, 200.0), st.floats(-200.0, 200.0)),
    st.sampled_from([(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)]),
)
def test_cushion_impact_integration_has_converged(
    v: tuple[float, float], w: tuple[float, float, float], inward: tuple[float, float]
) -> None:
    # The engine's 12 pieces per phase against 400: within 1 % of the state's speed scale for
    # the velocity and 5 % for the spin (worst of 3 000 random states: 0.3 % and 3 %; the
    # corner-5 readings move by under 0.01 diamond).
    theta = nose_angle(MATCH.cushion_height, R)
    v3 = (v[0], v[1], 0.0)
    a = ball_cushion(v3, w, inward, theta, R, M, DEFAULT_SPEC, on_slate=True)
    b = ball_cushion(v3, w, inward, theta, R, M, DEFAULT_SPEC, on_slate=True, steps=400)
    scale = math.hypot(*v) + R * math.sqrt(sum(x * x for x in w)) + 1e-9
    assert max(abs(x - y) for x, y in zip(a[0], b[0], strict=True)) <= 0.01 * scale
    assert max(abs(x - y) for x, y in zip(a[1], b[1], strict=True)) * R <= 0.05 * scale


@pytest.mark.parametrize("v", [0.5, 2.0, 5.0])
def test_square_hit_comes_straight_back_slower(v: float) -> None:
    # Into the right cushion (y = 0), square, on the slate: straight back, no side spin, and
    # slower than the frictionless e·v (friction at the nose and the cloth only takes energy).
    theta = nose_angle(MATCH.cushion_height, R)
    e = DEFAULT_SPEC.e_cushion
    for w in ((0.0, 0.0, 0.0), (v / R, 0.0, 0.0)):  # stun, rolling
        nv, nw = ball_cushion((0.0, -v, 0.0), w, (0.0, 1.0), theta, R, M, DEFAULT_SPEC, True)
        assert nv[0] == 0.0 and nw[1] == 0.0 and nw[2] == 0.0
        assert 0.85 * e * v < nv[1] <= e * v + 1e-12
    # The rolling ball loses most of its topspin at the rail; what is left still turns it
    # the old way, so it slows down on the cloth as it comes away (it "drags" off the rail).
    nv, nw = ball_cushion(
        (0.0, -v, 0.0), (v / R, 0.0, 0.0), (0.0, 1.0), theta, R, M, DEFAULT_SPEC, True
    )
    assert 0.0 < nw[0] < 0.5 * v / R
