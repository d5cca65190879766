"""Frames in and out: one msgpack map per binary WebSocket frame (PROTOCOL.md "Transport").

Outgoing requests are built as ``shared.protocol`` message objects, so a bad field (a speed of
9 m/s, a 300-character chat line) raises :class:`shared.protocol.errors.ProtocolError` here, in
the caller, before anything is sent. Incoming frames become plain maps (``{"t": ..., ...}``):
the tracked state and every program on top read wire names exactly as PROTOCOL.md spells them,
and a newer server that adds fields or message types does not break an older client.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgpack

from shared.protocol import codec
from shared.protocol.base import ClientMessage
from shared.protocol.errors import BadMessage, TooLarge

MAX_FRAME = codec.MAX_SERVER_FRAME

_BY_TYPE = codec.CLIENT_TYPES


def encode(msg: ClientMessage) -> bytes:
    return codec.encode(msg)


def decode(data: bytes | str) -> dict[str, Any]:
    """One server frame as a map with a string ``t``, validated by ``shared.protocol`` when the
    type is known (a newer server's unknown types pass through as maps); raises a
    :class:`ProtocolError` subclass on garbage."""
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
    if cls is not None:
        codec.from_wire(cls, obj)  # raises BadField on a malformed known message
    return dict(obj)
