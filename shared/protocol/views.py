"""The nested objects of protocol v1, typed: what ``match``, ``room``, ``result`` … carry.

Each is a frozen :class:`~shared.protocol.typed.View` with ``to_wire`` / ``from_wire``; the wire
form is exactly the v1 map docs/protocol.md describes field by field (same keys, same shapes), so
clients and bots already deployed keep working. The server builds them from the referee's state
(``shared.wireviews.match_view``), clients decode each message once and read attributes.

Strings that name something a newer server may extend (phases, reasons, call codes) are checked
as strings only: an older client must not reject a newer server's frame for a word it does not
know. Ball names and seats are structural and checked exactly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self

from shared.physics.types import MAX_ELEVATION, MAX_SPEED, MISCUE_LIMIT
from shared.protocol.errors import BadField
from shared.protocol.fields import (
    check_choice,
    check_int,
    check_number,
    check_opt_int,
    check_opt_seat,
    check_str,
)
from shared.protocol.typed import View, Wire, build, decode_value
from shared.seats import ball_of

if TYPE_CHECKING:
    from shared.physics.types import Segment
    from shared.physics.types import Stroke as PhysicsStroke
    from shared.protocol.to_client import LagResult, StrokePlayed
    from shared.table import BallName

BALL_NAMES: Final = ("white", "yellow", "red")
SPOTS: Final = ("left", "right")

Point2 = tuple[float, float]
Seat = int


def _balls(name: str, balls: Mapping[str, object]) -> None:
    for ball in balls:
        check_choice(f"{name} key", ball, BALL_NAMES)


# The stroke ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CueParams(View):
    """A stroke's cue parameters (PHYSICS.md "What a stroke is"), the one form a stroke has from
    the aim line to the physics: five numbers, limits from ``shared.physics``, and ``spot``
    (R-BREAK-1: the breaker's starting spot, break only)."""

    direction: float  # degrees, [0, 360)
    speed: float  # m/s, (0, MAX_SPEED]
    tip_x: float = 0.0  # ball radii, > 0 right english
    tip_y: float = 0.0  # ball radii, > 0 follow, < 0 draw
    elevation: float = 0.0  # degrees, [0, MAX_ELEVATION]
    spot: str | None = None  # "left" / "right"

    def _validate(self) -> None:
        check_number("direction", self.direction, 0.0, 360.0, hi_open=True)
        check_number("speed", self.speed, 0.0, MAX_SPEED, lo_open=True)
        tx = check_number("tip_x", self.tip_x, -MISCUE_LIMIT, MISCUE_LIMIT)
        ty = check_number("tip_y", self.tip_y, -MISCUE_LIMIT, MISCUE_LIMIT)
        if math.hypot(tx, ty) > MISCUE_LIMIT + 1e-12:
            raise BadField(
                f"hypot(tip_x, tip_y) must be at most {MISCUE_LIMIT} ball radii (miscue limit)",
                field="tip_x",
            )
        check_number("elevation", self.elevation, 0.0, MAX_ELEVATION)
        if self.spot is not None:
            check_choice("spot", self.spot, SPOTS)

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
    def of(cls, stroke: PhysicsStroke, spot: str | None = None) -> Self:
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
    ball: str

    def _validate(self) -> None:
        check_choice("ball", self.ball, BALL_NAMES)

    def to_wire(self) -> dict[str, Wire]:
        out = self.cue.to_wire()
        out.setdefault("spot", None)
        out["ball"] = self.ball
        return out


@dataclass(frozen=True, slots=True)
class Trajectory:
    """``trajectory``: ball name → flat list, 16 numbers per segment (docs/protocol.md).
    Decode it into segments with ``shared.physics.decode_trajectory``."""

    paths: Mapping[str, tuple[float, ...]]

    def __post_init__(self) -> None:
        # The structure only: the numbers are checked when a frame is decoded (the server's own
        # come from the physics encoder, and re-checking thousands per stroke on the event loop
        # would buy nothing).
        _balls("trajectory", self.paths)
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
        paths: dict[str, tuple[float, ...]] = {}
        for ball, flat in obj.items():
            where = f"{path}.{ball}"
            check_choice(f"{path} key", ball, BALL_NAMES)
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

    t: float
    kind: str
    balls: tuple[str, ...]
    cushion: str | None = None
    speeds: tuple[float, ...] | None = None

    def _validate(self) -> None:
        check_number("t", self.t, 0.0)
        check_str("kind", self.kind, 32, 1)
        for b in self.balls:
            check_choice("balls", b, BALL_NAMES)


# Verdicts and scoresheets ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GameResult(View):
    """How a game or match ended: ``winner`` (seat, null for a draw) and ``reason``."""

    winner: int | None
    reason: str

    def _validate(self) -> None:
        check_opt_seat("winner", self.winner)
        check_str("reason", self.reason, 64, 1)


@dataclass(frozen=True, slots=True, kw_only=True)
class FoulView(View):
    rule_id: str
    code: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CallView(View):
    code: str
    text: str
    rule_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class StrokeResult(View):
    """``stroke_played.result``: what the referee decided about one stroke."""

    points: int
    foul: FoulView | None
    calls: tuple[CallView, ...]
    respots: Mapping[str, Point2]
    next_shooter: int | None
    game_over: GameResult | None
    next_slot: int | None = None  # team rooms: the partner of ``next_shooter`` who strikes

    def _validate(self) -> None:
        check_int("points", self.points, 0, 1)
        _balls("respots", self.respots)
        check_opt_seat("next_shooter", self.next_shooter)


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetLine(View):
    """One player's line: points, innings, general average (R-PLAY-2) and best run."""

    points: int
    innings: int
    average: float
    high_run: int

    def _validate(self) -> None:
        check_int("points", self.points, 0)
        check_int("innings", self.innings, 0)
        check_number("average", self.average, 0.0)
        check_int("high_run", self.high_run, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetPlayer(View):
    """A team room's player's own figures (R-TEAM-5): the points of their strokes and the
    side's innings in which they struck. Sides keep their ``lines``."""

    seat: int  # the side
    slot: int  # the place in the side's line-up
    points: int
    innings: int
    average: float

    def _validate(self) -> None:
        check_int("seat", self.seat, 0, 1)
        check_int("slot", self.slot, 0, 1)
        check_int("points", self.points, 0)
        check_int("innings", self.innings, 0)
        check_number("average", self.average, 0.0)


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetSet(View):
    number: int  # 1-based
    breaker: int
    lines: tuple[SheetLine, SheetLine]
    result: GameResult | None
    players: tuple[SheetPlayer, ...] | None = None  # team rooms only

    def _validate(self) -> None:
        check_int("number", self.number, 1)
        check_int("breaker", self.breaker, 0, 1)


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

    seat: int  # the side
    slot: int  # the place in the side's line-up
    connected: bool
    grace_until_ms: int | None
    out: bool
    points: int
    innings: int
    average: float

    def _validate(self) -> None:
        check_int("seat", self.seat, 0, 1)
        check_int("slot", self.slot, 0, 1)
        check_opt_int("grace_until_ms", self.grace_until_ms, 0)
        check_int("points", self.points, 0)
        check_int("innings", self.innings, 0)
        check_number("average", self.average, 0.0)


# The match -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class FrozenView(View):
    """R-FROZEN-1 / R-CALL-3: what the shooter's ball touches."""

    balls: tuple[str, ...]
    cushions: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class LagView(View):
    """The lag (R-LAG-*): each seat's ball, whether each has played (strokes stay hidden,
    R-LAG-3), the winner and why, and how many times it was repeated."""

    balls: Mapping[str, str]  # seat ("0"/"1") -> ball
    played: tuple[bool, bool]
    winner: int | None
    reason: str | None
    repeats: int

    def _validate(self) -> None:
        for seat, ball in self.balls.items():
            check_choice("balls key", seat, ("0", "1"))
            check_choice(f"balls.{seat}", ball, BALL_NAMES)
        check_opt_seat("winner", self.winner)
        check_int("repeats", self.repeats, 0)

    def ball_of(self, seat: int) -> str | None:
        return self.balls.get(str(seat))


@dataclass(frozen=True, slots=True, kw_only=True)
class ZoneView(View):
    """A balkline or corner zone both object balls lie in (R-ZONE-CALL)."""

    name: str
    count: int
    armed: bool
    on_line: bool

    def _validate(self) -> None:
        check_int("count", self.count, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchView(View):
    """``match``: the referee's state as every client sees it (``shared.wireviews.match_view``)."""

    phase: str
    discipline: str
    distance: int
    shooter: int | None
    cue_ball: str | None
    white_seat: int | None  # R-LAG-7: the breaker plays white throughout
    balls: Mapping[str, Point2]
    score: tuple[int, int]
    innings: tuple[int, int]
    average: tuple[float, float]
    high_run: tuple[int, int]
    current_run: int
    timeouts_left: tuple[int, int]
    deadline_ms: int | None
    paused_ms: int | None
    resting_at_ms: int
    break_shot: bool
    spot_choice: bool
    equalizing: bool
    set: int
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
    shooter_slot: int | None = None
    players: tuple[MatchPlayer, ...] | None = None

    FROZEN_PHASES: ClassVar[frozenset[str]] = frozenset({"play", "timeout"})

    def _validate(self) -> None:
        check_str("phase", self.phase, 32, 1)
        check_str("discipline", self.discipline, 32, 1)
        check_opt_seat("shooter", self.shooter)
        if self.cue_ball is not None:
            check_choice("cue_ball", self.cue_ball, BALL_NAMES)
        check_opt_seat("white_seat", self.white_seat)
        _balls("balls", self.balls)
        check_opt_int("deadline_ms", self.deadline_ms, 0)
        check_opt_int("paused_ms", self.paused_ms)
        check_int("set", self.set, 0)

    def to_wire(self) -> dict[str, Wire]:
        out = View.to_wire(self)
        if self.phase in self.FROZEN_PHASES and self.shooter is not None:
            out["frozen"] = None if self.frozen is None else self.frozen.to_wire()
        return out

    def ball_of(self, seat: int) -> str:
        """R-LAG-7: the ball ``seat`` plays (:func:`ball_of`)."""
        return ball_of(self.white_seat, seat)

    def position(self, ball: str) -> Point2 | None:
        return self.balls.get(ball)


# Rooms -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomSummary(View):
    """One entry of ``rooms`` (and the first fields of ``snapshot.room``)."""

    room_id: str
    discipline: str
    distance: int
    players: tuple[str | None, ...]  # the name in each seat
    spectators: int
    phase: str
    private: bool
    practice: bool
    # The live score, points per seat in the game (set) being played; None (left out of the
    # map) while no match has started. Optional: v1 clients ignore it, older servers omit it.
    score: tuple[int, ...] | None = None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        check_int("spectators", self.spectators, 0)
        if self.score is not None:
            if len(self.score) > 2:
                raise BadField(
                    f"score must have one entry per seat, got {len(self.score)}", field="score"
                )
            for i, points in enumerate(self.score):
                check_int(f"score[{i}]", points, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoomOptions(View):
    """``room.options``: every option in force (the referee's defaults filled in)."""

    discipline: str
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

    room_id: str
    discipline: str
    distance: int
    players: tuple[str | None, ...]
    spectators: int
    phase: str
    private: bool
    practice: bool
    options: RoomOptions
    seats: tuple[SeatView | None, ...]
    match_id: int | None

    def _validate(self) -> None:
        check_str("room_id", self.room_id, 32, 1)
        check_int("spectators", self.spectators, 0)


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
    discipline: str
    players: tuple[PlayerRef, ...]
    started_ms: int
    finished_ms: int | None
    winner: int | None
    reason: str | None
    scoresheet: Scoresheet | None
    strokes: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SentOptions(View):
    """A match's ``create_room`` options as they were sent (no password): absent = default."""

    discipline: str
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
    discipline: str
    options: SentOptions
    players: tuple[PlayerRef, ...]
    started_ms: int
    finished_ms: int | None
    winner: int | None
    reason: str | None
    scoresheet: Scoresheet | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ClockFoul(View):
    """A replay entry of kind ``clock``: a shot-clock foul's result and the match after it."""

    result: StrokeResult
    match: MatchView


@dataclass(frozen=True, slots=True, kw_only=True)
class Placed(View):
    """A replay entry of kind ``place`` (practice): where balls were put, the match after."""

    balls: Mapping[str, Point2]
    match: MatchView

    def _validate(self) -> None:
        _balls("balls", self.balls)


REPLAY_KINDS: Final = ("lag", "stroke", "clock", "place")


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplayStroke(View):
    """One entry of ``replay.strokes``: ``n``, ``kind``, ``seat``, ``played_ms`` and, in the
    same map, what was broadcast: the ``lag_result`` (kind ``lag``), the ``stroke_played``
    (``stroke``), a ``ClockFoul`` (``clock``) or a ``Placed`` (``place``)."""

    n: int
    kind: str
    seat: int | None
    played_ms: int
    body: LagResult | StrokePlayed | ClockFoul | Placed

    def _validate(self) -> None:
        check_int("n", self.n, 1)
        check_choice("kind", self.kind, REPLAY_KINDS)
        check_opt_seat("seat", self.seat)
        check_int("played_ms", self.played_ms, 0)

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
        for name, tp in (("n", int), ("kind", str), ("seat", int | None), ("played_ms", int)):
            if name not in obj:
                raise BadField(f"{path}.{name} is required", field=f"{path}.{name}")
            kw[name] = decode_value(tp, obj[name], f"{path}.{name}")
        kind = kw["kind"]
        body: Any
        if kind == "lag":
            body = LagResult.decode_map(obj, path)
        elif kind == "stroke":
            body = StrokePlayed.decode_map(obj, path)
        elif kind == "clock":
            body = ClockFoul.from_wire(obj, path)
        elif kind == "place":
            body = Placed.from_wire(obj, path)
        else:
            raise BadField(
                f"{path}.kind must be one of {', '.join(REPLAY_KINDS)}, got {kind!r}",
                field=f"{path}.kind",
            )
        return build(cls, {**kw, "body": body}, path)


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
    discipline: str
    standing: Standing


@dataclass(frozen=True, slots=True, kw_only=True)
class ProfileMatch(View):
    """One of a profile's last matches, from that player's side."""

    match_id: int  # for get_replay
    discipline: str
    finished_ms: int | None
    opponent: PlayerRef | None
    result: str  # win / loss / draw
    reason: str | None
    score: tuple[int, int]  # [mine, theirs]
    innings: int
    average: float
    high_run: int
    rating_before: float | None = None
    rating_after: float | None = None
