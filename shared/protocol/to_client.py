"""Server-to-client messages (PROTOCOL.md "Server to client"), one class per ``t``.

Room broadcasts carry ``seq`` (one more per broadcast in that room); direct answers carry ``re``
(the request's ``id``). Nested payloads (``match``, ``room``, ``trajectory`` …) are typed views
(``shared.protocol.views``); docs/protocol.md describes each field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import UnionType
from typing import ClassVar, Final

from shared.protocol.base import ServerMessage
from shared.protocol.errors import BadField, ErrorCode
from shared.protocol.fields import (
    MAX_SAFE_INT,
    check_bool,
    check_choice,
    check_int,
    check_list,
    check_number,
    check_opt_bool,
    check_opt_int,
    check_opt_seat,
    check_str,
)
from shared.protocol.tournament import TOURNAMENT_SERVER_MESSAGES
from shared.protocol.views import (
    CueParams,
    EventView,
    LeaderRow,
    MatchRow,
    MatchView,
    PlayedStroke,
    ProfileMatch,
    ReplayRoom,
    ReplayStroke,
    RoomSummary,
    RoomView,
    Scoresheet,
    StandingRow,
    StrokeResult,
    Trajectory,
)

STATUSES: Final = ("connected", "disconnected", "left")
TEXT_MAX: Final = 1000  # server text fields (messages, calls, reasons)


def _seq(value: object) -> None:
    check_int("seq", value, 0)


def _re(value: object) -> None:
    check_opt_int("re", value)


def _view(name: str, value: object, cls: type | UnionType) -> None:
    """A nested field holds its view type (built by our code or decoded: either way typed)."""
    if not isinstance(value, cls):
        raise BadField(f"{name} must be a {cls}, got {type(value).__name__}", field=name)


def _views(name: str, values: object, cls: type, max_len: int = 1_000_000) -> None:
    if not isinstance(values, tuple):
        raise BadField(f"{name} must be a tuple, got {type(values).__name__}", field=name)
    for i, v in enumerate(check_list(name, values, max_len)):
        _view(f"{name}[{i}]", v, cls)


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(ServerMessage):
    TYPE: ClassVar[str] = "welcome"
    v: int
    player_id: str
    token: str  # secret identity token: send it in a later hello to stay the same player
    server_time_ms: int
    re: int | None = None

    def _validate(self) -> None:
        check_int("v", self.v, 0, 1000)
        check_str("player_id", self.player_id, 64, 1)
        check_str("token", self.token, 64, 1)
        check_int("server_time_ms", self.server_time_ms, 0)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rooms(ServerMessage):
    TYPE: ClassVar[str] = "rooms"
    rooms: tuple[RoomSummary, ...]
    re: int | None = None

    def _validate(self) -> None:
        _views("rooms", self.rooms, RoomSummary)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomCreated(ServerMessage):
    TYPE: ClassVar[str] = "room_created"
    room_id: str
    re: int | None = None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Joined(ServerMessage):
    TYPE: ClassVar[str] = "joined"
    room_id: str
    seat: int
    seat_token: str  # secret: the only key to this seat (rejoin)
    re: int | None = None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        check_int("seat", self.seat, 0, 1)
        check_str("seat_token", self.seat_token, 64, 1)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Left(ServerMessage):
    TYPE: ClassVar[str] = "left"
    room_id: str
    re: int | None = None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot(ServerMessage):
    """The whole room now. ``seat`` is the receiver's own seat (null for a spectator)."""

    TYPE: ClassVar[str] = "snapshot"
    seq: int
    room: RoomView
    match: MatchView
    seat: int | None = None
    # While the last stroke's balls still roll: that ``stroke_played`` (or ``lag_result``)
    # as it was broadcast, so a late arrival animates the rest of it from ``start_ms``.
    in_motion: StrokePlayed | LagResult | None = None
    re: int | None = None

    def _validate(self) -> None:
        _seq(self.seq)
        _view("room", self.room, RoomView)
        _view("match", self.match, MatchView)
        check_opt_seat("seat", self.seat)
        if self.in_motion is not None:
            _view("in_motion", self.in_motion, StrokePlayed | LagResult)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class StrokePlayed(ServerMessage):
    """One stroke, simulated and refereed. Balls move from ``start_ms`` until ``rest_ms``."""

    TYPE: ClassVar[str] = "stroke_played"
    seq: int
    shooter: int
    stroke: PlayedStroke
    start_ms: int
    rest_ms: int
    trajectory: Trajectory
    events: tuple[EventView, ...]
    result: StrokeResult
    match: MatchView

    def _validate(self) -> None:
        _seq(self.seq)
        check_int("shooter", self.shooter, 0, 1)
        _view("stroke", self.stroke, PlayedStroke)
        check_int("start_ms", self.start_ms, 0)
        check_int("rest_ms", self.rest_ms, 0)
        _view("trajectory", self.trajectory, Trajectory)
        _views("events", self.events, EventView)
        _view("result", self.result, StrokeResult)
        _view("match", self.match, MatchView)


