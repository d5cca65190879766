"""A real server on loopback for the client tests (as tests/server does): a fresh SQLite file,
physics in a thread of the test process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from client.bot.pool import stop_pool, stop_resource_tracker, thinking_pool
from server.net.gateway import GameServer
from tests.servers import serving


@pytest.fixture
async def game_server(tmp_path: Path) -> AsyncIterator[GameServer]:
    async with serving(tmp_path) as srv:
        yield srv


@pytest.fixture
def server_url(game_server: GameServer) -> str:
    return f"ws://127.0.0.1:{game_server.port}/"


@pytest.fixture(autouse=True)
def private_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Never touch the developer's ~/.config/carom during tests."""
    path = tmp_path / "identity.json"
    monkeypatch.setenv("CAROM_IDENTITY", str(path))
    return path


@pytest.fixture(scope="session")
def think_pool() -> Iterator[ProcessPoolExecutor]:
    """One worker process for the bots' searches (as carom bot runs them)."""
    pool = thinking_pool()
    try:
        yield pool
    finally:
        stop_pool(pool)


def pytest_unconfigure(config: pytest.Config) -> None:
    """The bots' spawned workers started multiprocessing's resource tracker: end it with the
    run rather than leave it to exit after pytest as an orphan."""
    stop_resource_tracker()
