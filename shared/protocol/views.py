"""The nested objects of protocol v1, typed: what ``match``, ``room``, ``result`` … carry.

Each is a frozen :class:`~shared.protocol.typed.View` with ``to_wire`` / ``from_wire``; the wire
form is exactly the v1 map docs/protocol.md describes field by field (same keys, same shapes), so
clients and bots already deployed keep working. The server builds them from the referee's state
(``shared.wireviews.match_view``), clients decode each message once and read attributes.

Words are typed (``shared.protocol.enums``): phases, disciplines, reasons, call codes and event
kinds a newer server may extend are open enums, so an older client does not reject a newer
server's frame for a word it does not know (the member keeps the word, ``known`` is False).
Ball names, cushions and seats are structural and checked exactly. Bounds sit in the field types
(``shared.protocol.bounds``); a view's ``_validate`` keeps only checks across fields.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Self

from shared.physics.types import MAX_ELEVATION, MAX_SPEED, MISCUE_LIMIT
from shared.protocol.bounds import Count, Length, Positive, Range, Seat, Slot, TimeMs
from shared.protocol.enums import SPOTS as SPOTS  # the break spots, read here by callers
from shared.protocol.enums import (
    BallName,
    CallCode,
    CushionName,
    Discipline,
    EndReason,
    EventKind,
    FoulCode,
    LagReason,
    MatchOutcome,
    Phase,
    ReplayKind,
    SeatKey,
    Spot,
)
from shared.protocol.errors import BadField
from shared.protocol.typed import View, Wire, build, decode_value, decoded, decoder
from shared.seats import ball_of

if TYPE_CHECKING:
    from shared.physics.types import Segment
    from shared.physics.types import Stroke as PhysicsStroke
    from shared.protocol.to_client import LagResult, StrokePlayed

BALL_NAMES: Final[tuple[BallName, ...]] = ("white", "yellow", "red")

Point2 = tuple[float, float]
RoomId = Annotated[str, Length(1, 32)]


# The stroke ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CueParams(View):
    """A stroke's cue parameters (PHYSICS.md "What a stroke is"), the one form a stroke has from
    the aim line to the physics: five numbers, limits from ``shared.physics``, and ``spot``
    (R-BREAK-1: the breaker's starting spot, break only)."""

    direction: Annotated[float, Range(0.0, 360.0, hi_open=True)]  # degrees
    speed: Annotated[float, Range(0.0, MAX_SPEED, lo_open=True)]  # m/s
    tip_x: Annotated[float, Range(-MISCUE_LIMIT, MISCUE_LIMIT)] = 0.0  # ball radii, > 0 right
    tip_y: Annotated[float, Range(-MISCUE_LIMIT, MISCUE_LIMIT)] = 0.0  # > 0 follow, < 0 draw
    elevation: Annotated[float, Range(0.0, MAX_ELEVATION)] = 0.0  # degrees
    spot: Spot | None = None

    def _validate(self) -> None:
        if math.hypot(self.tip_x, self.tip_y) > MISCUE_LIMIT + 1e-12:
            raise BadField(
                f"hypot(tip_x, tip_y) must be at most {MISCUE_LIMIT} ball radii (miscue limit)",
                field="tip_x",
            )

    def physics(self) -> PhysicsStroke:
        """The physics engine's stroke (the same five numbers)."""
        from shared.physics.types import Stroke

        return Stroke(
            float(self.direction),
            float(self.speed),
            float(self.tip_x),
            float(self.tip_y),
            float(self.elevation),
        )

    @classmethod
    def of(cls, stroke: PhysicsStroke, spot: Spot | None = None) -> Self:
        return cls(
            direction=stroke.direction,
            speed=stroke.speed,
            tip_x=stroke.tip_x,
            tip_y=stroke.tip_y,
            elevation=stroke.elevation,
            spot=spot,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayedStroke(View):
    """``stroke_played.stroke``: the cue parameters as played, ``spot`` (always sent, null
    outside a break) and the ``ball`` struck."""

    FLAT: ClassVar[frozenset[str]] = frozenset({"cue"})
    cue: CueParams
    ball: BallName

    def to_wire(self) -> dict[str, Wire]:
        out = self.cue.to_wire()
        out.setdefault("spot", None)
        out["ball"] = self.ball
        return out


@dataclass(frozen=True, slots=True)
class Trajectory:
    """``trajectory``: ball name → flat list, 16 numbers per segment (docs/protocol.md).
    Decode it into segments with ``shared.physics.decode_trajectory``."""

    paths: Mapping[BallName, tuple[float, ...]]

    def __post_init__(self) -> None:
        # The structure only: the numbers are checked when a frame is decoded (the server's own
        # come from the physics encoder, and re-checking thousands per stroke on the event loop
        # would buy nothing).
        for ball in self.paths:
            _BALL(ball, "trajectory key")
        for ball, flat in self.paths.items():
            if len(flat) % 16:
                raise BadField(
                    f"trajectory.{ball} must hold 16 numbers per segment, got {len(flat)}",
                    field=f"trajectory.{ball}",
                )

    def to_wire(self) -> dict[str, Wire]:
        return {b: list(flat) for b, flat in self.paths.items()}

    def segments(self) -> dict[BallName, tuple[Segment, ...]]:
        """Each ball's motion segments (``shared.physics.decode_trajectory``); ValueError on a
        malformed path."""
        from shared.physics.trajectory import decode_trajectory

        return decode_trajectory(self.paths)

    @classmethod
    def from_wire(cls, obj: object, path: str = "trajectory") -> Trajectory:
        if not isinstance(obj, Mapping):
            raise BadField(f"{path} must be a map, got {type(obj).__name__}", field=path)
        paths: dict[BallName, tuple[float, ...]] = {}
        for ball, flat in obj.items():
            where = f"{path}.{ball}"
            _BALL(ball, f"{path} key")
            if not isinstance(flat, list | tuple):
                raise BadField(f"{where} must be a list, got {type(flat).__name__}", field=where)
            for i, x in enumerate(flat):
                if type(x) is float:
                    if not math.isfinite(x):
                        raise BadField(f"{where}[{i}] must be finite", field=f"{where}[{i}]")
                elif type(x) is not int:
                    raise BadField(f"{where}[{i}] must be a number", field=f"{where}[{i}]")
            paths[ball] = tuple(flat)
        return build(cls, {"paths": paths}, "")


@dataclass(frozen=True, slots=True, kw_only=True)
class EventView(View):
    """One physics event: ``t`` (s since the strike), ``kind``, the ``balls`` involved, the
    ``cushion`` hit and the impact ``speeds`` (m/s) where they apply."""

    t: Annotated[float, Range(0.0)]
    kind: EventKind
    balls: tuple[BallName, ...]
    cushion: CushionName | None = None
    speeds: tuple[float, ...] | None = None


# Verdicts and scoresheets ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResult(View):
    """How a game or match ended: ``winner`` (seat, null for a draw) and ``reason``."""

    winner: Seat | None
    reason: EndReason


@dataclass(frozen=True, slots=True, kw_only=True)
class FoulView(View):
    rule_id: str
    code: FoulCode
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CallView(View):
    code: CallCode
    text: str
    rule_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StrokeResult(View):
    """``stroke_played.result``: what the referee decided about one stroke."""

    points: Annotated[int, Range(0, 1)]
    foul: FoulView | None
    calls: tuple[CallView, ...]
    respots: Mapping[BallName, Point2]
    next_shooter: Seat | None
    game_over: GameResult | None
    next_slot: Slot | None = None  # team rooms: the partner of ``next_shooter`` who strikes


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetLine(View):
    """One player's line: points, innings, general average (R-PLAY-2) and best run."""

    points: Count
    innings: Count
    average: Annotated[float, Range(0.0)]
    high_run: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetPlayer(View):
    """A team room's player's own figures (R-TEAM-5): the points of their strokes and the
    side's innings in which they struck. Sides keep their ``lines``."""

    seat: Seat  # the side
    slot: Slot  # the place in the side's line-up
    points: Count
    innings: Count
    average: Annotated[float, Range(0.0)]


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetSet(View):
    number: Positive  # 1-based
    breaker: Seat
    lines: tuple[SheetLine, SheetLine]
    result: GameResult | None
    players: tuple[SheetPlayer, ...] | None = None  # team rooms only


@dataclass(frozen=True, slots=True, kw_only=True)
class Scoresheet(View):
    """``game_over.scoresheet``: each set's lines, the match totals, sets won, the result."""

    sets: tuple[SheetSet, ...]
    match: tuple[SheetLine, SheetLine]
    sets_won: tuple[int, int]
    result: GameResult | None
    players: tuple[SheetPlayer, ...] | None = None  # team rooms only: totals per player


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchPlayer(View):
    """``match.players`` (team rooms): one player of a side's line-up in the game being
    played: their connection and grace (R-END-5), whether they are out for good (R-TEAM-7)
    and their own figures (R-TEAM-5)."""

    seat: Seat  # the side
    slot: Slot  # the place in the side's line-up
    connected: bool
    grace_until_ms: TimeMs | None
    out: bool
    points: Count
    innings: Count
    average: Annotated[float, Range(0.0)]


# The match -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class FrozenView(View):
    """R-FROZEN-1 / R-CALL-3: what the shooter's ball touches."""

    balls: tuple[BallName, ...]
    cushions: tuple[CushionName, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class LagView(View):
    """The lag (R-LAG-*): each seat's ball, whether each has played (strokes stay hidden,
    R-LAG-3), the winner and why, and how many times it was repeated."""

    balls: Mapping[SeatKey, BallName]  # seat ("0"/"1") -> ball
    played: tuple[bool, bool]
    winner: Seat | None
    reason: LagReason | None
    repeats: Count

    def ball_of(self, seat: int) -> BallName | None:
        return self.balls.get("0" if seat == 0 else "1")


@dataclass(frozen=True, slots=True, kw_only=True)
class ZoneView(View):
    """A balkline or corner zone both object balls lie in (R-ZONE-CALL)."""

    name: str
    count: Count
    armed: bool
    on_line: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchView(View):
    """``match``: the referee's state as every client sees it (``shared.wireviews.match_view``)."""

    phase: Phase
    discipline: Discipline
    distance: int
    shooter: Seat | None
    cue_ball: BallName | None
    white_seat: Seat | None  # R-LAG-7: the breaker plays white throughout
    balls: Mapping[BallName, Point2]
    score: tuple[int, int]
    innings: tuple[int, int]
    average: tuple[float, float]
    high_run: tuple[int, int]
    current_run: int
    timeouts_left: tuple[int, int]
    deadline_ms: TimeMs | None
    paused_ms: int | None
    resting_at_ms: int
    break_shot: bool
    spot_choice: bool
    equalizing: bool
    set: Count
    sets: int
    sets_won: tuple[int, int]
    connected: tuple[bool, bool]
    grace_until_ms: tuple[int | None, int | None]
    result: GameResult | None
    # Sent (possibly null) in phases play and timeout only; see to_wire.
    frozen: FrozenView | None = None
    lag: LagView | None = None
    zones: tuple[ZoneView, ...] | None = None
    # Team rooms only (R-TEAM-1): the shooting side's partner who strikes, and every player.
    shooter_slot: Slot | None = None
    players: tuple[MatchPlayer, ...] | None = None

    FROZEN_PHASES: ClassVar[frozenset[Phase]] = frozenset({Phase.PLAY, Phase.TIMEOUT})

    def to_wire(self) -> dict[str, Wire]:
        out = View.to_wire(self)
        if self.phase in self.FROZEN_PHASES and self.shooter is not None:
            out["frozen"] = None if self.frozen is None else self.frozen.to_wire()
        return out

    def ball_of(self, seat: int) -> BallName:
        """R-LAG-7: the ball ``seat`` plays (:func:`ball_of`)."""
        return ball_of(self.white_seat, seat)

    def position(self, ball: BallName) -> Point2 | None:
        return self.balls.get(ball)


# Rooms -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomSummary(View):
    """One entry of ``rooms`` (and the first fields of ``snapshot.room``)."""

    room_id: RoomId
    discipline: Discipline
    distance: int
    players: tuple[str | None, ...]  # the name in each seat
    spectators: Count
    phase: Phase
    private: bool
    practice: bool
    # The live score, points per seat in the game (set) being played; None (left out of the
    # map) while no match has started. Optional: v1 clients ignore it, older servers omit it.
    # At most one entry per seat.
    score: Annotated[tuple[Count, ...], Length(0, 2)] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomOptions(View):
    """``room.options``: every option in force (the referee's defaults filled in)."""

    discipline: Discipline
    distance: int
    shot_clock_s: int
    innings_limit: int | None
    sets: int
    equalizing: bool  # whether the equalizing inning is played (R-END-2)
    timeout_s: int
    grace_s: int
    table: str
    practice: bool
    corner_zone_leg: float  # m, R-DISC-FREE, in force on this table
    team_mode: str = "singles"  # R-TEAM-1: "singles", "doubles" or "scotch"


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView(View):
    """Who holds a seat."""

    player_id: str
    name: str
    connected: bool
    left: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomView(View):
    """``snapshot.room``: the ``rooms`` entry's fields plus the options, the seats and the
    match id."""

    room_id: RoomId
    discipline: Discipline
    distance: int
    players: tuple[str | None, ...]
    spectators: Count
    phase: Phase
    private: bool
    practice: bool
    options: RoomOptions
    seats: tuple[SeatView | None, ...]
    match_id: int | None


# Finished matches, replays, ratings ---------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayerRef(View):
    player_id: str
    name: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchRow(View):
    """One entry of ``matches``: a finished match."""

    match_id: int
    room_id: str
    discipline: Discipline
    players: tuple[PlayerRef, ...]
    started_ms: int
    finished_ms: int | None
    winner: int | None
    reason: EndReason | None
    scoresheet: Scoresheet | None
    strokes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SentOptions(View):
    """A match's ``create_room`` options as they were sent (no password): absent = default."""

    discipline: Discipline
    distance: int | None = None
    shot_clock_s: int | None = None
    innings_limit: int | None = None
    sets: int | None = None
    equalizing: bool | None = None
    timeout_s: int | None = None
    grace_s: int | None = None
    table: str | None = None
    private: bool | None = None
    practice: bool | None = None
    corner_zone_leg: float | None = None
    team_mode: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayRoom(View):
    """``replay.room``: the match row."""

    match_id: int
    room_id: str
    discipline: Discipline
    options: SentOptions
    players: tuple[PlayerRef, ...]
    started_ms: int
    finished_ms: int | None
    winner: int | None
    reason: EndReason | None
    scoresheet: Scoresheet | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockFoul(View):
    """A replay entry of kind ``clock``: a shot-clock foul's result and the match after it."""

    result: StrokeResult
    match: MatchView


@dataclass(frozen=True, slots=True, kw_only=True)
class Placed(View):
    """A replay entry of kind ``place`` (practice): where balls were put, the match after."""

    balls: Mapping[BallName, Point2]
    match: MatchView


REPLAY_KINDS: Final = tuple(k.value for k in ReplayKind)


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayStroke(View):
    """One entry of ``replay.strokes``: ``n``, ``kind``, ``seat``, ``played_ms`` and, in the
    same map, what was broadcast: the ``lag_result`` (kind ``lag``), the ``stroke_played``
    (``stroke``), a ``ClockFoul`` (``clock``) or a ``Placed`` (``place``)."""

    n: Positive
    kind: ReplayKind
    seat: Seat | None
    played_ms: TimeMs
    body: LagResult | StrokePlayed | ClockFoul | Placed

    def to_wire(self) -> dict[str, Wire]:
        head: dict[str, Wire] = {
            "n": self.n,
            "kind": self.kind,
            "seat": self.seat,
            "played_ms": self.played_ms,
        }
        return {**head, **self.body.to_wire()}

    @classmethod
    def from_wire(cls, obj: object, path: str = "") -> ReplayStroke:
        from shared.protocol.to_client import LagResult, StrokePlayed

        if not isinstance(obj, Mapping):
            raise BadField(f"{path} must be a map", field=path)
        kw = {}
        for name, tp in _REPLAY_HEAD.items():
            if name not in obj:
                raise BadField(f"{path}.{name} is required", field=f"{path}.{name}")
            kw[name] = decode_value(tp, obj[name], f"{path}.{name}")
        kind = kw["kind"]
        body: Any
        if kind is ReplayKind.LAG:
            body = LagResult.decode_map(obj, path)
        elif kind is ReplayKind.STROKE:
            body = StrokePlayed.decode_map(obj, path)
        elif kind is ReplayKind.CLOCK:
            body = ClockFoul.from_wire(obj, path)
        else:
            body = Placed.from_wire(obj, path)
        return decoded(cls, {**kw, "body": body}, path)


@dataclass(frozen=True, slots=True, kw_only=True)
class Standing(View):
    """A rating and record in one discipline (``leaderboard.rows``, ``profile.standings``)."""

    rating: float
    deviation: float
    provisional: bool  # deviation above 110: the rating is not settled yet
    games: int
    wins: int
    draws: int
    losses: int
    average: float  # general average over rated matches
    high_run: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderRow(View):
    """One ``leaderboard`` row."""

    FLAT: ClassVar[frozenset[str]] = frozenset({"standing"})
    rank: int
    player_id: str
    name: str
    standing: Standing


@dataclass(frozen=True, slots=True, kw_only=True)
class StandingRow(View):
    """One ``profile.standings`` entry."""

    FLAT: ClassVar[frozenset[str]] = frozenset({"standing"})
    discipline: Discipline
    standing: Standing


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileMatch(View):
    """One of a profile's last matches, from that player's side."""

    match_id: int  # for get_replay
    discipline: Discipline
    finished_ms: int | None
    opponent: PlayerRef | None
    result: MatchOutcome
    reason: EndReason | None
    score: tuple[int, int]  # [mine, theirs]
    innings: int
    average: float
    high_run: int
    rating_before: float | None = None
    rating_after: float | None = None


# The head of a replay entry, read before its kind says what the rest is.
_REPLAY_HEAD: Final[dict[str, Any]] = {
    "n": Positive,
    "kind": ReplayKind,
    "seat": Seat | None,
    "played_ms": TimeMs,
}
_BALL: Final = decoder(BallName)
