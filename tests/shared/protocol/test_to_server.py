"""Client messages agree with the physics and rules contracts they stand in for."""

from __future__ import annotations

import pytest

from shared.physics import types as physics
from shared.protocol import BadField, CreateRoom, Place, Stroke
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from shared.rules.options import Discipline


def test_the_protocol_keeps_no_copy_of_the_physics_limits() -> None:
    """CueParams checks against shared.physics' own constants (no second copy to drift)."""
    for name in ("MAX_SPEED", "MISCUE_LIMIT", "MAX_ELEVATION"):
        assert not hasattr(ts, name)
    with pytest.raises(BadField):
        CueParams(direction=0, speed=physics.MAX_SPEED * 1.001)
    assert CueParams(direction=0, speed=physics.MAX_SPEED).speed == physics.MAX_SPEED


def test_discipline_wire_names_match_the_referee() -> None:
    assert set(ts.DISCIPLINES) == {d.value for d in Discipline}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"direction": 0.0, "speed": 8.0},
        {"direction": 359.999, "speed": 0.01, "tip_x": 0.6},
        {"direction": 10, "speed": 1, "tip_x": -0.3, "tip_y": 0.4, "elevation": 89},
    ],
)
def test_strokes_in_range_are_valid_for_physics_too(kwargs: dict[str, float]) -> None:
    msg = Stroke(cue=CueParams(**kwargs))
    msg.cue.physics()  # the physics accepts whatever the protocol accepted


@pytest.mark.parametrize(
    "kwargs",
    [
        {"direction": -0.1, "speed": 1},
        {"direction": 0, "speed": 8.01},
        {"direction": 0, "speed": 1, "elevation": 90},
        {"direction": 0, "speed": 1, "tip_y": -0.61},
    ],
)
def test_strokes_out_of_range_name_the_field(kwargs: dict[str, float]) -> None:
    with pytest.raises(BadField) as info:
        Stroke(cue=CueParams(**kwargs))
    assert info.value.field in kwargs


def test_place_normalises_points_to_tuples() -> None:
    msg = Place(balls={"red": [1, 0.5]})  # type: ignore[dict-item]
    assert msg.balls == {"red": (1.0, 0.5)}


def test_private_room_password() -> None:
    assert CreateRoom(discipline="three_cushion", private=True, password="pw").password == "pw"
    with pytest.raises(BadField):
        CreateRoom(discipline="three_cushion", password="pw")