@dataclass(frozen=True, slots=True, kw_only=True)
class LagResult(ServerMessage):
    """Both lag strokes simulated together (R-LAG-3). ``winner`` null: the lag is repeated."""

    TYPE: ClassVar[str] = "lag_result"
    seq: int
    winner: int | None
    reason: str
    trajectory: Trajectory
    start_ms: int | None = None
    rest_ms: int | None = None
    strokes: Mapping[str, CueParams] | None = None  # seat ("0"/"1") -> cue parameters
    events: tuple[EventView, ...] | None = None
    match: MatchView | None = None

    def _validate(self) -> None:
        _seq(self.seq)
        check_opt_seat("winner", self.winner)
        check_str("reason", self.reason, TEXT_MAX)
        _view("trajectory", self.trajectory, Trajectory)
        check_opt_int("start_ms", self.start_ms, 0)
        check_opt_int("rest_ms", self.rest_ms, 0)
        if self.strokes is not None:
            for seat, cue in self.strokes.items():
                check_choice("strokes key", seat, ("0", "1"))
                _view(f"strokes.{seat}", cue, CueParams)
        if self.events is not None:
            _views("events", self.events, EventView)
        if self.match is not None:
            _view("match", self.match, MatchView)


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(ServerMessage):
    """Who acts next and until when (null deadline: no clock running, e.g. time-out paused)."""

    TYPE: ClassVar[str] = "turn"
    seq: int
    shooter: int | None
    deadline_ms: int | None
    phase: str | None = None
    frozen: bool | None = None

    def _validate(self) -> None:
        _seq(self.seq)
        check_opt_seat("shooter", self.shooter)
        check_opt_int("deadline_ms", self.deadline_ms, 0)
        if self.phase is not None:
            check_str("phase", self.phase, 32)
        check_opt_bool("frozen", self.frozen)


