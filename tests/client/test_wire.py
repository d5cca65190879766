"""Bad requests fail in the caller, before anything is sent; garbage frames are refused."""

from __future__ import annotations

import msgpack
import pytest

from client import wire
from shared.protocol.errors import BadField, BadMessage, UnknownType


def test_a_valid_stroke_encodes_to_its_wire_map() -> None:
    msg = wire.request("stroke", id=4, direction=10.0, speed=3.0, tip_x=0.2, spot=None)
    data = msgpack.unpackb(wire.encode(msg))
    assert data["t"] == "stroke" and data["id"] == 4 and data["speed"] == 3.0
    assert "spot" not in data


@pytest.mark.parametrize(
    ("t", "fields"),
    [
        ("stroke", {"direction": 10.0, "speed": 9.0}),  # faster than 8 m/s (PHYSICS.md)
        ("stroke", {"direction": 10.0, "speed": 3.0, "tip_x": 0.5, "tip_y": 0.5}),  # miscue
        ("chat", {"text": "x" * 201}),  # PROTOCOL.md: chat <= 200 characters
        ("join", {}),  # room_id missing
        ("join", {"room_id": "r1", "colour": "red"}),  # no such field
    ],
)
def test_bad_fields_raise_before_sending(t: str, fields: dict[str, object]) -> None:
    with pytest.raises(BadField):
        wire.request(t, **fields)


def test_unknown_request_type() -> None:
    with pytest.raises(UnknownType):
        wire.request("teleport")


@pytest.mark.parametrize(
    "frame", [b"\xc1", msgpack.packb([1, 2]), msgpack.packb({"x": 1}), "text frame"]
)
def test_garbage_frames_are_refused(frame: bytes | str) -> None:
    with pytest.raises(BadMessage):
        wire.decode(frame)


def test_a_malformed_known_message_is_refused_and_unknown_types_pass() -> None:
    with pytest.raises(BadField):
        wire.decode(msgpack.packb({"t": "pong", "server_time_ms": "soon"}))
    assert wire.decode(msgpack.packb({"t": "news", "x": 1})) == {"t": "news", "x": 1}
