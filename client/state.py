"""The client's tracked copy of its room and match, folded from server messages.

:class:`TableState` is plain data updated by :meth:`TableState.apply`, one server message at a
time, with no I/O: the session feeds it, and a test or a replay tool can feed it recorded
messages. Messages arrive decoded once, as ``shared.protocol`` objects, and the state holds the
typed views they carry (``RoomView``, ``MatchView`` …): every reader uses attributes, never wire
keys. Every room broadcast carries ``seq`` (PROTOCOL.md); ``apply`` reports a gap so the session
can ask for a fresh ``snapshot`` (``sync``), and ignores broadcasts it has already seen (a
snapshot taken after them already contains them).
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Literal

from shared.protocol import to_client as tc
from shared.protocol.base import ServerMessage
from shared.protocol.enums import Phase, SeatStatus
from shared.protocol.views import MatchView, RoomView

Applied = Literal["applied", "gap", "resync", "stale", "direct"]

MAX_CALLS = 100  # referee calls kept (newest last)
MAX_CHAT = 200  # chat lines kept


@dataclass
class TableState:
    """What a client knows, as the typed views the server sent."""

    # Session ------------------------------------------------------------------------------
    player_id: str | None = None
    connected: bool = False
    clock_offset_ms: float = 0.0  # server time - local time (ms), see Session.server_now_ms
    rtt_ms: float | None = None  # best round trip seen (ms)
    # Room ---------------------------------------------------------------------------------
    room_id: str | None = None
    seat: int | None = None  # our seat (our side), None when spectating or not in a room
    slot: int | None = None  # team rooms: our place in the side's line-up (R-TEAM-1)
    seat_token: str | None = None  # secret key to our seat (rejoin)
    spectating: bool = False
    room: RoomView | None = None  # snapshot.room: options, players, seats …
    match: MatchView | None = None  # the referee's match view (latest)
    seq: int | None = None  # last room broadcast applied
    # Latest of each kind ------------------------------------------------------------------
    turn: tc.Turn | None = None
    last_stroke: tc.StrokePlayed | None = None  # trajectory, start_ms, rest_ms
    last_lag: tc.LagResult | None = None
    game_over: tc.GameOver | None = None  # the match's end, if it ended
    # player (seat + 2 * slot; the seat in singles) -> status
    player_status: dict[int, tc.PlayerStatus] = field(default_factory=dict)
    calls: deque[tc.Call] = field(default_factory=lambda: deque(maxlen=MAX_CALLS))
    chat: deque[tc.ChatLine] = field(default_factory=lambda: deque(maxlen=MAX_CHAT))
    last_error: tc.Error | None = None
    # True when a broadcast changed the match in ways it does not carry (a ``turn`` that
    # moves the phase or the shooter: break chosen, clock foul, time-out): the match view is
    # out of date until the next snapshot. A bot must not plan from it meanwhile.
    match_stale: bool = False

    # Reading ------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase | None:
        return None if self.match is None else self.match.phase

    @property
    def shooter(self) -> int | None:
        return None if self.match is None else self.match.shooter

    @property
    def deadline_ms(self) -> int | None:
        return None if self.match is None else self.match.deadline_ms

    @property
    def shooter_slot(self) -> int | None:
        """Team rooms: the partner of the shooting side who strikes (R-TEAM-2, R-TEAM-3)."""
        return None if self.match is None else self.match.shooter_slot

    @property
    def my_turn(self) -> bool:
        """Our stroke: our side to play and, in a team room, our place in its line-up."""
        if self.seat is None or self.phase != Phase.PLAY or self.shooter != self.seat:
            return False
        return self.shooter_slot is None or self.shooter_slot == (self.slot or 0)

    @property
    def my_lag(self) -> bool:
        """Whether we play our side's lag stroke and choose the break (R-TEAM-1: the first
        player of the line-up, or the partner left when the first is out for good)."""
        if self.seat is None or self.match is None or self.slot is None:
            return self.seat is not None
        first_out = any(
            p.seat == self.seat and p.slot == 0 and p.out for p in self.match.players or ()
        )
        return self.slot == (1 if first_out else 0)

    def copy(self) -> TableState:
        """A copy another thread may read while this one keeps changing (the views inside
        are immutable; only the containers are copied)."""
        return _copy(self)

    # Writing ------------------------------------------------------------------------------
    def enter_room(
        self, room_id: str, seat: int | None, seat_token: str | None, slot: int | None = None
    ) -> None:
        if room_id != self.room_id:
            self.leave_room()
        self.room_id = room_id
        self.seat = seat
        self.slot = slot
        self.seat_token = seat_token
        self.spectating = seat is None

    def leave_room(self) -> None:
        keep = TableState(
            player_id=self.player_id,
            connected=self.connected,
            clock_offset_ms=self.clock_offset_ms,
            rtt_ms=self.rtt_ms,
        )
        self.__dict__.update(keep.__dict__)

    def apply(self, msg: ServerMessage) -> Applied:
        """Fold one server message in. Returns ``gap`` when broadcasts were missed and
        ``resync`` when the match view is out of date (the caller should send ``sync`` for
        both), ``stale`` for a broadcast already covered, ``direct`` for a message that is not
        a room broadcast."""
        if isinstance(msg, tc.Snapshot):
            self._snapshot(msg)
            return "applied"
        if isinstance(msg, tc.Error):
            self.last_error = msg
        if isinstance(msg, tc.Joined):
            self.enter_room(msg.room_id, msg.seat, msg.seat_token, msg.slot)
        if isinstance(msg, tc.Left):
            self.leave_room()
        if (
            isinstance(msg, tc.Audience)
            and self.room is not None
            and msg.room_id == self.room.room_id
        ):
            self.room = replace(self.room, spectators=msg.spectators)
        seq = getattr(msg, "seq", None)
        if not isinstance(seq, int):
            return "direct"
        if self.seq is not None and seq <= self.seq:
            return "stale"
        outcome: Applied = "gap" if self.seq is not None and seq > self.seq + 1 else "applied"
        self.seq = seq
        if (
            isinstance(msg, tc.PlayerStatus)
            and msg.status == SeatStatus.CONNECTED
            and not self._knows(msg)
        ):
            outcome = "resync"  # a new player sat down: the room view lacks their name
        if isinstance(msg, tc.Turn) and (
            msg.phase != self.phase
            or msg.shooter != self.shooter
            or (msg.shooter_slot is not None and msg.shooter_slot != self.shooter_slot)
        ):
            # A partner change inside the side's turn (Scotch doubles, R-TEAM-3) moves the
            # match too.
            self.match_stale = True
            outcome = "resync"
        if isinstance(msg, tc.StrokePlayed):
            self.last_stroke = msg
            self._new_match(msg.match)
        elif isinstance(msg, tc.LagResult):
            self.last_lag = msg
            self._new_match(msg.match)
        elif isinstance(msg, tc.Turn):
            self.turn = msg
            if self.match is not None:
                self.match = replace(
                    self.match,
                    shooter=msg.shooter,
                    deadline_ms=msg.deadline_ms,
                    phase=msg.phase or self.match.phase,
                    shooter_slot=msg.shooter_slot,
                )
        elif isinstance(msg, tc.Call):
            self.calls.append(msg)
        elif isinstance(msg, tc.ChatLine):
            self.chat.append(msg)
        elif isinstance(msg, tc.PlayerStatus):
            self.player_status[msg.seat + 2 * (msg.slot or 0)] = msg
        elif isinstance(msg, tc.GameOver):
            self.game_over = msg
            if self.match is not None:
                self.match = replace(self.match, phase=Phase.OVER)
        return outcome

    def _knows(self, msg: tc.PlayerStatus) -> bool:
        seats = () if self.room is None else self.room.seats
        player = msg.seat + 2 * (msg.slot or 0)  # the room's seats are by player (R-TEAM-1)
        return 0 <= player < len(seats) and seats[player] is not None

    def _new_match(self, match: MatchView | None) -> None:
        if match is not None:
            self.match = match
            self.match_stale = False

    def _snapshot(self, msg: tc.Snapshot) -> None:
        self.match_stale = False
        self.seq = msg.seq
        self.room = msg.room
        self.match = msg.match
        if msg.room.room_id != self.room_id:
            self.room_id = msg.room.room_id
        self.seat = msg.seat
        self.slot = msg.slot
        self.spectating = self.seat is None
        if msg.match.phase != Phase.OVER:
            self.game_over = None


def _copy(state: TableState) -> TableState:
    out = copy.copy(state)
    out.player_status = dict(state.player_status)
    out.calls = deque(state.calls, maxlen=MAX_CALLS)
    out.chat = deque(state.chat, maxlen=MAX_CHAT)
    return out
