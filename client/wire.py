"""Frames in and out: one msgpack map per binary WebSocket frame (PROTOCOL.md "Transport").

Outgoing requests are built as ``shared.protocol`` message objects, so a bad field (a speed of
9 m/s, a 300-character chat line) raises :class:`shared.protocol.errors.ProtocolError` where
the message is built, before anything is sent. Incoming frames are decoded once, here, into
``shared.protocol`` messages with typed views all the way down: the tracked state and every
program on top read attributes, never wire keys. A newer server's extra fields are ignored, and
a message type this client does not know is skipped (None).
"""

from __future__ import annotations

from collections.abc import Mapping

import msgpack

from shared.protocol import codec
from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.errors import BadMessage, TooLarge

MAX_FRAME = codec.MAX_SERVER_FRAME

_BY_TYPE = codec.CLIENT_TYPES


def encode(msg: ClientMessage) -> bytes:
    return codec.encode(msg)


def decode(data: bytes | str) -> ServerMessage | None:
    """One server frame as its ``shared.protocol`` message, checked all the way down; None for
    a type this client does not know (a newer server's); raises a :class:`ProtocolError`
    subclass on garbage or a malformed known message."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise BadMessage("expected a binary frame, got a text frame")
    if len(data) > MAX_FRAME:
        raise TooLarge(f"frame of {len(data)} bytes is larger than {MAX_FRAME}")
    try:
        obj = msgpack.unpackb(bytes(data), raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types on garbage
        raise BadMessage(f"not msgpack: {type(exc).__name__}") from None
    if not isinstance(obj, Mapping) or not isinstance(obj.get("t"), str):
        raise BadMessage("a frame must be a map with a string 't'")
    cls = codec.SERVER_TYPES.get(obj["t"])
    if cls is None:
        return None
    return codec.from_wire(cls, obj)  # BadField on a malformed known message
