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
from server.store.sqlite import Store
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
            # The log says it too, in one line, and writes are refused from now on. (The line
            # reaches us through a pipe read by a thread: on a busy machine after /health does.)
            deadline = time.monotonic() + 10
            while not _logged(server, how, "ERROR") and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _logged(server, how, "ERROR"), server.log
        finally:
            server.stop()


def _logged(server: ServerProcess, *words: str) -> bool:
    return any(all(w in line for w in words) for line in server.log)


def _poll_health(port: int) -> tuple[float, int | None]:
    """(when, status) of one ``GET /health``; status None when nothing answers any more."""
    try:
        status = health(port)[0]
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        status = None
    return time.monotonic(), status


def test_sigterm_drains_by_default_with_health_503_all_along(tmp_path: Path) -> None:
    """Issue 21: ``carom serve`` as started (no --drain-seconds), a connected player, SIGTERM.
    A load balancer polling /health every second and taking a node out after two failures sees
    it leave while the player is still connected; then the player is told and closed (1001)."""
    import asyncio

    from server.cli import TERM_DRAIN_S
    from shared.protocol import to_client as tc
    from tests.server.wire import Wire

    server = ServerProcess(tmp_path / "carom.db", workers=0, drain_seconds=None)

    async def scenario() -> tuple[list[tuple[float, int | None]], float, int | None, bool]:
        player = await Wire.open(server.url, "ana")
        assert (await asyncio.to_thread(_poll_health, server.port))[1] == 200
        server.proc.send_signal(signal.SIGTERM)
        polls: list[tuple[float, int | None]] = []

        async def poll() -> None:
            while server.proc.poll() is None:
                polls.append(await asyncio.to_thread(_poll_health, server.port))
                await asyncio.sleep(0.1)

        poller = asyncio.create_task(poll())
        code = await player.closed(timeout=TERM_DRAIN_S + 15)
        closed_at = time.monotonic()
        told = any(isinstance(m, tc.Closing) for m in player.unread)
        await poller
        return polls, closed_at, code, told

    try:
        polls, closed_at, code, told = asyncio.run(scenario())
        assert server.proc.wait(15) == 0
    finally:
        server.kill()
    answered = [(t, s) for t, s in polls if s is not None]
    # From the signal on, /health never said 200 again: 503 to every poll that got an answer.
    assert answered and {s for _, s in answered} == {503}, polls
    # The balancer (1 s interval, 2 failures) saw two 503s a second apart while the player was
    # still connected: the node left the pool before its connections dropped.
    before_close = [t for t, _ in answered if t < closed_at]
    assert before_close[-1] - before_close[0] >= 1.0, polls
    assert code == 1001 and told
    assert any("draining (SIGTERM" in line for line in server.log), server.log[-5:]


def test_sigint_closes_at_once_and_a_second_signal_ends_a_drain(tmp_path: Path) -> None:
    """SIGINT (Ctrl-C at a terminal) does not wait for a balancer, whatever --drain-seconds
    says; nor does a SIGTERM'd server that gets a second signal while draining."""
    for signals in ([signal.SIGINT], [signal.SIGTERM, signal.SIGINT], [signal.SIGTERM] * 2):
        server = ServerProcess(
            tmp_path / "carom.db", workers=0, extra_args=["--drain-seconds", "600"]
        )
        try:
            for sig in signals:
                deadline = time.monotonic() + 10
                while health(server.port)[0] != 503 and sig != signals[0]:
                    assert time.monotonic() < deadline, "the first signal did not start a drain"
                    time.sleep(0.05)
                server.proc.send_signal(sig)
            # Well before the 600 s drain would end.
            assert server.proc.wait(60) == 0, signals
        finally:
            server.kill()
