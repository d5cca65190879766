"""The strike's squirt against what the literature gives (docs/physics.md "Round 2": "The start
of the stroke"): TP A.31's law, no direct dependence on cue speed (Shepard 2001), more squirt
with more end mass (Alciatore, "Squirt – Part VII", BD Feb. 2008) and with more offset, and a
few degrees at the largest offsets."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest

from shared.physics.spec import DEFAULT_SPEC
from shared.physics.strike import squirt_angle, strike
from shared.physics.types import MISCUE_LIMIT, Stroke
from shared.table import MATCH

R, M = MATCH.ball_radius, MATCH.ball_mass


def _leaves_at(stroke: Stroke) -> float:
    """Degrees between the ball's horizontal velocity and the cue heading (> 0: to the left)."""
    v, _ = strike(stroke, R, M, DEFAULT_SPEC)
    return math.degrees(math.atan2(v[1], v[0])) - stroke.direction


def test_squirt_follows_tp_a31() -> None:
    for s in (0.1, 0.3, 0.5):
        # TP A.31: tan ψ = 2.5·s·√(1−s²) / (1 + m/m_e + 2.5·(1−s²)), away from the english
        # (right english, s > 0: the ball leaves to the left of the cue line).
        want = math.atan(2.5 * s * math.sqrt(1 - s * s) / (1 + M / 0.010 + 2.5 * (1 - s * s)))
        assert _leaves_at(Stroke(0.0, 3.0, s)) == pytest.approx(math.degrees(want), abs=1e-9)
        assert _leaves_at(Stroke(0.0, 3.0, -s)) == pytest.approx(-math.degrees(want), abs=1e-9)


def test_squirt_does_not_depend_on_cue_speed() -> None:
    """Shepard ("Everything you always wanted to know about cue ball squirt", 2001): squirt does
    not depend directly on speed; what changes with speed on the table is swerve."""
    angles = [_leaves_at(Stroke(0.0, v, 0.5)) for v in (0.5, 2.0, 5.0, 8.0)]
    assert max(angles) - min(angles) < 1e-9


def test_squirt_grows_with_offset_and_end_mass_to_a_few_degrees() -> None:
    offsets = [0.1 * k for k in range(1, 7)]
    angles = [math.degrees(squirt_angle(s, M, DEFAULT_SPEC)) for s in offsets]
    assert all(a < b for a, b in itertools.pairwise(angles))  # more english, more squirt
    assert offsets[-1] == pytest.approx(MISCUE_LIMIT)
    # 10 g end mass (assumed, pool shafts 5–15 g) on a 210 g carom ball: 2.6° at half a ball
    # radius, 2.9° at the miscue limit; "a few degrees" at full english.
    assert angles[4] == pytest.approx(2.6, abs=0.05)
    assert angles[5] == pytest.approx(2.9, abs=0.05)
    heavier = replace(DEFAULT_SPEC, cue_end_mass=0.015)
    assert abs(squirt_angle(0.5, M, heavier)) > abs(squirt_angle(0.5, M, DEFAULT_SPEC))
