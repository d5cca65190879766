"""The session on a background thread, as the desktop app uses it: requests return futures,
events are drained per frame in order, and the published state is a private copy."""

from __future__ import annotations

import asyncio
import time

import pytest

from client.background import BackgroundSession
from client.session import Link
from shared.protocol import to_client as tc


async def test_background_session_joins_and_drains_events(server_url: str) -> None:
    bg = BackgroundSession(server_url, "ann")
    welcome = await asyncio.to_thread(bg.start)
    try:
        assert isinstance(welcome, tc.Welcome)
        room_id = await asyncio.wrap_future(bg.call(bg.session.create_room, "three_cushion"))
        seat = await asyncio.wrap_future(bg.call(bg.session.join, room_id))
        assert seat == 0
        # A UI frame: take what arrived since the last one, oldest first, without blocking.
        deadline = time.monotonic() + 5
        drained: list[str] = []
        while "snapshot" not in drained and time.monotonic() < deadline:
            drained += [m.TYPE if not isinstance(m, Link) else "connection" for m in bg.drain()]
            await asyncio.sleep(0.02)
        assert drained[:2] == ["welcome", "connection"] and "snapshot" in drained
        state = bg.state
        assert state.room_id == room_id and state.seat == 0 and state.phase == "waiting"
        # The published state is a copy: scribbling on it cannot corrupt the session's own.
        state.match = None
        state.player_status.clear()

        async def own_phase() -> str | None:
            return bg.session.state.phase

        assert await asyncio.wrap_future(bg.call(own_phase)) == "waiting"
        assert abs(bg.server_now_ms() - time.time() * 1000) < 1000
    finally:
        await asyncio.to_thread(bg.stop)


def test_a_server_that_is_not_there_fails_start_and_stop_is_safe() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    bg = BackgroundSession(f"ws://127.0.0.1:{port}/", "ann")
    with pytest.raises(OSError):
        bg.start(timeout=10)
    bg.stop()
    BackgroundSession("ws://127.0.0.1:1/", "never started").stop()
