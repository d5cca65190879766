"""A node's own websocket connection to the node that owns a room, as a relay (one player) and
a hub (a node's spectators) both hold one: closing it ends its pump task, then the socket."""

from __future__ import annotations

import asyncio
import contextlib

from websockets.asyncio.client import ClientConnection, connect


class OwnerLink:
    """The connection and its pump task; subclasses open them."""

    ws: ClientConnection | None
    task: asyncio.Task[None] | None
    _closed: bool

    async def _connect(self, url: str, headers: dict[str, str]) -> ClientConnection:
        """The websocket to the owner, as both kinds of link open it: no size limit (the owner
        already bounds its frames), no compression (as the server's own), short timeouts so a
        dead owner is noticed within seconds."""
        self.ws = await connect(
            url,
            max_size=None,
            compression=None,
            open_timeout=5,
            close_timeout=2,
            additional_headers=headers,
        )
        return self.ws

    async def close(self) -> None:
        """Stop the pump (the owner then sees this link go, as a disconnect) and the socket."""
        self._closed = True
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task
        await self._close_ws()

    async def _close_ws(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
