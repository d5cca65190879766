"""The PostgreSQL store: the same interface and the same queries as the SQLite ``Store``, on a
database every node of a cluster shares (issue 15, docs/cluster.md).

What differs is only what must: the connection (:class:`PgDb`, which takes the queries'
``?`` placeholders), the schema (PostgreSQL types: 64-bit ids and times, doubles, bytea), its
versioned migrations (a ``carom_schema`` table, applied at start under a lock so nodes starting
together apply each once), transactions, and how a lost connection is reported and recovered.

Calls run inline on the event loop, as with SQLite: a stroke's transaction is a few loopback
round trips (docs/cluster.md has the measured cost). A room's writes come from the one node
that holds its lease, so rooms never race; the rating update at a match's end reads and writes
two players' standings, which matches on other nodes may touch too, so it runs under one
cluster-wide advisory lock.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from typing import Any, Final
from urllib.parse import urlsplit

import psycopg
from psycopg.pq import TransactionStatus

from server.core.record import RoomRecord
from server.store.sql import Cursor, DatabaseUnavailable, Db
from server.store.sqlite import Store, StoreError, convert_option_records
from server.store.standings import Standings

# Each migration runs once, in order, in its own transaction; the number reached is stored.
MIGRATIONS: Final[tuple[tuple[int, str], ...]] = (
    (
        1,
        """
