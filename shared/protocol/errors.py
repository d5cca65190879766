"""Errors of the wire protocol and the stable codes a client can see.

Two families, kept apart the way h11 keeps "the peer did something wrong" apart from "we did":

- :class:`ProtocolError` and its subclasses: the bytes or fields of a frame are wrong. ``decode``
  raises nothing else on garbage, whatever the bytes.
- :class:`ErrorCode`: every ``error.code`` the server may send, including refusals of well-formed
  messages (not your turn, room full …). The values are the contract: bots switch on them. It is
  an open word (``shared.protocol.enums.OpenEnum``): a client decodes a code a newer server
  added as an unknown member that keeps it.
"""

from __future__ import annotations

from typing import ClassVar

from shared.protocol.enums import OpenEnum


class ErrorCode(OpenEnum):
    """Every stable ``error.code`` (PROTOCOL.md "Errors"); docs/protocol.md lists their meaning."""

    # The frame itself.
    BAD_MESSAGE = "bad_message"  # not msgpack, not a map, or no string "t"
    UNKNOWN_TYPE = "unknown_type"  # "t" names no client message
    BAD_FIELD = "bad_field"  # a field is missing, of the wrong type, out of range, NaN …
    TOO_LARGE = "too_large"  # the frame is larger than the server accepts
    RATE_LIMITED = "rate_limited"  # more messages per second than allowed
    # Session.
    HELLO_FIRST = "hello_first"  # a request before ``hello``
    ALREADY_GREETED = "already_greeted"  # a second ``hello`` on one connection
    UNSUPPORTED_VERSION = "unsupported_version"  # ``hello.v`` is not a version we speak
    BAD_TOKEN = "bad_token"  # unknown identity token or seat token
    SHUTTING_DOWN = "shutting_down"  # the server is draining and accepts no new rooms
    # Lobby.
    NO_SUCH_ROOM = "no_such_room"
    ROOM_FULL = "room_full"
    BAD_PASSWORD = "bad_password"
    TOO_MANY_ROOMS = "too_many_rooms"  # rooms created by this connection, or server capacity
    ALREADY_IN_ROOM = "already_in_room"  # join/spectate/create while seated or watching
    NOT_IN_ROOM = "not_in_room"  # a room action without a room
    BAD_OPTIONS = "bad_options"  # create_room options the referee refuses
    NO_SUCH_MATCH = "no_such_match"  # get_replay of an unknown match
    # Accounts and quick match (docs/accounts.md).
    NAME_TAKEN = "name_taken"  # register: the name (or a look-alike of it) has an account
    BAD_NAME = "bad_name"  # register: a name that cannot be claimed (the message says why)
    BAD_LOGIN = "bad_login"  # login: unknown name or wrong password (deliberately one answer)
    ALREADY_REGISTERED = "already_registered"  # register on an identity that has an account
    NO_SUCH_PLAYER = "no_such_player"  # profile of an unknown player_id
    QUEUE_FULL = "queue_full"  # quick match: the server's queue is at its limit
    # Play.
    NOT_A_PLAYER = "not_a_player"  # a spectator tried to act
    NOT_YOUR_TURN = "not_your_turn"
    BALLS_MOVING = "balls_moving"  # a stroke before every ball is at rest (R-PLAY-4)
    WRONG_PHASE = "wrong_phase"  # the action does not fit the match phase
    NOT_PRACTICE = "not_practice"  # ``place`` in an ordinary room
    ALREADY_PLAYED = "already_played"  # a second lag stroke from the same seat
    NOT_FROZEN = "not_frozen"  # respot while the cue ball touches no ball (R-FROZEN-1)
    NOT_START_OF_INNING = "not_start_of_inning"  # time-out after the inning's first stroke
    NO_TIMEOUTS_LEFT = "no_timeouts_left"  # R-TIMEOUT-1: one per player per game
    CLOCK_EXPIRED = "clock_expired"  # the shot clock ran out before the stroke arrived
    ILLEGAL_ACTION = "illegal_action"  # the referee refused, with no more precise code
    INTERNAL_ERROR = "internal_error"  # our bug; the room is unchanged
    UNAVAILABLE = "unavailable"  # the server cannot save right now (disk full, database gone)


class ProtocolError(Exception):
    """A frame could not be turned into a message. ``code`` is an :class:`ErrorCode` value."""

    code: ClassVar[ErrorCode] = ErrorCode.BAD_MESSAGE

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class BadMessage(ProtocolError):
    """Not msgpack, not a map, trailing bytes, or no string ``t``."""

    code = ErrorCode.BAD_MESSAGE


class UnknownType(ProtocolError):
    """``t`` is a string that names no message of this direction."""

    code = ErrorCode.UNKNOWN_TYPE


class BadField(ProtocolError):
    """A known message with a missing, mistyped or out-of-range field."""

    code = ErrorCode.BAD_FIELD


class TooLarge(ProtocolError):
    """The frame is longer than the decoder was told to accept."""

    code = ErrorCode.TOO_LARGE
