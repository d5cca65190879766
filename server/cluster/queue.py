"""Quick match over a cluster: one queue in Redis, one matcher, the match on one node
(docs/cluster.md "Quick match").

Each node puts its players' tickets in one Redis hash (``carom:mm:tickets``, field
``NODE/INSTANCE/CONN``), in the order they were queued and left (one task writes them). One node
at a time is the **matcher**: it holds the lease ``quick-match`` (server/cluster/directory.py
``Leases``, renewed at every round; another node takes it within a few rounds if it dies). Every
``pair_every_s`` the matcher reads the whole queue, drops the tickets of nodes that are gone, and
pairs with the same pure rule as one server (server/core/matchmaking.py). Each pair is taken out of
the hash atomically (both tickets or neither), so a pairing happens once even if two nodes
briefly both think they are the matcher; then the pair goes to the node of the longer waiter
(a message on that node's channel ``carom:mm:NODE/INSTANCE``). That node opens the room exactly
as one server does (seats both, as if they had joined by hand) and, if the other player is on
another node, tells that node, which joins its player through a relay (server/cluster/relay.py),
as for any room another node runs. A player who left meanwhile costs the other nothing: they
are put back in the queue with their waiting time kept. If the pair's message is lost (pub/sub
delivers at most once; the node it went to died), the players still waiting are put back in the
queue by their own nodes once their tickets have been missing from it for ``REASSERT_S``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any, Final

import redis.asyncio as aioredis
import redis.exceptions

from server.cluster.stopping import cancel
from server.core.matchmaking import Matchmaker, Pairing, TeamPairing, Ticket
from shared.protocol import to_server as ts

if TYPE_CHECKING:
    from server.cluster.node import ClusterNode
    from server.net.gateway import Connection

log = logging.getLogger("carom.cluster.queue")

TICKETS: Final = "carom:mm:tickets"
MATCHER: Final = "quick-match"  # the matcher's lease (carom:lease:quick-match)
# A waiting player's ticket missing from Redis this long (taken for a pairing whose room never
# came) goes back in: far above the few milliseconds a pairing takes to reach its nodes.
REASSERT_S: Final = 5.0
# KEYS[1] the tickets; ARGV[1], ARGV[2] the two fields: both taken, or neither.
_TAKE_PAIR: Final = """
local a = redis.call('HEXISTS', KEYS[1], ARGV[1])
if a == 1 and redis.call('HEXISTS', KEYS[1], ARGV[2]) == 1 then
    redis.call('HDEL', KEYS[1], ARGV[1], ARGV[2])
    return 1
