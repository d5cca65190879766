"""The client's tracked copy of its room and match, folded from server messages.

:class:`TableState` is plain data updated by :meth:`TableState.apply`, one server message at a
time, with no I/O: the session feeds it, and a test or a replay tool can feed it recorded
messages. Every room broadcast carries ``seq`` (PROTOCOL.md); ``apply`` reports a gap so the
session can ask for a fresh ``snapshot`` (``sync``), and ignores broadcasts it has already seen
(a snapshot taken after them already contains them).
"""

from __future__ import annotations

import copy
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal

Applied = Literal["applied", "gap", "resync", "stale", "direct"]

MAX_CALLS = 100  # referee calls kept (newest last)
MAX_CHAT = 200  # chat lines kept


@dataclass
class TableState:
    """What a client knows. Wire maps are kept as the server sent them (PROTOCOL.md names)."""

    # Session ------------------------------------------------------------------------------
    player_id: str | None = None
    connected: bool = False
    clock_offset_ms: float = 0.0  # server time - local time (ms), see Session.server_now_ms
    rtt_ms: float | None = None  # best round trip seen (ms)
    # Room ---------------------------------------------------------------------------------
    room_id: str | None = None
    seat: int | None = None  # our seat, None when spectating or not in a room
    seat_token: str | None = None  # secret key to our seat (rejoin)
    spectating: bool = False
    room: dict[str, Any] = field(default_factory=dict)  # snapshot.room: options, players, ...
    match: dict[str, Any] = field(default_factory=dict)  # the referee's match view (latest)
    seq: int | None = None  # last room broadcast applied
    # Latest of each kind ------------------------------------------------------------------
    turn: dict[str, Any] | None = None  # last ``turn``
    last_stroke: dict[str, Any] | None = None  # last ``stroke_played`` (trajectory, start_ms)
    last_lag: dict[str, Any] | None = None  # last ``lag_result``
    game_over: dict[str, Any] | None = None  # ``game_over`` of the match, if it ended
    player_status: dict[int, dict[str, Any]] = field(default_factory=dict)  # seat -> status
    calls: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_CALLS))
    chat: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=MAX_CHAT))
    last_error: dict[str, Any] | None = None
    # True when a broadcast changed the match in ways it does not carry (a ``turn`` that
    # moves the phase or the shooter: break chosen, clock foul, time-out): the match view is
    # out of date until the next snapshot. A bot must not plan from it meanwhile.
    match_stale: bool = False

    # Reading ------------------------------------------------------------------------------
    @property
    def phase(self) -> str | None:
        phase = self.match.get("phase")
        return phase if isinstance(phase, str) else None

    @property
    def shooter(self) -> int | None:
        shooter = self.match.get("shooter")
        return shooter if isinstance(shooter, int) else None

    @property
    def deadline_ms(self) -> int | None:
        deadline = self.match.get("deadline_ms")
        return deadline if isinstance(deadline, int) else None

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.phase == "play" and self.shooter == self.seat

    def copy(self) -> TableState:
        """A deep copy another thread may read while this one keeps changing."""
        return copy.deepcopy(self)

    # Writing ------------------------------------------------------------------------------
    def enter_room(self, room_id: str, seat: int | None, seat_token: str | None) -> None:
        if room_id != self.room_id:
            self.leave_room()
        self.room_id = room_id
        self.seat = seat
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

    def apply(self, msg: dict[str, Any]) -> Applied:
        """Fold one server message in. Returns ``gap`` when broadcasts were missed and
        ``resync`` when the match view is out of date (the caller should send ``sync`` for
        both), ``stale`` for a broadcast already covered, ``direct`` for a message that is not
        a room broadcast."""
        t = msg.get("t")
        if t == "snapshot":
            self._snapshot(msg)
            return "applied"
        if t == "error":
            self.last_error = msg
        if t == "joined":
            self.enter_room(str(msg["room_id"]), int(msg["seat"]), str(msg["seat_token"]))
        if t == "left":
            self.leave_room()
        seq = msg.get("seq")
        if not isinstance(seq, int):
            return "direct"
        if self.seq is not None and seq <= self.seq:
            return "stale"
        outcome: Applied = "gap" if self.seq is not None and seq > self.seq + 1 else "applied"
        self.seq = seq
        if t == "player_status" and msg.get("status") == "connected" and not self._knows(msg):
            outcome = "resync"  # a new player sat down: the room view lacks their name
        if t == "turn" and (
            msg.get("phase") != self.match.get("phase")
            or msg.get("shooter") != self.match.get("shooter")
        ):
            self.match_stale = True
            outcome = "resync"
        handler = _HANDLERS.get(str(t))
        if handler is not None:
            handler(self, msg)
        return outcome

    def _knows(self, msg: dict[str, Any]) -> bool:
        seats = self.room.get("seats")
        seat = msg.get("seat")
        return (
            isinstance(seats, list)
            and isinstance(seat, int)
            and 0 <= seat < len(seats)
            and seats[seat] is not None
        )

    def _snapshot(self, msg: dict[str, Any]) -> None:
        self.match_stale = False
        seq = msg.get("seq")
        self.seq = seq if isinstance(seq, int) else None
        room = msg.get("room")
        self.room = dict(room) if isinstance(room, dict) else {}
        match = msg.get("match")
        self.match = dict(match) if isinstance(match, dict) else {}
        room_id = self.room.get("room_id")
        if isinstance(room_id, str) and room_id != self.room_id:
            self.room_id = room_id
        if "seat" in msg:
            seat = msg.get("seat")
            self.seat = seat if isinstance(seat, int) else None
            self.spectating = self.seat is None
        if self.match.get("phase") != "over":
            self.game_over = None

    def _stroke_played(self, msg: dict[str, Any]) -> None:
        self.last_stroke = msg
        match = msg.get("match")
        if isinstance(match, dict):
            self.match = dict(match)
            self.match_stale = False

    def _lag_result(self, msg: dict[str, Any]) -> None:
        self.last_lag = msg
        match = msg.get("match")
        if isinstance(match, dict):
            self.match = dict(match)
            self.match_stale = False

    def _turn(self, msg: dict[str, Any]) -> None:
        self.turn = msg
        self.match["shooter"] = msg.get("shooter")
        self.match["deadline_ms"] = msg.get("deadline_ms")
        if isinstance(msg.get("phase"), str):
            self.match["phase"] = msg["phase"]
        # ``turn.frozen`` says what the match view's ``frozen`` (sent with the stroke before it)
        # already shows in full: the view keeps its own.

    def _call(self, msg: dict[str, Any]) -> None:
        self.calls.append(msg)

    def _chat(self, msg: dict[str, Any]) -> None:
        self.chat.append(msg)

    def _player_status(self, msg: dict[str, Any]) -> None:
        seat = msg.get("seat")
        if isinstance(seat, int):
            self.player_status[seat] = msg

    def _game_over(self, msg: dict[str, Any]) -> None:
        self.game_over = msg
        self.match["phase"] = "over"
        match = msg.get("match")
        if isinstance(match, dict):
            self.match = dict(match)


_HANDLERS = {
    "stroke_played": TableState._stroke_played,
    "lag_result": TableState._lag_result,
    "turn": TableState._turn,
    "call": TableState._call,
    "chat": TableState._chat,
    "player_status": TableState._player_status,
    "game_over": TableState._game_over,
}
