"""The server as a child process: ready line, draining stop, crash, and a clear failure."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from server.process import ServerProcess
from server.store import Store
from tests.server.wire import health


def test_started_server_answers_health_then_drains_on_stop(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "carom.db", workers=0) as server:
        assert server.url == f"ws://127.0.0.1:{server.port}/"
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/health", timeout=10) as r:
            assert r.status == 200
        code = server.stop()
    # SIGTERM drains and exits cleanly (DESIGN.md "Shutdown drains").
    assert code == 0
    assert (tmp_path / "carom.db").exists()


def test_kill_is_a_crash_not_a_drain(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "carom.db", workers=0)
    server.kill()
    assert server.proc.returncode == -signal.SIGKILL


def test_a_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    # The database's folder does not exist: the server exits before its ready line.
    with pytest.raises(RuntimeError, match="did not start"):
        ServerProcess(tmp_path / "missing" / "carom.db", workers=0, timeout=20)


def _refused_start(db: Path, *extra: str) -> str:
    """Start a server on ``db`` that must refuse to start; the one line it printed."""
    try:
        ServerProcess(db, workers=0, extra_args=extra, timeout=20)
    except RuntimeError as exc:
        out = str(exc)
    else:
        raise AssertionError("the server started")
    assert "Traceback" not in out, out
    lines = [line for line in out.splitlines()[1:] if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("carom serve: "), lines
    return lines[0]


def _store_with_rows(db: Path) -> None:
    with Store(str(db)) as store:
        for i in range(300):
            store.add_player(f"p{i}", f"h{i}", "a name long enough to fill pages " * 3, i)


@pytest.mark.parametrize("damage", ["garbage", "pages", "newer"])
def test_a_damaged_or_foreign_database_is_refused_in_one_sentence(
    tmp_path: Path, damage: str
) -> None:
    db = tmp_path / "carom.db"
    if damage == "garbage":
        db.write_bytes(b"this is not a database at all\n" * 200)
    else:
        _store_with_rows(db)
        if damage == "pages":
            with db.open("r+b") as f:  # pages 2-4 trashed, the header intact
                f.seek(4096)
                f.write(b"\xde\xad\xbe\xef" * 3072)
        else:
            con = sqlite3.connect(db)
            con.execute("PRAGMA user_version = 99")
            con.close()
    line = _refused_start(db)
    if damage == "newer":
        assert "newer carom server" in line
    else:
        assert "is damaged" in line and "restore it from a backup" in line


def test_a_read_only_filesystem_is_one_sentence(small_disk: Path) -> None:
    _store_with_rows(small_disk / "carom.db")
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    for db in (small_disk / "carom.db", small_disk / "new.db"):
        line = _refused_start(db)
        assert "read-only" in line and "writable" in line, line


def test_health_answers_503_while_draining(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "carom.db", workers=0, extra_args=["--drain-seconds", "3"])
    try:
        status, _ = health(server.port)
        assert status == 200
        server.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 2.5
        seen: list[tuple[int, str]] = []
        while time.monotonic() < deadline:
            seen.append(health(server.port))
            if seen[-1][0] == 503:
                break
            time.sleep(0.05)
        assert seen[-1] == (503, "draining\n"), seen
        assert server.proc.wait(15) == 0
    finally:
        server.kill()


def test_the_database_deleted_or_overwritten_under_a_running_server_turns_health_red(
    tmp_path: Path,
) -> None:
    for how in ("deleted", "overwritten"):
        db = tmp_path / f"{how}.db"
        server = ServerProcess(db, workers=0, extra_args=["--db-check-seconds", "0.2"])
        try:
            assert health(server.port)[0] == 200
            if how == "deleted":
                for f in tmp_path.glob(f"{how}.db*"):
                    f.unlink()
            else:
                other = tmp_path / "other.db"
                Store(str(other)).close()
                db.write_bytes(other.read_bytes())  # same inode, another database
            deadline = time.monotonic() + 5
            while health(server.port)[0] == 200 and time.monotonic() < deadline:
                time.sleep(0.1)
            status, body = health(server.port)
            assert status == 503 and how in body and "rescued" in body, body
            # The log says it too, in one line, and writes are refused from now on.
            assert any(how in line and "ERROR" in line for line in server.log), server.log
        finally:
            server.stop()
