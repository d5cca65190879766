"""One node of a cluster: the game server's link to Redis (docs/cluster.md).

It announces the node (presence), publishes its rooms' summaries so every node's lobby lists
every open room, holds a lease on each room it runs (renewed every ``lease_ms / 3``), and looks
for open rooms nobody holds (their node died): it takes their lease and restores them from the
shared PostgreSQL, as a restarted server restores its own (clocks moved on by the time the room
was down, so nobody is charged for it).

A room's writes happen only while its lease is held: a room is claimed before it is first
saved, and released after its last write (closed, or saved by a drain). A node that cannot
renew its leases for a whole lease period (Redis unreachable) drops its rooms without writing,
because another node may already run them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import logging
import secrets
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Final

import redis.asyncio as aioredis
import redis.exceptions

from server.cluster.config import ClusterConfig
from server.cluster.directory import Directory, Leases, NodeNameTaken, connect
from server.cluster.fanout import Publisher, Subscriber
from server.cluster.hub import Hub
from server.cluster.limits import (
    PASSWORD_FAILURES,
    PASSWORD_WINDOW_MS,
    Holdings,
    RedisAttempts,
)
from server.cluster.queue import ClusterQueue
from server.cluster.relay import Relay
from server.cluster.stopping import cancel
from server.core.lobby import CLOSE_GOING_AWAY  # close codes, in one place
from server.net.actor import now_ms, restore_room
from server.store.postgres import Fenced, PostgresStore
from server.store.sql import DatabaseUnavailable
from server.store.sqlite import StoreError
from shared.protocol import ErrorCode, ProtocolError, encode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import RoomSummary

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.net.actor import RoomActor
    from server.net.gateway import Connection, GameServer

log = logging.getLogger("carom.cluster")

SECRET_KEY: Final = "carom:secret"
RELAY_HEADER: Final = "X-Carom-Relay"  # the cluster's secret: this connection is a relay
CLIENT_HEADER: Final = "X-Carom-Connection"  # … for a client connected from this address
HUB_HEADER: Final = "X-Carom-Hub"  # … a hub: the room's broadcasts reach it over Redis


class ClusterNode:
    def __init__(self, server: GameServer, config: ClusterConfig) -> None:
        self.server = server
        self.config = config
        self.redis: aioredis.Redis = connect(config.redis_url)
        # Everything else (fan-out, limits, quick match) on connections of its own: a burst of
        # clients connecting (each counted against its address's cap) must never keep the
        # leases from being renewed in time.
        self.traffic: aioredis.Redis = connect(config.redis_url)
        # The URL is known once the server listens (start); --public-url fixes it in advance.
        self.directory = Directory(self.redis, config.node, config.public_url, config.lease_ms)
        self.leases = Leases(self.redis, config.node, self.directory.info.instance, config.lease_ms)
        self.held: set[str] = set()  # rooms whose lease we hold
        self.relays: set[Relay] = set()  # clients of ours in rooms other nodes run
        self.forwarded = 0  # frames relayed both ways, by relays that ended
        self.problem: str | None = None  # Redis unreachable: /health says so
        self.taken_over = 0  # rooms restored from a dead node (metrics)
        self.lost = 0  # rooms dropped because their lease was lost
        self.secret = ""  # shared by the cluster's nodes (in Redis): relays prove they are one
        self._last_renewed = time.monotonic()
        self.renewals = 0  # lease renewal rounds (tests wait on them, not on time)
        self._loop: asyncio.Task[None] | None = None
        self._pending: set[asyncio.Task[Any]] = set()
        self._dropping: set[str] = set()  # rooms being dropped (not closed)
        self.hubs: dict[str, Hub] = {}  # room_id -> the hub serving our spectators of it
        # Fan-out (server/cluster/fanout.py): our rooms' broadcasts published once for the
        # other nodes' hubs, and the channels of the rooms our hubs watch.
        self.publisher = Publisher(self.traffic, server)
        self.subscriber = Subscriber(self.traffic, self._fanned_out)
        self.hub_gaps = 0  # seq gaps seen by hubs that ended
        # Limits across nodes (server/cluster/limits.py): connections per address, open rooms
        # per identity and per address, counted over every live node.
        self.holdings = Holdings(
            self.traffic, config.node, self.directory.info.instance, config.lease_ms
        )
        self.conn_holds: dict[int, str] = {}  # connection -> its address's key
        self.room_holds: dict[str, tuple[list[str], float]] = {}  # room -> keys, when taken
        self.relayed_conns: set[int] = set()  # connections that are other nodes' relays
        self.refused = 0  # connections and rooms refused by a cluster-wide cap
        self.queue: ClusterQueue | None = None
        self._hub_lock = asyncio.Lock()

    # Life cycle ------------------------------------------------------------------------------
    async def restore(self, now_ms: int) -> None:
        """Nothing before listening: the open rooms nobody holds are taken once this node
        has joined (start), so two nodes never run one room."""
        return None

    async def start(self) -> None:
        """Join the cluster and take the open rooms nobody holds. StoreError (one sentence)
        when Redis cannot be reached or the name is taken."""
        if not self.directory.info.url:  # the default: where this server listens
            url = f"ws://{self.server.config.host}:{self.server.port}/"
            self.directory.info = dataclasses.replace(self.directory.info, url=url)
        try:
            await self.redis.ping()
            await self.directory.join()
            await self.redis.set(SECRET_KEY, secrets.token_hex(16), nx=True)
            value = await self.redis.get(SECRET_KEY)
            self.secret = value.decode() if isinstance(value, bytes) else str(value)
            accounts = self.server.config.accounts
            self.server.desk.by_name = RedisAttempts(
                self.traffic,
                "login",
                accounts.name_failures,
                int(accounts.name_window_s * 1000),
            )
            self.server.password_failures = {
                kind: RedisAttempts(self.traffic, f"password-{kind}", cap, PASSWORD_WINDOW_MS)
                for kind, cap in PASSWORD_FAILURES.items()
            }
        except redis.exceptions.RedisError as exc:
            await self._close_clients()
            raise StoreError(f"cannot reach Redis at {self.config.redis_url} ({exc})") from None
        except NodeNameTaken as exc:
            await self._close_clients()
            raise StoreError(str(exc)) from None
        store = self.server.store
        assert store is not None
        await self._reseed()  # repairs the open set if Redis lost it
        await self.take_over()
        await self._beat()
        self.publisher.start()
        self.queue = ClusterQueue(self)  # quick match over the cluster
        await self.queue.start()
        self.server.desk.matchmaker = self.queue
        self._loop = asyncio.create_task(self._run(), name="cluster-node")

    async def stop(self) -> None:
        """After the server saved every room (its last write): release their leases so other
        nodes take them at once, and leave the directory."""
        await cancel(self._loop)
        await asyncio.gather(*self._pending, return_exceptions=True)
        if self.queue is not None:
            await self.queue.stop()
        await asyncio.gather(*(r.close() for r in list(self.relays)), return_exceptions=True)
        await asyncio.gather(*(h.close() for h in list(self.hubs.values())), return_exceptions=True)
        await self.publisher.stop()
        await self.subscriber.stop()
        with contextlib.suppress(redis.exceptions.RedisError):
            for room_id in sorted(self.held):
                await self.leases.release(room_id)
            self.held.clear()
            await self.holdings.stop()
            await self.directory.leave()
        await self._close_clients()

    async def _close_clients(self) -> None:
        await self.redis.aclose()
        await self.traffic.aclose()

    # Rooms -----------------------------------------------------------------------------------
    async def claim(self, room_id: str, client: Connection) -> str | None:
        """Before a new room's first write: the room caps over the whole cluster (why not, a
        sentence), then the lease (and its fencing token) and its place in the open set."""
        refusal = await self.take_room(room_id, client)
        if refusal is not None:
            return refusal
        if not await self._acquire(room_id):  # 2^40 ids: never seen
            raise RuntimeError(f"room id {room_id} is already held")
        await self.directory.opened(room_id)
        return None

    async def claim_quick(self, room_id: str, creator: str | None) -> None:
        """A quick match's room (server/cluster/queue.py): its lease before its first write,
        so that the other player's node finds it at once; counted for its creator."""
        if not await self._acquire(room_id):  # 2^40 ids: never seen
            raise RuntimeError(f"room id {room_id} is already held")
        await self.directory.opened(room_id)
        await self._hold_room(room_id, creator)

    # Limits across nodes (server/cluster/limits.py) ----------------------------------------
    async def take_room(self, room_id: str, client: Connection) -> str | None:
        """Count a new room against its creator's and its address's caps over every node:
        None when within both, else why not (nothing counted then)."""
        cfg = self.server.config
        assert client.player_id is not None
        by_identity, by_address = f"rooms:identity:{client.player_id}", f"rooms:addr:{client.addr}"
        try:
            held = await self.holdings.take(by_identity, cfg.max_rooms_per_identity)
            if held is not None:
                self.refused += 1
                return (
                    f"You already have {held} open rooms; at most "
                    f"{cfg.max_rooms_per_identity} per player."
                )
            if await self.holdings.take(by_address, cfg.max_rooms_per_address) is not None:
                self.holdings.give(by_identity)
                self.refused += 1
                return f"At most {cfg.max_rooms_per_address} open rooms from one address."
        except (redis.exceptions.RedisError, OSError) as exc:
            self._unreachable(exc)  # each node's own caps still hold
            return None
        self.room_holds[room_id] = ([by_identity, by_address], time.monotonic())
        return None

    async def _hold_room(self, room_id: str, creator: str | None) -> None:
        """A room we run that was not created here through ``claim`` (taken over, quick
        match): counted for its creator, whatever the cap (it exists already)."""
        if creator is None or room_id in self.room_holds:
            return
        key = f"rooms:identity:{creator}"
        await self.holdings.add(key)
        self.room_holds[room_id] = ([key], time.monotonic())

    def _give_room(self, room_id: str) -> None:
        keys, _ = self.room_holds.pop(room_id, ([], 0.0))
        for key in keys:
            self.holdings.give(key)

    async def connection_opened(self, ws: ServerConnection, client: Connection) -> bool:
        """A new connection against its address's cap over every node (relays from other
        nodes are counted there, as their client's); False: refuse it."""
        self.relayed(ws, client)  # a relay from another node: the client's own address
        if client.conn in self.relayed_conns:
            return True
        key = f"conns:addr:{client.addr}"
        try:
            held = await self.holdings.take(key, self.server.config.max_connections_per_address)
        except (redis.exceptions.RedisError, OSError) as exc:
            self._unreachable(exc)  # each node's own cap still holds
            return True
        if held is not None:
            self.refused += 1
            return False
        self.conn_holds[client.conn] = key
        return True

    def connection_closed(self, client: Connection) -> None:
        self.hub_left(client)
        self.relayed_conns.discard(client.conn)
        key = self.conn_holds.pop(client.conn, None)
        if key is not None:
            self.holdings.give(key)

    async def _acquire(self, room_id: str) -> bool:
        """The room's lease, and its token as the room's fence in PostgreSQL: from now on a
        previous holder's late writes are refused (server/store/postgres.py ``fence``)."""
        token = await self.leases.acquire(room_id)
        if not token:
            return False
        store = self.server.store
        if isinstance(store, PostgresStore):
            try:
                try:
                    await store.run(store.fence, room_id, token)
                except Fenced:  # Redis lost its counter: go on above what PostgreSQL has seen
                    floor = await store.run(store.room_fence, room_id)
                    token = await self.leases.bump(room_id, floor)
                    if not token:
                        return False
                    await store.run(store.fence, room_id, token)
            except DatabaseUnavailable:
                await self.leases.release(room_id)  # not fenced: not ours to run; next time
                raise
        self.held.add(room_id)
        return True

    def _unfence(self, room_id: str) -> None:
        self.held.discard(room_id)
        store = self.server.store
        if isinstance(store, PostgresStore):
            store.unfence(room_id)

    def closed(self, room_id: str) -> None:
        """The room's closing is written: it leaves the open set, then its lease is released."""
        self._unfence(room_id)
        self._give_room(room_id)  # (dropped: the node running it now counts it)
        if room_id in self._dropping:  # not closed: dropped (see drop), it runs elsewhere
            return

        async def release() -> None:
            with contextlib.suppress(redis.exceptions.RedisError):
                await self.directory.closed(room_id)
                await self.leases.release(room_id)

        task = asyncio.get_running_loop().create_task(release())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def take_over(self) -> int:
        """Restore the open rooms whose lease nobody holds; how many were taken."""
        if self.server.draining:
            return 0
        unheld = [r for r in await self.directory.unheld() if r not in self.server.rooms]
        if not unheld:
            return 0
        store = self.server.store
        assert store is not None
        taken = 0
        # Lease and fence first, then read: a write the dead (or stalled) holder still makes
        # after this is refused, so what is read here is the room's last state.
        mine = [room_id for room_id in unheld if await self._acquire(room_id)]
        if not mine:
            return 0
        records = {r.room_id: r for r in await store.run(store.open_rooms)}
        for room_id in mine:
            record = records.get(room_id)
            if record is None:  # closed meanwhile (or never saved): nothing to run
                await self.directory.closed(room_id)
                await self.leases.release(room_id)
                self._unfence(room_id)
                continue
            now = now_ms()
            try:
                room = restore_room(record, now)
            except Exception:
                log.exception("room %s could not be restored; closing it", room_id)
                await store.run(store.close_room, room_id, now)
                await self.directory.closed(room_id)
                await self.leases.release(room_id)
                self._unfence(room_id)
                continue
            self.server.run_room(room)
            await self._hold_room(room_id, room.creator)
            taken += 1
        if taken:
            self.taken_over += taken
            log.info("took over %d room(s) nobody held", taken)
        return taken

    def drop(self, actor: RoomActor, why: str) -> None:
        """Stop running a room without writing anything (its lease is no longer ours: another
        node may be running it), and send its people to reconnect."""
        room_id = actor.room.room_id
        if actor.task is not None:
            actor.task.cancel()
        members = [c for c in self.server.clients.values() if c.room is actor]
        # The lobby's own bookkeeping of a room that ends (counts per creator and address,
        # members), without what closing means here (the room stays open, on another node).
        self._dropping.add(room_id)
        try:
            self.server.room_closed(actor)
        finally:
            self._dropping.discard(room_id)
        self.lost += 1
        log.warning("room %s dropped: %s", room_id, why)
        closing = encode(
            tc.Closing(reason="Your room moved to another server. Reconnect and rejoin.")
        )
        for client in members:
            client.room = None
            self.server.send_frame(client, closing)
            self.server.close_client(client, CLOSE_GOING_AWAY, "room moved")

    # The loop --------------------------------------------------------------------------------
    async def _run(self) -> None:
        period = self.config.lease_ms / 3000
        next_takeover = time.monotonic() + self.config.takeover_s
        while True:
            await asyncio.sleep(period)
            try:
                await self._beat()
                if time.monotonic() >= next_takeover:
                    next_takeover = time.monotonic() + self.config.takeover_s
                    await self.take_over()
            except DatabaseUnavailable as exc:
                # PostgreSQL failing (/health shows it through the store): the leases were
                # renewed first, so the rooms run on; taking rooms over waits for it.
                log.error("cluster: %s", exc)
            except (redis.exceptions.RedisError, OSError) as exc:
                self._unreachable(exc)
            except Exception:
                log.exception("cluster loop")

    async def _beat(self) -> None:
        actors = dict(self.server.rooms)
        self.publisher.prune()
        await self.holdings.beat()
        # Rooms counted by claim whose creation then failed (their first write): given back.
        for room_id, (_, since) in list(self.room_holds.items()):
            if room_id not in actors and time.monotonic() - since > 10:
                self._give_room(room_id)
        lost = await self.leases.renew([r for r in actors if r in self.held])
        self._last_renewed = time.monotonic()
        self.renewals += 1
        # A room opened without claim() (quick match's rooms): claim it now.
        try:
            for room_id in [r for r in actors if r not in self.held]:
                if await self._acquire(room_id):
                    await self.directory.opened(room_id)
                    await self._hold_room(room_id, actors[room_id].room.creator)
                else:
                    lost.add(room_id)
        except DatabaseUnavailable as exc:  # fenced at the next beat; presence goes on
            log.error("cluster: %s", exc)
        for room_id in lost:
            actor = self.server.rooms.get(room_id)
            if actor is not None and actor is actors[room_id]:
                self.drop(actor, "its lease was lost (expired or taken by another node)")
        await self.directory.beat(
            {rid: a.room.summary().to_wire() for rid, a in self.server.rooms.items()}
        )
        if self.problem is not None:
            log.info("Redis reachable again")
            await self._reseed()  # it may have restarted empty
        self.problem = None

    async def _reseed(self) -> None:
        """Every open room of PostgreSQL back in the open set, so rooms nobody holds (dropped
        during an outage, or whose node died meanwhile) are found and taken again."""
        store = self.server.store
        assert store is not None
        ids = [r.room_id for r in await store.run(store.open_rooms)]
        await self.directory.opened(*ids)

    def _unreachable(self, exc: Exception) -> None:
        problem = f"cannot reach Redis at {self.config.redis_url} ({exc})"
        if problem != self.problem:
            log.error("%s", problem)
        self.problem = problem
        # Past the lease: other nodes may have taken our rooms; running them on would write
        # over their moves.
        if time.monotonic() - self._last_renewed > self.config.lease_ms / 1000 * 0.9:
            for actor in list(self.server.rooms.values()):
                self.drop(actor, "Redis was unreachable for a whole lease period")

    # Lobby -----------------------------------------------------------------------------------
    async def rooms(self, limit: int = 500) -> list[RoomSummary]:
        """Every open room of the cluster: ours as they are now, the others' as last
        published (at most ``lease_ms / 3`` old)."""
        local = [a.room.summary() for a in list(self.server.rooms.values())[:limit]]
        try:
            listed = await self.directory.rooms(limit)
        except redis.exceptions.RedisError as exc:
            self._unreachable(exc)
            return local  # better our own rooms than none
        mine = {s.room_id for s in local}
        others = []
        for r in listed:
            if r.node == self.config.node:
                continue
            try:
                others.append(RoomSummary.from_wire(r.summary, "rooms[]"))
            except ProtocolError as exc:  # another version's node: list what we can read
                log.warning("cluster: room summary from %s not listed: %s", r.node, exc)
        return (local + [s for s in others if s.room_id not in mine])[:limit]

    def relayed(self, ws: ServerConnection, client: Connection) -> None:
        """A connection that proves it is another node's relay (the cluster's secret) counts
        as its client's address (password guessing, rooms per address), and its node is not
        held to the per-address connection cap (it carries many clients)."""
        request = ws.request
        if request is None or not self.secret:
            return
        proof = request.headers.get(RELAY_HEADER)
        if proof is None or not hmac.compare_digest(proof, self.secret):
            return
        self.server.trust_peer(client.addr)
        client.addr = request.headers.get(CLIENT_HEADER, client.addr)[:64]
        self.relayed_conns.add(client.conn)
        if request.headers.get(HUB_HEADER) is not None:
            self.publisher.hub_conns.add(client.conn)

    async def forward(self, client: Connection, msg: ts.Join | ts.Spectate | ts.Rejoin) -> bool:
        """If another live node runs the room, relay the client there (or answer why not);
        False when no node does (the lobby answers ``no_such_room``)."""
        url = await self.where(msg.room_id)
        if url is None:
            return False
        if client.room is not None or client.relay is not None or client.hub is not None:
            self.server.reply(
                client,
                error(
                    ErrorCode.ALREADY_IN_ROOM, "You are already in a room; leave it first.", msg.id
                ),
            )
            return True
        if (
            isinstance(msg, ts.Spectate)
            and msg.password is None
            and not await self.directory.is_private(msg.room_id)
        ):
            code = await self._spectate_through_hub(client, msg, url)
            if code is None:
                return True
            if code == ErrorCode.NO_SUCH_ROOM.value:
                self.server.reply(client, error(ErrorCode.NO_SUCH_ROOM, "No such room.", msg.id))
                return True
            # Anything else (a private room not yet listed, the owner unreachable): the
            # spectator's own relay, and the owner's answer to it.
        return await self._relay(client, msg, url)

    async def _relay(
        self,
        client: Connection,
        msg: ts.Join | ts.Spectate | ts.Rejoin,
        url: str,
        quiet: bool = False,
    ) -> bool:
        relay = Relay(
            self.server,
            client,
            url,
            {RELAY_HEADER: self.secret, CLIENT_HEADER: client.addr},
            quiet=quiet,
        )
        client.relay = relay  # later messages of this connection go behind the entry
        if not await relay.open(msg):
            if quiet:
                client.relay = None
                return False
            client.relay = None
            self.server.reply(
                client,
                error(
                    ErrorCode.UNAVAILABLE,
                    "The server running that room cannot be reached right now; try again in "
                    "a moment.",
                    msg.id,
                ),
            )
            return True
        self.relays.add(relay)
        if relay.task is not None:
            relay.task.add_done_callback(lambda _: self._relay_ended(relay))
        return True

    # Spectator hubs (server/cluster/hub.py) ------------------------------------------------
    async def _spectate_through_hub(
        self, client: Connection, msg: ts.Spectate, url: str
    ) -> str | None:
        """Serve the spectator from this node's hub for the room (opened on first use); None
        when done, else the owner's refusal code."""
        async with self._hub_lock:  # two spectators arriving together: one hub
            hub = self.hubs.get(msg.room_id)
            if hub is None:
                hub = Hub(
                    self,
                    msg.room_id,
                    url,
                    {
                        RELAY_HEADER: self.secret,
                        CLIENT_HEADER: "cluster",
                        HUB_HEADER: self.config.node,
                    },
                )
                # Listed first (a previous hub's unsubscribing leaves the channel alone then),
                # and subscribed before it spectates: no broadcast after its snapshot is missed.
                self.hubs[msg.room_id] = hub
                try:
                    await self.subscriber.subscribe(msg.room_id)
                    code = await hub.open()
                except (redis.exceptions.RedisError, OSError) as exc:
                    self._unreachable(exc)
                    code = ErrorCode.UNAVAILABLE.value
                if code is not None:
                    if self.hubs.get(msg.room_id) is hub:
                        del self.hubs[msg.room_id]
                    self._unsubscribe(msg.room_id)
                    return code
        if client.closing or client.room is not None or client.relay is not None:
            return None
        client.hub = hub
        hub.add(client, msg)
        return None

    async def chat_relay(self, client: Connection, hub: Hub) -> bool:
        """A hub's spectator says something: its own quiet relay carries it, under its name."""
        return await self._relay(client, ts.Spectate(room_id=hub.room_id), hub.url, quiet=True)

    def hub_left(self, client: Connection) -> None:
        """A hub's spectator disconnected from this node."""
        hub = client.hub
        if hub is not None:
            hub.remove(client)
            client.hub = None
            self.hub_idle(hub)

    def hub_idle(self, hub: Hub) -> None:
        """Nobody here watches the room any more: close its hub."""
        if not hub.idle() or self.hubs.get(hub.room_id) is not hub:
            return
        del self.hubs[hub.room_id]
        self._spawn(hub.close())
        self._unsubscribe(hub.room_id)

    def hub_ended(self, hub: Hub) -> None:
        if self.hubs.get(hub.room_id) is hub:
            del self.hubs[hub.room_id]
            self._unsubscribe(hub.room_id)
        self.forwarded += hub.forwarded
        self.hub_gaps += hub.gaps

    def _unsubscribe(self, room_id: str) -> None:
        """Leave the room's channel, unless a new hub for it came meanwhile."""
        self._spawn(self.subscriber.unsubscribe(room_id, lambda: room_id in self.hubs))

    def _fanned_out(self, room_id: str, data: bytes) -> None:
        """A broadcast published by the room's owner: to our hub for it."""
        hub = self.hubs.get(room_id)
        if hub is not None and hub.ws is not None:
            hub.broadcast(data)

    def fan_out(self, conns: tuple[int, ...], data: bytes) -> tuple[int, ...]:
        """For the lobby's delivery: the connections to send ``data`` to one by one, once the
        broadcast is published for the hubs among them (server/cluster/fanout.py)."""
        if not self.publisher.hub_conns:
            return conns
        return self.publisher.route(conns, data)

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def _relay_ended(self, relay: Relay) -> None:
        self.relays.discard(relay)
        self.forwarded += relay.forwarded_in + relay.forwarded_out

    async def where(self, room_id: str) -> str | None:
        """The public URL of the node running ``room_id``, if another live node does."""
        try:
            owner = await self.leases.owner(room_id)
            if owner is None or owner == self.config.node:
                return None
            for node in await self.directory.nodes():
                if node.name == owner:
                    return node.url
        except redis.exceptions.RedisError as exc:
            self._unreachable(exc)
        return None

    def metrics(self) -> str:
        forwarded = self.forwarded + sum(r.forwarded_in + r.forwarded_out for r in self.relays)
        forwarded += sum(h.forwarded for h in self.hubs.values())
        watching = sum(len(h.members) for h in self.hubs.values())
        gaps = self.hub_gaps + sum(h.gaps for h in self.hubs.values())
        pub = self.publisher
        node = self.config.node.replace("\\", "\\\\").replace('"', '\\"')
        return (
            f'carom_cluster_rooms{{node="{node}"}} {len(self.server.rooms)}\n'
            f'carom_cluster_leases{{node="{node}"}} {len(self.held)}\n'
            f'carom_cluster_leases_lost_total{{node="{node}"}} {self.lost}\n'
            f'carom_cluster_rooms_taken_over_total{{node="{node}"}} {self.taken_over}\n'
            f'carom_cluster_redis_up{{node="{node}"}} {0 if self.problem else 1}\n'
            f'carom_cluster_relays{{node="{node}"}} {len(self.relays)}\n'
            f'carom_cluster_hubs{{node="{node}"}} {len(self.hubs)}\n'
            f'carom_cluster_hub_spectators{{node="{node}"}} {watching}\n'
            f'carom_cluster_forwarded_total{{node="{node}"}} {forwarded}\n'
            f'carom_cluster_fanout_published_total{{node="{node}"}} {pub.published}\n'
            f'carom_cluster_fanout_dropped_total{{node="{node}"}} {pub.dropped}\n'
            f'carom_cluster_fanout_lag_seconds{{node="{node}"}} {pub.lag_s:.6f}\n'
            f'carom_cluster_fanout_received_total{{node="{node}"}} {self.subscriber.received}\n'
            f'carom_cluster_fanout_gaps_total{{node="{node}"}} {gaps}\n'
            f'carom_cluster_limit_refusals_total{{node="{node}"}} {self.refused}\n'
        )
