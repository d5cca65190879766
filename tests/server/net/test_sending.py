"""send_all: several messages, one write, each still its own websocket message (real sockets)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from websockets.asyncio.client import connect
from websockets.asyncio.server import ServerConnection, serve
from websockets.exceptions import ConnectionClosed

from server.net.sending import send_all


@pytest.fixture
async def pushed() -> AsyncIterator[tuple[str, asyncio.Queue[ServerConnection]]]:
    """A loopback websocket server handing each connection to the test."""
    conns: asyncio.Queue[ServerConnection] = asyncio.Queue()
    done = asyncio.Event()

    async def handler(ws: ServerConnection) -> None:
        await conns.put(ws)
        await done.wait()

    async with serve(handler, "127.0.0.1", 0) as srv:
        port = srv.sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}/", conns
        done.set()


async def test_each_message_arrives_whole_and_in_order(
    pushed: tuple[str, asyncio.Queue[ServerConnection]],
) -> None:
    url, conns = pushed
    async with connect(url) as client:
        ws = await conns.get()
        messages = [bytes([i]) * (i * 997) for i in range(1, 40)]  # small and large frames
        writes = 0
        write = ws.transport.write

        def counting(data: bytes | bytearray | memoryview) -> None:
            nonlocal writes
            writes += 1
            write(data)

        ws.transport.write = counting  # type: ignore[method-assign]
        await send_all(ws, messages)
        await send_all(ws, [b"last"])
        got = [await client.recv() for _ in range(len(messages) + 1)]
        assert writes == 2  # one write for the batch, one for the single message
    assert got == [*messages, b"last"]


async def test_a_closed_connection_raises_connection_closed(
    pushed: tuple[str, asyncio.Queue[ServerConnection]],
) -> None:
    url, conns = pushed
    async with connect(url) as client:
        ws = await conns.get()
        await client.close()
        await ws.wait_closed()
        with pytest.raises(ConnectionClosed):
            await send_all(ws, [b"a", b"b"])
