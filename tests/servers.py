"""A real game server on loopback for a test: a fresh SQLite file in the test's folder, physics
in a thread of the test process, the config's limits overridden as the test needs."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from server.config import ServerConfig
from server.net.gateway import GameServer


@asynccontextmanager
async def serving(folder: Path, db: str = "carom.db", **limits: Any) -> AsyncIterator[GameServer]:
    """Start a server, yield it, and stop it whatever the test did."""
    srv = GameServer(ServerConfig(port=0, db_path=str(folder / db), workers=0, **limits))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def url_of(srv: GameServer) -> str:
    return f"ws://127.0.0.1:{srv.port}/"
