"""Tournament messages (docs/protocol.md "Tournaments", docs/tournaments.md), both directions.

Additive to protocol v1: an older client never sends them and never receives them unasked,
except ``tournament_table``, which only a player registered in an event receives (a client that
does not know it ignores an unknown ``t``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.fields import (
    check_choice,
    check_int,
    check_opt_int,
    check_opt_str,
    check_str,
    check_text,
)
from shared.protocol.typed import View

FORMATS: Final = ("knockout", "round_robin", "swiss")
STATES: Final = ("registration", "running", "finished", "cancelled")
MATCH_STATES: Final = ("waiting", "open", "done")
TOURNAMENT_NAME_MAX: Final = 60
ID_MAX: Final = 32
PLAYERS_MAX: Final = 256
TIME_MAX: Final = 2**53 - 1


def _re(value: object) -> None:
    check_opt_int("re", value)


# Client to server --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreate(ClientMessage):
    """An organizer's new event (times are server milliseconds, as ``server_time_ms``)."""

    TYPE: ClassVar[str] = "tournament_create"
    name: str
    discipline: str
    distance: int
    format: str
    capacity: int
    registration_closes_ms: int
    starts_ms: int
    no_show_s: int | None = None  # default 300
    innings_limit: int | None = None
    rounds: int | None = None  # Swiss only
    groups: int | None = None  # round robin only (default 1)

    def _validate(self) -> None:
        check_text("name", self.name, TOURNAMENT_NAME_MAX, 1)
        check_str("discipline", self.discipline, 32, 1)
        check_int("distance", self.distance, 1, 10_000)
        check_choice("format", self.format, FORMATS)
        check_int("capacity", self.capacity, 2, PLAYERS_MAX)
        check_int("registration_closes_ms", self.registration_closes_ms, 0, TIME_MAX)
        check_int("starts_ms", self.starts_ms, 0, TIME_MAX)
        check_opt_int("no_show_s", self.no_show_s, 1, 3600)
        check_opt_int("innings_limit", self.innings_limit, 1, 10_000)
        check_opt_int("rounds", self.rounds, 1, 20)
        check_opt_int("groups", self.groups, 1, 32)


@dataclass(frozen=True, slots=True, kw_only=True)
class _ById(ClientMessage):
    tournament_id: str

    def _validate(self) -> None:
        check_str("tournament_id", self.tournament_id, ID_MAX, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRegister(_ById):
    TYPE: ClassVar[str] = "tournament_register"


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentUnregister(_ById):
    TYPE: ClassVar[str] = "tournament_unregister"


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCancel(_ById):
    """The organizer ends the event (its open tables close; no winner)."""

    TYPE: ClassVar[str] = "tournament_cancel"


@dataclass(frozen=True, slots=True, kw_only=True)
class GetTournament(_ById):
    TYPE: ClassVar[str] = "get_tournament"


@dataclass(frozen=True, slots=True, kw_only=True)
class WatchTournament(_ById):
    """A fresh ``tournament`` now and whenever it changes, until ``unwatch_tournament``."""

    TYPE: ClassVar[str] = "watch_tournament"


@dataclass(frozen=True, slots=True, kw_only=True)
class UnwatchTournament(_ById):
    TYPE: ClassVar[str] = "unwatch_tournament"


@dataclass(frozen=True, slots=True, kw_only=True)
class ListTournaments(ClientMessage):
    TYPE: ClassVar[str] = "list_tournaments"


TOURNAMENT_CLIENT_MESSAGES: Final[tuple[type[ClientMessage], ...]] = (
    TournamentCreate,
    TournamentRegister,
    TournamentUnregister,
    TournamentCancel,
    ListTournaments,
    GetTournament,
    WatchTournament,
    UnwatchTournament,
)

# Views --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentOptionsView(View):
    name: str
    discipline: str
    distance: int
    format: str
    capacity: int
    registration_closes_ms: int
    starts_ms: int
    no_show_s: int
    innings_limit: int | None = None
    rounds: int | None = None
    groups: int | None = None

    def _validate(self) -> None:
        check_choice("format", self.format, FORMATS)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentSummary(View):
    """One ``tournaments`` row."""

    tournament_id: str
    options: TournamentOptionsView
    state: str
    players: int  # registered
    winner: str | None = None  # a name

    def _validate(self) -> None:
        check_choice("state", self.state, STATES)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentPlayer(View):
    player_id: str
    name: str
    seed: int | None = None  # set by the draw (1 = best)
    rating: float | None = None  # what the seed was drawn from


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentScore(View):
    points: int
    innings: int
    high_run: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentMatch(View):
    """``players`` by bracket place (ids; one for a bye); ``winner`` a player id (null with a
    ``reason``: both lost, or a draw)."""

    players: tuple[str, ...]
    state: str
    group: int | None = None
    room_id: str | None = None  # watch it with spectate
    match_id: int | None = None  # its replay once played
    score: tuple[TournamentScore | None, ...] | None = None  # by ``players``
    winner: str | None = None
    reason: str | None = None

    def _validate(self) -> None:
        check_choice("state", self.state, MATCH_STATES)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRound(View):
    round: int  # 1, 2, …
    matches: tuple[TournamentMatch, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLine(View):
    """One line of a group's or a Swiss table (in the table's order)."""

    player_id: str
    name: str
    played: int
    won: int
    drawn: int
    lost: int
    match_points: int
    points: int
    innings: int
    average: float  # the general average: points over innings
    high_run: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingsTable(View):
    group: int | None  # round robin: the group (0-based); Swiss: null
    lines: tuple[TableLine, ...]


# Server to client --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreated(ServerMessage):
    TYPE: ClassVar[str] = "tournament_created"
    tournament_id: str
    re: int | None = None

    def _validate(self) -> None:
        check_str("tournament_id", self.tournament_id, ID_MAX, 1)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRegistered(ServerMessage):
    """The answer to ``tournament_register`` (``registered`` true) and ``_unregister`` (false)."""

    TYPE: ClassVar[str] = "tournament_registered"
    tournament_id: str
    registered: bool
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Tournaments(ServerMessage):
    TYPE: ClassVar[str] = "tournaments"
    tournaments: tuple[TournamentSummary, ...]
    re: int | None = None

    def _validate(self) -> None:
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo(ServerMessage):
    """``tournament``: the whole event (the answer to ``get_tournament``, and to watchers on
    every change). ``rounds`` lists the rounds drawn so far."""

    TYPE: ClassVar[str] = "tournament"
    tournament_id: str
    options: TournamentOptionsView
    organizer: str  # a name
    state: str
    version: int  # grows with every change
    players: tuple[TournamentPlayer, ...]
    rounds: tuple[TournamentRound, ...]
    standings: tuple[StandingsTable, ...]
    winner: str | None = None  # a player id
    re: int | None = None

    def _validate(self) -> None:
        check_choice("state", self.state, STATES)
        _re(self.re)


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentTable(ServerMessage):
    """Unasked, to a player of an event: your table is open (``room_id``) against ``opponent``;
    the server seats you there (``joined`` follows) as soon as you are free."""

    TYPE: ClassVar[str] = "tournament_table"
    tournament_id: str
    round: int  # 1, 2, …
    room_id: str
    opponent: str  # a name
    no_show_ms: int  # take the seat before then (server time) or lose by no_show

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        check_opt_str("opponent", self.opponent, 64)


TOURNAMENT_SERVER_MESSAGES: Final[tuple[type[ServerMessage], ...]] = (
    TournamentCreated,
    TournamentRegistered,
    Tournaments,
    TournamentInfo,
    TournamentTable,
)
