"""Where rooms live, behind one interface: this process alone (:class:`LocalRooms`), or the
nodes of a cluster (:class:`server.cluster.node.ClusterNode`, which has the same methods).

The gateway asks the locator, never "am I in a cluster?": it restores or takes over rooms at
start, counts connections against caps that may span nodes, hands a room it does not run to the
node that does, lists every room, and publishes broadcasts for other nodes' spectators. A
feature that opens rooms (quick match, tournaments) claims them through the same calls.
"""

from __future__ import annotations

import itertools
import logging
from typing import TYPE_CHECKING, Protocol

from server.net.actor import restore_room
from shared.protocol import to_server as ts
from shared.protocol.views import RoomSummary

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection

    from server.net.gateway import Connection, GameServer

log = logging.getLogger("carom.server")


class Locator(Protocol):
    problem: str | None  # why the rooms' placement is unhealthy (/health), or None

    async def restore(self, now_ms: int) -> None:
        """Before listening: run the open rooms this process is responsible for."""

    async def start(self) -> None:
        """Once listening (the port is known): join whatever spans processes."""

    async def stop(self) -> None:
        """After every room was saved: let others take them."""

    async def connection_opened(self, ws: ServerConnection, client: Connection) -> bool:
        """A new connection; False: refuse it (a cap counted over every node)."""

    def connection_closed(self, client: Connection) -> None: ...

    def closed(self, room_id: str) -> None:
        """A room's closing is written."""

    def fan_out(self, conns: tuple[int, ...], data: bytes) -> tuple[int, ...]:
        """The connections to send a room's broadcast to one by one (others get it another
        way)."""

    async def rooms(self, limit: int = 500) -> list[RoomSummary]: ...

    async def claim(self, room_id: str, client: Connection) -> str | None:
        """Before a room ``client`` creates is saved: a refusal sentence, or None."""

    async def claim_quick(self, room_id: str, creator: str | None) -> None:
        """Before a room the server opens for players (quick match, tournaments) is saved."""

    async def forward(self, client: Connection, msg: ts.Join | ts.Spectate | ts.Rejoin) -> bool:
        """A room this process does not run: True when it was handed on (or answered)."""

    def metrics(self) -> str: ...


class LocalRooms:
    """One server process: every room it knows runs here, every cap is its own."""

    def __init__(self, server: GameServer) -> None:
        self.server = server
        self.problem: str | None = None

    async def restore(self, now_ms: int) -> None:
        server = self.server
        assert server.store is not None
        for record in server.store.open_rooms():
            try:
                room = restore_room(record, now_ms)
            except Exception:
                log.exception("room %s could not be restored; closing it", record.room_id)
                server.store.close_room(record.room_id, now_ms)
                continue
            server.run_room(room)  # players rejoin within the grace time, or forfeit

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def connection_opened(self, ws: ServerConnection, client: Connection) -> bool:
        return True  # the per-address cap was checked when the TCP connection opened

    def connection_closed(self, client: Connection) -> None:
        return None

    def closed(self, room_id: str) -> None:
        return None

    def fan_out(self, conns: tuple[int, ...], data: bytes) -> tuple[int, ...]:
        return conns

    async def rooms(self, limit: int = 500) -> list[RoomSummary]:
        return [a.room.summary() for a in itertools.islice(self.server.rooms.values(), limit)]

    async def claim(self, room_id: str, client: Connection) -> str | None:
        return None

    async def claim_quick(self, room_id: str, creator: str | None) -> None:
        return None

    async def forward(self, client: Connection, msg: ts.Join | ts.Spectate | ts.Rejoin) -> bool:
        return False

    def metrics(self) -> str:
        return ""
