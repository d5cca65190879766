"""One room's logic, sans I/O: ``(sender, message, now) -> effects`` (STYLE.md, as websockets'
protocol core and its connect4 tutorial).

Theory of operation. A room holds a seat for every player of both sides' line-ups (two in
singles, four in a doubles or Scotch room, R-TEAM-1), any number of spectators and one referee
state
(``shared.rules``). Every input is a method call with the server time passed in: a client message
(:meth:`Room.handle`), a dropped connection (:meth:`Room.disconnect`), a timer (:meth:`Room.tick`)
or a finished simulation (:meth:`Room.simulated`). Each returns :class:`Effects`: the messages to
send to which connections, the physics jobs to run, and what to persist. The asyncio actor in
``server/net/actor.py`` owns the sockets, the timers, the process pool and the database; this class
owns none of them, so tests can drive a whole match by hand.

A stroke is two steps. ``handle(Stroke)`` checks the turn and answers with a :class:`SimJob`; the
balls are "moving" for the room from then on, so every other stroke is refused. When the job
finishes, ``simulated`` hands the physics result to the referee, at the time the stroke was
received, so the referee's clocks (shot clock from rest, R-CLOCK-1) are exactly those the clients
see in ``start_ms``/``rest_ms``.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar, cast

from server.core import events as ev
from server.core.names import looks_alike
from server.core.record import RoomRecord, RoomSettings
from server.core.sim_jobs import SimJob, SimOutcome
from shared import rules, wireviews
from shared.physics.types import Stroke as Cue
from shared.physics.types import StrokeError
from shared.protocol import ErrorCode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import views as pv
from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.enums import CallCode, LagReason, SeatKey, SeatStatus
from shared.rules import IllegalAction, MatchState, Phase, Verdict, lineup
from shared.rules.placement import Side
from shared.table import BallName, Point

ConnId = int

# The referee's own error codes pass through unchanged when the protocol knows them (all of them
# are ErrorCode values, listed in docs/protocol.md); anything else becomes ``illegal_action``.
RULES_CODES = frozenset(c.value for c in ErrorCode)
# A room's chat budget, shared by everyone in it (a token bucket): a storm of spectators cannot
# flood the players or the server; over it, the sender gets ``rate_limited``.
CHAT_RATE = 5.0  # lines per second
CHAT_BURST = 10.0
MAX_LAG_RETRIES = 3
AUDIENCE_EVERY_MS = 1000  # a changed spectator count is announced at most this often
MAX_MATCH_ID = 2**53 - 1  # a JSON/msgpack-safe integer
# Broadcasts after a room's last save may have reached clients before a crash: a restored room
# continues this far above the saved seq, so no client mistakes a new message for one it has.
SEQ_GAP_ON_RESTORE = 1000
M = TypeVar("M", bound=ServerMessage)


def random_match_id() -> int:
    """Match ids are random, 1 … 2^53−1: sequential ones were trivially guessed (a private
    room's replays)."""
    return secrets.randbelow(MAX_MATCH_ID) + 1


# Disciplines without zones: their strokes are judged on events and final positions alone.
NO_ZONES = frozenset(
    {rules.Discipline.THREE_CUSHION, rules.Discipline.ONE_CUSHION}
)  # a lag simulation that failed (dead worker) is run again this many times


@dataclass(frozen=True, slots=True)
class Member:
    """Who sent a message: the connection and the identity it said hello with."""

    conn: ConnId
    player_id: str
    name: str


@dataclass(slots=True)
class SeatHolder:
    player_id: str
    name: str
    token_hash: str  # SHA-256 of the seat token; the token itself is never kept
    conn: ConnId | None  # None: disconnected
    left: bool = False


@dataclass(slots=True)
class StrokeLog:
    kind: str
    seat: int | None
    played_ms: int
    record: dict[str, Any]
    # The broadcast whose wire form ``record`` is (stroke_played, lag_result): the actor sends
    # the record's encoded bytes instead of encoding the message a second time (with typed
    # views, building a stroke's wire form is a tenth of the event loop's time at 2 000 rooms).
    sent: ServerMessage | None = None


@dataclass(slots=True)
class Effects:
    sends: list[tuple[tuple[ConnId, ...], ServerMessage]] = field(default_factory=list)
    jobs: list[SimJob] = field(default_factory=list)
    new_match: bool = False  # a match began (its id is the room's match_id): write its row
    snapshot_all: bool = False  # after the sends, a snapshot to everyone (match_id known then)
    strokes: list[StrokeLog] = field(default_factory=list)
    finished: tuple[int | None, str, dict[str, Any]] | None = None
    save: bool = False  # seats or state changed: save the room row
    attach: list[ConnId] = field(default_factory=list)  # connections now in this room
    detach: list[ConnId] = field(default_factory=list)  # connections no longer in it
    # What happened, for the server's event bus (published once the effects are durable).
    events: list[ev.DomainEvent] = field(default_factory=list)

    def to(self, conns: tuple[ConnId, ...] | list[ConnId], msg: ServerMessage) -> None:
        if conns:
            self.sends.append((tuple(conns), msg))


def settings_from_wire(msg: ts.CreateRoom) -> RoomSettings:
    """What a room is opened with, from ``create_room``; ValueError when the referee refuses
    the options."""
    return RoomSettings.from_sent(msg, msg.discipline, msg.private)


def refusal(exc: IllegalAction, re: int | None = None) -> tc.Error:
    """The player's mistake as an ``error``: the referee's code when the protocol has it."""
    code = ErrorCode(exc.code) if exc.code in RULES_CODES else ErrorCode.ILLEGAL_ACTION
    return tc.Error(code=code, message=exc.message, re=re)


class Room:
    def __init__(
        self,
        room_id: str,
        settings: RoomSettings,
        now_ms: int,
        *,
        password_hash: str | None = None,
        match_ids: Callable[[], int] = random_match_id,
    ) -> None:
        self.room_id = room_id
        self._match_ids = match_ids
        self.creator: str | None = None  # player_id of who created it (room caps per identity)
        # A tournament's table (server/net/tournaments.py): only these players may sit; empty,
        # anyone. The event's runner sets it again after a restart.
        self.reserved: tuple[str, ...] = ()
        self.settings = settings  # what it was opened with, as stored
        self.options = settings.match_options()
        self.private = settings.private
        self.password_hash = password_hash
        self.created_ms = now_ms
        self.state: MatchState = rules.new_match(self.options, now_ms)
        # One seat per player, by player index (side + 2 * slot, R-TEAM-1): A1, B1, A2, B2.
        self.seats: list[SeatHolder | None] = [None] * self.options.players
        self.spectators: dict[ConnId, Member] = {}
        self.audience_sent = 0  # the spectator count everyone was last told
        self.audience_due: int | None = None  # when to tell them a changed count
        self.seq = 0
        self.match_id: int | None = None
        self.pending: SimJob | None = None
        self._jobs = 0
        self._turn_key: tuple[Any, ...] | None = None
        self.strokes_played = 0
        self.last_motion: tc.StrokePlayed | tc.LagResult | None = None  # as broadcast
        self.lag_failures = 0
        self.closed = False
        self.chat_tokens = CHAT_BURST
        self.chat_at = now_ms

    # Save points ----------------------------------------------------------------------------
    def save_point(self) -> tuple[Any, ...]:
        """Everything an input may change, to put back with :meth:`roll_back` when its effects
        cannot be persisted (disk full): the room then is exactly as before the input. Cheap:
        the referee state is immutable, only the seats and spectators are copied."""
        return (
            self.state,
            [None if s is None else replace(s) for s in self.seats],
            dict(self.spectators),
            self.seq,
            self.match_id,
            self.pending,
            self._jobs,
            self._turn_key,
            self.strokes_played,
            self.last_motion,
            self.lag_failures,
        )

    def roll_back(self, point: tuple[Any, ...]) -> None:
        (
            self.state,
            seats,
            spectators,
            self.seq,
            self.match_id,
            self.pending,
            self._jobs,
            self._turn_key,
            self.strokes_played,
            self.last_motion,
            self.lag_failures,
        ) = point
        self.seats = [None if s is None else replace(s) for s in seats]
        self.spectators = dict(spectators)

    # Persistence form --------------------------------------------------------------------
    def to_record(self) -> RoomRecord:
        """The room as its database row: options as created (no password), seats with their
        token hashes, the referee state (``shared.rules.state_to_dict``), seq and match id.
        Spectators, connections and a stroke in flight are not kept (see :meth:`from_record`)."""
        return RoomRecord(
            room_id=self.room_id,
            options=self.settings.to_record(),
            private=self.private,
            password_hash=self.password_hash,
            created_ms=self.created_ms,
            seq=self.seq,
            seats=[
                None
                if s is None
                else {
                    "player_id": s.player_id,
                    "name": s.name,
                    "token_hash": s.token_hash,
                    "left": s.left,
                }
                for s in self.seats
            ],
            state=rules.state_to_dict(self.state),
            match_id=self.match_id,
            creator=self.creator,
        )

    @classmethod
    def from_record(cls, record: RoomRecord, now: int) -> Room:
        """The room back from its row after a restart.

        The server was away from the row's last write (``updated_ms``: a drain writes every
        room on the way down; after a kill -9 it is the last turn, stroke or seat change) until
        ``now``, so every clock moves on by that much first: nobody is charged for the downtime,
        neither on the shot clock nor on a reconnection grace. Then every seat is disconnected:
        the referee pauses the clock with the time that was left and starts each grace time
        (R-END-5) from ``now``; the clock runs again, with a ``turn`` carrying the new
        deadline, when the shooter rejoins. A stroke whose simulation was in flight was never
        acknowledged and is simply played again.
        """
        settings = RoomSettings.from_record(record.options)  # any record version
        room = cls(record.room_id, settings, record.created_ms, password_hash=record.password_hash)
        room.seq = record.seq + SEQ_GAP_ON_RESTORE
        room.match_id = record.match_id
        room.creator = record.creator
        if record.state is not None:
            room.state = rules.state_from_dict(record.state)
            if record.updated_ms is not None:
                room.state = shift_clocks(room.state, now - record.updated_ms)
        for i, row in enumerate(record.seats):
            if row is not None:
                room.seats[i] = SeatHolder(
                    row["player_id"], row["name"], row["token_hash"], None, bool(row.get("left"))
                )
        for i, holder in enumerate(room.seats):
            if (
                holder is not None
                and room.state.connected[i]
                and room.state.phase is not Phase.OVER
            ):
                side, slot = lineup.side_of(i), lineup.slot_of(i)
                room.state, _ = rules.apply(room.state, rules.Disconnected(side, slot), now)
        return room

    def begin_match(self, fx: Effects, now: int) -> None:
        """A new match: the room draws its (random) id now, so every message built from here
        on carries it, and ``fx`` asks for its row to be written with the input's effects."""
        self.match_id = self._match_ids()
        fx.new_match = True
        players = tuple(s.player_id for s in self.seats if s is not None)
        discipline = self.options.discipline.value
        fx.events.append(ev.MatchStarted(self.room_id, self.match_id, discipline, players, now))

    def match_players(self) -> list[dict[str, str]]:
        """The players of the match row, by seat."""
        return [{"player_id": s.player_id, "name": s.name} for s in self.seats if s is not None]

    # Views --------------------------------------------------------------------------------
    @property
    def practice(self) -> bool:
        return self.options.practice

    @property
    def seat_count(self) -> int:
        """Seats to fill before the match starts: 1 in practice, 2 in singles, 4 in a team
        room (R-TEAM-1)."""
        return 1 if self.practice else self.options.players

    @property
    def teams(self) -> bool:
        return self.options.teams

    def place(self, player: int | None) -> tuple[int | None, int | None]:
        """(seat, slot) on the wire for a player index: the side, and in a team room the
        place in the side's line-up (None in singles, so singles keep v1's messages)."""
        if player is None:
            return None, None
        return lineup.side_of(player), lineup.slot_of(player) if self.teams else None

    def conns(self) -> list[ConnId]:
        seated = [s.conn for s in self.seats if s is not None and s.conn is not None]
        return seated + list(self.spectators)

    def seat_of(self, conn: ConnId) -> int | None:
        """The player index of ``conn``'s seat (in singles, the side)."""
        for i, s in enumerate(self.seats):
            if s is not None and s.conn == conn:
                return i
        return None

    def is_empty(self) -> bool:
        return not self.conns()

    def match_running(self) -> bool:
        """A match is under way: its clocks (shot clock, graces) are live."""
        return self.state.phase not in (rules.Phase.WAITING, rules.Phase.OVER)

    def summary(self) -> pv.RoomSummary:
        """One entry of ``rooms`` (PROTOCOL.md)."""
        return pv.RoomSummary(
            room_id=self.room_id,
            discipline=wireviews.DISCIPLINES[self.options.discipline],
            distance=self.options.target,
            players=tuple(None if s is None else s.name for s in self.seats[: self.seat_count]),
            spectators=len(self.spectators),
            phase=wireviews.PHASES[self.state.phase],
            private=self.private,
            practice=self.practice,
            score=self._live_score(),
        )

    def _live_score(self) -> tuple[int, ...] | None:
        """The points of the game being played, per seat; None before the match starts (the
        lobby shows "–"). Read afresh at each ``list_rooms`` (and each cluster beat)."""
        state = self.state
        if state.phase is Phase.WAITING or not state.sets:
            return None
        return tuple(state.current.points[: self.seat_count])

    def room_view(self) -> pv.RoomView:
        s = self.summary()
        return pv.RoomView(
            room_id=s.room_id,
            discipline=s.discipline,
            distance=s.distance,
            players=s.players,
            spectators=s.spectators,
            phase=s.phase,
            private=s.private,
            practice=s.practice,
            options=wireviews.room_options(self.options),
            seats=tuple(
                None
                if s is None
                else pv.SeatView(
                    player_id=s.player_id, name=s.name, connected=s.conn is not None, left=s.left
                )
                for s in self.seats[: self.seat_count]
            ),
            match_id=self.match_id,
        )

    def snapshot(
        self, player: int | None, re: int | None = None, now: int | None = None
    ) -> tc.Snapshot:
        """The room now, for the holder of seat ``player`` (None: a spectator); while the last
        stroke's balls still roll, that stroke too, so a client that arrives mid-stroke
        animates the rest of it (DESIGN.md "Life of a stroke" 5)."""
        moving = self.last_motion
        if moving is None or now is None or now >= (moving.rest_ms or 0):
            moving = None
        seat, slot = self.place(player)
        return tc.Snapshot(
            seq=self.seq,
            room=self.room_view(),
            match=wireviews.match_view(self.state),
            seat=seat,
            in_motion=moving,
            re=re,
            slot=slot,
        )

    # Entry points ---------------------------------------------------------------------------
    def join(self, who: Member, msg: ts.Join, token_hash: str, token: str, now: int) -> Effects:
        """Take a free seat. The lobby has checked the password and made the token."""
        fx = Effects()
        free = [i for i in range(self.seat_count) if self.seats[i] is None]
        if self.state.phase is not Phase.WAITING or not free:
            fx.to([who.conn], error(ErrorCode.ROOM_FULL, "Every seat is taken.", msg.id))
            return fx
        if self.reserved and who.player_id not in self.reserved:
            fx.to(
                [who.conn],
                error(
                    ErrorCode.ROOM_FULL,
                    "This table is kept for a tournament match; you can watch it.",
                    msg.id,
                ),
            )
            return fx
        if any(s is not None and s.player_id == who.player_id for s in self.seats):
            fx.to(
                [who.conn],
                error(
                    ErrorCode.ALREADY_IN_ROOM,
                    "You already have a seat here; use rejoin with your seat token.",
                    msg.id,
                ),
            )
            return fx
        name = who.name
        if any(h is not None and looks_alike(h.name, name) for h in self.seats):
            # Two players nobody could tell apart on the scoreboard: the newcomer's name gets a
            # marker everyone sees (refusing would stop two "player"s or two bots from playing).
            name = f"{who.name} (2)"
        # R-TEAM-1: seats fill in player order, the first players of both sides first.
        player = free[0]
        self.seats[player] = SeatHolder(who.player_id, name, token_hash, who.conn)
        fx.attach.append(who.conn)
        fx.save = True
        side, slot = self.place(player)
        assert side is not None
        fx.to(
            [who.conn],
            tc.Joined(room_id=self.room_id, seat=side, seat_token=token, re=msg.id, slot=slot),
        )
        self._broadcast(
            fx, tc.PlayerStatus(seq=0, seat=side, status=SeatStatus.CONNECTED, slot=slot)
        )
        if all(self.seats[i] is not None for i in range(self.seat_count)):
            self.begin_match(fx, now)
            self._act(fx, rules.Start(), now)
            fx.snapshot_all = True  # the match begins: everyone gets the whole picture
        else:
            fx.to([who.conn], self.snapshot(player, now=now))
        return fx

    def spectate(self, who: Member, msg: ts.Spectate, now: int) -> Effects:
        fx = Effects()
        self.spectators[who.conn] = who
        fx.attach.append(who.conn)
        fx.to([who.conn], self.snapshot(None, msg.id, now))
        self._audience_changed(now)
        return fx

    def rejoin(self, who: Member, msg: ts.Rejoin, token_hash: str, now: int) -> Effects:
        fx = Effects()
        player = next(
            (i for i, s in enumerate(self.seats) if s is not None and s.token_hash == token_hash),
            None,
        )
        if player is None:
            fx.to(
                [who.conn],
                error(ErrorCode.BAD_TOKEN, "That seat token is not valid for this room.", msg.id),
            )
            return fx
        holder = self.seats[player]
        assert holder is not None
        if holder.conn is not None and holder.conn != who.conn:
            # The same secret from a new connection: the old one is stale (a half-open TCP
            # connection after a network change). The newest holder of the token wins.
            fx.to(
                [holder.conn],
                error(
                    ErrorCode.BAD_TOKEN,
                    "Your seat was taken over by a newer connection with your seat token.",
                ),
            )
            fx.detach.append(holder.conn)
        holder.conn = who.conn
        holder.left = False
        if not any(
            h is not None and h is not holder and looks_alike(h.name, who.name) for h in self.seats
        ):
            holder.name = who.name  # a new name only if it cannot pass for the opponent
        fx.attach.append(who.conn)
        fx.save = True
        seat, slot = self.place(player)
        assert seat is not None
        fx.to(
            [who.conn],
            tc.Joined(
                room_id=self.room_id, seat=seat, seat_token=msg.seat_token, re=msg.id, slot=slot
            ),
        )
        if not self.state.connected[player]:
            self._act(fx, rules.Reconnected(seat, slot or 0), now)
        self._broadcast(
            fx, tc.PlayerStatus(seq=0, seat=seat, status=SeatStatus.CONNECTED, slot=slot)
        )
        fx.to([who.conn], self.snapshot(player, now=now))
        return fx

    def disconnect(
        self, conn: ConnId, now: int, *, left: bool = False, re: int | None = None
    ) -> Effects:
        """A connection dropped (or sent ``leave``)."""
        fx = Effects()
        fx.detach.append(conn)
        if left:
            fx.to([conn], tc.Left(room_id=self.room_id, re=re))
        if conn in self.spectators:
            del self.spectators[conn]
            self._audience_changed(now)
            return fx
        player = self.seat_of(conn)
        if player is None:
            return fx
        holder = self.seats[player]
        assert holder is not None
        holder.conn = None
        fx.save = True
        seat, slot = self.place(player)
        assert seat is not None
        if self.state.phase is Phase.WAITING and left:
            self.seats[player] = None  # nothing started: the seat is simply free again
            self._broadcast(
                fx, tc.PlayerStatus(seq=0, seat=seat, status=SeatStatus.LEFT, slot=slot)
            )
            return fx
        holder.left = left
        if self.state.phase is not Phase.OVER:
            # R-END-5 / R-TEAM-7: the player's own grace starts; a partner keeps the seat.
            self._act(fx, rules.Disconnected(seat, slot or 0), now)
        grace = self.state.grace_deadline[player]
        status = SeatStatus.LEFT if left else SeatStatus.DISCONNECTED
        self._broadcast(
            fx,
            tc.PlayerStatus(seq=0, seat=seat, status=status, grace_until_ms=grace, slot=slot),
        )
        return fx

    def handle(self, who: Member, msg: ClientMessage, now: int) -> Effects:
        """A room message from a connection that is in this room."""
        fx = Effects()
        re = msg.id
        if isinstance(msg, ts.Sync):
            fx.to([who.conn], self.snapshot(self.seat_of(who.conn), re, now))
            return fx
        if isinstance(msg, ts.Leave):
            return self.disconnect(who.conn, now, left=True, re=re)
        if isinstance(msg, ts.Chat):
            self.chat_tokens = min(
                CHAT_BURST, self.chat_tokens + max(0, now - self.chat_at) * CHAT_RATE / 1000
            )
            self.chat_at = now
            if self.chat_tokens < 1.0:
                fx.to(
                    [who.conn],
                    error(
                        ErrorCode.RATE_LIMITED,
                        "The room's chat is busy; wait a moment before your next line.",
                        re,
                    ),
                )
                return fx
            self.chat_tokens -= 1.0
            player = self.seat_of(who.conn)
            holder = None if player is None else self.seats[player]
            sender = who.name if holder is None else holder.name  # with its marker, if any
            seat = self.place(player)[0]
            if seat is None and any(
                h is not None and h.player_id != who.player_id and looks_alike(h.name, who.name)
                for h in self.seats
            ):
                sender = f"{who.name} (spectator)"  # not to be taken for the seated player
            self._broadcast(fx, tc.ChatLine(seq=0, sender=sender, text=msg.text, seat=seat))
            return fx
        player = self.seat_of(who.conn)
        if player is None:
            fx.to(
                [who.conn], error(ErrorCode.NOT_A_PLAYER, "Spectators cannot act in a match.", re)
            )
            return fx
        # R-TEAM-1: the side acts, by the partner in ``slot``; the referee refuses the partner
        # whose turn it is not (R-TEAM-4).
        seat, slot = lineup.side_of(player), lineup.slot_of(player)
        if isinstance(msg, ts.Place) and not self.practice:
            fx.to(
                [who.conn],
                error(ErrorCode.NOT_PRACTICE, "Balls can only be placed in a practice room.", re),
            )
            return fx
        if isinstance(msg, ts.Rematch) and self.reserved:
            fx.to(
                [who.conn],
                error(
                    ErrorCode.WRONG_PHASE,
                    "A tournament match is not played again; the event goes on.",
                    re,
                ),
            )
            return fx
        if self.pending is not None and not isinstance(msg, ts.Concede | ts.Rematch):
            fx.to([who.conn], error(ErrorCode.BALLS_MOVING, "The balls are still moving.", re))
            return fx
        try:
            if isinstance(msg, ts.Stroke):
                self._stroke(fx, seat, slot, msg, now)
            elif isinstance(msg, ts.ChooseBreak):
                breaker = seat if msg.breaker == "me" else lineup.other(seat)
                self._act(fx, rules.ChooseBreak(seat, breaker, slot), now)
            elif isinstance(msg, ts.Respot):
                self._act(fx, rules.Respot(seat, slot), now, force_turn=True)
            elif isinstance(msg, ts.TimeOut):
                self._act(fx, rules.TimeOut(seat, slot), now)
            elif isinstance(msg, ts.Resume):
                self._act(fx, rules.Resume(seat, slot), now)
            elif isinstance(msg, ts.Concede):
                self._act(fx, rules.Concede(seat, slot), now)
            elif isinstance(msg, ts.Rematch):
                self._rematch(fx, seat, slot, now)
            elif isinstance(msg, ts.Place):
                self._act(fx, rules.Place(cast(dict[BallName, Point], dict(msg.balls))), now)
                fx.strokes.append(
                    StrokeLog(
                        "place",
                        seat,
                        now,
                        pv.Placed(
                            balls=dict(msg.balls), match=wireviews.match_view(self.state)
                        ).to_wire(),
                    )
                )
                for conn in self.conns():
                    fx.to(
                        [conn],
                        self.snapshot(self.seat_of(conn), re if conn == who.conn else None, now),
                    )
            else:
                fx.to(
                    [who.conn],
                    error(ErrorCode.UNKNOWN_TYPE, f"{msg.TYPE} is not a room message.", re),
                )
        except IllegalAction as exc:
            fx.to([who.conn], refusal(exc, re))
        return fx

    def _audience_changed(self, now: int) -> None:
        """Spectators came or went: everyone hears the new count within a second, once however
        many moved meanwhile (a crowd arriving costs one message each, not one per arrival)."""
        if self.audience_due is None:
            self.audience_due = now + AUDIENCE_EVERY_MS

    def _announce_audience(self, fx: Effects, now: int) -> None:
        if self.audience_due is None or self.audience_due > now:
            return
        self.audience_due = None
        if len(self.spectators) != self.audience_sent:
            self.audience_sent = len(self.spectators)
            msg = tc.Audience(room_id=self.room_id, spectators=self.audience_sent)
            fx.to(self.conns(), msg)

    def tick(self, now: int) -> Effects:
        """Apply every referee deadline that is due (shot clock, lag clock, grace …), and
        announce a changed audience."""
        fx = Effects()
        self._announce_audience(fx, now)
        if self.pending is not None:
            return fx  # the stroke in flight was sent in time; its result comes first
        both = rules.lag_strokes(self.state)
        if both is not None:
            # Both lag strokes are in but no simulation is running: the server restarted while
            # it ran, or the worker died. Run it (again); the strokes were sent in time.
            if self.lag_failures < MAX_LAG_RETRIES:
                self._start_job(fx, "lag", dict(self.state.positions), both, None, None, now)
            return fx
        deadline = rules.next_deadline(self.state)
        if deadline is not None and deadline <= now:
            self._act(fx, rules.Tick(), now, log_kind="clock")
        return fx

    def next_wake(self) -> int | None:
        """The server time at which :meth:`tick` has something to do."""
        referee = self._referee_wake()
        if self.audience_due is None:
            return referee
        return self.audience_due if referee is None else min(referee, self.audience_due)

    def _referee_wake(self) -> int | None:
        if self.pending is not None:
            return None
        if rules.lag_strokes(self.state) is not None:
            # At once, unless the physics keeps failing on these strokes: then the room waits
            # (players can still concede) rather than spin.
            return 0 if self.lag_failures < MAX_LAG_RETRIES else None
        return rules.next_deadline(self.state)

    # Strokes -----------------------------------------------------------------------------
    def _stroke(self, fx: Effects, seat: int, slot: int, msg: ts.Stroke, now: int) -> None:
        try:
            cue = msg.cue.physics()
        except StrokeError as exc:  # unreachable after protocol checks; kept as a guard
            raise IllegalAction("bad_field", str(exc)) from None
        state = self.state
        if state.phase is Phase.LAG:
            if msg.cue.spot is not None:
                raise IllegalAction("bad_field", "A starting spot is chosen on the break only.")
            self._act(fx, rules.LagStroke(seat, cue, slot), now)
            if self.state.lag_strokes[seat] is not None:
                self._broadcast(
                    fx,
                    tc.Call(
                        seq=0, code=CallCode.LAG_STROKE, text=f"Seat {seat}'s lag stroke is in."
                    ),
                )
            both = rules.lag_strokes(self.state)
            if both is not None:
                self._start_job(fx, "lag", dict(self.state.positions), both, None, None, now)
            return
        # R-PLAY-4 and the turn: refuse before simulating anything (the referee checks the
        # same again when the result comes back).
        rules.check_stroke(state, seat, now, slot)
        spot: Side | None = "left" if msg.cue.spot == "left" else "right" if msg.cue.spot else None
        start = rules.stroke_start(state, spot)  # R-BREAK-1: the breaker's starting spot
        ball = rules.cue_ball(state)
        self._start_job(fx, "stroke", dict(start), {ball: cue}, seat, spot, now, slot)

    def _start_job(
        self,
        fx: Effects,
        kind: Literal["stroke", "lag"],
        balls: dict[BallName, Point],
        strokes: dict[BallName, Cue],
        seat: int | None,
        spot: Side | None,
        now: int,
        slot: int = 0,
    ) -> None:
        self._jobs += 1
        segments = kind == "stroke" and self.options.discipline not in NO_ZONES
        job = SimJob(
            self._jobs, kind, self.options.table, balls, strokes, seat, spot, now, segments, slot
        )
        self.pending = job
        fx.jobs.append(job)

    def simulated(self, out: SimOutcome, now: int) -> Effects:
        fx = Effects()
        job = self.pending
        if job is None or job.job != out.job:
            return fx  # stale: the match ended (concede, forfeit) while the balls rolled
        self.pending = None
        if out.result is None:
            if job.kind == "lag":
                self.lag_failures += 1  # tick() runs it again
            target = self._seat_conn(job.seat, job.slot)
            fx.to(
                target,
                error(
                    ErrorCode.INTERNAL_ERROR,
                    f"The simulation failed ({out.failure}); nothing changed, please play again.",
                ),
            )
            return fx
        result = out.result
        t0 = job.received_ms
        if job.kind == "lag":
            try:
                # R-LAG-6: the coin toss that ends endless repeats is seeded from the match.
                seed = str(self.match_id)
                verdict = self._act(fx, rules.LagResult(result, seed), t0, announce=False)
            except IllegalAction:
                return fx
            rest = t0 + math.ceil(result.duration * 1000)
            strokes: dict[SeatKey, pv.CueParams] = {
                ("0" if s == 0 else "1"): pv.CueParams.of(result.strokes[b])
                for s, b in rules.lag_balls(self.state).items()
                if b in result.strokes
            }
            msg = tc.LagResult(
                seq=0,
                winner=verdict.lag_winner,
                reason=LagReason(verdict.lag_reason or ""),
                trajectory=pv.Trajectory(paths=_paths(out)),
                start_ms=t0,
                rest_ms=rest,
                strokes=strokes,
                events=out.events,
                match=wireviews.match_view(self.state),
            )
            # Broadcast first: the snapshot's in_motion and the replay keep the message exactly
            # as it was broadcast, seq included (a client compares it with what it has seen).
            msg = self._broadcast(fx, msg)
            self.last_motion = msg
            fx.strokes.append(StrokeLog("lag", None, t0, msg.to_wire(), msg))
            self._announce(fx, verdict, now)
            return fx
        assert job.seat is not None
        cue = next(iter(job.strokes.values()))
        try:
            verdict = self._act(
                fx, rules.PlayStroke(job.seat, cue, result, job.slot), t0, announce=False
            )
        except IllegalAction as exc:
            fx.to(self._seat_conn(job.seat, job.slot), refusal(exc))
            return fx
        self.strokes_played += 1
        stroke = pv.PlayedStroke(cue=pv.CueParams.of(cue, job.spot), ball=next(iter(job.strokes)))
        played = tc.StrokePlayed(
            seq=0,
            shooter=job.seat,
            stroke=stroke,
            start_ms=t0,
            rest_ms=self.state.resting_at_ms
            if self.state.phase is not Phase.OVER
            else t0 + math.ceil(result.duration * 1000),
            trajectory=pv.Trajectory(paths=_paths(out)),
            events=out.events,
            result=wireviews.stroke_result_view(verdict, self.teams),
            match=wireviews.match_view(self.state),
            shooter_slot=job.slot if self.teams else None,
        )
        played = self._broadcast(fx, played)  # first, so the kept message carries its seq
        self.last_motion = played
        fx.strokes.append(StrokeLog("stroke", job.seat, t0, played.to_wire(), played))
        fx.events.append(ev.StrokePlayed(self.room_id, self.match_id, job.seat, verdict.points, t0))
        # A `turn` after every stroke, even when shooter, phase and deadline are unchanged
        # (a practice room has no clock): clients wait for it before the next stroke.
        self._announce(fx, verdict, now, force_turn=True)
        return fx

    def _rematch(self, fx: Effects, seat: int, slot: int, now: int) -> None:
        before = self.state.phase
        self._act(fx, rules.Rematch(seat, slot), now)
        if before is Phase.OVER and self.state.phase is not Phase.OVER:
            self.begin_match(fx, now)
            fx.snapshot_all = True

    # The referee --------------------------------------------------------------------------
    def _act(
        self,
        fx: Effects,
        action: rules.Action,
        now: int,
        *,
        announce: bool = True,
        log_kind: str | None = None,
        force_turn: bool = False,
    ) -> Verdict:
        """Apply one referee action; raise IllegalAction with the state untouched."""
        before = self.state
        self.state, verdict = rules.apply(self.state, action, now)
        fx.save = True
        if self.state.phase is Phase.OVER:
            # A stroke still being simulated belongs to the match that just ended (a concede
            # while the balls roll): forget it, so `simulated` drops its result as stale instead
            # of judging it against a rematch.
            self.pending = None
        if log_kind is not None and verdict.foul is not None:
            fx.strokes.append(
                StrokeLog(
                    log_kind,
                    before.shooter,
                    now,
                    pv.ClockFoul(
                        result=wireviews.stroke_result_view(verdict, self.teams),
                        match=wireviews.match_view(self.state),
                    ).to_wire(),
                )
            )
        moved = bool(verdict.respots) or self.state.balls != before.balls
        if moved and not isinstance(action, rules.PlayStroke | rules.LagResult):
            # The referee moved balls outside a stroke or the lag, whose own messages carry the
            # table: a frozen re-spot, a clock foul in the free game, the balls set up for the
            # break once the lag's winner has chosen who breaks (with the breaker's white,
            # R-LAG-7). Everyone gets the new table, and a `turn` follows.
            fx.snapshot_all = True
            force_turn = True
        if announce:
            self._announce(fx, verdict, now, force_turn=force_turn)
        return verdict

    def _announce(self, fx: Effects, verdict: Verdict, now: int, force_turn: bool = False) -> None:
        for call in verdict.calls:
            self._broadcast(fx, tc.Call(seq=0, code=CallCode(call.code), text=call.text))
        state = self.state
        striker = state.shooter_slot if state.phase in (Phase.PLAY, Phase.TIMEOUT) else None
        key = (state.phase, state.shooter, striker, state.deadline_ms, state.lag_winner)
        if state.phase is not Phase.OVER and (force_turn or key != self._turn_key):
            self._turn_key = key
            shooter = state.lag_winner if state.phase is Phase.BREAK_CHOICE else state.shooter
            if state.phase in (Phase.WAITING, Phase.LAG):
                shooter = None
            frozen = any(c.code == "frozen" for c in verdict.calls) or None
            self._broadcast(
                fx,
                tc.Turn(
                    seq=0,
                    shooter=shooter,
                    deadline_ms=state.deadline_ms,
                    phase=wireviews.PHASES[state.phase],
                    frozen=frozen,
                    # R-TEAM-2/3: which partner strikes (team rooms only).
                    shooter_slot=striker if self.teams else None,
                ),
            )
        if verdict.game_over is not None:
            sheet = wireviews.sheet_view(rules.scoresheet(state))
            go = verdict.game_over
            self._broadcast(
                fx,
                tc.GameOver(
                    seq=0,
                    winner=go.winner,
                    reason=wireviews.END_REASONS[go.reason],
                    scoresheet=sheet,
                    match_id=self.match_id,
                ),
            )
            fx.finished = (go.winner, go.reason.value, sheet.to_wire())
            fx.events.append(
                ev.MatchFinished(
                    self.room_id,
                    self.match_id,
                    self.options.discipline.value,
                    tuple(s.player_id for s in self.seats if s is not None),
                    go.winner,
                    go.reason.value,
                    now,
                )
            )

    def _broadcast(self, fx: Effects, msg: M) -> M:
        """``msg`` with the room's next seq, sent to everyone in the room; returns it as sent."""
        self.seq += 1
        sent = replace(msg, seq=self.seq)  # type: ignore[call-arg]  # every broadcast has seq
        fx.to(self.conns(), sent)
        return sent

    def _seat_conn(self, seat: int | None, slot: int = 0) -> list[ConnId]:
        if seat is None:
            return []
        holder = self.seats[lineup.player(seat, slot)]
        return [] if holder is None or holder.conn is None else [holder.conn]


def shift_clocks(state: rules.MatchState, delta_ms: int) -> rules.MatchState:
    """Every running deadline of ``state`` ``delta_ms`` later: the shot, lag and break clocks,
    a time-out's end, the balls' rest (R-CLOCK-1 counts from it) and the reconnection graces
    (R-END-5). A paused clock (``paused_ms``) is a duration and stays as it is."""
    if delta_ms <= 0:
        return state
    return replace(
        state,
        deadline_ms=None if state.deadline_ms is None else state.deadline_ms + delta_ms,
        resting_at_ms=state.resting_at_ms + delta_ms if state.resting_at_ms else 0,
        grace_deadline=tuple(None if g is None else g + delta_ms for g in state.grace_deadline),
    )


def _paths(out: SimOutcome) -> dict[BallName, Any]:
    """The worker's encoded trajectory, keyed by ball (``encode_trajectory`` keys it by the
    simulated balls' names)."""
    return cast("dict[BallName, Any]", out.trajectory)
