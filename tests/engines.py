"""Real PostgreSQL and Redis for the cluster tests: throwaway processes (started on first use,
stopped at the end, also after a failure), a fresh database or an empty Redis per test. Without
the engines installed these tests skip and say why; CI (``.ci/run``) installs both, so there
they run.

A run with xdist workers shares one PostgreSQL, started by the controller (each worker's own
would run initdb again: about 1.3 s of CPU each); every test still gets a database of its own,
named after its worker. The controller starts it beside the workers rather than before them:
initdb and the server's start take about 2 s on one core, which the workers' collection used
to wait for, and no test needs the database before its worker has collected. The controller
writes the outcome (the port, or why it failed) to a file the workers wait for. Redis stays one
per worker: a test empties it, and publish/subscribe channels are not separated by Redis's
database numbers."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pytest import StashKey

from bench import engines
from tests.strict import uses_engine

_databases = itertools.count(1)
SHARED_PG = "CAROM_TEST_POSTGRES"  # the controller's outcome file, for its workers
_shared: StashKey[tuple[threading.Thread, list[engines.Postgres], Path]] = StashKey()
READY_WAIT_S = 60.0


def _xdist_controller(config: pytest.Config) -> bool:
    return bool(getattr(config.option, "numprocesses", None)) and not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    if not _xdist_controller(config) or engines.missing() or SHARED_PG in os.environ:
        return
    root = Path(tempfile.mkdtemp(prefix="carom-test-pg-"))
    root.chmod(0o755)
    outcome = root / "outcome"
    started: list[engines.Postgres] = []

    def start() -> None:
        try:
            # Ten workers' tests at once, each with nodes holding pools of their own.
            pg = engines.start_postgres(root / "engine", durable=False, max_connections=400)
        except Exception as exc:  # the workers' tests report it, as an error, not a skip
            text = f"error: the shared PostgreSQL did not start: {exc}"
        else:
            started.append(pg)
            text = f"port {pg.port}"
        partial = root / "outcome.part"
        partial.write_text(text)
        partial.replace(outcome)  # a worker never reads half a line

    thread = threading.Thread(target=start, name="shared PostgreSQL", daemon=True)
    thread.start()
    config.stash[_shared] = (thread, started, root)
    os.environ[SHARED_PG] = str(outcome)  # the workers start after this, with it


def pytest_unconfigure(config: pytest.Config) -> None:
    shared = config.stash.get(_shared, None)
    if shared is not None:
        thread, started, root = shared
        os.environ.pop(SHARED_PG, None)
        thread.join()  # a start still under way ends before its engine is stopped
        try:
            for pg in started:
                pg.stop()
        finally:
            shutil.rmtree(root, ignore_errors=True)


def shared_postgres(outcome: Path) -> engines.PostgresAt:
    """The controller's PostgreSQL, once it is up (a worker usually finds it already is)."""
    deadline = time.monotonic() + READY_WAIT_S
    while not outcome.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the shared PostgreSQL was not up after {READY_WAIT_S:g} s")
        time.sleep(0.05)
    text = outcome.read_text()
    if not text.startswith("port "):
        raise RuntimeError(text.removeprefix("error: "))
    return engines.PostgresAt(int(text.removeprefix("port ")))


def _skip_without_engines() -> None:
    why = engines.missing()
    if why:
        pytest.skip("; ".join(why))


@pytest.fixture(scope="session")
def postgres_engine() -> Iterator[engines.Postgres | engines.PostgresAt]:
    _skip_without_engines()
    if SHARED_PG in os.environ:
        yield shared_postgres(Path(os.environ[SHARED_PG]))
        return
    # Under /tmp, not pytest's tmp_path: that one is private to root, and PostgreSQL runs as
    # its own user.
    root = Path(tempfile.mkdtemp(prefix="carom-test-pg-"))
    try:
        pg = engines.start_postgres(root, durable=False)
        try:
            yield pg
        finally:
            pg.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def redis_engine() -> Iterator[engines.Redis]:
    _skip_without_engines()
    root = Path(tempfile.mkdtemp(prefix="carom-test-redis-"))
    try:
        redis = engines.start_redis(root)
        try:
            yield redis
        finally:
            redis.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def pg_url(
    postgres_engine: engines.Postgres | engines.PostgresAt, request: pytest.FixtureRequest
) -> str:
    """A new, empty database of the session's PostgreSQL."""
    uses_engine(request, "PostgreSQL")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return postgres_engine.create_database(f"test_{worker}_{next(_databases)}")


@pytest.fixture
def redis_url(redis_engine: engines.Redis, request: pytest.FixtureRequest) -> str:
    """The session's Redis, emptied for this test."""
    import redis

    uses_engine(request, "Redis")

    client = redis.Redis.from_url(redis_engine.url())
    try:
        client.flushall()
    finally:
        client.close()
    return redis_engine.url()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``--db`` gets, once for each store: a new SQLite file, then a new PostgreSQL
    database (skipped when PostgreSQL is not installed)."""
    if request.param == "sqlite":
        return str(tmp_path / "carom.db")
    url: str = request.getfixturevalue("pg_url")
    return url
