"""The headless asyncio client: one connection to a carom server, kept alive.

A :class:`Session` connects, says ``hello`` (reusing the identity token kept by
:class:`~client.identity.IdentityStore`), and then tracks its room in :attr:`Session.state`
(a :class:`~client.state.TableState`). Every server message, decoded once into its
``shared.protocol`` object and folded into the state, is put on :attr:`Session.events` and
passed to every listener, so a program can either ``await session.events.get()`` or register a
callback. :class:`Link` events report the link itself (``connected``, ``lost``,
``reconnecting``, ``restored``, ``rejoin_failed``, ``closed``).

When the connection drops, the session reconnects with exponential backoff, says ``hello`` with
the same token, and ``rejoin``s its seat with the seat token (or spectates again), so a bot or a
player finds the match where it was. A gap in a room's ``seq`` triggers one ``sync``. The server
clock offset is estimated from the ``hello``/``welcome`` and ``ping``/``pong`` round trips
(NTP's rule: the sample with the smallest round trip is the most trustworthy).

Nothing here blocks the event loop: CPU-heavy work (a bot's search) belongs in an executor.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import websockets
from websockets.asyncio.client import ClientConnection

from client import wire
from client.identity import IdentityStore
from client.state import TableState
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage, ServerMessage
from shared.protocol.errors import ErrorCode, ProtocolError
from shared.protocol.to_server import PROTOCOL_VERSION
from shared.protocol.views import CueParams, RoomSummary

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Link:
    """The connection itself changed: ``status`` is ``connected``, ``lost``, ``reconnecting``
    (``attempt`` counts), ``restored``, ``rejoin_failed`` (with the server's ``code`` and
    ``message``) or ``closed``."""

    status: str
    attempt: int | None = None
    code: str | None = None
    message: str | None = None


Event = ServerMessage | Link
Listener = Callable[[Event], None]
M = TypeVar("M", bound=ServerMessage)

CLOCK_SAMPLES = 8  # recent round trips kept for the offset estimate


class ServerError(Exception):
    """The server refused a request: ``code`` is the stable error code (PROTOCOL.md)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionLost(Exception):
    """The connection dropped before the answer arrived (the session may be reconnecting)."""


def local_ms() -> float:
    return time.time() * 1000.0


