"""Forwarding: a client connected to this node, in a room another node runs.

When a client joins, spectates or rejoins a room whose lease another live node holds, this node
opens one websocket to that node on the client's behalf, says ``hello`` there with the client's
own identity token (identities live in the shared PostgreSQL, so the owner sees the same
player), and from then on passes frames both ways untouched: the client's room messages (with
their ``id``s) go to the owner, and everything the owner sends (with its ``seq``s and ``re``s)
comes back byte for byte. Nothing in the protocol changes for clients or bots; the owner
applies its own checks (password, seat tokens, rate limit of that connection) as for anyone.

The relay ends when the owner says the client ``left``, refuses the entry, or goes away. In the
last case the client is told to reconnect (``closing``, then 1001), exactly as when its own
node drains, and it rejoins with its seat token wherever the room runs then.

Costs (docs/cluster.md): one extra connection on the owner per forwarded client, and one hop.
Spectators of public rooms are not relayed one by one: a hub per node serves them, fed by one
Redis publish per broadcast (server/cluster/hub.py, server/cluster/fanout.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, Final

import msgpack
from websockets.asyncio.client import ClientConnection
from websockets.exceptions import ConnectionClosed, InvalidHandshake

from server.cluster.link import OwnerLink
from server.core.lobby import CLOSE_GOING_AWAY, CLOSE_POLICY  # close codes, in one place
from shared.protocol import PROTOCOL_VERSION, ProtocolError, decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage

if TYPE_CHECKING:
    from server.net.gateway import Connection, GameServer

log = logging.getLogger("carom.cluster.relay")

# Frames that end or refuse a relay are all small; bigger ones (strokes with trajectories,
# snapshots, replays) are passed on without being unpacked.
PEEK_BYTES: Final = 2048


def _peek(data: bytes) -> tuple[str | None, Any]:
    """The type and ``re`` of a small frame (None for big ones or anything unexpected)."""
    if len(data) > PEEK_BYTES:
        return None, None
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return None, None
    if not isinstance(obj, dict):
        return None, None
    t = obj.get("t")
    return (t if isinstance(t, str) else None), obj.get("re")


class Relay(OwnerLink):
    def __init__(
        self,
        server: GameServer,
        client: Connection,
        url: str,
        headers: dict[str, str],
        quiet: bool = False,
    ) -> None:
        self.server = server
        # Quiet: the relay of a spectator a hub serves (server/cluster/hub.py), only for what
        # it sends (chat); the room's broadcasts reach it through the hub, so here only
        # answers to its own requests are passed on, and the hub tells it when the owner goes.
        self.quiet = quiet
        self.headers = headers  # the cluster's proof and the client's address
        self.client = client
        self.url = url
        self.ws: ClientConnection | None = None
        self.task: asyncio.Task[None] | None = None
        self.forwarded_in = 0  # frames from the owner to the client
        self.forwarded_out = 0  # frames from the client to the owner
        self._entry: int | None = None  # the id of the join/spectate/rejoin being answered
        self._entered = False
        self._closed = False

    async def open(self, entry: ts.Join | ts.Spectate | ts.Rejoin) -> bool:
        """Connect to the owner as the client and send ``entry``; False if the owner cannot be
        reached or will not greet us (the caller answers ``unavailable``)."""
        client = self.client
        try:
            self.ws = await self._connect(self.url, self.headers)
            await self.ws.send(
                encode(ts.Hello(v=PROTOCOL_VERSION, name=client.hello_name, token=client.token))
            )
            async with asyncio.timeout(5):
                welcome = decode_server(await self.ws.recv())
        except (OSError, TimeoutError, ConnectionClosed, InvalidHandshake, ProtocolError) as exc:
            log.warning("cannot relay to %s: %s", self.url, exc)
            await self._close_ws()
            return False
        if not isinstance(welcome, tc.Welcome) or welcome.player_id != client.player_id:
            log.warning("relay to %s: not greeted as %s: %s", self.url, client.player_id, welcome)
            await self._close_ws()
            return False
        self._entry = entry.id
        self.task = asyncio.create_task(self._pump(), name=f"relay-{client.conn}")
        await self.send(entry)
        return True

    async def send(self, msg: ClientMessage) -> None:
        """A message of the client's for the room (its id kept, so answers find it)."""
        if self.ws is None or self._closed:
            return
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(encode(msg))
            self.forwarded_out += 1

    async def _pump(self) -> None:
        assert self.ws is not None
        ws, client, server = self.ws, self.client, self.server
        gone = False  # the owner went away (not a normal end)
        told = False  # the owner's own ``closing`` reached the client
        try:
            async for data in ws:
                if not isinstance(data, bytes):
                    continue
                kind, re = _peek(data)
                if self.quiet:
                    if re is not None and re != self._entry:
                        server.send_frame(client, data)
                        self.forwarded_in += 1
                    continue
                server.send_frame(client, data)
                self.forwarded_in += 1
                if re is not None and re == self._entry:
                    if kind == "error" and not self._entered:
                        return  # the owner refused the entry; the client has its answer
                    self._entered = True
                if kind == "left":
                    return
                if kind == "closing":
                    gone = told = True
                    return
            gone = True
        except ConnectionClosed:
            gone = True
        finally:
            if client.relay is self:
                client.relay = None
            code = ws.close_code
            await self._close_ws()
            if gone and not client.closing and not self.quiet:
                # As when this node drains: the client reconnects and rejoins by itself.
                if not told:
                    server.send_frame(
                        client,
                        encode(
                            tc.Closing(
                                reason="The server running your room went away; reconnect "
                                "and rejoin with your seat token."
                            )
                        ),
                    )
                policy = code == CLOSE_POLICY
                server.close_client(
                    client,
                    CLOSE_POLICY if policy else CLOSE_GOING_AWAY,
                    "closed by the room's server" if policy else "room's server went away",
                )
