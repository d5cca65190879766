"""Real PostgreSQL and Redis for the cluster tests: one throwaway process of each per test
session (started on first use, stopped at the end, also after a failure), a fresh database or
an empty Redis per test. Without the engines installed these tests skip and say why; CI
(``.ci/run``) installs both, so there they run."""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import engines
from tests.strict import uses_engine

_databases = itertools.count(1)


def _skip_without_engines() -> None:
    why = engines.missing()
    if why:
        pytest.skip("; ".join(why))


@pytest.fixture(scope="session")
def postgres_engine() -> Iterator[engines.Postgres]:
    _skip_without_engines()
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
def pg_url(postgres_engine: engines.Postgres, request: pytest.FixtureRequest) -> str:
    """A new, empty database of the session's PostgreSQL."""
    uses_engine(request, "PostgreSQL")
    return postgres_engine.create_database(f"test_{next(_databases)}")


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
