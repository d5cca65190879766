"""The lobby's logic, sans I/O: connections' budgets, identities, the room directory's caps,
password backoff and replay pacing (STYLE.md; the same shape as :class:`server.core.room.Room`).

Theory of operation. The gateway (``server/net/gateway.py``) owns the sockets, the outbound
queues, the database, the password-hashing pool and the rooms' actors. Everything it tells or
asks the lobby is one typed :class:`Request` passed to :meth:`Lobby.step` with the time, one
transition each, like the room core's ``handle``; it carries out what comes back (an
:class:`Out`: replies to send, connections to close; or a route, a caller, a refusal). Nothing
here awaits, reads a clock or touches a socket, so tests drive every limit with a fake clock and
no network (tests/server/core/test_lobby.py).

Two clocks, as in the rest of the server: limits (token buckets, password backoff) take
monotonic seconds, so a wall-clock step cannot refill a bucket; nothing here needs wall time.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

from server.config import ServerConfig
from server.core import guard
from shared.protocol import PROTOCOL_VERSION, ErrorCode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.tournament import TOURNAMENT_CLIENT_MESSAGES

ConnId = int

# Close codes (RFC 6455 §7.4.1); docs/protocol.md lists when each is used.
CLOSE_GOING_AWAY = 1001  # server shutting down
CLOSE_POLICY = 1008  # repeated bad frames, rate abuse, or too slow to read
CLOSE_TOO_BIG = 1009  # frame above the hard limit (sent by websockets itself)
CLOSE_TRY_LATER = 1013  # server full

REPLAY_BYTES_PER_MESSAGE = 65536  # a replay costs one message of the budget per 64 KiB sent


# The requests the standing desk answers (accounts, quick match, leaderboards, profiles).
DESK = (ts.Register, ts.Login, ts.Queue, ts.Unqueue, ts.GetLeaderboard, ts.GetProfile)


class Route(enum.Enum):
    """Where a message that passed the lobby's checks goes next (the gateway does the I/O)."""

    PING = "ping"
    HELLO = "hello"
    DESK = "desk"  # accounts, quick match, leaderboard (server/net/desk.py)
    ROOM = "room"  # the connection's room (local actor, a relay, or a hub)
    LIST_ROOMS = "list_rooms"
    CREATE = "create"
    ENTER = "enter"
    LIST_MATCHES = "list_matches"
    REPLAY = "replay"
    TOURNAMENT = "tournament"  # tournaments (server/net/tournaments.py)


_LOBBY_ROUTES: dict[type[ClientMessage], Route] = {
    ts.Ping: Route.PING,
    ts.Hello: Route.HELLO,
    ts.ListRooms: Route.LIST_ROOMS,
    ts.CreateRoom: Route.CREATE,
    ts.Join: Route.ENTER,
    ts.Spectate: Route.ENTER,
    ts.Rejoin: Route.ENTER,
    ts.ListMatches: Route.LIST_MATCHES,
    ts.GetReplay: Route.REPLAY,
    **{cls: Route.TOURNAMENT for cls in TOURNAMENT_CLIENT_MESSAGES},
}


@dataclass(slots=True)
class ConnRecord:
    """One connection as the lobby sees it."""

    conn: ConnId
    addr: str
    tokens: float  # the message budget (a token bucket)
    refill_at: float  # monotonic seconds of the last refill
    player_id: str | None = None  # set by hello
    name: str = ""
    strikes: int = 0  # bad or rate-limited frames
    created: set[str] = field(default_factory=set)  # open rooms it created
    wrong_passwords: int = 0
    replay_busy: bool = False
    closed: bool = False  # a close was decided: nothing more is sent to it


