"""Server-to-client messages (PROTOCOL.md "Server to client"), one class per ``t``.

Room broadcasts carry ``seq`` (one more per broadcast in that room); direct answers carry ``re``
(the request's ``id``). Nested payloads (``match``, ``room``, ``trajectory`` …) are typed views
(``shared.protocol.views``); docs/protocol.md describes each field. Bounds sit in the field types
(``shared.protocol.bounds``) and words are enums (``shared.protocol.enums``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from shared.protocol.base import ServerMessage
from shared.protocol.bounds import Count, Length, Positive, Range, Rating, Seat, Slot, TimeMs
from shared.protocol.enums import (
    CallCode,
    Discipline,
    EndReason,
    LagReason,
    Phase,
    SeatKey,
    SeatStatus,
)
from shared.protocol.errors import ErrorCode
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

STATUSES: Final = tuple(s.value for s in SeatStatus)
TEXT_MAX: Final = 1000  # server text fields (messages, calls, reasons)

Seq = Count  # one more per broadcast in the room
Id = Annotated[str, Length(1, 64)]  # a player id, token or seat token
RoomId = Annotated[str, Length(1, 32)]
Text = Annotated[str, Length(0, TEXT_MAX)]  # a sentence for a person


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(ServerMessage):
    TYPE: ClassVar[str] = "welcome"
    v: Annotated[int, Range(0, 1000)]
    player_id: Id
    token: Id  # secret identity token: send it in a later hello to stay the same player
    server_time_ms: TimeMs
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rooms(ServerMessage):
    TYPE: ClassVar[str] = "rooms"
    rooms: tuple[RoomSummary, ...]
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomCreated(ServerMessage):
    TYPE: ClassVar[str] = "room_created"
    room_id: RoomId
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Joined(ServerMessage):
    TYPE: ClassVar[str] = "joined"
    room_id: RoomId
    seat: Seat
    seat_token: Id  # secret: the only key to this seat (rejoin)
    re: int | None = None
    slot: Slot | None = None  # team rooms: the place in the side's line-up (R-TEAM-1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Left(ServerMessage):
    TYPE: ClassVar[str] = "left"
    room_id: RoomId
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot(ServerMessage):
    """The whole room now. ``seat`` is the receiver's own seat (null for a spectator)."""

    TYPE: ClassVar[str] = "snapshot"
    seq: Seq
    room: RoomView
    match: MatchView
    seat: Seat | None = None
    # While the last stroke's balls still roll: that ``stroke_played`` (or ``lag_result``)
    # as it was broadcast, so a late arrival animates the rest of it from ``start_ms``.
    in_motion: StrokePlayed | LagResult | None = None
    re: int | None = None
    slot: Slot | None = None  # team rooms: the receiver's place in its side's line-up


@dataclass(frozen=True, slots=True, kw_only=True)
class StrokePlayed(ServerMessage):
    """One stroke, simulated and refereed. Balls move from ``start_ms`` until ``rest_ms``."""

    TYPE: ClassVar[str] = "stroke_played"
    seq: Seq
    shooter: Seat
    stroke: PlayedStroke
    start_ms: TimeMs
    rest_ms: TimeMs
    trajectory: Trajectory
    events: tuple[EventView, ...]
    result: StrokeResult
    match: MatchView
    shooter_slot: Slot | None = None  # team rooms: the partner who struck (R-TEAM-1)


@dataclass(frozen=True, slots=True, kw_only=True)
class LagResult(ServerMessage):
    """Both lag strokes simulated together (R-LAG-3). ``winner`` null: the lag is repeated."""

    TYPE: ClassVar[str] = "lag_result"
    seq: Seq
    winner: Seat | None
    reason: LagReason
    trajectory: Trajectory
    start_ms: TimeMs | None = None
    rest_ms: TimeMs | None = None
    strokes: Mapping[SeatKey, CueParams] | None = None  # seat ("0"/"1") -> cue parameters
    events: tuple[EventView, ...] | None = None
    match: MatchView | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Turn(ServerMessage):
    """Who acts next and until when (null deadline: no clock running, e.g. time-out paused)."""

    TYPE: ClassVar[str] = "turn"
    seq: Seq
    shooter: Seat | None
    deadline_ms: TimeMs | None
    phase: Phase | None = None
    frozen: bool | None = None
    shooter_slot: Slot | None = None  # team rooms: the partner of ``shooter`` to strike


