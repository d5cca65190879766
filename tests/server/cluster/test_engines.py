"""The engines the cluster tests run against: real processes, loopback only, ours alone."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import psycopg
import pytest
import redis

from bench import engines


def test_postgres_runs_as_its_own_user_and_takes_queries(pg_url: str) -> None:
    with psycopg.connect(pg_url) as con:
        user = con.execute("SELECT current_user").fetchone()
        (pid,) = con.execute("SELECT pg_backend_pid()").fetchone() or (0,)
        assert user == ("postgres",)
    owner = Path(f"/proc/{pid}").stat().st_uid if Path(f"/proc/{pid}").exists() else None
    assert owner != 0  # never root


def test_redis_takes_commands(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    try:
        assert client.ping()
        client.set("k", "v")
        assert client.get("k") == b"v"
    finally:
        client.close()


def test_a_stopped_engine_leaves_no_process_and_its_port_free() -> None:
    if engines.missing():
        pytest.skip("; ".join(engines.missing()))
    root = Path(tempfile.mkdtemp(prefix="carom-test-redis-"))
    try:
        r = engines.start_redis(root)
        assert r.alive()
        r.stop()
        assert not r.alive()
        with pytest.raises(redis.ConnectionError):
            redis.Redis.from_url(r.url(), socket_connect_timeout=0.5).ping()
    finally:
        shutil.rmtree(root, ignore_errors=True)
