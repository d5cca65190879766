"""Exact event times: first down-crossing of polynomials."""

from __future__ import annotations

import math

import pytest

from shared.physics.roots import first_down_crossing, poly_eval, real_roots


def test_quadratic_cushion_crossing() -> None:
    # x(t) = 1 - 2t + t²/2 ... reaches 0 going down at t = 2 - sqrt(2).
    assert first_down_crossing([1.0, -2.0, 0.5], 10.0) == pytest.approx(2 - math.sqrt(2), abs=1e-15)
    assert first_down_crossing([1.0, -2.0, 0.5], 0.5) is None  # beyond the horizon
    assert first_down_crossing([1.0, 2.0, 0.5], 10.0) is None  # moving away


def test_quartic_head_on_and_grazing() -> None:
    # Balls 1 m apart closing at 1 m/s: |d(t)|² - 0.0615² with d = 1 - t.
    d = 0.0615
    c = [1.0 - d * d, -2.0, 1.0, 0.0, 0.0]
    assert first_down_crossing(c, 5.0) == pytest.approx(1.0 - d, abs=1e-14)
    # Grazing miss by 1 µm: never touches.
    b = d + 1e-6
    assert first_down_crossing([1.0 + b * b - d * d, -2.0, 1.0], 5.0) is None
    # Grazing hit by 1 µm: touches, near t = 1.
    b = d - 1e-6
    t = first_down_crossing([1.0 + b * b - d * d, -2.0, 1.0], 5.0)
    assert t is not None and abs(t - 1.0) < 1e-2
    assert poly_eval([1.0 + b * b - d * d, -2.0, 1.0], t) <= 1e-15


def test_touching_pairs() -> None:
    assert first_down_crossing([0.0, -1.0], 1.0) == 0.0  # touching and approaching: now
    assert first_down_crossing([0.0, 1.0], 1.0) is None  # touching and separating
    # Touching, separating by rounding only, then pulled back while still touching.
    assert first_down_crossing([-1e-18, 1e-12, -1.0], 1.0) == pytest.approx(5e-13)


def test_real_roots_of_a_quartic() -> None:
    # (t-1)(t-2)(t-3)(t-4)
    c = [24.0, -50.0, 35.0, -10.0, 1.0]
    assert real_roots(c, 0.0, 10.0) == pytest.approx([1.0, 2.0, 3.0, 4.0], abs=1e-12)
