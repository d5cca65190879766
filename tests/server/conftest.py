from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.net.gateway import GameServer
from server.process import ServerProcess
from tests.strict import uses_engine


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``CAROM_TEST_STORE=postgresql`` (``make test-postgresql``, run by CI after ``make
    test``): only the tests whose server is this file's ``server`` fixture, i.e. the ones the
    store changes. The rest would run exactly as in ``make test``: pure cores, their own SQLite
    servers, and test_store.py, which runs every test on both stores already."""
    if os.environ.get("CAROM_TEST_STORE") != "postgresql":
        return
    keep, drop = [], []
    for item in items:
        path = str(getattr(item, "path", ""))
        uses = "server" in getattr(item, "fixturenames", ())
        on_file = path.endswith("test_store.py")
        (keep if uses and not on_file and "/tests/server/" in path else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture
async def server(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[GameServer]:
    """A real server on a free loopback port with a fresh SQLite file. Physics runs on the event
    loop here (``workers=0``: starting worker processes per test costs a second); the restart
    test and the load bench run the production configuration (a worker process) in a
    subprocess, and test_simulation.py tests the workers themselves.

    ``CAROM_TEST_STORE=postgresql`` runs these servers on a fresh PostgreSQL database each
    instead (tests/engines.py), to check the whole suite on the other store."""
    db = str(tmp_path / "carom.db")
    if os.environ.get("CAROM_TEST_STORE") == "postgresql":
        db = request.getfixturevalue("pg_url")
    srv = GameServer(ServerConfig(port=0, db_path=db, workers=0))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


@pytest.fixture
def url(server: GameServer) -> str:
    return f"ws://127.0.0.1:{server.port}/"


@pytest.fixture
def procs() -> Iterator[list[ServerProcess]]:
    """Server processes a test starts; any still running at the end is killed."""
    started: list[ServerProcess] = []
    yield started
    for p in started:
        if p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait(10)


@pytest.fixture
def small_disk(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A 4 MiB tmpfs the test can fill up (``wire.fill_disk``); unmounted at the end (lazily,
    in case a server that the test started still holds a file there)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mnt)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
    uses_engine(request, "tmpfs mount")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