end
return 0
"""


def _channel(holder: str) -> str:
    return f"carom:mm:{holder}"


def _to_json(t: Ticket, field: str) -> str:
    return json.dumps(
        {
            "field": field,
            "player_id": t.player_id,
            "discipline": t.discipline,
            "distance": t.distance,
            "rating": t.rating,
            "bot": t.bot,
            "since_ms": t.since_ms,
        }
    )


def _from_json(value: bytes | str) -> Ticket:
    d = json.loads(value)
    return Ticket(
        d["field"],
        d["player_id"],
        d["discipline"],
        d["distance"],
        d["rating"],
        d["bot"],
        d["since_ms"],
    )


class ClusterQueue:
    """The desk's queue on a cluster node (what ``Matchmaker`` is on one server): tickets of
    this node's players, written through to Redis; ``pair`` pairs nobody here (the matcher
    does, for the whole cluster)."""

    def __init__(self, node: ClusterNode) -> None:
        self.node = node
        self.r: aioredis.Redis = node.traffic
        self.me = node.leases.me  # NODE/INSTANCE
        self.local: dict[Hashable, Ticket] = {}  # conn -> this node's waiting tickets
        self.paired = 0  # pairings made while this node was the matcher
        self.rounds = 0  # pairing rounds this node has run (tests wait on it, not on time)
        self.matcher = False
        self._writes: asyncio.Queue[tuple[str, str, str | None]] = asyncio.Queue()
        self._take_pair = self.r.register_script(_TAKE_PAIR)
        self._tasks: list[asyncio.Task[None]] = []
        self._pending: set[asyncio.Task[None]] = set()
        self._pubsub: aioredis.client.PubSub | None = None
        self._missing: dict[Hashable, float] = {}  # conn -> since when its ticket is missing

    # The Matchmaker interface (server/net/desk.py) ------------------------------------
    def __len__(self) -> int:
        return len(self.local)

    def __contains__(self, key: Hashable) -> bool:
        return key in self.local

    def _field(self, key: Hashable) -> str:
        return f"{self.me}/{key}"

    def add(self, ticket: Ticket) -> bool:
        config = self.node.server.desk.config
        if ticket.key not in self.local and len(self.local) >= config.max_queue:
            return False
        self.local[ticket.key] = ticket
        field = self._field(ticket.key)
        self._writes.put_nowait(("add", field, _to_json(ticket, field)))
        return True

    def remove(self, key: Hashable) -> Ticket | None:
        ticket = self.local.pop(key, None)
        if ticket is not None:
            self._writes.put_nowait(("remove", self._field(key), None))
        return ticket

    def pair(self, now_ms: int) -> list[Pairing | TeamPairing]:
        return []  # the cluster's matcher pairs (ClusterQueue._match)

    # Life cycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._pubsub = self.r.pubsub(ignore_subscribe_messages=True)
        await self._pubsub.subscribe(_channel(self.me))
        for run in (self._write, self._listen, self._match_loop):
            self._tasks.append(asyncio.create_task(run(), name=f"quick-match-{run.__name__}"))

    async def stop(self) -> None:
        for task in self._tasks:
            await cancel(task)
        await asyncio.gather(*self._pending, return_exceptions=True)
        with contextlib.suppress(redis.exceptions.RedisError, OSError):
            if self.local:
                await self.r.hdel(TICKETS, *(self._field(k) for k in self.local))
            if self.matcher:
                await self.node.leases.release(MATCHER)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _write(self) -> None:
        """Tickets to Redis in the order they were queued and left."""
        while True:
            op, field, value = await self._writes.get()
            try:
                if op == "add" and value is not None:
                    await self.r.hset(TICKETS, field, value)
                else:
                    await self.r.hdel(TICKETS, field)
            except (redis.exceptions.RedisError, OSError) as exc:
                log.warning("quick match: could not %s a ticket: %s", op, exc)

    # The matcher -------------------------------------------------------------------------------
    async def _match_loop(self) -> None:
        every = self.node.server.desk.config.pair_every_s
        while True:
            await asyncio.sleep(every)
            try:
                await self.match_once()
                await self.reassert()
                self.rounds += 1
            except (redis.exceptions.RedisError, OSError) as exc:
                self.matcher = False
                log.warning("quick match: %s", exc)
            except Exception:
                log.exception("quick match pairing failed")

    async def match_once(self) -> int:
        """If this node is (or becomes) the matcher: one round over the whole cluster's queue;
        how many pairs were sent to their nodes."""
        leases = self.node.leases
        if self.matcher:
            self.matcher = not await leases.renew([MATCHER])
        if not self.matcher:
            self.matcher = bool(await leases.acquire(MATCHER))
        if not self.matcher:
            return 0
        live = {n.name + "/" + n.instance for n in await self.node.directory.nodes()}
        raw = await self.r.hgetall(TICKETS)
        matchmaker = Matchmaker(self.node.server.desk.config)
        orphans = []
        for field, value in raw.items():
            name = field.decode() if isinstance(field, bytes) else str(field)
            if name.rsplit("/", 1)[0] not in live:
                orphans.append(name)  # its node is gone (its players reconnect elsewhere)
                continue
            matchmaker.add(_from_json(value))
        if orphans:
            await self.r.hdel(TICKETS, *orphans)
        sent = 0
        for pairing in matchmaker.pair(self.node.server.desk.clock()):
            if isinstance(pairing, TeamPairing):
                continue  # team quick match is one server's only (the desk refuses it here)
            a, b = str(pairing.a.key), str(pairing.b.key)
            if not await self._take_pair(keys=[TICKETS], args=[a, b]):
                continue  # one of them left (or was paired) meanwhile
            message = {"open": [_to_json(pairing.a, a), _to_json(pairing.b, b)]}
            await self.r.publish(_channel(a.rsplit("/", 1)[0]), json.dumps(message))
            sent += 1
        self.paired += sent
        return sent

    async def reassert(self) -> None:
        """Our waiting players whose tickets have been missing from the queue for
        ``REASSERT_S``: back in it (their pairing's room never came)."""
        if not self.local:
            self._missing.clear()
            return
        keys = list(self.local)
        async with self.r.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.hexists(TICKETS, self._field(key))
            present = await pipe.execute()
        now = asyncio.get_running_loop().time()
        for key, there in zip(keys, present, strict=True):
            if there:
                self._missing.pop(key, None)
                continue
            since = self._missing.setdefault(key, now)
            ticket = self.local.get(key)
            if ticket is not None and now - since >= REASSERT_S:
                log.warning("quick match: %s was paired but never seated; queued again", key)
                field = self._field(key)
                self._writes.put_nowait(("add", field, _to_json(ticket, field)))
                self._missing.pop(key, None)
        for key in [k for k in self._missing if k not in self.local]:
            del self._missing[key]

    # Messages to this node -----------------------------------------------------------------
    async def _listen(self) -> None:
        assert self._pubsub is not None
        while True:
            try:
                message = await self._pubsub.get_message(timeout=1.0)
            except (redis.exceptions.RedisError, OSError, RuntimeError) as exc:
                # (RuntimeError: a new connection whose subscribe failed, Redis still away.)
                log.warning("quick match: channel lost: %s", exc)
                await asyncio.sleep(0.5)
                with contextlib.suppress(redis.exceptions.RedisError, OSError):
                    self._pubsub = self.r.pubsub(ignore_subscribe_messages=True)
                    await self._pubsub.subscribe(_channel(self.me))
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                body: dict[str, Any] = json.loads(message["data"])
                if "open" in body:
                    a, b = (_from_json(t) for t in body["open"])
                    await self._open(Pairing(a, b))
                elif "join" in body:
                    await self._join(int(body["join"]["conn"]), str(body["join"]["room_id"]))
            except Exception:
                log.exception("quick match: could not handle %s", message.get("data"))

    def _mine(self, ticket: Ticket) -> Connection | None:
        """The client of one of our tickets, if it still waits for this very pairing."""
        holder, _, conn = str(ticket.key).rpartition("/")
        if holder != self.me or int(conn) not in self.local:
            return None  # another node's, or unqueued meanwhile
        client = self.node.server.clients.get(int(conn))
        if (
            client is None
            or client.closing
            or client.room is not None
            or client.relay is not None
            or client.hub is not None
            or client.player_id != ticket.player_id
        ):
            return None
        return client

    async def _requeue(self, ticket: Ticket, client: Connection | None = None) -> None:
        """Back in the queue, its waiting time kept (the other player left meanwhile)."""
        if client is not None:
            self.local[client.conn] = ticket
        await self.r.hset(TICKETS, str(ticket.key), _to_json(ticket, str(ticket.key)))

    async def _open(self, pairing: Pairing) -> None:
        """We have the longer waiter: open the room here, seat ours, and bring the other."""
        desk = self.node.server.desk
        a = self._mine(pairing.a)
        b_holder = str(pairing.b.key).rpartition("/")[0]
        b = self._mine(pairing.b) if b_holder == self.me else None
        for ticket in (pairing.a, pairing.b):
            holder, _, key = str(ticket.key).rpartition("/")
            if holder == self.me:
                self.local.pop(int(key), None)
        if a is None or (b_holder == self.me and b is None) or self.node.server.draining:
            await self._requeue_ready(pairing, a, b, b_holder)
            return
        room_id = await desk.open_room(a, b, pairing.a)
        if room_id is None:  # the room could not be saved: both wait on
            await self._requeue_ready(pairing, a, b, b_holder)
            return
        desk.counts["paired_bot" if pairing.with_bot else "paired"] += 1
        if b is None:
            conn = int(str(pairing.b.key).rpartition("/")[2])
            body = json.dumps({"join": {"conn": conn, "room_id": room_id}})
            await self.r.publish(_channel(b_holder), body)

    async def _requeue_ready(
        self, pairing: Pairing, a: Connection | None, b: Connection | None, b_holder: str
    ) -> None:
        """Whoever can still play goes back in the queue (another node's player: its node
        checks when it is paired again)."""
        if a is not None:
            await self._requeue(pairing.a, a)
        if b is not None or b_holder != self.me:
            await self._requeue(pairing.b, b)

    async def _join(self, conn: int, room_id: str) -> None:
        """The other node opened our player's quick match: join it there, as by hand."""
        ticket = self.local.pop(conn, None)
        client = self.node.server.clients.get(conn)
        if ticket is None or client is None or client.closing or client.room is not None:
            return  # unqueued or gone meanwhile: the room's no-show rule settles it
        if client.relay is not None or client.hub is not None:
            return
        if not await self.node.forward(client, ts.Join(room_id=room_id)):
            log.warning("quick match: room %s is not running anywhere", room_id)
