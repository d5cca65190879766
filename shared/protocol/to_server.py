"""Client-to-server messages (PROTOCOL.md "Client to server"), one class per ``t``.

Each field's type carries its bounds (``shared.protocol.bounds``): the decoder checks them as it
reads a frame, with the field's name in the error. A room option's bounds are its row of the
options table (``shared.options``). ``_validate`` keeps what spans several fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from shared.options import BY_NAME
from shared.protocol.base import ClientMessage
from shared.protocol.bounds import Known, Length, Option, Range, Visible
from shared.protocol.enums import BallName, Breaker, Discipline
from shared.protocol.errors import BadField
from shared.protocol.views import BALL_NAMES as BALL_NAMES  # read here by callers
from shared.protocol.views import CueParams

PROTOCOL_VERSION: Final = 1

# Wire names of the disciplines (equal to shared.rules.Discipline values; a test checks it).
DISCIPLINES: Final = tuple(d.value for d in Discipline)

NAME_MAX: Final = 32  # characters in a player name
TOKEN_MAX: Final = 64  # identity and seat tokens
ROOM_ID_MAX: Final = 32
PASSWORD_MAX: Final = 64
CHAT_MAX: Final = 200  # PROTOCOL.md: chat text <= 200 chars

Name = Annotated[str, Length(1, NAME_MAX), Visible()]  # a name a person reads
Token = Annotated[str, Length(1, TOKEN_MAX)]
RoomId = Annotated[str, Length(1, ROOM_ID_MAX)]
Password = Annotated[str, Length(1, PASSWORD_MAX)]
KnownDiscipline = Annotated[Discipline, Known()]  # a client asks only for one the server has
Coord = Annotated[float, Range(-10.0, 10.0)]  # m, a generous bound on a table position


def _option(name: str) -> Option:
    """The bounds of room option ``name``: its row of the options table."""
    return Option(BY_NAME[name])


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(ClientMessage):
    TYPE: ClassVar[str] = "hello"
    v: Annotated[int, Range(0, 1000)]
    name: Name
    token: Token | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ListRooms(ClientMessage):
    TYPE: ClassVar[str] = "list_rooms"


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRoom(ClientMessage):
    """A new room. Options left out take the referee's defaults (RULES.md)."""

    TYPE: ClassVar[str] = "create_room"
    discipline: KnownDiscipline
    # The options: each one's bounds are its row of shared.options.ROOM_OPTIONS.
    distance: Annotated[int, _option("distance")] | None = None  # R-END-1
    shot_clock_s: Annotated[int, _option("shot_clock_s")] | None = None  # R-CLOCK-1, s
    innings_limit: Annotated[int, _option("innings_limit")] | None = None  # R-END-3
    sets: Annotated[int, _option("sets")] | None = None  # R-END-4, best of N
    equalizing: Annotated[bool, _option("equalizing")] | None = None  # R-END-2
    timeout_s: Annotated[int, _option("timeout_s")] | None = None  # R-TIMEOUT-1 length, s
    grace_s: Annotated[int, _option("grace_s")] | None = None  # R-END-5 reconnection grace, s
    table: Annotated[str, _option("table")] | None = None  # shared.table.TABLES key
    private: bool | None = None
    password: Password | None = None
    practice: Annotated[bool, _option("practice")] | None = None  # one player, ``place``
    # m, R-DISC-FREE corner zones' legs; the referee checks it against the table (≤ half width)
    corner_zone_leg: Annotated[float, _option("corner_zone_leg")] | None = None
    # R-TEAM-1: "singles" (default), "doubles" or "scotch"; a team room has two players a side
    team_mode: Annotated[str, _option("team_mode")] | None = None

    def _validate(self) -> None:
        if self.password is not None and not self.private:
            raise BadField("password needs private: true", field="password")


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(ClientMessage):
    TYPE: ClassVar[str] = "join"
    room_id: RoomId
    password: Password | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectate(ClientMessage):
    TYPE: ClassVar[str] = "spectate"
    room_id: RoomId
    password: Password | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejoin(ClientMessage):
    TYPE: ClassVar[str] = "rejoin"
    room_id: RoomId
    seat_token: Token


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(ClientMessage):
    TYPE: ClassVar[str] = "leave"


@dataclass(frozen=True, slots=True, kw_only=True)
class Stroke(ClientMessage):
    """A stroke: its cue parameters and, on a break, the starting spot (R-BREAK-1), in one
    :class:`CueParams` whose keys sit in the message's own map (v1's flat form)."""

    TYPE: ClassVar[str] = "stroke"
    FLAT: ClassVar[frozenset[str]] = frozenset({"cue"})
    cue: CueParams