@dataclass(slots=True)
class Out:
    """What the gateway must do: replies to send and connections to close, in order."""

    replies: list[tuple[ConnId, ServerMessage]] = field(default_factory=list)
    closes: list[tuple[ConnId, int, str]] = field(default_factory=list)

    def reply(self, conn: ConnId, msg: ServerMessage) -> Out:
        self.replies.append((conn, msg))
        return self

    def __bool__(self) -> bool:
        return bool(self.replies or self.closes)


@dataclass(frozen=True, slots=True)
class Refused:
    """A websocket connection the server will not serve: close it with this code and reason."""

    code: int
    reason: str


R = TypeVar("R", covariant=True)


class Request(Generic[R]):
    """Something the gateway tells or asks the lobby; ``R`` is what :meth:`Lobby.step`
    answers to it."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class TcpOpened(Request[bool]):
    addr: str


@dataclass(frozen=True, slots=True)
class TcpClosed(Request[None]):
    addr: str


@dataclass(frozen=True, slots=True)
class Opened(Request[ConnRecord | Refused]):
    addr: str


@dataclass(frozen=True, slots=True)
class Closed(Request[None]):
    conn: ConnId


@dataclass(frozen=True, slots=True)
class HelloLate(Request[Out]):
    conn: ConnId


@dataclass(frozen=True, slots=True)
class Frame(Request[Out | None]):
    conn: ConnId


@dataclass(frozen=True, slots=True)
class BadFrame(Request[Out]):
    conn: ConnId
    refusal: tc.Error


@dataclass(frozen=True, slots=True)
class Routed(Request[Route | Out]):
    conn: ConnId
    msg: ClientMessage


@dataclass(frozen=True, slots=True)
class HelloAsked(Request[tc.Error | None]):
    conn: ConnId
    msg: ts.Hello


@dataclass(frozen=True, slots=True)
class Greeted(Request[None]):
    conn: ConnId
    player_id: str
    name: str


@dataclass(frozen=True, slots=True)
class RoomAsked(Request[str | None]):
    conn: ConnId


@dataclass(frozen=True, slots=True)
class RoomOpened(Request[None]):
    room_id: str
    creator: str | None
    conn: ConnId | None = None


@dataclass(frozen=True, slots=True)
class RoomClosed(Request[None]):
    room_id: str


@dataclass(frozen=True, slots=True)
class PasswordAsked(Request[Out | None]):
    conn: ConnId
    room_id: str
    re: int | None


@dataclass(frozen=True, slots=True)
class PasswordHeld(Request[Out]):
    conn: ConnId
    wait_s: float
    re: int | None


@dataclass(frozen=True, slots=True)
class PasswordChecked(Request[Out]):
    conn: ConnId
    room_id: str
    ok: bool
    msg: ts.Join | ts.Spectate


@dataclass(frozen=True, slots=True)
class ReplayAsked(Request[Out | None]):
    conn: ConnId
    re: int | None


@dataclass(frozen=True, slots=True)
class ReplaySent(Request[None]):
    conn: ConnId
    nbytes: int


@dataclass(frozen=True, slots=True)
class Drain(Request[None]):
    """The server starts draining: no new connection, no new room."""


@dataclass(frozen=True, slots=True)
class PeerTrusted(Request[None]):
    """``addr`` proved it is another node of the cluster: not held to the per-address cap."""

    addr: str


@dataclass(slots=True)
class _RoomEntry:
    creator: str | None
    address: str | None


class Lobby:
    """Every lobby decision, for every connection and open room of one server."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.records: dict[ConnId, ConnRecord] = {}
        self.draining = False
        # Open TCP connections per peer address, handshakes in progress included.
        self.per_address: Counter[str] = Counter()
        # Cluster nodes seen relaying clients (their relays carry each client's own address):
        # not held to the per-address connection cap (server/cluster/relay.py).
        self.trusted_peers: set[str] = set()
        self.rooms: dict[str, _RoomEntry] = {}
        # Open rooms per creator and per creating address (counts: O(1) per create).
        self.rooms_by_creator: Counter[str] = Counter()
        self.rooms_by_address: Counter[str] = Counter()
        self.guard = guard.PasswordGuard()
        self._next_conn = 0

    def step(self, req: Request[R], now: float) -> R:
        """The one way in: a request and the time (monotonic seconds), and its answer — the
        replies and closes to carry out (:class:`Out`), a route, a caller or a refusal."""
        handler = _HANDLERS[type(req)]
        return cast(R, handler(self, req, now))

    def _drain(self, req: Drain, _now: float) -> None:
        self.draining = True

    def _peer_trusted(self, req: PeerTrusted, _now: float) -> None:
        self.trusted_peers.add(req.addr)

    # Connections ---------------------------------------------------------------------------
    def _tcp_opened(self, req: TcpOpened, _now: float) -> bool:
        """A TCP connection from ``addr`` arrived (before any handshake): count it, or refuse it
        (False) when that address already holds its share."""
        addr = req.addr
        if (
            self.per_address[addr] >= self.config.max_connections_per_address
            and addr not in self.trusted_peers
        ):
            return False
        self.per_address[addr] += 1
        return True

    def _tcp_closed(self, req: TcpClosed, _now: float) -> None:
        addr = req.addr
        self.per_address[addr] -= 1
        if self.per_address[addr] <= 0:
            del self.per_address[addr]

    def _open(self, req: Opened, now: float) -> ConnRecord | Refused:
        """A websocket handshake completed: a new caller with a full budget, or a refusal."""
        addr = req.addr
        if self.draining:
            return Refused(CLOSE_GOING_AWAY, "server shutting down")
        if len(self.records) >= self.config.max_connections:
            return Refused(CLOSE_TRY_LATER, "server full")
        self._next_conn += 1
        caller = ConnRecord(self._next_conn, addr, tokens=self.config.burst, refill_at=now)
        self.records[caller.conn] = caller
        return caller

    def _closed(self, req: Closed, _now: float) -> None:
        conn = req.conn
        self.records.pop(conn, None)

    def _hello_late(self, req: HelloLate, _now: float) -> Out:
        """The hello deadline passed: a connection that never said hello gives its slot back."""
        conn = req.conn
        caller = self.records.get(conn)
        out = Out()
        if caller is not None and caller.player_id is None:
            self._close(out, caller, CLOSE_POLICY, "no hello in time")
        return out

    def _close(self, out: Out, caller: ConnRecord, code: int, reason: str) -> None:
        if not caller.closed:
            caller.closed = True
            out.closes.append((caller.conn, code, reason))

    def _strike(self, out: Out, caller: ConnRecord) -> None:
        caller.strikes += 1
        if caller.strikes >= self.config.max_strikes:
            self._close(out, caller, CLOSE_POLICY, "too many bad messages")

    # Frames --------------------------------------------------------------------------------
    def _frame(self, req: Frame, now: float) -> Out | None:
        """A frame arrived: None if it is within the budget (one token spent), else the
        refusal (a strike; too many strikes close the connection)."""
        conn = req.conn
        caller = self.records[conn]
        cfg = self.config
        caller.tokens = min(cfg.burst, caller.tokens + (now - caller.refill_at) * cfg.rate)
        caller.refill_at = now
        if caller.tokens >= 1.0:
            caller.tokens -= 1.0
            return None
        out = Out().reply(
            conn,
            error(ErrorCode.RATE_LIMITED, f"Slow down: at most {cfg.rate:g} messages per second."),
        )
        self._strike(out, caller)
        return out

    def _bad_frame(self, req: BadFrame, _now: float) -> Out:
        """A frame the codec refused: the error goes back, and it counts as a strike."""
        conn, refusal = req.conn, req.refusal
        out = Out().reply(conn, refusal)
        self._strike(out, self.records[conn])
        return out

    def _route(self, req: Routed, _now: float) -> Route | Out:
        """Where ``msg`` goes, or the refusal (nothing but ping and hello before hello)."""
        conn, msg = req.conn, req.msg
        caller = self.records[conn]
        route = _LOBBY_ROUTES.get(type(msg))
        if route in (Route.PING, Route.HELLO):
            assert route is not None
            return route
        if caller.player_id is None:
            return Out().reply(conn, error(ErrorCode.HELLO_FIRST, "Say hello first.", msg.id))
        if route is not None:
            return route
        return Route.DESK if isinstance(msg, DESK) else Route.ROOM

    # Identities ------------------------------------------------------------------------------
    def _hello_refusal(self, req: HelloAsked, _now: float) -> tc.Error | None:
        """Why this hello cannot be answered with an identity (a second hello, another
        protocol version), or None."""
        conn, msg = req.conn, req.msg
        if self.records[conn].player_id is not None:
            return error(ErrorCode.ALREADY_GREETED, "You already said hello.", msg.id)
        if msg.v != PROTOCOL_VERSION:
            return error(
                ErrorCode.UNSUPPORTED_VERSION,
                f"This server speaks protocol version {PROTOCOL_VERSION}.",
                msg.id,
            )
        return None

    def _greeted(self, req: Greeted, _now: float) -> None:
        """Hello succeeded (the gateway found or made the identity)."""
        conn, player_id, name = req.conn, req.player_id, req.name
        caller = self.records.get(conn)
        if caller is not None:
            caller.player_id, caller.name = player_id, name

    # Rooms -----------------------------------------------------------------------------------
    def _room_refusal(self, req: RoomAsked, _now: float) -> str | None:
        """Why this caller may not create a room now (the room caps), or None. Asked before
        and again after the (slow) password hashing: others may have created rooms since."""
        conn = req.conn
        cfg = self.config
        caller = self.records[conn]
        if self.draining:
            return "The server is shutting down."
        if len(self.rooms) >= cfg.max_rooms:
            return "The server is full."
        assert caller.player_id is not None
        mine = self.rooms_by_creator[caller.player_id]
        if mine >= cfg.max_rooms_per_identity:
            return (
                f"You already have {mine} open rooms; at most "
                f"{cfg.max_rooms_per_identity} per player."
            )
        if self.rooms_by_address[caller.addr] >= cfg.max_rooms_per_address:
            return f"At most {cfg.max_rooms_per_address} open rooms from one address."
        if len(caller.created) >= cfg.max_rooms_per_connection:
            return f"At most {cfg.max_rooms_per_connection} open rooms per connection."
        return None

    def _room_opened(self, req: RoomOpened, _now: float) -> None:
        """A room is open on this server: created by ``conn`` now, or restored/taken over
        (``conn`` None: its creator's identity still counts, no address does)."""
        room_id, creator, conn = req.room_id, req.creator, req.conn
        caller = self.records.get(conn) if conn is not None else None
        address = caller.addr if caller is not None else None
        self.rooms[room_id] = _RoomEntry(creator, address)
        if creator is not None:
            self.rooms_by_creator[creator] += 1
        if address is not None:
            self.rooms_by_address[address] += 1
        if caller is not None:
            caller.created.add(room_id)

    def _room_closed(self, req: RoomClosed, _now: float) -> None:
        room_id = req.room_id
        entry = self.rooms.pop(room_id, None)
        if entry is None:
            return
        for counter, key in (
            (self.rooms_by_creator, entry.creator),
            (self.rooms_by_address, entry.address),
        ):
            if key is not None:
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
        for caller in self.records.values():
            caller.created.discard(room_id)

    # Private rooms' passwords --------------------------------------------------------------------
    def _password_wait(self, req: PasswordAsked, now: float) -> Out | None:
        """None if this caller may try a password for ``room_id`` now; else the refusal (which
        counts as a wrong password: a guesser who ignores the wait is closed all the same)."""
        conn, room_id, re = req.conn, req.room_id, req.re
        caller = self.records[conn]
        assert caller.player_id is not None
        wait = self.guard.wait(guard.keys(room_id, caller.player_id, caller.addr), now)
        if wait <= 0:
            return None
        return self._password_held(PasswordHeld(conn, wait, re), now)

    def _password_held(self, req: PasswordHeld, _now: float) -> Out:
        """The refusal for a caller that must wait ``wait_s`` before its next password (this
        server's backoff, or a cluster's count over every node); it counts as a wrong one."""
        conn, wait_s, re = req.conn, req.wait_s, req.re
        caller = self.records[conn]
        out = Out().reply(
            conn,
            error(
                ErrorCode.RATE_LIMITED,
                f"Too many wrong passwords; try again in {math.ceil(wait_s)} s.",
                re,
            ),
        )
        self._wrong_password(out, caller)
        return out

    def _password_checked(self, req: PasswordChecked, now: float) -> Out:
        """The password was checked: a right one clears this pair's backoff; a wrong one counts
        against every tally (server/core/guard.py) and this connection. No password at all is a
        question, not a guess."""
        conn, room_id, ok, msg = req.conn, req.room_id, req.ok, req.msg
        caller = self.records[conn]
        assert caller.player_id is not None
        tallies = guard.keys(room_id, caller.player_id, caller.addr)
        out = Out()
        if ok:
            self.guard.succeeded(tallies)
            return out
        out.reply(
            conn, error(ErrorCode.BAD_PASSWORD, "Wrong password for this private room.", msg.id)
        )
        if msg.password is not None:
            self.guard.failed(tallies, now)
            self._wrong_password(out, caller)
        return out

    def _wrong_password(self, out: Out, caller: ConnRecord) -> None:
        caller.wrong_passwords += 1
        if caller.wrong_passwords >= self.config.max_wrong_passwords:
            self._close(out, caller, CLOSE_POLICY, "too many wrong passwords")

    # Replays ---------------------------------------------------------------------------------
    def _replay_start(self, req: ReplayAsked, _now: float) -> Out | None:
        """None if this caller may have a replay built now (it is marked busy until
        :meth:`replay_sent`); else the refusal: one replay at a time per connection."""
        conn, re = req.conn, req.re
        caller = self.records[conn]
        if not caller.replay_busy:
            caller.replay_busy = True
            return None
        return Out().reply(
            conn,
            error(
                ErrorCode.RATE_LIMITED,
                "One replay at a time: wait for the one you asked for.",
                re,
            ),
        )

    def _replay_sent(self, req: ReplaySent, _now: float) -> None:
        """The replay (``nbytes`` long) is on its way, or failed (0): bytes cost budget too."""
        conn, nbytes = req.conn, req.nbytes
        caller = self.records.get(conn)
        if caller is not None:
            caller.replay_busy = False
            caller.tokens -= nbytes // REPLAY_BYTES_PER_MESSAGE


_HANDLERS: dict[type[Request[Any]], Callable[[Lobby, Any, float], object]] = {
    Drain: Lobby._drain,
    PeerTrusted: Lobby._peer_trusted,
    TcpOpened: Lobby._tcp_opened,
    TcpClosed: Lobby._tcp_closed,
    Opened: Lobby._open,
    Closed: Lobby._closed,
    HelloLate: Lobby._hello_late,
    Frame: Lobby._frame,
    BadFrame: Lobby._bad_frame,
    Routed: Lobby._route,
    HelloAsked: Lobby._hello_refusal,
    Greeted: Lobby._greeted,
    RoomAsked: Lobby._room_refusal,
    RoomOpened: Lobby._room_opened,
    RoomClosed: Lobby._room_closed,
    PasswordAsked: Lobby._password_wait,
    PasswordHeld: Lobby._password_held,
    PasswordChecked: Lobby._password_checked,
    ReplayAsked: Lobby._replay_start,
    ReplaySent: Lobby._replay_sent,
}