@dataclass(frozen=True, slots=True, kw_only=True)
class Call(ServerMessage):
    """A referee announcement (RULES.md §10)."""

    TYPE: ClassVar[str] = "call"
    seq: Seq
    code: CallCode
    text: Text


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerStatus(ServerMessage):
    TYPE: ClassVar[str] = "player_status"
    seq: Seq
    seat: Seat
    status: SeatStatus
    grace_until_ms: TimeMs | None = None
    slot: Slot | None = None  # team rooms: which partner of the side (R-TEAM-1)


@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver(ServerMessage):
    TYPE: ClassVar[str] = "game_over"
    seq: Seq
    winner: Seat | None  # null: a draw
    reason: EndReason
    scoresheet: Scoresheet
    match_id: Positive | None = None  # for get_replay


@dataclass(frozen=True, slots=True, kw_only=True)
class ChatLine(ServerMessage):
    """``from`` on the wire (a Python keyword, hence ``sender`` here)."""

    TYPE: ClassVar[str] = "chat"
    WIRE: ClassVar[dict[str, str]] = {"sender": "from"}
    seq: Seq
    sender: Id  # the sender's name
    text: Text
    seat: Seat | None = None  # the sender's seat, null for a spectator


@dataclass(frozen=True, slots=True, kw_only=True)
class Error(ServerMessage):
    TYPE: ClassVar[str] = "error"
    code: ErrorCode
    message: Text
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Audience(ServerMessage):
    """How many watch the room now, to everyone in it, at most once a second while it changes.
    Not a numbered broadcast (no ``seq``): a client that does not know it loses nothing."""

    TYPE: ClassVar[str] = "audience"
    room_id: RoomId
    spectators: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class Pong(ServerMessage):
    TYPE: ClassVar[str] = "pong"
    server_time_ms: TimeMs
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Matches(ServerMessage):
    TYPE: ClassVar[str] = "matches"
    matches: tuple[MatchRow, ...]
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Replay(ServerMessage):
    TYPE: ClassVar[str] = "replay"
    match_id: Positive
    room: ReplayRoom
    strokes: tuple[ReplayStroke, ...]
    finished: bool
    scoresheet: Scoresheet | None = None
    next_after: Count | None = None  # more strokes follow: ask again with ``after`` = this
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Closing(ServerMessage):
    """The server is shutting down; the room is saved. Reconnect later and ``rejoin``."""

    TYPE: ClassVar[str] = "closing"
    reason: Text  # a sentence for a person


# Accounts, ratings and quick match (docs/accounts.md) ---------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Queued(ServerMessage):
    TYPE: ClassVar[str] = "queued"
    discipline: Discipline
    rating: Rating  # the rating the queue pairs by (a guest's is the starting 1500)
    distance: Positive | None = None
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Unqueued(ServerMessage):
    TYPE: ClassVar[str] = "unqueued"
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaderboard(ServerMessage):
    TYPE: ClassVar[str] = "leaderboard"
    discipline: Discipline
    rows: Annotated[tuple[LeaderRow, ...], Length(0, 100)]
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Profile(ServerMessage):
    TYPE: ClassVar[str] = "profile"
    player_id: Id
    name: Annotated[str, Length(0, 64)]
    registered: bool
    bot: bool
    standings: Annotated[tuple[StandingRow, ...], Length(0, 100)]
    matches: Annotated[tuple[ProfileMatch, ...], Length(0, 100)]
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rated(ServerMessage):
    """After a rated match: the receiver's own rating change."""

    TYPE: ClassVar[str] = "rated"
    match_id: Positive
    discipline: Discipline
    before: Rating
    after: Rating
    deviation: Rating


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
)


def error(code: ErrorCode, message: str, re: int | None = None) -> Error:
    return Error(code=code, message=message, re=re)
