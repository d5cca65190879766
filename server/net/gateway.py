"""The game server's gateway: websocket connections, their queues, the database and hashing
calls, the rooms' actors, HTTP health/metrics.

Every policy decision (message budgets, hello first, room caps, password backoff, replay pacing)
is the pure lobby core's (``server/core/lobby.py``); this module does the I/O around it. Each
connection has a reader (``_serve``) and a writer task draining its own bounded queue, so one slow
client can never stall a room (websockets' broadcast guide). The reader decodes frames, asks the
core, and answers lobby requests; room messages go to the room actor's inbox untouched.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING

import msgpack
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State

from server import gcpolicy
from server.config import ServerConfig
from server.core.events import EventBus
from server.core.limits import Attempts
from server.core.lobby import (
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    CLOSE_TRY_LATER,
    DESK,
    BadFrame,
    Closed,
    ConnRecord,
    Drain,
    Frame,
    Greeted,
    HelloAsked,
    HelloLate,
    Lobby,
    Opened,
    Out,
    PasswordAsked,
    PasswordChecked,
    PasswordHeld,
    PeerTrusted,
    Refused,
    ReplayAsked,
    ReplaySent,
    RoomAsked,
    RoomClosed,
    RoomOpened,
    Route,
    Routed,
    TcpClosed,
    TcpOpened,
)
from server.core.record import RoomSettings
from server.core.room import ConnId, Member, Room, settings_from_wire
from server.credentials import check_password, hash_password, new_token, token_hash
from server.net import replays
from server.net.actor import (
    Close,
    Enter,
    Gone,
    Inbound,
    RoomActor,
    Stop,
    idle_expired,
    now_ms,
    room_record,
)
from server.net.desk import StandingDesk
from server.net.hashing import Busy, HashPool
from server.net.locator import LocalRooms, Locator
from server.net.metrics import Metrics
from server.net.sending import WRITE_BATCH, WRITE_BATCH_BYTES, send_all
from server.net.tournaments import TournamentDesk, TournamentRequest
from server.net.web import WebPages
from server.redact import redacted
from server.sim.pool import PhysicsPool
from server.store.api import GameStore, open_store
from server.store.rows import match_rows
from shared.protocol import PROTOCOL_VERSION, ErrorCode, ProtocolError, decode, encode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage, ServerMessage

if TYPE_CHECKING:
    from server.cluster.hub import Hub
    from server.cluster.node import ClusterNode
    from server.cluster.relay import Relay

log = logging.getLogger("carom.server")


@dataclass(eq=False, slots=True)
class Connection:
    """One connection: its websocket (``ws``), its outbound queue, and ``record``, the lobby
    core's record of it (the cores know it by its ``ConnId``; a room by its ``Member``)."""

    ws: ServerConnection
    queue: asyncio.Queue[bytes | None]
    record: ConnRecord
    room: RoomActor | None = None
    closing: bool = False
    queued: int = 0  # bytes waiting in ``queue``
    # Cluster: the identity token and hello name (memory only) a relay greets another node
    # with, and the relay while in a room another node runs (server/cluster/relay.py).
    token: str = ""
    hello_name: str = ""
    relay: Relay | None = None
    hub: Hub | None = None  # a spectator of a room another node runs, served by a hub

    @property
    def conn(self) -> ConnId:
        return self.record.conn

    @property
    def player_id(self) -> str | None:
        return self.record.player_id

    @player_id.setter
    def player_id(self, value: str | None) -> None:
        self.record.player_id = value

    @property
    def name(self) -> str:
        return self.record.name

    @name.setter
    def name(self, value: str) -> None:
        self.record.name = value

    @property
    def addr(self) -> str:
        return self.record.addr

    @addr.setter
    def addr(self, value: str) -> None:  # a relayed client's own address (cluster/node.py)
        self.record.addr = value

    def member(self) -> Member:
        assert self.player_id is not None
        return Member(self.conn, self.player_id, self.name)


