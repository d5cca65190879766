"""Tournament messages (docs/protocol.md "Tournaments", docs/tournaments.md), both directions.

Additive to protocol v1: an older client never sends them and never receives them unasked,
except ``tournament_table``, which only a player registered in an event receives (a client that
does not know it ignores an unknown ``t``). Bounds are in the fields' types
(``shared.protocol.bounds``), words are enums (``TournamentFormat`` is closed: a client asks
only for one the server has; the states are open, so a newer server may add one).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar, Final

from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.bounds import Count, Known, Length, Positive, Range, TimeMs, Visible
from shared.protocol.enums import Discipline, EndReason, OpenEnum
from shared.protocol.typed import View

TOURNAMENT_NAME_MAX: Final = 60
ID_MAX: Final = 32
PLAYERS_MAX: Final = 256


class TournamentFormat(OpenEnum):
    KNOCKOUT = "knockout"
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"


class TournamentState(OpenEnum):
    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class TableState(OpenEnum):
    """A tournament match's: its players known, its table open, or decided."""

    WAITING = "waiting"
    OPEN = "open"
    DONE = "done"


FORMATS: Final = tuple(f.value for f in TournamentFormat)
STATES: Final = tuple(s.value for s in TournamentState)
MATCH_STATES: Final = tuple(s.value for s in TableState)

TournamentName = Annotated[str, Length(1, TOURNAMENT_NAME_MAX), Visible()]
TournamentId = Annotated[str, Length(1, ID_MAX)]


# Client to server --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreate(ClientMessage):
    """An organizer's new event (times are server milliseconds, as ``server_time_ms``)."""

    TYPE: ClassVar[str] = "tournament_create"
    name: TournamentName
    discipline: Annotated[Discipline, Known()]
    distance: Annotated[int, Range(1, 10_000)]
    format: Annotated[TournamentFormat, Known()]
    capacity: Annotated[int, Range(2, PLAYERS_MAX)]
    registration_closes_ms: TimeMs
    starts_ms: TimeMs
    no_show_s: Annotated[int, Range(1, 3600)] | None = None  # default 300
    innings_limit: Annotated[int, Range(1, 10_000)] | None = None
    rounds: Annotated[int, Range(1, 20)] | None = None  # Swiss only
    groups: Annotated[int, Range(1, 32)] | None = None  # round robin only (default 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class _ById(ClientMessage):
    tournament_id: TournamentId


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
    discipline: Discipline
    distance: Positive
    format: TournamentFormat
    capacity: Positive
    registration_closes_ms: TimeMs
    starts_ms: TimeMs
    no_show_s: Positive
    innings_limit: Positive | None = None
    rounds: Positive | None = None
    groups: Positive | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentSummary(View):
    """One ``tournaments`` row."""

    tournament_id: str
    options: TournamentOptionsView
    state: TournamentState
    players: Count  # registered
    winner: str | None = None  # a name


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentPlayer(View):
    player_id: str
    name: str
    seed: Positive | None = None  # set by the draw (1 = best)
    rating: float | None = None  # what the seed was drawn from


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentScore(View):
    points: Count
    innings: Count
    high_run: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentMatch(View):
    """``players`` by bracket place (ids; one for a bye); ``winner`` a player id (null with a
    ``reason``: both lost, or a draw)."""

    players: tuple[str, ...]
    state: TableState
    group: Count | None = None
    room_id: str | None = None  # watch it with spectate
    match_id: Positive | None = None  # its replay once played
    score: tuple[TournamentScore | None, ...] | None = None  # by ``players``
    winner: str | None = None
    reason: EndReason | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentRound(View):
    round: Positive  # 1, 2, …
    matches: tuple[TournamentMatch, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLine(View):
    """One line of a group's or a Swiss table (in the table's order)."""

    player_id: str
    name: str
    played: Count
    won: Count
    drawn: Count
    lost: Count
    match_points: Count
    points: Count
    innings: Count
    average: Annotated[float, Range(0.0)]  # the general average: points over innings
    high_run: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingsTable(View):
    group: Count | None  # round robin: the group (0-based); Swiss: null
    lines: tuple[TableLine, ...]


# Server to client --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentCreated(ServerMessage):
    TYPE: ClassVar[str] = "tournament_created"
    tournament_id: str
    re: int | None = None


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


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentInfo(ServerMessage):
    """``tournament``: the whole event (the answer to ``get_tournament``, and to watchers on
    every change). ``rounds`` lists the rounds drawn so far."""

    TYPE: ClassVar[str] = "tournament"
    tournament_id: str
    options: TournamentOptionsView
    organizer: str  # a name
    state: TournamentState
    version: Count  # grows with every change
    players: tuple[TournamentPlayer, ...]
    rounds: tuple[TournamentRound, ...]
    standings: tuple[StandingsTable, ...]
    winner: str | None = None  # a player id
    re: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentTable(ServerMessage):
    """Unasked, to a player of an event: your table is open (``room_id``) against ``opponent``;
    the server seats you there (``joined`` follows) as soon as you are free."""

    TYPE: ClassVar[str] = "tournament_table"
    tournament_id: str
    round: Positive  # 1, 2, …
    room_id: str
    opponent: str  # a name
    no_show_ms: TimeMs  # take the seat before then (server time) or lose by no_show


TOURNAMENT_SERVER_MESSAGES: Final[tuple[type[ServerMessage], ...]] = (
    TournamentCreated,
    TournamentRegistered,
    Tournaments,
    TournamentInfo,
    TournamentTable,
)