CREATE TABLE players (
    player_id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_ms BIGINT NOT NULL,
    last_seen_ms BIGINT NOT NULL
);
CREATE TABLE rooms (
    room_id TEXT PRIMARY KEY,
    options TEXT NOT NULL,
    private INTEGER NOT NULL,
    password_hash TEXT,
    created_ms BIGINT NOT NULL,
    closed_ms BIGINT,
    seq BIGINT NOT NULL,
    seats TEXT NOT NULL,
    state TEXT,
    match_id BIGINT,
    updated_ms BIGINT NOT NULL,
    creator TEXT
);
CREATE INDEX rooms_open ON rooms (created_ms) WHERE closed_ms IS NULL;
CREATE TABLE matches (
    match_id BIGINT PRIMARY KEY,
    room_id TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0,
    discipline TEXT NOT NULL,
    options TEXT NOT NULL,
    players TEXT NOT NULL,
    started_ms BIGINT NOT NULL,
    finished_ms BIGINT,
    winner INTEGER,
    reason TEXT,
    scoresheet TEXT
);
CREATE INDEX matches_finished ON matches (finished_ms);
CREATE TABLE match_players (
    match_id BIGINT NOT NULL,
    player_id TEXT NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
CREATE INDEX match_players_player ON match_players (player_id);
CREATE TABLE strokes (
    match_id BIGINT NOT NULL,
    n INTEGER NOT NULL,
    kind TEXT NOT NULL,
    seat INTEGER,
    played_ms BIGINT NOT NULL,
    record BYTEA NOT NULL,
    PRIMARY KEY (match_id, n)
);
CREATE TABLE room_guests (
    room_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    PRIMARY KEY (room_id, player_id)
);
CREATE TABLE accounts (
    player_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    bot INTEGER NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE player_tokens (
    token_hash TEXT PRIMARY KEY,
    player_id TEXT NOT NULL,
    created_ms BIGINT NOT NULL
);
CREATE TABLE standings (
    player_id TEXT NOT NULL,
    discipline TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    base_rating DOUBLE PRECISION NOT NULL,
    base_deviation DOUBLE PRECISION NOT NULL,
    base_volatility DOUBLE PRECISION NOT NULL,
    period BIGINT NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    points BIGINT NOT NULL,
    innings BIGINT NOT NULL,
    high_run INTEGER NOT NULL,
    updated_ms BIGINT NOT NULL,
    PRIMARY KEY (player_id, discipline)
);
CREATE INDEX standings_board ON standings (discipline, rating DESC, player_id);
CREATE TABLE period_games (
    player_id TEXT NOT NULL,
    discipline TEXT NOT NULL,
    match_id BIGINT NOT NULL,
    opp_rating DOUBLE PRECISION NOT NULL,
    opp_deviation DOUBLE PRECISION NOT NULL,
    opp_volatility DOUBLE PRECISION NOT NULL,
    score DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (player_id, discipline, match_id)
);
CREATE TABLE rating_changes (
    match_id BIGINT NOT NULL,
    player_id TEXT NOT NULL,
    discipline TEXT NOT NULL,
    before DOUBLE PRECISION NOT NULL,
    after DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
""",
    ),
    (
        2,
        # Fencing (cluster mode): the highest lease token that wrote the room. A node whose
        # lease ran out while it stalled holds a lower token, and its late writes are refused.
        "ALTER TABLE rooms ADD COLUMN fence BIGINT NOT NULL DEFAULT 0",
    ),
    # Rooms' and matches' options as versioned records (server/core/record.py): the rows are
    # rewritten by convert_option_records when this number is reached. And the rooms' marks
    # of being served (Store.touch_rooms), in rows of their own.
    (3, "CREATE TABLE room_beats (room_id TEXT PRIMARY KEY, alive_ms BIGINT NOT NULL)"),
)
SCHEMA_VERSION: Final = MIGRATIONS[-1][0]
# pg_advisory_xact_lock keys: any 64-bit numbers no other program on the database uses.
MIGRATION_LOCK: Final = 0x6361726F6D_01  # "carom" 1
RATING_LOCK: Final = 0x6361726F6D_02


def where(url: str) -> str:
    """The database's address without its password, for messages and logs."""
    parts = urlsplit(url)
    host = parts.hostname or "localhost"
    port = f":{parts.port}" if parts.port else ""
    user = f"{parts.username}@" if parts.username else ""
    return f"postgresql://{user}{host}{port}{parts.path}"


class Fenced(DatabaseUnavailable):
    """A write for a room another node has taken over since (a higher lease token wrote it)."""


class PgDb:
    """A psycopg connection taking the stores' SQL (``?`` placeholders). In autocommit mode:
    transactions are explicit ``BEGIN``/``COMMIT``, as on the SQLite connection. A lost
    connection is opened again at the next statement outside a transaction; failures reach
    the caller as :class:`DatabaseUnavailable` (an OSError)."""

    def __init__(self, url: str, connect_timeout: float = 5.0) -> None:
        self.url = url
        self.connect_timeout = connect_timeout
        self.conn = self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            return psycopg.connect(
                self.url, autocommit=True, connect_timeout=max(1, round(self.connect_timeout))
            )
        except psycopg.OperationalError as exc:
            raise DatabaseUnavailable(_unreachable(self.url, exc)) from None

    @property
    def in_transaction(self) -> bool:
        status = self.conn.info.transaction_status
        return status in (TransactionStatus.INTRANS, TransactionStatus.INERROR)

    def execute(self, sql: str, parameters: Any = (), /) -> Cursor:
        if self.conn.broken or self.conn.closed:
            if self.in_transaction:  # cannot happen on a lost connection; never reopen mid-way
                raise DatabaseUnavailable(f"lost the database {where(self.url)}")
            with contextlib.suppress(psycopg.Error):
                self.conn.close()
            self.conn = self._connect()
        if parameters:
            # psycopg's placeholder is %s; a literal % must then be doubled.
            sql = sql.replace("%", "%%").replace("?", "%s")
        try:
            return self.conn.execute(sql, parameters or None)
        except psycopg.OperationalError as exc:
            raise DatabaseUnavailable(_failed(self.url, exc)) from exc

    def executescript(self, sql_script: str, /) -> Cursor:
        cursor: Cursor | None = None
        for statement in _statements(sql_script):
            cursor = self.execute(statement)
        assert cursor is not None
        return cursor

    def close(self) -> None:
        with contextlib.suppress(psycopg.Error):
            self.conn.close()


def _statements(script: str) -> Iterator[str]:
    for statement in re.split(r";\s*\n", script):
        if statement.strip():
            yield statement


def _unreachable(url: str, exc: Exception) -> str:
    detail = " ".join(str(exc).split())[:300]
    return f"cannot reach the database {where(url)} ({detail})"


def _failed(url: str, exc: Exception) -> str:
    detail = " ".join(str(exc).split())[:300]
    return f"the database {where(url)} failed a statement ({detail})"


class PostgresStore(Store):
    """``Store``'s interface and queries on PostgreSQL; see the module docstring."""

    def __init__(self, url: str) -> None:  # Store.__init__ opens SQLite: not called
        self.path = where(url)  # what messages name (never the password)
        self.url = url
        self.failure: str | None = None
        self.problem: str | None = None  # SQLite's file checks have no PostgreSQL twin
        try:
            self.db = PgDb(url)
            self._migrate()
        except DatabaseUnavailable as exc:
            raise StoreError(str(exc)) from None
        except psycopg.Error as exc:
            raise StoreError(_failed(url, exc)) from None
        self.standings = Standings(self.db, self.transaction, schema=False)
        self.standings.duplicate = (psycopg.errors.UniqueViolation,)
        self._unreachable_since: float | None = None
        # room_id -> this node's lease token for it (cluster mode): every write of the room
        # checks it against the row's fence (see ``fence``).
        self.fences: dict[str, int] = {}

    # Fencing (cluster mode, docs/cluster.md) ------------------------------------------------
    def fence(self, room_id: str, token: int) -> None:
        """This node holds the room's lease with ``token`` (from Redis, higher at every new
        holder). Raises the row's fence to it now, so a write by the previous holder that
        comes after this (it stalled past its lease) is refused; a room not saved yet gets it
        at its first save."""
        self.fences[room_id] = token
        with self._transaction():
            self._check_fence(room_id, must_exist=False)

    def room_fence(self, room_id: str) -> int:
        """The highest token that wrote the room (0 for none, or no such room)."""
        row = self.db.execute("SELECT fence FROM rooms WHERE room_id = ?", (room_id,)).fetchone()
        return 0 if row is None else int(row[0])

    def unfence(self, room_id: str) -> None:
        self.fences.pop(room_id, None)

    def _check_fence(self, room_id: str, must_exist: bool = True) -> None:
        token = self.fences.get(room_id)
        if token is None:
            return  # alone (no cluster), or a room this node does not hold: unchecked
        done = self.db.execute(
            "UPDATE rooms SET fence = ? WHERE room_id = ? AND fence <= ? RETURNING 1",
            (token, room_id, token),
        ).fetchone()
        if done is not None:
            return
        exists = self.db.execute("SELECT 1 FROM rooms WHERE room_id = ?", (room_id,)).fetchone()
        if exists is not None or must_exist:
            raise Fenced(f"room {room_id} is run by another node now; this write is refused")

    def _state_column(self, state: dict[str, Any]) -> bytes | str:
        return json.dumps(state)  # the column is text here

    def _save_room(self, r: RoomRecord, now_ms: int) -> None:
        super()._save_room(r, now_ms)
        self._check_fence(r.room_id)  # in the same transaction: refused means not written

    def close_room(self, room_id: str, now_ms: int) -> None:
        with self._transaction():
            self._check_fence(room_id, must_exist=False)
            super().close_room(room_id, now_ms)

    def _migrate(self) -> None:
        with self.transaction():
            # Nodes starting together: the first applies, the others wait here, then see it.
            self.db.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS carom_schema (version INTEGER NOT NULL, "
                "applied_ms BIGINT NOT NULL)"
            )
            row = self.db.execute("SELECT MAX(version) FROM carom_schema").fetchone()
            version = row[0] or 0
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"the database {self.path} was written by a newer carom server (schema "
                    f"version {version}; this one knows up to {SCHEMA_VERSION}); run that "
                    "server or point --db at another database"
                )
            for number, script in MIGRATIONS:
                if number > version:
                    self.db.executescript(script)
                    if number == 3:
                        convert_option_records(self.db)
                    self.db.execute(
                        "INSERT INTO carom_schema VALUES (?, ?)",
                        (number, int(time.time() * 1000)),
                    )

    def schema_version(self) -> int:
        row = self.db.execute("SELECT MAX(version) FROM carom_schema").fetchone()
        return int(row[0] or 0)

    def check(self) -> str | None:
        """Reachability, on a connection of its own (this runs in a thread while the event
        loop uses ``db``): sets ``failure`` while the database cannot be reached, so /health
        turns red, and clears what it set once it answers again. Never a lasting problem."""
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=2) as con:
                con.execute("SELECT 1")
        except psycopg.Error as exc:
            self.failure = _unreachable(self.url, exc)
            self._unreachable_since = self._unreachable_since or time.monotonic()
            return None
        if self._unreachable_since is not None:
            self._unreachable_since = None
            if self.failure is not None and self.failure.startswith("cannot reach"):
                self.failure = None
        return None

    def close(self) -> None:
        self.db.close()

    def finish_match(
        self,
        match_id: int,
        winner: int | None,
        reason: str,
        scoresheet: dict[str, Any],
        now_ms: int,
    ) -> None:
        try:
            with self._transaction():
                # Two nodes finishing matches of the same player must not both read the old
                # standing: rating updates take turns across the cluster (a few ms each).
                self.db.execute("SELECT pg_advisory_xact_lock(?)", (RATING_LOCK,))
                super().finish_match(match_id, winner, reason, scoresheet, now_ms)
        except BaseException:
            self.standings.forget_changes()
            raise

    def strokes(
        self,
        match_id: int,
        after: int = 0,
        limit: int | None = None,
        db: Db | None = None,
    ) -> list[tuple[int, str, int | None, int, bytes]]:
        """As SQLite's, where ``LIMIT -1`` (no limit) is not PostgreSQL: ``LIMIT NULL`` is."""
        rows = (db or self.db).execute(
            """SELECT n, kind, seat, played_ms, record FROM strokes
               WHERE match_id = ? AND n > ? ORDER BY n LIMIT ?""",
            (match_id, after, limit),
        )
        return [(r[0], r[1], r[2], r[3], bytes(r[4])) for r in rows.fetchall()]

    def reader(self) -> Db:
        """A connection of its own for a worker thread (replays are built off the loop)."""
        return PgDb(self.url)

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        return _PgTx(self)

    _transaction = transaction


class _PgTx:
    """Like the SQLite store's: nested uses join the outer transaction; a failed write sets
    ``failure`` (so /health says why) and a successful commit clears it."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.outer = False

    def __enter__(self) -> None:
        db = self.store.db
        if db.in_transaction:
            return
        self.outer = True
        try:
            db.execute("BEGIN")
        except DatabaseUnavailable as exc:
            self.store.failure = str(exc)
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self.outer:
            return
        db = self.store.db
        if exc_type is None:
            try:
                db.execute("COMMIT")
            except DatabaseUnavailable as err:
                self.store.failure = str(err)
                self._rollback()
                raise
            self.store.failure = None
            return
        if isinstance(exc, DatabaseUnavailable) and not isinstance(exc, Fenced):
            self.store.failure = str(exc)  # (a fenced write is not the database failing)
        self._rollback()

    def _rollback(self) -> None:
        db = self.store.db
        if db.in_transaction:
            with contextlib.suppress(DatabaseUnavailable, psycopg.Error):
                db.execute("ROLLBACK")
