"""The pymunk world: one step per event lands bodies on their parabolas; it reports overlaps."""

from __future__ import annotations

import pytest

from shared.physics.world import PhysicsBug, World
from shared.table import MATCH


def test_step_moves_bodies_by_the_chord() -> None:
    w = World(MATCH, {"white": (0.5, 0.5), "red": (2.0, 1.0)})
    w.step(0.25, {"white": (2.0, -0.4), "red": (0.0, 0.0)})
    assert w.position("white") == pytest.approx((1.0, 0.4), abs=1e-15)
    assert w.position("red") == (2.0, 1.0)
    assert w.overlaps(["white", "red"]) == []


def test_interpenetration_is_a_bug() -> None:
    w = World(MATCH, {"white": (0.5, 0.5), "red": (0.6, 0.5)})
    with pytest.raises(PhysicsBug, match="interpenetrate"):
        w.step(0.05, {"white": (1.0, 0.0), "red": (0.0, 0.0)})


def test_ball_through_a_cushion_is_a_bug() -> None:
    w = World(MATCH, {"white": (0.5, 0.05)})
    with pytest.raises(PhysicsBug):
        w.step(0.05, {"white": (0.0, -1.0)})


def test_airborne_balls_may_pass_over() -> None:
    w = World(MATCH, {"white": (0.5, 0.5), "red": (0.6, 0.5)})
    w.airborne.add("white")
    w.step(0.1, {"white": (1.0, 0.0), "red": (0.0, 0.0)})
    assert w.position("white") == pytest.approx((0.6, 0.5))