class GameServer:
    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.metrics = Metrics()
        self.clients: dict[ConnId, Connection] = {}
        self.tcp: set[ServerConnection] = set()  # every TCP connection, handshake or not
        self.rooms: dict[str, RoomActor] = {}
        self.store: GameStore | None = None
        self.physics: PhysicsPool | None = None
        self.server: Server | None = None
        self.lobby = Lobby(config)  # every policy decision (server/core/lobby.py)
        self._sweeper: asyncio.Task[None] | None = None
        self._lag_probe: asyncio.Task[None] | None = None
        self._collector: asyncio.Task[None] | None = None
        self._db_check: asyncio.Task[None] | None = None
        self._clock_beat: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self.replays = replays.ReplayCache(config.replay_cache_bytes)
        self._replay_builders = asyncio.Semaphore(2)  # replays built at once, in threads
        self.hashing = HashPool(config.hash_workers, config.hash_queue)
        self.events = EventBus()  # what happened in the rooms, once durable (server/core/events.py)
        self.desk = StandingDesk(self, config.accounts)  # accounts, quick match, leaderboard
        self.tournaments = TournamentDesk(self)  # events and their runner (docs/tournaments.md)
        self.web = WebPages(config.origins)  # the browser's pages (server/net/web)
        # Wrong room passwords counted over every node of a cluster, by identity and address
        # (set by ClusterNode.start); alone, the lobby core's backoff is the whole story.
        self.password_failures: dict[str, Attempts] = {}
        # Where rooms live: here alone, or on a cluster's nodes (docs/cluster.md). The gateway
        # asks it and never branches on the mode; ``cluster`` is the node itself, for the
        # operator's metrics and the tests.
        self.cluster: ClusterNode | None = None
        self.locator: Locator = LocalRooms(self)
        if config.cluster is not None:
            from server.cluster.node import ClusterNode  # needs redis: only in cluster mode

            self.cluster = ClusterNode(self, config.cluster)
            self.locator = self.cluster

    # Life cycle -----------------------------------------------------------------------------
    @property
    def draining(self) -> bool:
        return self.lobby.draining

    def trust_peer(self, addr: str) -> None:
        """``addr`` is another node of this cluster, relaying its clients."""
        self.lobby.step(PeerTrusted(addr), time.monotonic())

    @property
    def port(self) -> int:
        assert self.server is not None
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def start(self) -> None:
        cfg = self.config
        self.store = open_store(cfg.db_path)
        self.physics = PhysicsPool(cfg.workers)
        await self.physics.warm_up()
        self.metrics.gc.install()
        # Alone: every open room runs here again. A cluster node takes only the rooms nobody
        # holds, once it has joined (start, below).
        await self.locator.restore(now_ms())
        self.server = await serve(
            self._serve,
            cfg.host,
            cfg.port,
            process_request=self._http,
            max_size=cfg.hard_max_frame,
            compression=None,  # msgpack floats barely compress; deflate costs CPU and memory
            origins=None,  # checked in _http (server/net/web/origin.py): the page's own is allowed
            ping_interval=20,
            ping_timeout=20,
            close_timeout=2,  # a client that never answers the close must not stall a drain
            open_timeout=10,  # a handshake that does not complete in 10 s is dropped
            create_connection=self._connection_class(),
        )
        try:
            await self.locator.start()  # once the port is known (a node's default URL)
        except BaseException:
            self.server.close()
            await self.server.wait_closed()
            raise
        self._sweeper = asyncio.create_task(self._sweep())
        self.desk.start()
        self.tournaments.start()
        self._lag_probe = asyncio.create_task(self._probe_lag())
        self._db_check = asyncio.create_task(self._check_db())
        self._clock_beat = asyncio.create_task(self._beat_clocks())
        if cfg.gc_sweep_s is not None:
            schedule = gcpolicy.Schedule(sweep_every_s=cfg.gc_sweep_s)
            self._collector = asyncio.create_task(
                gcpolicy.Collector(self.metrics.gc, schedule).run(), name="gc-policy"
            )
        log.info(
            "listening on ws://%s:%d/ with %d open rooms", cfg.host, self.port, len(self.rooms)
        )

    async def stop(
        self, drain_s: float | None = None, cut_short: asyncio.Event | None = None
    ) -> None:
        """Drain: /health says 503 and new connections are refused (for ``drain_s`` first,
        default the config's, so a load balancer notices; ``cut_short`` set ends that wait
        early), persist every room, tell clients, close with 1001. The listener stays open
        until the end, so /health answers throughout."""
        wait = self.config.drain_s if drain_s is None else drain_s
        self.lobby.step(Drain(), time.monotonic())
        log.info("draining: /health answers 503 from now on (%.1f s before closing)", wait)
        if wait > 0:
            if cut_short is None:
                await asyncio.sleep(wait)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(cut_short.wait(), wait)
        for task in (
            self._sweeper,
            self._lag_probe,
            self._db_check,
            self._clock_beat,
            self._collector,
        ):
            if task is not None:
                task.cancel()
        await self.desk.stop()
        await self.tournaments.stop()
        actors = list(self.rooms.values())
        for actor in actors:
            actor.post(Stop())
        await asyncio.gather(
            *(a.task for a in actors if a.task is not None), return_exceptions=True
        )
        await self.locator.stop()  # every room saved: other nodes may take them now
        closing = encode(
            tc.Closing(
                reason="The server is restarting; your room is saved. "
                "Reconnect and rejoin with your seat token."
            )
        )
        for client in list(self.clients.values()):
            self.send_frame(client, closing)
        await asyncio.sleep(0)  # let writers flush what they have
        await asyncio.gather(
            *(c.ws.close(CLOSE_GOING_AWAY, "server shutting down") for c in self.clients.values()),
            return_exceptions=True,
        )
        if self.server is not None:
            self.server.close()
            # A browser keeps spare connections open that have not sent a request yet (it
            # preconnects); the server would wait out their opening handshake (10 s). Nobody
            # is behind them: drop them.
            for conn in list(self.tcp):
                if conn.protocol.state is State.CONNECTING:
                    conn.transport.abort()
            await self.server.wait_closed()
        if self.physics is not None:
            await self.physics.shutdown()
        await asyncio.to_thread(self.hashing.shutdown)
        if self.store is not None:
            self.store.close()
        self.metrics.gc.uninstall()

    def _connection_class(self) -> type[ServerConnection]:
        """Connections that count themselves per peer address from the first TCP byte, so
        handshakes in progress count too; one above the cap is dropped at once."""
        game = self

        class Counted(ServerConnection):
            carom_addr: str | None = None

            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                super().connection_made(transport)
                game.tcp.add(self)
                peer = transport.get_extra_info("peername")
                addr = str(peer[0]) if peer else "?"
                if not game.lobby.step(TcpOpened(addr), time.monotonic()):
                    game.metrics.refused_per_address += 1
                    if isinstance(transport, asyncio.Transport):
                        transport.abort()  # no handshake, no close frame: just gone
                    else:
                        transport.close()
                    return
                self.carom_addr = addr

            def connection_lost(self, exc: Exception | None) -> None:
                game.tcp.discard(self)
                if self.carom_addr is not None:
                    game.lobby.step(TcpClosed(self.carom_addr), time.monotonic())
                    self.carom_addr = None
                super().connection_lost(exc)
                # Python 3.11's socket transport keeps a bound method of itself after the
                # connection is gone (``_read_ready_cb``; CPython gh-100348, cleared on close
                # from 3.12): a cycle that holds the transport and its socket until a full
                # collection, which the server runs only when it sweeps its frozen heap
                # (server/gcpolicy.py). Cleared here, they go at once.
                if getattr(self.transport, "_read_ready_cb", None) is not None:
                    setattr(self.transport, "_read_ready_cb", None)  # noqa: B010

        return Counted

    def health_problem(self) -> str | None:
        """Why the server is not healthy (one line for /health and the log), or None."""
        if self.draining:
            return "draining"
        if self.store is not None and self.store.problem is not None:
            return f"database problem: {self.store.problem}"
        if self.store is not None and self.store.failure is not None:
            return f"storage failing: {self.store.failure}"
        if self.locator.problem is not None:
            return f"cluster: {self.locator.problem}"
        return None

    async def _check_db(self) -> None:
        """The database file, while running: still the one opened, intact, writable."""
        assert self.store is not None
        store = self.store
        reported: str | None = None
        while True:
            await asyncio.sleep(self.config.db_check_s)
            problem = await asyncio.to_thread(store.check)
            if problem is not None and problem != reported:
                log.error("%s", problem)
            reported = problem

    async def _beat_clocks(self) -> None:
        """Every ``clock_beat_s``, mark the rooms whose match runs here as served now: after a
        kill -9 the restart (or the node taking over) then charges the downtime to nobody,
        with the time the shooter had used kept, not handed back."""
        assert self.store is not None
        store = self.store
        while True:
            await asyncio.sleep(self.config.clock_beat_s)
            live = [rid for rid, actor in self.rooms.items() if actor.room.match_running()]
            if live:
                with contextlib.suppress(Exception):  # a failed write is reported by the store
                    await store.run(store.touch_rooms, live, now_ms())

    async def _probe_lag(self) -> None:
        """How late the loop wakes a 50 ms sleep: the delay every message sees on top of work."""
        worst, window = 0.0, time.monotonic()
        while True:
            t = time.monotonic()
            await asyncio.sleep(0.05)
            late = max(0.0, time.monotonic() - t - 0.05)
            self.metrics.loop_lag.observe(late)
            worst = max(worst, late)
            if time.monotonic() - window >= 10:
                self.metrics.loop_lag_s, worst, window = worst, 0.0, time.monotonic()

    async def _sweep(self) -> None:
        cfg = self.config
        while True:
            await asyncio.sleep(
                min(10.0, cfg.idle_room_s, cfg.finished_room_s, cfg.unjoined_room_s / 2)
            )
            now = now_ms()
            for actor in list(self.rooms.values()):
                if idle_expired(
                    actor, now, cfg.idle_room_s, cfg.finished_room_s, cfg.unjoined_room_s
                ):
                    actor.post(Close())

    # Rooms -----------------------------------------------------------------------------------
    def run_room(self, room: Room, conn: ConnId | None = None) -> RoomActor:
        """Run ``room`` here: created now by ``conn``, or restored / taken over (None)."""
        assert self.store is not None and self.physics is not None
        actor = RoomActor(
            room,
            self.store,
            self.physics,
            self._deliver,
            self._membership,
            self.metrics,
            self.room_closed,
            self.events,
        )
        self.rooms[room.room_id] = actor
        self.lobby.step(RoomOpened(room.room_id, room.creator, conn), time.monotonic())
        actor.start()
        return actor

    def room_closed(self, actor: RoomActor) -> None:
        self.rooms.pop(actor.room.room_id, None)
        self.locator.closed(actor.room.room_id)
        self.lobby.step(RoomClosed(actor.room.room_id), time.monotonic())
        for client in self.clients.values():
            if client.room is actor:
                client.room = None

    def _membership(self, conn: ConnId, actor: RoomActor | None) -> None:
        client = self.clients.get(conn)
        if client is not None and (actor is not None or client.room is not None):
            client.room = actor

    # Output ----------------------------------------------------------------------------------
    def _deliver(self, conns: tuple[ConnId, ...], data: bytes, droppable: bool = False) -> None:
        conns = self.locator.fan_out(conns, data)  # other nodes' spectators: one publish
        for conn in conns:
            client = self.clients.get(conn)
            if client is not None:
                self.send_frame(client, data, droppable)

    def send_frame(self, client: Connection, data: bytes, droppable: bool = False) -> None:
        if client.closing:
            return
        if droppable and (
            client.queue.qsize() * 2 > self.config.outbound_queue
            or client.queued * 2 > self.config.outbound_bytes
        ):
            # Under pressure chat goes first, so game messages still fit (a seq gap tells
            # the client to sync).
            self.metrics.chat_dropped += 1
            return
        try:
            if client.queued + len(data) > self.config.outbound_bytes:
                raise asyncio.QueueFull
            client.queue.put_nowait(data)
            client.queued += len(data)
        except asyncio.QueueFull:
            # Too slow to read its messages: drop it rather than let the queue grow. It can
            # reconnect, rejoin and sync.
            self.metrics.slow_clients += 1
            self.close_client(client, CLOSE_POLICY, "too slow: outbound queue full")
            return
        self.metrics.messages_out += 1
        self.metrics.bytes_out += len(data)

    def reply(self, client: Connection, msg: ServerMessage) -> None:
        if isinstance(msg, tc.Error):
            self.metrics.errors[msg.code] += 1
        self.send_frame(client, encode(msg))

    def _apply(self, out: Out) -> None:
        """Carry out the lobby core's decision: its replies, then its closes."""
        for conn, msg in out.replies:
            client = self.clients.get(conn)
            if client is not None:
                self.reply(client, msg)
        for conn, code, reason in out.closes:
            client = self.clients.get(conn)
            if client is not None:
                self.close_client(client, code, reason)

    def close_client(self, client: Connection, code: int, reason: str) -> None:
        client.record.closed = True
        if client.closing:
            return
        client.closing = True
        self.metrics.closes[code] += 1
        with contextlib.suppress(asyncio.QueueFull):
            client.queue.put_nowait(None)
        task = asyncio.get_running_loop().create_task(client.ws.close(code, reason))
        self._background.add(task)  # asyncio keeps only weak references to tasks
        task.add_done_callback(self._background.discard)

    async def _writer(self, client: Connection) -> None:
        queue = client.queue
        while True:
            data = await queue.get()
            if data is None:
                return
            # Everything else already queued goes out with it, in one write (server/net/sending.py;
            # a stroke queues two to four messages per connection at once). A batch is bounded,
            # so a slow client's backlog still shows in its queue.
            batch, size, end = [data], len(data), False
            while not queue.empty() and len(batch) < WRITE_BATCH and size < WRITE_BATCH_BYTES:
                more = queue.get_nowait()
                if more is None:
                    end = True
                    break
                batch.append(more)
                size += len(more)
            client.queued -= size
            try:
                await send_all(client.ws, batch)
            except ConnectionClosed:
                return
            if end:
                return

    # Connections -------------------------------------------------------------------------------
    async def _serve(self, ws: ServerConnection) -> None:
        cfg = self.config
        peer = ws.remote_address
        caller = self.lobby.step(Opened(str(peer[0]) if peer else "?"), time.monotonic())
        if isinstance(caller, Refused):
            self.metrics.closes[caller.code] += 1
            await ws.close(caller.code, caller.reason)
            return
        client = Connection(ws, asyncio.Queue(cfg.outbound_queue), caller)
        if not await self.locator.connection_opened(ws, client):  # a cap over every node
            self.lobby.step(Closed(client.conn), time.monotonic())
            self.metrics.refused_per_address += 1
            await ws.close(CLOSE_TRY_LATER, "too many connections from your address")
            return
        self.clients[client.conn] = client
        self.metrics.connections_total += 1
        writer = asyncio.create_task(self._writer(client))
        # No hello in time: an idle connection must not hold a slot for ever.
        deadline = asyncio.get_running_loop().call_later(
            cfg.hello_timeout_s,
            lambda: self._apply(self.lobby.step(HelloLate(client.conn), time.monotonic())),
        )
        try:
            async for data in ws:
                if client.closing:
                    break
                await self._frame(client, data)
        except ConnectionClosed:
            pass
        finally:
            deadline.cancel()
            self.clients.pop(client.conn, None)
            self.lobby.step(Closed(client.conn), time.monotonic())
            self.locator.connection_closed(client)
            self.desk.gone(client)
            self.tournaments.gone(client)
            if client.room is not None:
                client.room.post(Gone(client.conn))
            if client.relay is not None:
                await client.relay.close()
            client.closing = True
            with contextlib.suppress(asyncio.QueueFull):
                client.queue.put_nowait(None)
            if not writer.done():
                writer.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await writer

    async def _frame(self, client: Connection, data: str | bytes) -> None:
        self.metrics.messages_in += 1
        refused = self.lobby.step(Frame(client.conn), time.monotonic())
        if refused is not None:
            self._apply(refused)
            return
        try:
            msg = decode(data, max_size=self.config.max_frame)
        except ProtocolError as exc:
            bad = tc.Error(code=exc.code, message=exc.message[:900], re=_request_id(data))
            self._apply(self.lobby.step(BadFrame(client.conn, bad), time.monotonic()))
            return
        try:
            await self._message(client, msg)
        except (sqlite3.Error, OSError) as exc:
            # The database cannot be written (disk full) or read: refuse, say so, go on.
            self.metrics.store_failures += 1
            why = self.store.failure if self.store is not None else None
            log.error("could not serve %s: %s", redacted(msg), why or exc)
            self.reply(
                client,
                error(
                    ErrorCode.UNAVAILABLE,
                    "The server cannot save right now (its storage is failing); nothing "
                    "changed. Please try again in a moment.",
                    msg.id,
                ),
            )
        except Exception:
            log.exception("failed on %s", redacted(msg))
            self.metrics.internal_errors += 1
            self.reply(
                client, error(ErrorCode.INTERNAL_ERROR, "Server error; nothing changed.", msg.id)
            )

    async def _message(self, client: Connection, msg: ClientMessage) -> None:
        re = msg.id
        route = self.lobby.step(Routed(client.conn, msg), time.monotonic())
        if isinstance(route, Out):
            self._apply(route)
        elif route is Route.PING:
            self.reply(client, tc.Pong(server_time_ms=now_ms(), re=re))
        elif route is Route.HELLO:
            assert isinstance(msg, ts.Hello)
            await self._hello(client, msg)
        elif route is Route.DESK:
            assert isinstance(msg, DESK)
            await self.desk.handle(client, msg)
        elif route is Route.ROOM:
            if client.room is None and client.hub is not None:
                await client.hub.handle(client, msg)  # spectating a room of another node
            elif client.room is None and client.relay is not None:
                await client.relay.send(msg)  # the room runs on another node
            elif client.room is None:
                self.reply(
                    client, error(ErrorCode.NOT_IN_ROOM, "Join or spectate a room first.", re)
                )
            else:
                client.room.post(Inbound(client.member(), msg))
        elif route is Route.LIST_ROOMS:
            rooms = await self.locator.rooms(500)  # on a cluster, every node's
            self.reply(client, tc.Rooms(rooms=tuple(rooms), re=re))
        elif route is Route.CREATE:
            assert isinstance(msg, ts.CreateRoom)
            await self._create(client, msg)
        elif route is Route.ENTER:
            assert isinstance(msg, ts.Join | ts.Spectate | ts.Rejoin)
            await self._enter(client, msg)
        elif route is Route.LIST_MATCHES:
            assert isinstance(msg, ts.ListMatches) and self.store is not None
            found = await self.store.run(
                self.store.list_matches,
                msg.limit or 20,
                msg.player_id,
                msg.before,
                client.player_id,
            )
            self.reply(client, tc.Matches(matches=match_rows(found), re=re))
        elif route is Route.REPLAY:
            assert isinstance(msg, ts.GetReplay)
            await self._replay(client, msg)
        elif route is Route.TOURNAMENT:
            assert isinstance(msg, TournamentRequest)
            await self.tournaments.handle(client, msg)

    async def _hello(self, client: Connection, msg: ts.Hello) -> None:
        assert self.store is not None
        refusal = self.lobby.step(HelloAsked(client.conn, msg), time.monotonic())
        if refusal is not None:
            self.reply(client, refusal)
            return
        now = now_ms()
        if msg.token is not None:
            found = await self.store.run(self.store.player_by_token, token_hash(msg.token))
            if found is None:
                self.reply(
                    client,
                    error(
                        ErrorCode.BAD_TOKEN,
                        "Unknown identity token; say hello without one to get a new identity.",
                        msg.id,
                    ),
                )
                return
            player_id, token = found[0], msg.token
            await self.store.run(self.store.touch_player, player_id, msg.name, now)
        else:
            player_id, token = "p" + secrets.token_hex(8), new_token()
            await self.store.run(self.store.add_player, player_id, token_hash(token), msg.name, now)
        self.lobby.step(
            Greeted(client.conn, player_id, await self.desk.shown_name(player_id, msg.name)),
            time.monotonic(),
        )
        client.token, client.hello_name = token, msg.name
        self.reply(
            client,
            tc.Welcome(
                v=PROTOCOL_VERSION,
                player_id=player_id,
                token=token,
                server_time_ms=now_ms(),
                re=msg.id,
            ),
        )

    async def _create(self, client: Connection, msg: ts.CreateRoom) -> None:
        if self.draining:
            self.reply(
                client, error(ErrorCode.SHUTTING_DOWN, "The server is shutting down.", msg.id)
            )
            return
        refusal = self.lobby.step(RoomAsked(client.conn), time.monotonic())
        if refusal is not None:
            self.reply(client, error(ErrorCode.TOO_MANY_ROOMS, refusal, msg.id))
            return
        if msg.private and msg.password is None:
            self.reply(
                client,
                tc.Error(
                    code=ErrorCode.BAD_FIELD,
                    message="A private room needs a password.",
                    re=msg.id,
                ),
            )
            return
        try:
            hashed = await self.hashing.run(hash_password, msg.password) if msg.password else None
        except Busy:
            self.reply(client, _hashing_busy(msg.id))
            return
        # Another connection of the same identity or address may have created rooms while the
        # password was being hashed: the caps again.
        refusal = self.lobby.step(RoomAsked(client.conn), time.monotonic())
        if refusal is not None:
            self.reply(client, error(ErrorCode.TOO_MANY_ROOMS, refusal, msg.id))
            return
        try:
            settings = settings_from_wire(msg)
        except ValueError as exc:
            self.reply(client, error(ErrorCode.BAD_OPTIONS, str(exc), msg.id))
            return
        opened = await self.open_room(
            settings,
            client.player_id,
            conn=client.conn,
            password_hash=hashed,
            # On a cluster: the room caps over every node, then the lease.
            claim=lambda room_id: self.locator.claim(room_id, client),
        )
        if isinstance(opened, str):
            self.reply(client, error(ErrorCode.TOO_MANY_ROOMS, opened, msg.id))
            return
        self.reply(client, tc.RoomCreated(room_id=opened.room.room_id, re=msg.id))

    async def open_room(
        self,
        settings: RoomSettings,
        creator: str | None,
        *,
        conn: ConnId | None = None,
        password_hash: str | None = None,
        claim: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> RoomActor | str:
        """The one way a new room comes to exist, whoever asks (create_room, quick match, and
        any later feature): ``claim`` first (a cluster's caps and lease: a refusal sentence is
        returned as it is), then the room's row is written, before the room exists for anyone
        (a room that cannot be saved raises the store's error and never runs), then it runs
        here. A room restored or taken over is already stored: :meth:`run_room`."""
        room = Room("r" + secrets.token_hex(5), settings, now_ms(), password_hash=password_hash)
        room.creator = creator
        if claim is not None:
            refusal = await claim(room.room_id)
            if refusal is not None:
                return refusal
        assert self.store is not None
        await self.store.run(self.store.save_room, room_record(room), now_ms())
        return self.run_room(room, conn)

    async def _enter(self, client: Connection, msg: ts.Join | ts.Spectate | ts.Rejoin) -> None:
        actor = self.rooms.get(msg.room_id)
        if actor is None:
            if await self.locator.forward(client, msg):
                return  # another node runs it: relayed there (or refused, answered)
            self.reply(client, error(ErrorCode.NO_SUCH_ROOM, "No such room.", msg.id))
            return
        if client.room is not None or client.relay is not None or client.hub is not None:
            already = "this room" if client.room is actor else "another room"
            self.reply(
                client,
                error(
                    ErrorCode.ALREADY_IN_ROOM,
                    f"You are already in {already}; leave it first.",
                    msg.id,
                ),
            )
            return
        room = actor.room
        if isinstance(msg, ts.Join | ts.Spectate) and room.password_hash is not None:
            if not await self._password_ok(client, room.room_id, room.password_hash, msg):
                return
            # A guest from now on: this room's matches (live and finished) are visible to them.
            assert self.store is not None and client.player_id is not None
            await self.store.run(self.store.add_guest, room.room_id, client.player_id)
        if client.room is not None or client.closing:  # changed while the password was checked
            return
        client.room = actor  # later messages of this connection queue behind the entry
        if isinstance(msg, ts.Join):
            token = new_token()
            actor.post(Enter(client.member(), msg, token, token_hash(token)))
        elif isinstance(msg, ts.Rejoin):
            actor.post(Enter(client.member(), msg, msg.seat_token, token_hash(msg.seat_token)))
        else:
            actor.post(Enter(client.member(), msg))

    async def _password_ok(
        self, client: Connection, room_id: str, stored: str, msg: ts.Join | ts.Spectate
    ) -> bool:
        """Check a private room's password: the core's backoff against guessing
        (server/core/guard.py), the hashing in its bounded pool. Answers a refusal itself."""
        wait = self.lobby.step(PasswordAsked(client.conn, room_id, msg.id), time.monotonic())
        if wait is not None:
            self._apply(wait)
            return False
        # On a cluster, wrong passwords also count over every node (server/cluster/limits.py):
        # guesses spread over rooms on many nodes meet one count.
        tallies = {"identity": client.player_id or "", "address": client.addr}
        for kind, attempts in self.password_failures.items():
            wait_ms = await attempts.wait_ms(tallies[kind], now_ms())
            if client.conn not in self.lobby.records:  # gone while Redis answered
                return False
            if wait_ms > 0:
                self._apply(
                    self.lobby.step(
                        PasswordHeld(client.conn, wait_ms / 1000, msg.id), time.monotonic()
                    )
                )
                return False
        try:
            ok = msg.password is not None and await self.hashing.run(
                check_password, msg.password, stored
            )
        except Busy:
            self.reply(client, _hashing_busy(msg.id))
            return False
        if client.conn not in self.lobby.records:  # gone while the password was checked
            return False
        self._apply(
            self.lobby.step(PasswordChecked(client.conn, room_id, ok, msg), time.monotonic())
        )
        if not ok and msg.password is not None:
            for kind, attempts in self.password_failures.items():
                await attempts.count(tallies[kind], now_ms())
        return ok

    async def _replay(self, client: Connection, msg: ts.GetReplay) -> None:
        assert self.store is not None
        busy = self.lobby.step(ReplayAsked(client.conn, msg.id), time.monotonic())
        if busy is not None:
            self._apply(busy)
            return
        sent = 0
        try:
            # A private room's match is unknown to anyone but its players and guests (the same
            # answer as for an id that does not exist, so ids cannot be probed either).
            match = await self.store.run(self.store.match, msg.match_id, client.player_id)
            if match is None:
                self.reply(client, error(ErrorCode.NO_SUCH_MATCH, "No such match.", msg.id))
                return
            key = (msg.match_id, msg.after or 0, msg.limit)
            finished = match["finished_ms"] is not None
            cached = self.replays.get(key) if finished else None
            if cached is not None:
                data = cached
            else:
                async with self._replay_builders:
                    data, _ = await asyncio.to_thread(
                        replays.build, self.store, match, msg.after or 0, msg.limit
                    )
                self.metrics.replay_builds += 1
                if finished:  # a live match's replay grows: built each time
                    self.replays.put(key, data)
            sent = len(data)
            self.send_frame(client, replays.with_re(data, msg.id))
        finally:
            self.lobby.step(ReplaySent(client.conn, sent), time.monotonic())

    # HTTP ------------------------------------------------------------------------------------
    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path == "/health":
            problem = self.health_problem()
            if problem is None:
                return connection.respond(HTTPStatus.OK, "ok\n")
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, problem + "\n")
        if path == "/metrics":
            seated = sum(
                1
                for c in self.clients.values()
                if c.room is not None and c.room.room.seat_of(c.conn) is not None
            )
            spectators = sum(len(a.room.spectators) for a in self.rooms.values())
            body = self.metrics.render(len(self.rooms), len(self.clients), seated, spectators)
            body += self.desk.metrics_text()  # accounts and quick match (docs/accounts.md)
            body += self.tournaments.metrics_text()  # docs/tournaments.md
            body += self.locator.metrics()
            response = connection.respond(HTTPStatus.OK, body)
            response.headers = Headers(
                [(k, v) for k, v in response.headers.raw_items() if k.lower() != "content-type"]
                + [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]
            )
            return response
        if (
            path.startswith("/tournament/")
            and "upgrade" not in str(request.headers.get("Connection", "")).lower()
        ):
            return self.tournaments.page(request, path[len("/tournament/") :])
        page = self.web.respond(request)  # pages, static files, the websocket's Origin check
        if page is not None:
            return page
        if self.draining:
            return connection.respond(HTTPStatus.SERVICE_UNAVAILABLE, "draining\n")
        return None


def _hashing_busy(re: int | None) -> tc.Error:
    return error(
        ErrorCode.RATE_LIMITED, "The server is busy checking passwords; try again in a moment.", re
    )


def _request_id(data: str | bytes) -> int | None:
    """The ``id`` of a frame the codec refused, if one can be read (so the error can echo it)."""
    if not isinstance(data, bytes) or len(data) > 64 * 1024:
        return None
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return None
    if isinstance(obj, dict):
        value = obj.get("id")
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53:
            return value
    return None
