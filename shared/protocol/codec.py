"""msgpack codec: ``encode(msg) -> bytes`` and ``decode(data) -> msg``.

``decode`` raises a :class:`ProtocolError` subclass, and nothing else, on any input: the server
can hand it every frame a stranger sends. Unknown keys are ignored so that a newer peer can add
optional fields (PROTOCOL.md: "add optional fields freely").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar

import msgpack

from shared.protocol.base import ClientMessage, Message, ServerMessage
from shared.protocol.errors import BadMessage, TooLarge, UnknownType
from shared.protocol.to_client import SERVER_MESSAGES
from shared.protocol.to_server import CLIENT_MESSAGES

# Client frames are small (a stroke is ~90 bytes); 16 KiB leaves room for names and chat.
MAX_CLIENT_FRAME: Final = 16 * 1024
# Server frames carry trajectories and whole replays.
MAX_SERVER_FRAME: Final = 16 * 1024 * 1024

CLIENT_TYPES: Final[dict[str, type[ClientMessage]]] = {c.TYPE: c for c in CLIENT_MESSAGES}
SERVER_TYPES: Final[dict[str, type[ServerMessage]]] = {c.TYPE: c for c in SERVER_MESSAGES}

M = TypeVar("M", bound=Message)


def encode(msg: Message) -> bytes:
    """One msgpack map. Raises TypeError if our own payload holds something msgpack cannot pack
    (that is our bug, not the peer's)."""
    data: bytes = msgpack.packb(msg.to_wire(), use_bin_type=True)
    return data


def _unpack(data: object, max_size: int) -> dict[str, Any]:
    if not isinstance(data, bytes | bytearray | memoryview):
        raise BadMessage(f"a frame must be binary msgpack, got {type(data).__name__}")
    if len(data) > max_size:
        raise TooLarge(f"frame of {len(data)} bytes is larger than the limit of {max_size}")
    try:
        obj = msgpack.unpackb(bytes(data), raw=False, use_list=True, strict_map_key=False)
    except Exception as exc:  # msgpack raises several types on garbage; all mean the same here
        raise BadMessage(f"not a msgpack message: {type(exc).__name__}") from None
    if not isinstance(obj, dict):
        raise BadMessage(f"a message must be a msgpack map, got {type(obj).__name__}")
    t = obj.get("t")
    if not isinstance(t, str):
        raise BadMessage('a message must have a string "t" (its type)')
    return obj


def from_wire(cls: type[M], obj: Mapping[Any, Any]) -> M:
    """Build ``cls`` from a decoded map: required fields must be present (nullable ones too,
    e.g. ``lag_result.winner``), every value typed all the way down; extra keys ignored."""
    return cls.decode_map(obj)


def decode(data: object, *, max_size: int = MAX_CLIENT_FRAME) -> ClientMessage:
    """A client-to-server message (what the server reads)."""
    obj = _unpack(data, max_size)
    cls = CLIENT_TYPES.get(obj["t"])
    if cls is None:
        raise UnknownType(f"unknown message type {obj['t'][:40]!r}")
    return from_wire(cls, obj)


def decode_server(data: object, *, max_size: int = MAX_SERVER_FRAME) -> ServerMessage:
    """A server-to-client message (what a client or bot reads)."""
    obj = _unpack(data, max_size)
    cls = SERVER_TYPES.get(obj["t"])
    if cls is None:
        raise UnknownType(f"unknown message type {obj['t'][:40]!r}")
    return from_wire(cls, obj)
