"""The wire protocol v1 (PROTOCOL.md; docs/protocol.md documents every message and code).

Pure: message dataclasses that validate themselves, and a msgpack codec. No I/O, no asyncio,
so bots, replay tools and tests can use it bare.

The names below load on first use (PEP 562), so that ``import shared.protocol.views`` does not
build every message class: a physics worker needs the event view alone, and building the ~120
message dataclasses was most of its start (docs/benchmarks.md, round 11). The type checker reads
the same names from the ``TYPE_CHECKING`` imports.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from shared.protocol.base import ClientMessage, Message, ServerMessage
    from shared.protocol.codec import (
        CLIENT_TYPES,
        MAX_CLIENT_FRAME,
        MAX_SERVER_FRAME,
        SERVER_TYPES,
        decode,
        decode_server,
        encode,
    )
    from shared.protocol.errors import (
        BadField,
        BadMessage,
        ErrorCode,
        ProtocolError,
        TooLarge,
        UnknownType,
    )
    from shared.protocol.to_client import (
        Call,
        ChatLine,
        Closing,
        Error,
        GameOver,
        Joined,
        LagResult,
        Leaderboard,
        Left,
        Matches,
        PlayerStatus,
        Pong,
        Profile,
        Queued,
        Rated,
        Replay,
        RoomCreated,
        Rooms,
        Snapshot,
        StrokePlayed,
        Turn,
        Unqueued,
        Welcome,
        error,
    )
    from shared.protocol.to_server import (
        CHAT_MAX,
        DISCIPLINES,
        PROTOCOL_VERSION,
        Chat,
        ChooseBreak,
        Concede,
        CreateRoom,
        GetLeaderboard,
        GetProfile,
        GetReplay,
        Hello,
        Join,
        Leave,
        ListMatches,
        ListRooms,
        Login,
        Ping,
        Place,
        Queue,
        Register,
        Rejoin,
        Rematch,
        Respot,
        Resume,
        Spectate,
        Stroke,
        Sync,
        TimeOut,
        Unqueue,
    )

__all__ = [
    "CHAT_MAX",
    "CLIENT_TYPES",
    "DISCIPLINES",
    "MAX_CLIENT_FRAME",
    "MAX_SERVER_FRAME",
    "PROTOCOL_VERSION",
    "SERVER_TYPES",
    "BadField",
    "BadMessage",
    "Call",
    "Chat",
    "ChatLine",
    "ChooseBreak",
    "ClientMessage",
    "Closing",
    "Concede",
    "CreateRoom",
    "Error",
    "ErrorCode",
    "GameOver",
    "GetLeaderboard",
    "GetProfile",
    "GetReplay",
    "Hello",
    "Join",
    "Joined",
    "LagResult",
    "Leaderboard",
    "Leave",
    "Left",
    "ListMatches",
    "ListRooms",
    "Login",
    "Matches",
    "Message",
    "Ping",
    "Place",
    "PlayerStatus",
    "Pong",
    "Profile",
    "ProtocolError",
    "Queue",
    "Queued",
    "Rated",
    "Register",
    "Rejoin",
    "Rematch",
    "Replay",
    "Respot",
    "Resume",
    "RoomCreated",
    "Rooms",
    "ServerMessage",
    "Snapshot",
    "Spectate",
    "Stroke",
    "StrokePlayed",
    "Sync",
    "TimeOut",
    "TooLarge",
    "Turn",
    "UnknownType",
    "Unqueue",
    "Unqueued",
    "Welcome",
    "decode",
    "decode_server",
    "encode",
    "error",
]

# The submodules that define the names of ``__all__``.
_SOURCES = ("base", "codec", "errors", "to_client", "to_server")


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    for source in _SOURCES:
        module = importlib.import_module(f"{__name__}.{source}")
        if name in vars(module):
            value = vars(module)[name]
            globals()[name] = value  # later lookups skip this function
            return value
    raise AttributeError(f"{__name__}.{name} is in __all__ but no submodule defines it")