@dataclass(frozen=True, slots=True, kw_only=True)
class Call(ServerMessage):
    """A referee announcement (RULES.md §10)."""

    TYPE: ClassVar[str] = "call"
    seq: int
    code: str
    text: str

    def _validate(self) -> None:
        _seq(self.seq)
        check_str("code", self.code, 64, 1)
        check_str("text", self.text, TEXT_MAX)


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerStatus(ServerMessage):
    TYPE: ClassVar[str] = "player_status"
    seq: int
    seat: int
    status: str
    grace_until_ms: int | None = None

    def _validate(self) -> None:
        _seq(self.seq)
        check_int("seat", self.seat, 0, 1)
        check_choice("status", self.status, STATUSES)
        check_opt_int("grace_until_ms", self.grace_until_ms, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver(ServerMessage):
    TYPE: ClassVar[str] = "game_over"
    seq: int
    winner: int | None  # null: a draw
    reason: str
    scoresheet: Scoresheet
    match_id: int | None = None  # for get_replay

    def _validate(self) -> None:
        _seq(self.seq)
        check_opt_seat("winner", self.winner)
        check_str("reason", self.reason, TEXT_MAX)
        _view("scoresheet", self.scoresheet, Scoresheet)
        check_opt_int("match_id", self.match_id, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatLine(ServerMessage):
    """``from`` on the wire (a Python keyword, hence ``sender`` here)."""

    TYPE: ClassVar[str] = "chat"
    WIRE: ClassVar[dict[str, str]] = {"sender": "from"}
    seq: int
    sender: str  # the sender's name
    text: str
    seat: int | None = None  # the sender's seat, null for a spectator

    def _validate(self) -> None:
        _seq(self.seq)
        check_str("from", self.sender, 64, 1)
        check_str("text", self.text, TEXT_MAX)
        check_opt_seat("seat", self.seat)


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(ServerMessage):
    TYPE: ClassVar[str] = "error"
    code: str
    message: str
    re: int | None = None

    def _validate(self) -> None:
        check_str("code", self.code, 64, 1)
        check_str("message", self.message, TEXT_MAX)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Audience(ServerMessage):
    """How many watch the room now, to everyone in it, at most once a second while it changes.
    Not a numbered broadcast (no ``seq``): a client that does not know it loses nothing."""

    TYPE: ClassVar[str] = "audience"
    room_id: str
    spectators: int

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        check_int("spectators", self.spectators, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(ServerMessage):
    TYPE: ClassVar[str] = "pong"
    server_time_ms: int
    re: int | None = None

    def _validate(self) -> None:
        check_int("server_time_ms", self.server_time_ms, 0)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Matches(ServerMessage):
    TYPE: ClassVar[str] = "matches"
    matches: tuple[MatchRow, ...]
    re: int | None = None

    def _validate(self) -> None:
        _views("matches", self.matches, MatchRow)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Replay(ServerMessage):
    TYPE: ClassVar[str] = "replay"
    match_id: int
    room: ReplayRoom
    strokes: tuple[ReplayStroke, ...]
    finished: bool
    scoresheet: Scoresheet | None = None
    next_after: int | None = None  # more strokes follow: ask again with ``after`` = this
    re: int | None = None

    def _validate(self) -> None:
        check_int("match_id", self.match_id, 1, MAX_SAFE_INT)
        if self.next_after is not None:
            check_int("next_after", self.next_after, 0, MAX_SAFE_INT)
        _view("room", self.room, ReplayRoom)
        _views("strokes", self.strokes, ReplayStroke)
        check_bool("finished", self.finished)
        if self.scoresheet is not None:
            _view("scoresheet", self.scoresheet, Scoresheet)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Closing(ServerMessage):
    """The server is shutting down; the room is saved. Reconnect later and ``rejoin``."""

    TYPE: ClassVar[str] = "closing"
    reason: str

    def _validate(self) -> None:
        check_str("reason", self.reason, TEXT_MAX)


# Accounts, ratings and quick match (docs/accounts.md) ---------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Queued(ServerMessage):
    TYPE: ClassVar[str] = "queued"
    discipline: str
    rating: float  # the rating the queue pairs by (a guest's is the starting 1500)
    distance: int | None = None
    re: int | None = None

    def _validate(self) -> None:
        check_str("discipline", self.discipline, 32, 1)
        check_number("rating", self.rating, 0, 10_000)
        check_opt_int("distance", self.distance, 1)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unqueued(ServerMessage):
    TYPE: ClassVar[str] = "unqueued"
    re: int | None = None

    def _validate(self) -> None:
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(ServerMessage):
    TYPE: ClassVar[str] = "leaderboard"
    discipline: str
    rows: tuple[LeaderRow, ...]
    re: int | None = None

    def _validate(self) -> None:
        check_str("discipline", self.discipline, 32, 1)
        _views("rows", self.rows, LeaderRow, 100)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile(ServerMessage):
    TYPE: ClassVar[str] = "profile"
    player_id: str
    name: str
    registered: bool
    bot: bool
    standings: tuple[StandingRow, ...]
    matches: tuple[ProfileMatch, ...]
    re: int | None = None

    def _validate(self) -> None:
        check_str("player_id", self.player_id, 64, 1)
        check_str("name", self.name, 64)
        check_bool("registered", self.registered)
        check_bool("bot", self.bot)
        _views("standings", self.standings, StandingRow, 100)
        _views("matches", self.matches, ProfileMatch, 100)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rated(ServerMessage):
    """After a rated match: the receiver's own rating change."""

    TYPE: ClassVar[str] = "rated"
    match_id: int
    discipline: str
    before: float
    after: float
    deviation: float

    def _validate(self) -> None:
        check_int("match_id", self.match_id, 1)
        check_str("discipline", self.discipline, 32, 1)
        check_number("before", self.before, 0, 10_000)
        check_number("after", self.after, 0, 10_000)
        check_number("deviation", self.deviation, 0, 10_000)


SERVER_MESSAGES: Final[tuple[type[ServerMessage], ...]] = (
    Welcome,
    Rooms,
    RoomCreated,
    Joined,
    Left,
    Snapshot,
    StrokePlayed,
    LagResult,
    Turn,
    Call,
    PlayerStatus,
    GameOver,
    ChatLine,
    Error,
    Pong,
    Matches,
    Replay,
    Closing,
    Queued,
    Unqueued,
    Leaderboard,
    Profile,
    Rated,
    Audience,
    *TOURNAMENT_SERVER_MESSAGES,  # shared/protocol/tournament.py
)


def error(code: ErrorCode, message: str, re: int | None = None) -> Error:
    return Error(code=code.value, message=message, re=re)