class Session:
    """One player's (or spectator's) connection. See the module docstring and docs/bots.md."""

    def __init__(
        self,
        url: str,
        name: str = "player",
        *,
        identity: IdentityStore | None = None,
        remember_identity: bool = True,
        reconnect: bool = True,
        ping_interval: float = 5.0,
        backoff: tuple[float, float] = (0.25, 5.0),
        request_timeout: float = 15.0,
        queue_events: bool = True,
    ) -> None:
        self.url = url
        self.name = name
        self.identity = (identity or IdentityStore()) if remember_identity else None
        self.reconnect = reconnect
        self.ping_interval = ping_interval
        self.backoff = backoff
        self.request_timeout = request_timeout
        self.state = TableState()
        self.events: asyncio.Queue[Event] = asyncio.Queue()
        self._queue_events = queue_events
        self.listeners: list[Listener] = []
        self.token: str | None = None
        self._ws: ClientConnection | None = None
        self._pending: dict[int, tuple[asyncio.Future[ServerMessage], float]] = {}
        self._next_id = 1
        self._tasks: set[asyncio.Task[None]] = set()
        self._spectate_password: str | None = None
        self._closing = False
        self._syncing = False
        self._samples: list[tuple[float, float]] = []  # (rtt, offset)
        self._ready = asyncio.Event()  # connected and greeted

    # Life cycle ---------------------------------------------------------------------------
    async def connect(self) -> tc.Welcome:
        """Open the connection and say hello; returns ``welcome``. Raises OSError (or
        websockets' InvalidURI/InvalidHandshake) when the server cannot be reached."""
        if self.identity is not None and self.token is None:
            self.token = self.identity.load(self.url, self.name)
        await self._open()
        self._spawn(self._read_loop(), "carom-read")
        if self.ping_interval > 0:
            self._spawn(self._ping_loop(), "carom-ping")
        welcome = await self._greet()
        self._emit(Link("connected"))
        return welcome

    async def close(self) -> None:
        """Close for good (no reconnection). Pending requests fail with ConnectionLost."""
        self._closing = True
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()
        self._fail_pending()
        self.state.connected = False

    async def __aenter__(self) -> Session:
        await self.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def drop_connection(self) -> None:
        """Close the socket as a network failure would, keeping everything else: the session
        reconnects and rejoins by itself. (Tests and the demo use it; so can a curious user.)"""
        ws = self._ws
        if ws is not None:
            with contextlib.suppress(Exception):
                ws.transport.abort()

    # Time ---------------------------------------------------------------------------------
    def server_now_ms(self) -> int:
        """The server's clock now, as well as we can tell (deadlines are in this clock)."""
        return int(local_ms() + self.state.clock_offset_ms)

    def _clock_sample(self, sent: float, received: float, server_ms: int) -> None:
        rtt = received - sent
        self._samples.append((rtt, server_ms - (sent + received) / 2))
        del self._samples[:-CLOCK_SAMPLES]
        best = min(self._samples)
        self.state.rtt_ms = best[0]
        self.state.clock_offset_ms = best[1]

    # Requests -----------------------------------------------------------------------------
    async def request(self, msg: ClientMessage) -> ServerMessage:
        """Send a request (a ``shared.protocol`` message: its fields were checked when it was
        built) and wait for the server's direct answer (the message whose ``re`` echoes our
        id). Raises :class:`ServerError` when the answer is ``error``, :class:`ConnectionLost`
        when the link drops first, TimeoutError after ``request_timeout``."""
        msg_id, fut = self._new_request()
        await self._send(msg, msg_id)
        try:
            return await asyncio.wait_for(fut, self.request_timeout)
        finally:
            self._pending.pop(msg_id, None)

    async def send(self, msg: ClientMessage) -> int:
        """Send without waiting; returns the id (an ``error`` answer arrives as an event with
        ``re`` equal to it)."""
        msg_id = self._next_id
        self._next_id += 1
        await self._send(msg, msg_id)
        return msg_id

    async def ask(self, msg: ClientMessage, answer: type[M]) -> M:
        """:meth:`request`, expecting an answer of type ``answer`` (anything else is the
        server's bug, reported as a ServerError)."""
        got = await self.request(msg)
        if not isinstance(got, answer):
            raise ServerError("bad_answer", f"{msg.TYPE} was answered with {got.TYPE}")
        return got

    def _new_request(self) -> tuple[int, asyncio.Future[ServerMessage]]:
        msg_id = self._next_id
        self._next_id += 1
        fut: asyncio.Future[ServerMessage] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = (fut, local_ms())
        return msg_id, fut

    async def _send(self, msg: ClientMessage, msg_id: int) -> None:
        frame = wire.encode(dataclasses.replace(msg, id=msg_id))
        ws = self._ws
        if ws is None:
            raise ConnectionLost("not connected")
        try:
            await ws.send(frame)
        except websockets.ConnectionClosed as exc:
            raise ConnectionLost(str(exc)) from None

    # The protocol's requests, one method each (PROTOCOL.md "Client to server") ------------
    async def list_rooms(self) -> tuple[RoomSummary, ...]:
        return (await self.ask(ts.ListRooms(), tc.Rooms)).rooms

    async def create_room(self, discipline: str, **options: Any) -> str:
        """Create a room (options as in PROTOCOL.md ``create_room``); returns its id. Creating
        does not seat us: call :meth:`join` next."""
        answer = await self.ask(ts.CreateRoom(discipline=discipline, **options), tc.RoomCreated)
        return answer.room_id

    async def join(self, room_id: str, password: str | None = None) -> int:
        """Take a free seat; returns the seat (0/1). The seat token is kept for ``rejoin``."""
        answer = await self.ask(ts.Join(room_id=room_id, password=password), tc.Joined)
        self.state.enter_room(answer.room_id, answer.seat, answer.seat_token, answer.slot)
        self._keep_seat(answer.room_id, answer.seat_token)
        if self.state.room is None:
            # The player who fills the room gets no snapshot of its own (the match starts at
            # once); ask for one so the tracked state has the room's options and players.
            with contextlib.suppress(ServerError, TimeoutError):
                await self.request(ts.Sync())
        return answer.seat

    async def login(self, name: str, password: str) -> tc.Welcome:
        """Become the registered player ``name`` (docs/accounts.md); returns ``welcome``.
        Its new token is kept, so a reconnection stays logged in."""
        return self._adopt(await self.ask(ts.Login(name=name, password=password), tc.Welcome))

    async def register(self, name: str, password: str, bot: bool = False) -> tc.Welcome:
        """Claim ``name`` for this identity with a password; returns ``welcome``."""
        msg = ts.Register(name=name, password=password, bot=True if bot else None)
        return self._adopt(await self.ask(msg, tc.Welcome))

    async def quick_match(
        self, discipline: str, distance: int | None = None, level: int | None = None
    ) -> int:
        """Queue for a quick match and wait (as long as it takes) until the server pairs us;
        returns our seat. Cancelling the wait does not unqueue: call :meth:`unqueue`."""
        joined = asyncio.ensure_future(self.wait_for(lambda m: isinstance(m, tc.Joined)))
        await asyncio.sleep(0)  # the listener is in place before the request goes out
        try:
            await self.request(ts.Queue(discipline=discipline, distance=distance, level=level))
            msg = await joined
        finally:
            joined.cancel()
        assert isinstance(msg, tc.Joined)
        return msg.seat  # its seat token is kept as it arrived (_on_frame)

    async def unqueue(self) -> None:
        await self.request(ts.Unqueue())

    def _adopt(self, welcome: tc.Welcome) -> tc.Welcome:
        self.state.player_id = welcome.player_id
        self.token = welcome.token
        if self.identity is not None:
            with contextlib.suppress(OSError):
                self.identity.save(self.url, self.name, welcome.token)
        return welcome

    async def rejoin(self, room_id: str, seat_token: str | None = None) -> int:
        """Take back a seat we hold (the token from ``join``, kept with the identity when none
        is given); returns the seat. A token the room no longer knows is forgotten."""
        token = seat_token or self.held_seats().get(room_id)
        if token is None:
            raise ServerError("bad_token", "You hold no seat in that room.")
        try:
            answer = await self.ask(ts.Rejoin(room_id=room_id, seat_token=token), tc.Joined)
        except ServerError as exc:
            if exc.code in (ErrorCode.BAD_TOKEN, ErrorCode.NO_SUCH_ROOM):
                self._forget_seat(room_id)
            raise
        self.state.enter_room(room_id, answer.seat, token, answer.slot)
        return answer.seat

    def held_seats(self) -> dict[str, str]:
        """room id → seat token of the seats this identity holds on this server."""
        if self.identity is None:
            return {}
        try:
            return self.identity.seats(self.url, self.name)
        except OSError:
            return {}

    def _keep_seat(self, room_id: str, token: str) -> None:
        if self.identity is not None:
            try:
                self.identity.save_seat(self.url, self.name, room_id, token)
            except OSError as exc:  # a read-only home must not stop a match
                log.warning("could not keep the seat token: %s", exc)

    def _forget_seat(self, room_id: str) -> None:
        if self.identity is not None:
            with contextlib.suppress(OSError):
                self.identity.forget_seat(self.url, self.name, room_id)

    async def spectate(self, room_id: str, password: str | None = None) -> ServerMessage:
        self.state.enter_room(room_id, None, None)
        self._spectate_password = password
        return await self.request(ts.Spectate(room_id=room_id, password=password))

    async def leave(self) -> None:
        with contextlib.suppress(ServerError):
            await self.send(ts.Leave())
        self.state.leave_room()

    async def stroke(self, cue: CueParams) -> int:
        return await self.send(ts.Stroke(cue=cue))

    async def choose_break(self, breaker: str) -> int:
        return await self.send(ts.ChooseBreak(breaker=breaker))

    async def respot(self) -> int:
        return await self.send(ts.Respot())

    async def place(self, balls: dict[str, tuple[float, float]]) -> ServerMessage:
        return await self.request(ts.Place(balls=balls))

    async def timeout(self) -> int:
        return await self.send(ts.TimeOut())

    async def resume(self) -> int:
        return await self.send(ts.Resume())

    async def concede(self) -> int:
        return await self.send(ts.Concede())

    async def rematch(self) -> int:
        return await self.send(ts.Rematch())

    async def chat(self, text: str) -> int:
        return await self.send(ts.Chat(text=text))

    async def sync(self) -> ServerMessage:
        return await self.request(ts.Sync())

    async def ping(self) -> float:
        """One round trip; updates the clock offset; returns the round trip in ms."""
        sent = local_ms()
        pong = await self.ask(ts.Ping(), tc.Pong)
        received = local_ms()
        self._clock_sample(sent, received, pong.server_time_ms)
        return received - sent

    # Waiting ------------------------------------------------------------------------------
    async def wait_for(
        self, predicate: Callable[[Event], bool], timeout: float | None = None
    ) -> Event:
        """The next event (from now on) for which ``predicate`` is true."""
        fut: asyncio.Future[Event] = asyncio.get_running_loop().create_future()

        def listener(msg: Event) -> None:
            if not fut.done() and predicate(msg):
                fut.set_result(msg)

        self.listeners.append(listener)
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self.listeners.remove(listener)

    # Internals ----------------------------------------------------------------------------
    async def _open(self) -> None:
        self._ws = await websockets.connect(
            self.url, max_size=wire.MAX_FRAME, open_timeout=10, ping_interval=10
        )
        self.state.connected = True

    async def _greet(self) -> tc.Welcome:
        sent = local_ms()
        try:
            welcome = await self.ask(
                ts.Hello(v=PROTOCOL_VERSION, name=self.name, token=self.token), tc.Welcome
            )
        except ServerError as exc:
            if exc.code != ErrorCode.BAD_TOKEN or self.token is None:
                raise
            # The server does not know our token (a new server, a wiped database): become a
            # new player rather than fail.
            log.info("identity token refused (%s); starting a new identity", exc.message)
            self.token = None
            sent = local_ms()
            welcome = await self.ask(ts.Hello(v=PROTOCOL_VERSION, name=self.name), tc.Welcome)
        self._clock_sample(sent, local_ms(), welcome.server_time_ms)
        self.state.player_id = welcome.player_id
        self.token = welcome.token
        if self.identity is not None:
            try:
                self.identity.save(self.url, self.name, welcome.token)
            except OSError as exc:  # a read-only home must not stop a match
                log.warning("could not save the identity token: %s", exc)
        self._ready.set()
        return welcome

    async def _resume(self) -> None:
        """After a reconnection: greet, then take our seat back (or watch again)."""
        try:
            await self._greet()
            room_id = self.state.room_id
            if room_id is not None and self.state.seat_token is not None:
                # The server answers ``joined`` and then sends a snapshot on its own (the tracked
                # state takes it like any frame); listen before asking so it cannot slip past,
                # and say "restored" only once the state is fresh.
                snapshot: asyncio.Future[Event] = asyncio.get_running_loop().create_future()

                def on_snapshot(msg: Event) -> None:
                    if not snapshot.done() and isinstance(msg, tc.Snapshot):
                        snapshot.set_result(msg)

                self.listeners.append(on_snapshot)
                try:
                    token = self.state.seat_token
                    await self.request(ts.Rejoin(room_id=room_id, seat_token=token))
                    await asyncio.wait_for(snapshot, self.request_timeout)
                except ServerError as exc:
                    self.state.leave_room()
                    self._emit(Link("rejoin_failed", code=exc.code, message=exc.message))
                    return
                finally:
                    self.listeners.remove(on_snapshot)
            elif room_id is not None and self.state.spectating:
                password = self._spectate_password
                await self.request(ts.Spectate(room_id=room_id, password=password))
            self._emit(Link("restored"))
        except (ConnectionLost, TimeoutError, ServerError) as exc:
            log.info("resuming the session failed (%s); the read loop will retry", exc)

    async def _read_loop(self) -> None:
        attempt = 0
        while not self._closing:
            ws = self._ws
            if ws is not None:
                try:
                    async for frame in ws:
                        attempt = 0
                        self._on_frame(frame)
                except websockets.ConnectionClosed:
                    pass
                if self._closing:
                    break
                self.state.connected = False
                self._ready.clear()
                self._fail_pending()
                self._emit(Link("lost"))
                if not self.reconnect:
                    break
            # Exponential backoff with jitter, so a restarted server is not hit by every
            # client at the same instant.
            delay = min(self.backoff[1], self.backoff[0] * 2**attempt) * random.uniform(0.8, 1.2)
            attempt += 1
            self._emit(Link("reconnecting", attempt=attempt))
            await asyncio.sleep(delay)
            try:
                await self._open()
            except (OSError, TimeoutError, websockets.WebSocketException) as exc:
                self._ws = None
                log.info("reconnect attempt %d failed: %s", attempt, exc)
                continue
            self._spawn(self._resume(), "carom-resume")
        self._emit(Link("closed"))

    async def _ping_loop(self) -> None:
        while not self._closing:
            await asyncio.sleep(self.ping_interval)
            if not self._ready.is_set():
                continue
            with contextlib.suppress(ConnectionLost, TimeoutError, ServerError):
                await self.ping()

    def _on_frame(self, frame: bytes | str) -> None:
        try:
            msg = wire.decode(frame)
        except ProtocolError as exc:
            log.warning("dropped a bad frame from the server: %s", exc)
            return
        if msg is None:
            return  # a message type this client does not know (a newer server)
        outcome = self.state.apply(msg)
        if isinstance(msg, tc.Joined) and msg.re is None:  # quick match seated us
            self._keep_seat(msg.room_id, msg.seat_token)
        if outcome in ("gap", "resync") and not self._syncing:
            self._syncing = True
            self._spawn(self._sync_after_gap(), "carom-sync")
        re = getattr(msg, "re", None)
        if isinstance(re, int) and re in self._pending:
            fut, _sent = self._pending.pop(re)
            if not fut.done():
                if isinstance(msg, tc.Error):
                    fut.set_exception(ServerError(msg.code, msg.message))
                else:
                    fut.set_result(msg)
        if outcome != "stale":
            self._emit(msg)

    async def _sync_after_gap(self) -> None:
        try:
            with contextlib.suppress(ConnectionLost, TimeoutError, ServerError):
                await self.request(ts.Sync())
        finally:
            self._syncing = False

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _fail_pending(self) -> None:
        for fut, _sent in self._pending.values():
            if not fut.done():
                fut.set_exception(ConnectionLost("the connection dropped"))
                # Whoever awaits it still gets the exception; nobody awaiting is no error.
                fut.exception()
        self._pending.clear()

    def _emit(self, msg: Event) -> None:
        if self._queue_events:
            self.events.put_nowait(msg)
        for listener in list(self.listeners):
            try:
                listener(msg)
            except Exception:  # one broken listener must not stop the others or the session
                log.exception("session listener failed")
