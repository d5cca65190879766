"""Frames in and out: one msgpack map per binary WebSocket frame (PROTOCOL.md "Transport").

Outgoing requests are built as ``shared.protocol`` message objects, so a bad field (a speed of
9 m/s, a 300-character chat line) raises :class:`shared.protocol.errors.ProtocolError` here, in
the caller, before anything is sent. Incoming frames become plain maps (``{"t": ..., ...}``):
the tracked state and every program on top read wire names exactly as PROTOCOL.md spells them,
and a newer server that adds fields or message types does not break an older client.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import msgpack

from shared.protocol import codec
from shared.protocol.base import ClientMessage
from shared.protocol.errors import BadField, BadMessage, TooLarge, UnknownType

MAX_FRAME = codec.MAX_SERVER_FRAME

_BY_TYPE = codec.CLIENT_TYPES


def request(t: str, **fields_: Any) -> ClientMessage:
    """The client message of type ``t`` with these fields (wire names), validated.

    Fields that are None are left out, as the protocol treats a missing optional field."""
    cls = _BY_TYPE.get(t)
    if cls is None:
        raise UnknownType(f"no client message is called {t!r}")
    if cls.FLAT:  # a view's keys in the message's own map (the stroke's cue parameters)
        return cls.decode_map({"t": t, **{k: v for k, v in fields_.items() if v is not None}})
    wire_to_py = {w: p for p, w in cls.WIRE.items()}
    known = {f.name for f in fields(cls)}
    kwargs: dict[str, Any] = {}
    for key, value in fields_.items():
        if value is None:
            continue
        name = wire_to_py.get(key, key)
        if name not in known:
            raise BadField(f"{t} has no field {key!r}", field=key)
        kwargs[name] = value
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a required field is missing
        raise BadField(f"{t}: {exc}") from None


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
