from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.lobby import GameServer


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """A real server on a free loopback port with a fresh SQLite file. Physics runs on the event
    loop here (``workers=0``: starting worker processes per test costs a second); the restart
    test and the load bench run the production configuration (a worker process) in a
    subprocess, and test_simulation.py tests the workers themselves."""
    srv = GameServer(ServerConfig(port=0, db_path=str(tmp_path / "carom.db"), workers=0))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


@pytest.fixture
def url(server: GameServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"
