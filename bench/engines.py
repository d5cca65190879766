"""Throwaway PostgreSQL and Redis processes on loopback, for the tests and ``make cluster``.

Each engine runs from its own directory on a free port and is stopped by whoever started it.
PostgreSQL refuses to run as root, so when we are root its programs run as the ``postgres``
user (created by Debian's package), and its directory is owned by that user. Without the
binaries, :func:`missing` says which package to install (``.ci/run`` installs both).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

PG_USER = "postgres"  # Debian's package creates it; the server runs as this user
DB_NAME = "carom"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian: /usr/lib/postgresql/N/bin)."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/initdb")]
    if not found:
        on_path = shutil.which("initdb")
        return Path(on_path).parent if on_path else None
    return max(found, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)


def redis_bin() -> str | None:
    return shutil.which("redis-server")


def missing() -> list[str]:
    """What is not installed, as sentences (empty when both engines are there)."""
    out = []
    if postgres_bin() is None:
        out.append("PostgreSQL is not installed (apt-get install postgresql)")
    if redis_bin() is None:
        out.append("Redis is not installed (apt-get install redis-server)")
    if postgres_bin() is not None and os.geteuid() == 0:
        try:
            pwd.getpwnam(PG_USER)
        except KeyError:
            out.append(f"PostgreSQL cannot run as root and there is no {PG_USER!r} user")
    return out


def _wait_port(
    port: int, proc: subprocess.Popen[bytes], what: str, log: Path, timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
    _stop(proc, 5.0)
    raise RuntimeError(f"{what} did not start on port {port}:\n{tail}")


def _stop(proc: subprocess.Popen[bytes], timeout: float, sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout)


@dataclass(eq=False)
class Engine:
    """One running engine process; ``stop`` ends it (also after a failure, repeatedly)."""

    name: str
    port: int
    root: Path
    proc: subprocess.Popen[bytes]
    log: Path
    stop_signal: int = signal.SIGTERM
    _log_file: IO[bytes] | None = field(default=None, repr=False)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 15.0) -> None:
        _stop(self.proc, timeout, self.stop_signal)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def kill(self) -> None:
        """SIGKILL, as a crash (the tests use it to show a failure's cost)."""
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(10)


@dataclass(frozen=True)
class PostgresAt:
    """A PostgreSQL on a loopback port that somebody else started (and stops): its URLs, and
    new databases in it."""

    port: int

    def url(self, db: str = DB_NAME) -> str:
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{db}"

    def create_database(self, db: str) -> str:
        """A new empty database (each test gets its own); its URL."""
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as con:
            con.execute(f'CREATE DATABASE "{db}"')  # names are ours: [a-z0-9_]
        return self.url(db)


@dataclass(eq=False)
class Postgres(Engine):
    def url(self, db: str = DB_NAME) -> str:
        return PostgresAt(self.port).url(db)

    def create_database(self, db: str) -> str:
        """A new empty database (each test gets its own); its URL."""
        return PostgresAt(self.port).create_database(db)


def _as_postgres() -> dict[str, Any]:
    """Popen arguments that run a program as the postgres user when we are root."""
    if os.geteuid() != 0:
        return {}
    pw = pwd.getpwnam(PG_USER)
    return {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}


def _own(path: Path) -> None:
    if os.geteuid() == 0:
        pw = pwd.getpwnam(PG_USER)
        os.chown(path, pw.pw_uid, pw.pw_gid)


def start_postgres(
    root: Path, port: int | None = None, durable: bool = True, max_connections: int = 100
) -> Postgres:
    """PostgreSQL with its data in ``root/pgdata`` (initialised if missing), on loopback only,
    trusting local connections (loopback, a throwaway cluster). ``durable=False`` turns fsync
    off: for tests, where a power cut cannot matter."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    root.mkdir(parents=True, exist_ok=True)
    _own(root)
    data, sockets = root / "pgdata", root / "sockets"
    sockets.mkdir(exist_ok=True)
    _own(sockets)
    log = root / "postgres.log"
    if not (data / "PG_VERSION").exists():
        done = subprocess.run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-U",
                PG_USER,
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            capture_output=True,
            text=True,
            cwd=root,
            check=False,
            **_as_postgres(),
        )
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed: {done.stderr.strip() or done.stdout.strip()}")
    port = port or free_port()
    log_file = open(log, "ab")  # noqa: SIM115 (closed by Engine.stop)
    options = ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={sockets}"]
    options += ["-c", f"max_connections={max_connections}"]
    if not durable:
        options += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
    proc = subprocess.Popen(
        [str(bin_dir / "postgres"), "-D", str(data), "-p", str(port), *options],
        stdout=log_file,
        stderr=subprocess.STDOUT,
        cwd=root,
        process_group=0,  # Ctrl-C in a terminal reaches make cluster, which stops us in order
        **_as_postgres(),
    )
    # SIGINT is PostgreSQL's "fast" shutdown: roll back, checkpoint, exit (SIGTERM waits for
    # every client to leave).
    engine = Postgres("PostgreSQL", port, root, proc, log, signal.SIGINT, log_file)
    try:
        _wait_port(port, proc, "PostgreSQL", log, 30.0)
        _wait_accepting(engine)
    except BaseException:
        engine.stop()
        raise
    return engine


def _wait_accepting(pg: Postgres, timeout: float = 30.0) -> None:
    """The port opens before recovery ends ("the database system is starting up"); then make
    sure our database exists."""
    import psycopg

    deadline = time.monotonic() + timeout
    while True:
        try:
            with psycopg.connect(pg.url("postgres"), autocommit=True, connect_timeout=2) as con:
                if (
                    con.execute(
                        "SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)
                    ).fetchone()
                    is None
                ):
                    con.execute(f'CREATE DATABASE "{DB_NAME}"')
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline or not pg.alive():
                raise
            time.sleep(0.1)


@dataclass(eq=False)
class Redis(Engine):
    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"


def start_redis(root: Path, port: int | None = None, durable: bool = False) -> Redis:
    """redis-server on loopback; ``durable`` keeps an append-only file in ``root`` (the room
    directory and leases are rebuilt by the nodes anyway, so tests need none)."""
    exe = redis_bin()
    if exe is None:
        raise RuntimeError("Redis is not installed (apt-get install redis-server)")
    root.mkdir(parents=True, exist_ok=True)
    port = port or free_port()
    log = root / "redis.log"
    log_file = open(log, "ab")  # noqa: SIM115 (closed by Engine.stop)
    args = [
        exe,
        "--port",
        str(port),
        "--bind",
        "127.0.0.1",
        "--dir",
        str(root),
        "--save",
        "",
        "--appendonly",
        "yes" if durable else "no",
        "--daemonize",
        "no",
    ]
    proc = subprocess.Popen(
        args, stdout=log_file, stderr=subprocess.STDOUT, cwd=root, process_group=0
    )
    engine = Redis("Redis", port, root, proc, log, signal.SIGTERM, log_file)
    try:
        _wait_port(port, proc, "Redis", log, 15.0)
    except BaseException:
        engine.stop()
        raise
    return engine
