"""Client-to-server messages (PROTOCOL.md "Client to server"), one class per ``t``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from shared.options import WIRE_OPTIONS
from shared.protocol.base import ClientMessage
from shared.protocol.errors import BadField
from shared.protocol.fields import (
    check_choice,
    check_int,
    check_opt_bool,
    check_opt_int,
    check_opt_str,
    check_point,
    check_str,
    check_text,
)
from shared.protocol.tournament import TOURNAMENT_CLIENT_MESSAGES
from shared.protocol.views import BALL_NAMES, CueParams

PROTOCOL_VERSION: Final = 1

# Wire names of the disciplines (equal to shared.rules.Discipline values; a test checks it).
DISCIPLINES: Final = (
    "three_cushion",
    "one_cushion",
    "straight_rail",
    "balkline_47_2",
    "balkline_47_1",
    "balkline_71_2",
    "balkline_71_1",
)

NAME_MAX: Final = 32  # characters in a player name
TOKEN_MAX: Final = 64  # identity and seat tokens
ROOM_ID_MAX: Final = 32
PASSWORD_MAX: Final = 64
CHAT_MAX: Final = 200  # PROTOCOL.md: chat text <= 200 chars
TABLE_NAME_MAX: Final = 16


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(ClientMessage):
    TYPE: ClassVar[str] = "hello"
    v: int
    name: str
    token: str | None = None

    def _validate(self) -> None:
        check_int("v", self.v, 0, 1000)
        check_text("name", self.name, NAME_MAX, 1)
        check_opt_str("token", self.token, TOKEN_MAX, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class ListRooms(ClientMessage):
    TYPE: ClassVar[str] = "list_rooms"


def check_options(msg: object) -> None:
    """Each room option that ``msg`` carries, against the one options table (shared/options.py):
    the wire refuses exactly what the referee would."""
    for option in WIRE_OPTIONS:
        value = getattr(msg, option.name)
        if value is not None and (why := option.problem(value)) is not None:
            raise BadField(why, field=option.name)


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRoom(ClientMessage):
    """A new room. Options left out take the referee's defaults (RULES.md)."""

    TYPE: ClassVar[str] = "create_room"
    discipline: str
    distance: int | None = None  # points to win a game (R-END-1)
    shot_clock_s: int | None = None  # R-CLOCK-1, whole seconds, default 30
    innings_limit: int | None = None  # R-END-3
    sets: int | None = None  # R-END-4, best of N
    equalizing: bool | None = None  # R-END-2
    timeout_s: int | None = None  # R-TIMEOUT-1 length, whole seconds, default 60
    grace_s: int | None = None  # R-END-5 reconnection grace, whole seconds, default 60
    table: str | None = None  # shared.table.TABLES key, default "match"
    private: bool | None = None
    password: str | None = None
    practice: bool | None = None  # one player, no lag, ``place`` allowed
    # m, R-DISC-FREE corner zones' legs; the referee checks it against the table (≤ half width)
    corner_zone_leg: float | None = None

    def _validate(self) -> None:
        check_choice("discipline", self.discipline, DISCIPLINES)
        check_options(self)
        check_opt_bool("private", self.private)
        check_opt_str("password", self.password, PASSWORD_MAX, 1)
        if self.password is not None and not self.private:
            raise BadField("password needs private: true", field="password")


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(ClientMessage):
    TYPE: ClassVar[str] = "join"
    room_id: str
    password: str | None = None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, ROOM_ID_MAX, 1)
        check_opt_str("password", self.password, PASSWORD_MAX, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Spectate(ClientMessage):
    TYPE: ClassVar[str] = "spectate"
    room_id: str
    password: str | None = None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, ROOM_ID_MAX, 1)
        check_opt_str("password", self.password, PASSWORD_MAX, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rejoin(ClientMessage):
    TYPE: ClassVar[str] = "rejoin"
    room_id: str
    seat_token: str

    def _validate(self) -> None:
        check_str("room_id", self.room_id, ROOM_ID_MAX, 1)
        check_str("seat_token", self.seat_token, TOKEN_MAX, 1)


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

    def _validate(self) -> None:
        if not isinstance(self.cue, CueParams):
            raise BadField("cue must be cue parameters", field="cue")


@dataclass(frozen=True, slots=True, kw_only=True)
class ChooseBreak(ClientMessage):
    TYPE: ClassVar[str] = "choose_break"
    breaker: str  # "me" / "opponent"

    def _validate(self) -> None:
        check_choice("breaker", self.breaker, ("me", "opponent"))


@dataclass(frozen=True, slots=True, kw_only=True)
class Respot(ClientMessage):
    TYPE: ClassVar[str] = "respot"


@dataclass(frozen=True, slots=True, kw_only=True)
class Place(ClientMessage):
    """Practice only: put some balls anywhere on the table (the room checks the table)."""

    TYPE: ClassVar[str] = "place"
    balls: dict[str, tuple[float, float]]

    def _validate(self) -> None:
        if not isinstance(self.balls, dict) or not self.balls:
            raise BadField("balls must be a non-empty map of ball name to [x, y]", field="balls")
        clean: dict[str, tuple[float, float]] = {}
        for name, pos in self.balls.items():
            check_choice("balls key", name, BALL_NAMES)
            clean[name] = check_point(f"balls.{name}", pos)
        object.__setattr__(self, "balls", clean)


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
    text: str

    def _validate(self) -> None:
        check_text("text", self.text, CHAT_MAX, 1)


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
    limit: int | None = None  # 1..100, default 20
    player_id: str | None = None  # only matches this player played
    before: int | None = None  # only matches finished before this match_id (paging)

    def _validate(self) -> None:
        check_opt_int("limit", self.limit, 1, 100)
        check_opt_str("player_id", self.player_id, TOKEN_MAX, 1)
        check_opt_int("before", self.before, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class GetReplay(ClientMessage):
    """Every stroke of one match (finished or not), with the results the server decided."""

    TYPE: ClassVar[str] = "get_replay"
    match_id: int
    after: int | None = None  # only strokes numbered above this (paging; see replay.next_after)
    limit: int | None = None  # at most this many strokes (1..500)

    def _validate(self) -> None:
        check_int("match_id", self.match_id, 1)
        check_opt_int("after", self.after, 0)
        check_opt_int("limit", self.limit, 1, 500)


# Accounts, ratings and quick match (docs/accounts.md) ---------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Register(ClientMessage):
    """Claim a name for this identity with a password (after ``hello``)."""

    TYPE: ClassVar[str] = "register"
    name: str
    password: str
    bot: bool | None = None  # a bot's account: never rated, never paired with humans in rated play

    def _validate(self) -> None:
        check_text("name", self.name, NAME_MAX, 1)
        check_str("password", self.password, PASSWORD_MAX, 1)
        check_opt_bool("bot", self.bot)


@dataclass(frozen=True, slots=True, kw_only=True)
class Login(ClientMessage):
    TYPE: ClassVar[str] = "login"
    name: str
    password: str

    def _validate(self) -> None:
        check_text("name", self.name, NAME_MAX, 1)
        check_str("password", self.password, PASSWORD_MAX, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class Queue(ClientMessage):
    """Quick match: wait for an opponent of about one's rating in this discipline."""

    TYPE: ClassVar[str] = "queue"
    discipline: str
    distance: int | None = None
    level: int | None = None  # a bot account's level 1–5: its strength when offered to players

    def _validate(self) -> None:
        check_choice("discipline", self.discipline, DISCIPLINES)
        check_opt_int("distance", self.distance, 1, 10_000)
        check_opt_int("level", self.level, 1, 5)


@dataclass(frozen=True, slots=True, kw_only=True)
class Unqueue(ClientMessage):
    TYPE: ClassVar[str] = "unqueue"


@dataclass(frozen=True, slots=True, kw_only=True)
class GetLeaderboard(ClientMessage):
    TYPE: ClassVar[str] = "leaderboard"
    discipline: str
    limit: int | None = None  # 1..100, default 20
    offset: int | None = None

    def _validate(self) -> None:
        check_choice("discipline", self.discipline, DISCIPLINES)
        check_opt_int("limit", self.limit, 1, 100)
        check_opt_int("offset", self.offset, 0, 10_000_000)


@dataclass(frozen=True, slots=True, kw_only=True)
class GetProfile(ClientMessage):
    TYPE: ClassVar[str] = "profile"
    player_id: str

    def _validate(self) -> None:
        check_str("player_id", self.player_id, TOKEN_MAX, 1)


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
    *TOURNAMENT_CLIENT_MESSAGES,  # shared/protocol/tournament.py
)
