"""Write several queued messages to one websocket at once.

A stroke sends each connection in its room two to four messages in the same event-loop tick
(``stroke_played``, ``turn``, calls). Sent one by one, each costs websockets' send bookkeeping
and its own ``send`` system call; the profile at 1 000 rooms (docs/benchmarks.md) had socket
writes as the largest single item on the loop. Here the frames of everything a connection has
queued are built in one ``send_context`` and handed to the transport as one write.
"""

from __future__ import annotations

from websockets.asyncio.connection import Connection

# At most this many messages, or about this many bytes, in one write.
WRITE_BATCH = 64
WRITE_BATCH_BYTES = 256 * 1024


async def send_all(ws: Connection, messages: list[bytes]) -> None:
    """Send each of ``messages`` as its own binary websocket message, in order, with one write
    to the socket. Raises ConnectionClosed like ``ws.send``."""
    if len(messages) == 1:
        await ws.send(messages[0])
        return
    async with ws.send_context():
        protocol = ws.protocol
        for data in messages:
            protocol.send_binary(data)
        chunks = protocol.data_to_send()
        if all(chunks):
            ws.transport.write(b"".join(chunks))
        else:
            # An empty chunk is websockets' end-of-stream marker (a close in progress): give
            # everything back in order for send_context to write as it always does.
            protocol.writes[:0] = chunks
