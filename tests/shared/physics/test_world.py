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


def test_a_reset_world_moves_its_balls_as_a_new_one_would() -> None:
    start = {"white": (0.5, 0.5), "yellow": (1.0, 0.7), "red": (2.0, 1.0)}
    used = World(MATCH, start)
    used.step(0.3, {"white": (1.0, 0.5), "yellow": (0.0, -0.2), "red": (0.0, 0.0)})
    used.airborne.add("yellow")
    used.remove("red")  # off the table in the last run
    used.reset(start)
    new = World(MATCH, start)
    assert used.airborne == set()
    for world in (used, new):
        world.step(0.2, {"white": (0.7, 0.3), "yellow": (-0.5, 0.1), "red": (0.1, 0.0)})
    for ball in start:
        assert used.position(ball) == new.position(ball)  # to the last bit
    assert used.balls == new.balls == ("white", "yellow", "red")


def test_a_reset_world_forgets_the_last_runs_overlap_and_sees_a_new_one() -> None:
    overlapping = {"white": (0.5, 0.5), "red": (0.55, 0.5)}
    w = World(MATCH, overlapping)
    with pytest.raises(PhysicsBug, match="interpenetrate"):
        w.step(0.01, {"white": (0.0, 0.0), "red": (0.0, 0.0)})
    w.reset({"white": (0.5, 0.5), "red": (2.0, 1.0)})
    w.step(0.01, {"white": (0.0, 0.0), "red": (0.0, 0.0)})  # the old overlap is not reported
    assert w.overlaps(["white", "red"]) == []
    w.reset(overlapping)  # before any step: the shapes are where the balls are
    assert w.overlaps(["white"]) == ["white/red by 0.0115 m"]


def test_a_world_is_reset_only_with_its_own_balls() -> None:
    w = World(MATCH, {"white": (0.5, 0.5), "red": (2.0, 1.0)})
    with pytest.raises(ValueError, match="not"):
        w.reset({"white": (0.5, 0.5)})
