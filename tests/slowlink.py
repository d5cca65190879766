"""A real TCP relay on loopback whose directions can be held: what a stalled link does to a
client's messages (they arrive late, in order, all of them, then in one burst)."""

from __future__ import annotations

import asyncio
import contextlib


class SlowLink:
    """Listens on a free loopback port and relays every connection to ``target_port``.
    While a direction is held (``"up"``: client to server, ``"down"``: server to client),
    its bytes wait in the relay; releasing it lets them through in the order they were
    sent."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = 0
        self._open = {"up": asyncio.Event(), "down": asyncio.Event()}
        for gate in self._open.values():
            gate.set()
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> SlowLink:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for pipe in list(self._pipes):
            pipe.cancel()
        for pipe in list(self._pipes):
            with contextlib.suppress(asyncio.CancelledError):
                await pipe
        await self._server.wait_closed()

    def hold(self, direction: str) -> None:
        self._open[direction].clear()

    def release(self, direction: str) -> None:
        self._open[direction].set()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        up = asyncio.create_task(self._pipe(reader, up_writer, self._open["up"]))
        down = asyncio.create_task(self._pipe(up_reader, writer, self._open["down"]))
        self._pipes.update((up, down))
        try:
            await asyncio.wait({up, down}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (up, down):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                self._pipes.discard(task)
            for w in (writer, up_writer):
                w.close()
                with contextlib.suppress(OSError):
                    await w.wait_closed()

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, gate: asyncio.Event
    ) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                await gate.wait()
                writer.write(data)
                await writer.drain()
