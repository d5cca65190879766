"""Spectator fan-out: all of this node's spectators of a room another node runs, served by one
connection to that node and one Redis channel.

The hub spectates the room once (as this node, with the cluster's secret). The owner does not
send the room's broadcasts down that connection: it publishes each one **once** on the room's
Redis channel (``carom:fan:ROOM``, server/cluster/fanout.py), whatever the number of nodes
watching; every hub subscribed to it passes the broadcast, byte for byte and in ``seq`` order,
to each of its spectators here. The connection carries what is not a broadcast: snapshots,
answers, the owner's ``closing``. A broadcast that arrives out of turn (a ``seq`` gap: Redis
pub/sub delivers at most once, e.g. across a reconnect) is not passed on; the hub asks the owner
for one fresh snapshot for all its spectators instead, and goes on from it.

A spectator's own requests are answered as if it were connected to the owner: ``spectate``
and ``sync`` become a ``sync`` on the hub whose ``snapshot`` comes back with the spectator's
``re`` (and from that snapshot on, the spectator gets the broadcasts: nothing older, nothing
missed, including those that came over Redis before the snapshot); ``leave`` is answered here;
``chat`` goes through a relay of the spectator's own (server/cluster/relay.py, quiet: only its
answers come back), so the line carries the spectator's name; anything else is what the owner
would answer a spectator (``not_a_player``).

Private rooms are not served by hubs (the password is the spectator's): those spectators get a
relay each. When the owner goes away, every spectator of the hub is told to reconnect
(``closing``, 1001), as with a relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Final

import msgpack
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from server.cluster.link import OwnerLink
from server.core.lobby import CLOSE_GOING_AWAY  # close codes, in one place
from shared.protocol import PROTOCOL_VERSION, ErrorCode, ProtocolError, decode_server, encode, error
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage

if TYPE_CHECKING:
    from server.cluster.node import ClusterNode
    from server.net.gateway import Connection

log = logging.getLogger("carom.cluster.hub")

# Snapshots for arriving (or syncing) spectators are asked for at most this often: everyone
# who asked meanwhile gets the same one, so a crowd arriving at once costs the owner one sync
# per gap and the hub stays far below the owner's per-connection rate limit.
SYNC_GAP_S: Final = 0.1
# Broadcasts kept for spectators whose snapshot arrives after them (the snapshot comes over the
# websocket, the broadcasts over Redis: either may be first).
RECENT: Final = 256

Waiter = tuple["Connection", int | None, bool]  # who, its request's id, whether it is arriving


class Hub(OwnerLink):
    def __init__(self, node: ClusterNode, room_id: str, url: str, headers: dict[str, str]) -> None:
        self.node = node
        self.room_id = room_id
        self.url = url
        self.headers = headers
        self.ws: ClientConnection | None = None
        self.task: asyncio.Task[None] | None = None
        self.members: dict[int, Connection] = {}  # conn -> spectator receiving the broadcasts
        self.floor: dict[int, int] = {}  # conn -> seq of its snapshot: only later broadcasts
        self.last_seq: int | None = None  # the last broadcast passed on
        self.recent: deque[tuple[int, bytes]] = deque(maxlen=RECENT)
        # Snapshots the owner sent everyone (a restore) at a seq whose broadcast has not come
        # over Redis yet: passed on right after it, where a direct spectator gets them.
        self.held: list[tuple[int, bytes]] = []
        self.gaps = 0  # broadcasts that came out of turn (each cost one shared sync)
        self.received = 0  # broadcasts received from the room's channel
        self.batch: list[Waiter] = []  # waiting for the next sync to be sent
        self.inflight: list[Waiter] | None = None  # answered by the sync in flight
        self.forwarded = 0  # frames received from the owner (each sent to every member)
        self._sync_id = 1  # 1 was the hub's own spectate
        self._last_sync = 0.0
        self._scheduled: asyncio.TimerHandle | None = None
        self._sends: set[asyncio.Task[None]] = set()
        self._closed = False

    async def open(self) -> str | None:
        """Connect and spectate the room; None when in, else the owner's error code (or
        ``unavailable`` when it cannot be reached)."""
        try:
            self.ws = await self._connect(self.url, self.headers)
            name = f"spectators on {self.node.config.node}"[:32]
            await self.ws.send(encode(ts.Hello(v=PROTOCOL_VERSION, name=name)))
            async with asyncio.timeout(5):
                welcome = decode_server(await self.ws.recv())
                if not isinstance(welcome, tc.Welcome):
                    raise ProtocolError(f"not greeted: {welcome}")
                await self.ws.send(encode(ts.Spectate(room_id=self.room_id, id=1)))
                while True:
                    answer = decode_server(await self.ws.recv())
                    if getattr(answer, "re", None) == 1:
                        break
        except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake, ProtocolError) as exc:
            log.warning("cannot open a spectator hub for %s at %s: %s", self.room_id, self.url, exc)
            await self._close_ws()
            return ErrorCode.UNAVAILABLE.value
        if isinstance(answer, tc.Error):
            await self._close_ws()
            return answer.code
        if isinstance(answer, tc.Snapshot):  # broadcasts from here on (a gap is a gap)
            self.last_seq = max(answer.seq, self.last_seq or 0)
        self.task = asyncio.create_task(self._pump(), name=f"hub-{self.room_id}")
        return None

    def add(self, client: Connection, msg: ts.Spectate | ts.Sync) -> None:
        """A spectator arrives (or asks for a sync): a snapshot for it, then the broadcasts."""
        self._ask(client, msg.id, isinstance(msg, ts.Spectate))

    def _ask(self, client: Connection, re: int | None, joins: bool) -> None:
        self.batch.append((client, re, joins))
        self._kick()

    def _kick(self) -> None:
        if self.inflight is not None or self._scheduled is not None or not self.batch:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._last_sync + SYNC_GAP_S - loop.time())
        self._scheduled = loop.call_later(delay, self._send_sync)

    def _send_sync(self) -> None:
        self._scheduled = None
        if self.ws is None or self._closed or self.inflight is not None or not self.batch:
            return
        self.inflight, self.batch = self.batch, []
        self._sync_id += 1
        self._last_sync = asyncio.get_running_loop().time()
        task = asyncio.get_running_loop().create_task(self._send(ts.Sync(id=self._sync_id)))
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)

    async def _send(self, msg: ClientMessage) -> None:
        if self.ws is not None:
            with contextlib.suppress(ConnectionClosed):
                await self.ws.send(encode(msg))

    def idle(self) -> bool:
        return not self.members and not self.batch and not self.inflight

    def remove(self, client: Connection) -> None:
        self.members.pop(client.conn, None)
        self.floor.pop(client.conn, None)
        self.batch = [w for w in self.batch if w[0] is not client]
        if self.inflight is not None:
            self.inflight = [w for w in self.inflight if w[0] is not client]

    async def handle(self, client: Connection, msg: ClientMessage) -> None:
        """A room message from one of this hub's spectators."""
        server = self.node.server
        if isinstance(msg, ts.Sync):
            self._ask(client, msg.id, False)
        elif isinstance(msg, ts.Leave):
            self.remove(client)
            client.hub = None
            if client.relay is not None:  # its chat relay
                await client.relay.close()
                client.relay = None
            server.reply(client, tc.Left(room_id=self.room_id, re=msg.id))
            self.node.hub_idle(self)
        elif isinstance(msg, ts.Chat):
            if client.relay is None and not await self.node.chat_relay(client, self):
                server.reply(
                    client,
                    error(
                        ErrorCode.UNAVAILABLE,
                        "The server running that room cannot be reached right now; try again "
                        "in a moment.",
                        msg.id,
                    ),
                )
                return
            assert client.relay is not None
            await client.relay.send(msg)
        else:
            server.reply(
                client,
                error(ErrorCode.NOT_A_PLAYER, "Spectators cannot act in a match.", msg.id),
            )

    def broadcast(self, data: bytes) -> None:
        """A broadcast of the room (from its Redis channel, or from the owner's connection):
        to every spectator here, in ``seq`` order; a gap makes everyone here sync once."""
        try:
            obj: Any = msgpack.unpackb(data, raw=False, strict_map_key=False)
        except Exception:
            return
        seq = obj.get("seq") if isinstance(obj, dict) else None
        if not isinstance(seq, int):
            return
        if self.last_seq is not None and seq <= self.last_seq:
            return  # already passed on (or older than what everyone here has)
        self.received += 1
        self.forwarded += 1
        gap = self.last_seq is not None and seq != self.last_seq + 1
        self.last_seq = seq
        self.recent.append((seq, data))
        if gap:
            self.gaps += 1
            self.held.clear()  # the sync below brings everyone up to date
            log.info("hub %s: broadcast %d came out of turn; one sync for all", self.room_id, seq)
            for client in list(self.members.values()):
                self.remove(client)
                self._ask(client, None, True)  # a snapshot without re, as a restart sends
            return
        server = self.node.server
        for conn, member in list(self.members.items()):
            if seq > self.floor.get(conn, -1):
                server.send_frame(member, data)
        while self.held and self.held[0][0] <= seq:
            self._to_members(self.held.pop(0)[1])

    def _to_members(self, data: bytes) -> None:
        server = self.node.server
        for member in list(self.members.values()):
            server.send_frame(member, data)

    def _admit(self, client: Connection, seq: int) -> None:
        """A spectator's snapshot (at ``seq``) is sent: the broadcasts after it, from now on
        and any that came before the snapshot did."""
        self.members[client.conn] = client
        self.floor[client.conn] = seq
        server = self.node.server
        for s, data in self.recent:
            if s > seq:
                server.send_frame(client, data)

    async def _pump(self) -> None:
        assert self.ws is not None
        server = self.node.server
        told: set[int] = set()
        try:
            async for data in self.ws:
                if not isinstance(data, bytes):
                    continue
                try:
                    obj: Any = msgpack.unpackb(data, raw=False, strict_map_key=False)
                except Exception:
                    continue
                if not isinstance(obj, dict):
                    continue
                re = obj.get("re")
                if re is None:
                    kind = obj.get("t")
                    if kind == "closing":
                        for member in list(self.members.values()):
                            server.send_frame(member, data)
                        told = set(self.members)  # the owner's own goodbye reached them
                        return
                    if kind == "snapshot":  # to everyone in the room (e.g. the match starts)
                        self.forwarded += 1
                        seq = obj.get("seq")
                        if isinstance(seq, int) and (self.last_seq or 0) < seq:
                            self.held.append((seq, data))  # after broadcast ``seq``
                        else:
                            self._to_members(data)
                        continue
                    self.broadcast(data)  # an owner that does not publish (or a rollout)
                    continue
                if re != self._sync_id or self.inflight is None:
                    continue
                self.forwarded += 1
                answered, self.inflight = self.inflight, None
                for client, their_re, joins in answered:
                    if their_re is None:
                        obj.pop("re", None)
                    else:
                        obj["re"] = their_re
                    server.send_frame(client, msgpack.packb(obj, use_bin_type=True))
                    if joins and obj.get("t") == "snapshot" and client.hub is self:
                        self._admit(client, int(obj.get("seq") or 0))
                self._kick()
        except ConnectionClosed:
            pass
        finally:
            await self._close_ws()
            if self._scheduled is not None:
                self._scheduled.cancel()
            waiting = self.batch + (self.inflight or [])
            gone = list(self.members.values()) + [c for c, _, _ in waiting]
            self.members.clear()
            self.floor.clear()
            self.batch, self.inflight = [], None
            closing = encode(
                tc.Closing(reason="The server running your room went away; reconnect and rejoin.")
            )
            for client in gone:
                if client.hub is self:
                    client.hub = None
                if not client.closing and not self._closed:
                    if client.conn not in told:
                        server.send_frame(client, closing)
                    server.close_client(client, CLOSE_GOING_AWAY, "room's server went away")
            self.node.hub_ended(self)
