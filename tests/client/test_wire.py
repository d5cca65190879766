"""Bad requests fail in the caller, before anything is sent; garbage frames are refused."""

from __future__ import annotations

from collections.abc import Callable

import msgpack
import pytest

from client import wire
from client.app.scenes import BALLS_AT_REST, match_at, room_view
from shared.protocol import codec
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.errors import BadField, BadMessage
from shared.protocol.views import CueParams, MatchView


def test_a_valid_stroke_encodes_to_its_wire_map() -> None:
    msg = ts.Stroke(cue=CueParams(direction=10.0, speed=3.0, tip_x=0.2), id=4)
    data = msgpack.unpackb(wire.encode(msg))
    assert data["t"] == "stroke" and data["id"] == 4 and data["speed"] == 3.0
    assert "spot" not in data


@pytest.mark.parametrize(
    "build",
    [
        lambda: CueParams(direction=10.0, speed=9.0),  # faster than 8 m/s (PHYSICS.md)
        lambda: CueParams(direction=10.0, speed=3.0, tip_x=0.5, tip_y=0.5),  # miscue
        lambda: ts.Chat(text="x" * 201),  # PROTOCOL.md: chat <= 200 characters
        lambda: ts.Join(room_id=""),  # room_id empty
    ],
)
def test_bad_fields_raise_before_sending(build: Callable[[], object]) -> None:
    with pytest.raises(BadField):
        build()


@pytest.mark.parametrize(
    "frame", [b"\xc1", msgpack.packb([1, 2]), msgpack.packb({"x": 1}), "text frame"]
)
def test_garbage_frames_are_refused(frame: bytes | str) -> None:
    with pytest.raises(BadMessage):
        wire.decode(frame)


def test_a_malformed_known_message_is_refused_and_unknown_types_are_skipped() -> None:
    with pytest.raises(BadField):
        wire.decode(msgpack.packb({"t": "pong", "server_time_ms": "soon"}))
    # A newer server's message type this client does not know: skipped, not an error.
    assert wire.decode(msgpack.packb({"t": "news", "x": 1})) is None


def test_a_frame_decodes_once_into_typed_views_all_the_way_down() -> None:
    """What the server sends is what the client holds: the same message, typed to the
    innermost view (issue 11), and a newer server's extra field is ignored."""
    match = match_at(BALLS_AT_REST, shooter=1)
    sent = tc.Snapshot(seq=3, room=room_view(), match=match, seat=None)
    frame = codec.encode(sent)
    got = wire.decode(frame)
    assert got == sent
    assert isinstance(got, tc.Snapshot) and isinstance(got.match, MatchView)
    assert got.match.balls["white"] == BALLS_AT_REST["white"]
    newer = msgpack.packb({**msgpack.unpackb(frame), "weather": "sunny"})
    assert wire.decode(newer) == sent