@dataclass(frozen=True, slots=True, kw_only=True)
class ChooseBreak(ClientMessage):
    TYPE: ClassVar[str] = "choose_break"
    breaker: Breaker


@dataclass(frozen=True, slots=True, kw_only=True)
class Respot(ClientMessage):
    TYPE: ClassVar[str] = "respot"


@dataclass(frozen=True, slots=True, kw_only=True)
class Place(ClientMessage):
    """Practice only: put some balls anywhere on the table (the room checks the table)."""

    TYPE: ClassVar[str] = "place"
    balls: Annotated[dict[BallName, tuple[Coord, Coord]], Length(1, len(BALL_NAMES))]


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeOut(ClientMessage):
    TYPE: ClassVar[str] = "timeout"


@dataclass(frozen=True, slots=True, kw_only=True)
class Resume(ClientMessage):
    TYPE: ClassVar[str] = "resume"


@dataclass(frozen=True, slots=True, kw_only=True)
class Concede(ClientMessage):
    TYPE: ClassVar[str] = "concede"


@dataclass(frozen=True, slots=True, kw_only=True)
class Rematch(ClientMessage):
    TYPE: ClassVar[str] = "rematch"


@dataclass(frozen=True, slots=True, kw_only=True)
class Chat(ClientMessage):
    TYPE: ClassVar[str] = "chat"
    text: Annotated[str, Length(1, CHAT_MAX), Visible()]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sync(ClientMessage):
    TYPE: ClassVar[str] = "sync"


@dataclass(frozen=True, slots=True, kw_only=True)
class Ping(ClientMessage):
    TYPE: ClassVar[str] = "ping"


@dataclass(frozen=True, slots=True, kw_only=True)
class ListMatches(ClientMessage):
    """Finished matches, newest first (for the replay browser)."""

    TYPE: ClassVar[str] = "list_matches"
    limit: Annotated[int, Range(1, 100)] | None = None  # default 20
    player_id: Token | None = None  # only matches this player played
    before: Annotated[int, Range(1)] | None = None  # only matches finished before this match_id


@dataclass(frozen=True, slots=True, kw_only=True)
class GetReplay(ClientMessage):
    """Every stroke of one match (finished or not), with the results the server decided."""

    TYPE: ClassVar[str] = "get_replay"
    match_id: Annotated[int, Range(1)]
    # only strokes numbered above this (paging; see replay.next_after)
    after: Annotated[int, Range(0)] | None = None
    limit: Annotated[int, Range(1, 500)] | None = None  # at most this many strokes


# Accounts, ratings and quick match (docs/accounts.md) ---------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(ClientMessage):
    """Claim a name for this identity with a password (after ``hello``)."""

    TYPE: ClassVar[str] = "register"
    name: Name
    password: Password
    bot: bool | None = None  # a bot's account: never rated, never paired with humans in rated play


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(ClientMessage):
    TYPE: ClassVar[str] = "login"
    name: Name
    password: Password


@dataclass(frozen=True, slots=True, kw_only=True)
class Queue(ClientMessage):
    """Quick match: wait for an opponent of about one's rating in this discipline."""

    TYPE: ClassVar[str] = "queue"
    discipline: KnownDiscipline
    distance: Annotated[int, _option("distance")] | None = None
    level: Annotated[int, Range(1, 5)] | None = None  # a bot account's level: its strength
    # R-TEAM-1: "doubles" or "scotch" waits for four players, made into two even sides
    team_mode: Annotated[str, _option("team_mode")] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Unqueue(ClientMessage):
    TYPE: ClassVar[str] = "unqueue"


@dataclass(frozen=True, slots=True, kw_only=True)
class GetLeaderboard(ClientMessage):
    TYPE: ClassVar[str] = "leaderboard"
    discipline: KnownDiscipline
    limit: Annotated[int, Range(1, 100)] | None = None  # default 20
    offset: Annotated[int, Range(0, 10_000_000)] | None = None
    # R-TEAM-1: the doubles or Scotch doubles standing of the discipline (default: singles)
    team_mode: Annotated[str, _option("team_mode")] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class GetProfile(ClientMessage):
    TYPE: ClassVar[str] = "profile"
    player_id: Token


CLIENT_MESSAGES: Final[tuple[type[ClientMessage], ...]] = (
    Hello,
    ListRooms,
    CreateRoom,
    Join,
    Spectate,
    Rejoin,
    Leave,
    Stroke,
    ChooseBreak,
    Respot,
    Place,
    TimeOut,
    Resume,
    Concede,
    Rematch,
    Chat,
    Sync,
    Ping,
    ListMatches,
    GetReplay,
    Register,
    Login,
    Queue,
    Unqueue,
    GetLeaderboard,
    GetProfile,
)
