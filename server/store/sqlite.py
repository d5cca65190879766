"""SQLite persistence: players, rooms, matches and every stroke (DESIGN.md "Persistence").

One file in WAL mode with ``synchronous=NORMAL``: a committed transaction survives a killed
process (SIGKILL), which is the failure the restart test exercises; only a power cut may lose the
last commits. A room's state and the stroke that produced it are written in one transaction, so
after a restart the room and its stroke log always agree.

The class is the "small interface" DESIGN.md asks for: the server calls only these methods, so a
server database could replace SQLite when one machine is not enough.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import msgpack

from server.core.record import ROOM_RECORD_VERSION, RoomSettings
from server.core.record import RoomRecord as RoomRecord  # re-exported: its old home
from server.store.sql import Db
from server.store.standings import Standings

P = ParamSpec("P")
T = TypeVar("T")

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    player_id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    last_seen_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rooms (
    room_id TEXT PRIMARY KEY,
    options TEXT NOT NULL,          -- JSON: RoomSettings.to_record() (server/core/record.py)
    private INTEGER NOT NULL,
    password_hash TEXT,             -- scrypt, see server/credentials.py
    created_ms INTEGER NOT NULL,
    closed_ms INTEGER,              -- NULL while the room is open
    seq INTEGER NOT NULL,
    seats TEXT NOT NULL,            -- JSON: [{player_id, name, token_hash} | null] * 2
    state TEXT,                     -- shared.rules.state_to_dict: msgpack (a BLOB) since
                                    -- version 3, JSON text before (both are read)
    match_id INTEGER,
    updated_ms INTEGER NOT NULL,
    creator TEXT                    -- player_id of who created it (room caps per identity)
);
-- Rooms marked as served while their match runs (Store.touch_rooms): tiny rows, rewritten twice a
-- second, so the rooms' own rows (with their state) are not.
CREATE TABLE IF NOT EXISTS room_beats (
    room_id TEXT PRIMARY KEY,
    alive_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    match_id INTEGER PRIMARY KEY,   -- random (not guessable), 1 … 2^53-1
    room_id TEXT NOT NULL,
    private INTEGER NOT NULL DEFAULT 0,  -- of a private room: only its players and guests see it
    discipline TEXT NOT NULL,
    options TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON: [{player_id, name}] by seat
    started_ms INTEGER NOT NULL,
    finished_ms INTEGER,
    winner INTEGER,
    reason TEXT,
    scoresheet TEXT
);
CREATE INDEX IF NOT EXISTS matches_finished ON matches (finished_ms);
CREATE TABLE IF NOT EXISTS match_players (
    match_id INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
CREATE TABLE IF NOT EXISTS strokes (
    match_id INTEGER NOT NULL,
    n INTEGER NOT NULL,             -- 1, 2, … within the match
    kind TEXT NOT NULL,             -- 'lag', 'stroke', 'timeout_foul', 'place', …
    seat INTEGER,
    played_ms INTEGER NOT NULL,
    record BLOB NOT NULL,           -- msgpack: cue parameters, result, trajectory, match after
    PRIMARY KEY (match_id, n)
);
CREATE TABLE IF NOT EXISTS room_guests (  -- who gave a private room's password while it was open
    room_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    PRIMARY KEY (room_id, player_id)
);
"""
# Who may see a match (two parameters: the viewer's player_id twice).
VISIBLE = """(m.private = 0
    OR EXISTS (SELECT 1 FROM match_players p WHERE p.match_id = m.match_id AND p.player_id = ?)
    OR EXISTS (SELECT 1 FROM room_guests g WHERE g.room_id = m.room_id AND g.player_id = ?))"""
MAX_MATCH_ID = 2**53 - 1  # a JSON/msgpack-safe integer
# PRAGMA user_version; 1 was the first release (no version recorded: 0); 3 writes the room
# state as msgpack (a server of version 2 would fail to read it, so it refuses the file); 4
# keeps rooms' and matches' options as versioned records of their own (server/core/record.py)
SCHEMA_VERSION = 4
# Columns added since version 1, for files written by an older server.
MIGRATIONS = (
    ("rooms", "creator", "ALTER TABLE rooms ADD COLUMN creator TEXT"),
    (
        "matches",
        "private",
        "ALTER TABLE matches ADD COLUMN private INTEGER NOT NULL DEFAULT 0",
    ),
)


TOUCH_CHUNK = 500  # room ids per UPDATE: well under SQLite's limit on parameters


def convert_option_records(db: Db) -> int:
    """Rewrite every room's and match's options in the current record form (older releases
    stored the client's ``create_room`` message); the number of rows rewritten. Rows already in
    the current form are left alone, so it can run again."""
    changed = 0
    for table, key in (("rooms", "room_id"), ("matches", "match_id")):
        rows = db.execute(f"SELECT {key}, options FROM {table}").fetchall()
        for row_key, text in rows:
            stored = json.loads(text)
            if stored.get("v") == ROOM_RECORD_VERSION:
                continue
            try:
                record = RoomSettings.from_record(stored).to_record()
            except (KeyError, TypeError, ValueError):
                # A row no release could have restored stays as it is: restoring it closes
                # the room with a log line, as before.
                continue
            db.execute(
                f"UPDATE {table} SET options = ? WHERE {key} = ?", (json.dumps(record), row_key)
            )
            changed += 1
    return changed


class StoreError(Exception):
    """The database cannot be used; the message is one sentence for the operator."""


class Store:
    """Synchronous methods called from the event loop; checkpoints run in their own thread.

    Measured (docs/server.md): a stroke's transaction costs ~0.6 ms and a room save ~0.2 ms, so
    they run inline. Handing them to a writer thread was slower under load: every statement
    has to win the GIL back from the busy event-loop thread (up to the 5 ms switch interval each
    time), and the single writer fell seconds behind at 600 rooms. What can stall is a WAL
    checkpoint (it fsyncs the database file); so automatic checkpoints are off on this
    connection and a background thread checkpoints through its own connection, inside one
    sqlite3 call that releases the GIL.
    """

    CHECKPOINT_S = 1.0
    db: Db  # sqlite3 here; server.store.postgres.PostgresStore runs the same queries on PostgreSQL

    def __init__(self, path: str) -> None:
        self.path = path
        # Why the last write failed (disk full, read-only, I/O error), or None once a write
        # succeeds again: /health turns red while it is set.
        self.failure: str | None = None
        # What the running check found wrong with the file (deleted, replaced, damaged), or
        # None. Set for good: writes are refused from then on (they would be lost).
        self.problem: str | None = None
        try:
            self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise StoreError(_open_failure(path, exc)) from None
        try:
            self._open()
        except sqlite3.Error as exc:
            self.db.close()
            raise StoreError(_open_failure(path, exc)) from None
        except StoreError:
            self.db.close()
            raise
        stat = os.stat(path)
        self._identity = (stat.st_dev, stat.st_ino)
        self._fd_path = _fd_of(path)
        self._stop = threading.Event()
        self._checkpointer = threading.Thread(
            target=self._checkpoint_loop, name="store-checkpoint", daemon=True
        )
        self._checkpointer.start()

    def _open(self) -> None:
        # A damaged file is refused before anything is written to it.
        problems = [r[0] for r in self.db.execute("PRAGMA quick_check(3)").fetchall()]
        if problems != ["ok"]:
            raise StoreError(_damaged(self.path, "; ".join(problems)))
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")
        self.db.execute("PRAGMA wal_autocheckpoint=0")
        # After each checkpoint the WAL restarts; trimming it then to what the first commit
        # used keeps the file small, and it means every later commit takes new space, so a
        # full disk shows at the next write (refused with ``unavailable``) instead of much
        # later when the stale space in an old, long WAL runs out.
        self.db.execute("PRAGMA journal_size_limit=0")
        self._migrate()
        self.standings = Standings(self.db, self.transaction)  # accounts, ratings: own tables
        # A random id in the file header (application_id, bytes 68-71) tells this file from
        # another database copied over it while we run; checkpointed so the header has it.
        (self._file_id,) = self.db.execute("PRAGMA application_id").fetchone()
        if self._file_id == 0:
            self._file_id = secrets.randbelow(2**31 - 1) + 1
            self.db.execute(f"PRAGMA application_id = {self._file_id}")
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def check(self) -> str | None:
        """While running: is the file at ``path`` still the one opened, intact and writable?
        Returns the problem (one sentence with how to recover), also kept in ``problem``."""
        if self.problem is not None:
            return self.problem  # for good: the data written since is only in the old file
        problem: str | None = None
        try:
            stat = os.stat(self.path)
        except FileNotFoundError:
            problem = f"the database file {self.path} was deleted while the server runs"
        else:
            if (stat.st_dev, stat.st_ino) != self._identity:
                problem = f"the database file {self.path} was replaced while the server runs"
            elif not os.access(self.path, os.W_OK):
                problem = f"the database file {self.path} is no longer writable"
            else:
                problem = self._same_content()
        if problem is not None:
            rescue = (
                f"; before stopping the server, copy {self._fd_path} (the file it still has "
                f"open) to {self.path}.rescued, then stop it, move that copy to {self.path} "
                "and start again"
                if self._fd_path is not None
                else "; stop the server and restore the file from a backup"
            )
            self.problem = problem + "; writes are refused" + rescue
        return self.problem

    def _same_content(self) -> str | None:
        """The file's header, read directly (SQLite's own caches would still show the old
        pages): the SQLite magic and this file's id."""
        try:
            with open(self.path, "rb") as f:
                header = f.read(100)
        except OSError as exc:
            return f"the database file {self.path} cannot be read ({exc})"
        if not header.startswith(b"SQLite format 3\0"):
            return f"the database file {self.path} was overwritten or damaged"
        if int.from_bytes(header[68:72], "big") != self._file_id:
            return f"the database file {self.path} was overwritten with another database"
        return None

    def _migrate(self) -> None:
        """Create the tables, or bring a file from an older server up to this schema."""
        (version,) = self.db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the database {self.path} was written by a newer carom server (schema "
                f"version {version}; this one knows up to {SCHEMA_VERSION}); run that server "
                "or point --db at another file"
            )
        if version == SCHEMA_VERSION:
            return
        with self.transaction():
            # One statement at a time: executescript would commit the transaction first.
            for statement in SCHEMA.split(";\n"):
                if statement.strip():
                    self.db.execute(statement)
            for table, column, sql in MIGRATIONS:
                columns = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
                if column not in columns:
                    self.db.execute(sql)
                    if (table, column) == ("matches", "private"):
                        self.db.execute(
                            """UPDATE matches SET private = COALESCE((SELECT r.private FROM
                               rooms r WHERE r.room_id = matches.room_id), 0)"""
                        )
            convert_option_records(self.db)
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _checkpoint_loop(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(self.CHECKPOINT_S):
                with contextlib.suppress(sqlite3.OperationalError):  # busy: next time
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        finally:
            db.close()

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """Call one of this store's methods (inline: see the class docstring). Async so that
        the call sites need not change if a networked database replaces SQLite."""
        return fn(*args, **kwargs)

    def close(self) -> None:
        self._stop.set()
        self._checkpointer.join()
        with contextlib.suppress(sqlite3.OperationalError):
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # Players ----------------------------------------------------------------------------
    def player_by_token(self, token_hash: str) -> tuple[str, str] | None:
        row = self.db.execute(
            "SELECT player_id, name FROM players WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        if row is None:
            return self.standings.player_by_token(token_hash)  # a token from a login
        return (row[0], row[1])

    def add_player(self, player_id: str, token_hash: str, name: str, now_ms: int) -> None:
        with self._transaction():
            self.db.execute(
                "INSERT INTO players VALUES (?, ?, ?, ?, ?)",
                (player_id, token_hash, name, now_ms, now_ms),
            )

    def touch_player(self, player_id: str, name: str, now_ms: int) -> None:
        with self._transaction():
            self.db.execute(
                "UPDATE players SET name = ?, last_seen_ms = ? WHERE player_id = ?",
                (name, now_ms, player_id),
            )

    # Rooms ------------------------------------------------------------------------------
    def _save_room(self, r: RoomRecord, now_ms: int) -> None:
        self.db.execute(
            """INSERT INTO rooms (room_id, options, private, password_hash, created_ms, closed_ms,
                   seq, seats, state, match_id, updated_ms, creator)
               VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (room_id) DO UPDATE SET seq = excluded.seq, seats = excluded.seats,
                   state = excluded.state, match_id = excluded.match_id,
                   updated_ms = excluded.updated_ms""",
            (
                r.room_id,
                json.dumps(r.options),
                int(r.private),
                r.password_hash,
                r.created_ms,
                r.seq,
                json.dumps(r.seats),
                None if r.state is None else self._state_column(r.state),
                r.match_id,
                now_ms,
                r.creator,
            ),
        )

    def _state_column(self, state: dict[str, Any]) -> bytes | str:
        """The referee state as stored: msgpack, ~4× faster to write than JSON and a third
        smaller (a room is saved after every input: at 2 000 rooms JSON was ~8 % of the
        event loop's time, docs/benchmarks.md)."""
        return bytes(msgpack.packb(state, use_bin_type=True))

    def save_room(self, r: RoomRecord, now_ms: int) -> None:
        with self._transaction():
            self._save_room(r, now_ms)

    def touch_rooms(self, room_ids: Sequence[str], now_ms: int) -> None:
        """Mark these rooms as still served at ``now_ms`` (their clocks are live).

        A restart moves every clock on by the time since a room was last written or marked
        (``Room.from_record``); without this beat, a kill -9 would hand the shooter back the
        time used since the last stroke. The marks live in a table of their own with rows of a
        few bytes (``room_beats``): marking 2 000 rooms rewrites a few pages, not every room's
        row with its state. One statement per chunk, whatever the number of rooms.
        """
        failing = self.failure
        with self._transaction():
            for i in range(0, len(room_ids), TOUCH_CHUNK):
                chunk = list(room_ids[i : i + TOUCH_CHUNK])
                rows = ", ".join("(?, ?)" for _ in chunk)
                self.db.execute(
                    f"INSERT INTO room_beats (room_id, alive_ms) VALUES {rows} "
                    "ON CONFLICT (room_id) DO UPDATE SET alive_ms = excluded.alive_ms",
                    tuple(v for room_id in chunk for v in (room_id, now_ms)),
                )
        # A mark that fits where a room's save did not is no sign that saving works again:
        # /health stays red until a real save succeeds.
        self.failure = failing

    def close_room(self, room_id: str, now_ms: int) -> None:
        with self._transaction():
            self.db.execute("UPDATE rooms SET closed_ms = ? WHERE room_id = ?", (now_ms, room_id))
            self.db.execute("DELETE FROM room_beats WHERE room_id = ?", (room_id,))

    def open_rooms(self) -> list[RoomRecord]:
        rows = self.db.execute(
            """SELECT r.room_id, options, private, password_hash, created_ms, seq, seats, state,
                      match_id, updated_ms, creator, b.alive_ms
               FROM rooms r LEFT JOIN room_beats b ON b.room_id = r.room_id
               WHERE closed_ms IS NULL ORDER BY created_ms"""
        ).fetchall()
        return [
            RoomRecord(
                room_id=row[0],
                options=json.loads(row[1]),
                private=bool(row[2]),
                password_hash=row[3],
                created_ms=row[4],
                seq=row[5],
                seats=json.loads(row[6]),
                state=None if row[7] is None else _state_from_column(row[7]),
                match_id=row[8],
                # Written or marked as served, whichever is later: the server was there then.
                updated_ms=max(row[9], row[11] or 0),
                creator=row[10],
            )
            for row in rows
        ]

    # Matches and strokes ----------------------------------------------------------------
    def start_match(
        self,
        room_id: str,
        discipline: str,
        options: dict[str, Any],
        players: list[dict[str, Any]],
        now_ms: int,
        private: bool = False,
        match_id: int | None = None,
    ) -> int:
        """A new match row; its id is ``match_id`` (the room draws it, server/core/room.py) or a new
        random one (sequential ids were trivially guessed). An id already taken fails the
        write (an IntegrityError, one chance in 2^53 per match): the input is refused and the
        room draws again on the next try."""
        with self._transaction():
            while match_id is None:
                match_id = secrets.randbelow(MAX_MATCH_ID) + 1
                if (
                    self.db.execute(
                        "SELECT 1 FROM matches WHERE match_id = ?", (match_id,)
                    ).fetchone()
                    is not None
                ):
                    match_id = None
            self.db.execute(
                """INSERT INTO matches (match_id, room_id, private, discipline, options, players,
                       started_ms) VALUES (?, ?, ?, ?, ?, ?, ?)""",
                (
                    match_id,
                    room_id,
                    int(private),
                    discipline,
                    json.dumps(options),
                    json.dumps(players),
                    now_ms,
                ),
            )
            for p in players:
                self.db.execute(
                    "INSERT INTO match_players VALUES (?, ?) ON CONFLICT DO NOTHING",
                    (match_id, p["player_id"]),
                )
        return match_id

    def add_guest(self, room_id: str, player_id: str) -> None:
        """``player_id`` gave this private room's password: its matches are visible to them."""
        with self._transaction():
            self.db.execute(
                "INSERT INTO room_guests VALUES (?, ?) ON CONFLICT DO NOTHING", (room_id, player_id)
            )

    def commit_stroke(
        self,
        room: RoomRecord,
        kind: str,
        seat: int | None,
        played_ms: int,
        record: bytes,
        now_ms: int,
    ) -> int:
        """Append one stroke to the room's match and save the room state after it, atomically."""
        assert room.match_id is not None
        with self._transaction():
            (n,) = self.db.execute(
                "SELECT COALESCE(MAX(n), 0) + 1 FROM strokes WHERE match_id = ?", (room.match_id,)
            ).fetchone()
            self.db.execute(
                "INSERT INTO strokes VALUES (?, ?, ?, ?, ?, ?)",
                (room.match_id, n, kind, seat, played_ms, record),
            )
            self._save_room(room, now_ms)
        return int(n)

    def finish_match(
        self,
        match_id: int,
        winner: int | None,
        reason: str,
        scoresheet: dict[str, Any],
        now_ms: int,
    ) -> None:
        """The result and the rating change it causes, in one transaction."""
        try:
            with self._transaction():
                self.db.execute(
                    """UPDATE matches SET finished_ms = ?, winner = ?, reason = ?, scoresheet = ?
                       WHERE match_id = ?""",
                    (now_ms, winner, reason, json.dumps(scoresheet), match_id),
                )
                self.standings.match_finished(match_id, winner, reason, scoresheet, now_ms)
        except BaseException:
            self.standings.forget_changes()
            raise

    def list_matches(
        self,
        limit: int,
        player_id: str | None = None,
        before: int | None = None,
        viewer: str | None = None,
    ) -> list[dict[str, Any]]:
        """Finished matches ``viewer`` may see, newest first; ``before`` is the last match id
        of the previous page. A private room's matches only for its players and guests."""
        sql = (
            """SELECT m.match_id, m.room_id, m.discipline, m.players, m.started_ms,
                        m.finished_ms, m.winner, m.reason, m.scoresheet,
                        (SELECT COUNT(*) FROM strokes s WHERE s.match_id = m.match_id)
                 FROM matches m WHERE m.finished_ms IS NOT NULL AND """
            + VISIBLE
        )
        args: list[Any] = [viewer, viewer]
        if player_id is not None:
            sql += " AND m.match_id IN (SELECT match_id FROM match_players WHERE player_id = ?)"
            args.append(player_id)
        if before is not None:
            sql += """ AND (m.finished_ms, m.match_id) <
                (SELECT finished_ms, match_id FROM matches WHERE match_id = ?)"""
            args.append(before)
        sql += " ORDER BY m.finished_ms DESC, m.match_id DESC LIMIT ?"
        args.append(limit)
        return [
            {
                "match_id": row[0],
                "room_id": row[1],
                "discipline": row[2],
                "players": json.loads(row[3]),
                "started_ms": row[4],
                "finished_ms": row[5],
                "winner": row[6],
                "reason": row[7],
                "scoresheet": json.loads(row[8]) if row[8] else None,
                "strokes": row[9],
            }
            for row in self.db.execute(sql, args).fetchall()
        ]

    def match(self, match_id: int, viewer: str | None = None) -> dict[str, Any] | None:
        """One match, if ``viewer`` may see it (None for a private room's match otherwise)."""
        row = self.db.execute(
            """SELECT match_id, room_id, discipline, options, players, started_ms, finished_ms,
                      winner, reason, scoresheet FROM matches m WHERE match_id = ? AND """
            + VISIBLE,
            (match_id, viewer, viewer),
        ).fetchone()
        if row is None:
            return None
        return {
            "match_id": row[0],
            "room_id": row[1],
            "discipline": row[2],
            "options": json.loads(row[3]),
            "players": json.loads(row[4]),
            "started_ms": row[5],
            "finished_ms": row[6],
            "winner": row[7],
            "reason": row[8],
            "scoresheet": json.loads(row[9]) if row[9] else None,
        }

    def strokes(
        self,
        match_id: int,
        after: int = 0,
        limit: int | None = None,
        db: Db | None = None,
    ) -> list[tuple[int, str, int | None, int, bytes]]:
        """Strokes numbered above ``after``, in order; ``db``: a connection of the caller's
        thread (:meth:`reader`), for reads off the event loop."""
        rows = (
            (db or self.db)
            .execute(
                """SELECT n, kind, seat, played_ms, record FROM strokes
               WHERE match_id = ? AND n > ? ORDER BY n LIMIT ?""",
                (match_id, after, -1 if limit is None else limit),
            )
            .fetchall()
        )
        return [(r[0], r[1], r[2], r[3], bytes(r[4])) for r in rows]

    def reader(self) -> Db:
        """A read-only connection of its own, for a worker thread (close it when done)."""
        uri = Path(self.path).absolute().as_uri() + "?mode=ro"  # any path, percent-encoded
        return sqlite3.connect(uri, uri=True, check_same_thread=False)

    # ------------------------------------------------------------------------------------
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """All writes inside it commit together or not at all. Nested uses join the outer one,
        so one input's match row, strokes and room state land in a single transaction."""
        return _Tx(self)

    _transaction = transaction


class _Tx:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.outer = False

    def __enter__(self) -> None:
        db = self.store.db
        if db.in_transaction:
            return  # part of an enclosing transaction
        self.outer = True
        if self.store.problem is not None:
            self.store.failure = self.store.problem
            raise sqlite3.OperationalError(self.store.problem)
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self.store.failure = _why(exc)
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if not self.outer:
            return
        db = self.store.db
        if exc_type is None:
            try:
                db.execute("COMMIT")
            except sqlite3.Error as err:
                # Disk full or I/O error at commit: nothing of it is kept.
                if db.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                self.store.failure = _why(err)
                raise
            self.store.failure = None
            return
        if isinstance(exc, sqlite3.Error):
            self.store.failure = _why(exc)
        if db.in_transaction:  # SQLite may already have rolled back (SQLITE_FULL does)
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")


def _state_from_column(value: bytes | str) -> dict[str, Any]:
    """The referee state from its column: msgpack bytes, or JSON text (rows written before
    schema version 3, and PostgreSQL's)."""
    if isinstance(value, str):
        return dict(json.loads(value))
    return dict(msgpack.unpackb(value, raw=False))


def _damaged(path: str, detail: str) -> str:
    detail = " ".join(detail.split())[:200]  # one line, whatever SQLite reported
    return (
        f"the database {path} is damaged ({detail}); restore it from a backup, or move it "
        "away to start with an empty one (its open rooms and match history stay in the old file)"
    )


def _open_failure(path: str, exc: sqlite3.Error) -> str:
    """Why the database cannot be opened, as one sentence with what to do."""
    text = str(exc)
    folder = os.path.dirname(os.path.abspath(path))
    if isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError):
        return _damaged(path, text)
    if "malformed" in text or "not a database" in text:
        return _damaged(path, text)
    if not os.path.isdir(folder):
        return f"cannot open the database {path}: the folder {folder} does not exist"
    if "readonly" in text or "read-only" in text or _read_only(folder):
        return (
            f"cannot write the database {path}: the file or its filesystem is read-only "
            f"({text}); give --db a writable place, or make it writable"
        )
    if "full" in text:
        return f"cannot write the database {path}: its disk is full; free some space"
    return f"cannot open the database {path} ({text})"


def _read_only(folder: str) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def _fd_of(path: str) -> str | None:
    """``/proc/<pid>/fd/<n>`` of the open database file (Linux), for the rescue hint."""
    real = os.path.realpath(path)
    with contextlib.suppress(OSError):
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/self/fd/{fd}") == real:
                    return f"/proc/{os.getpid()}/fd/{fd}"
    return None


def _why(exc: sqlite3.Error) -> str:
    """A failed write in words an operator can act on."""
    text = str(exc)
    code = getattr(exc, "sqlite_errorname", "")
    if code == "SQLITE_FULL" or "full" in text:
        return f"the disk holding the database is full ({text})"
    if code.startswith("SQLITE_READONLY") or "readonly" in text:
        return f"the database cannot be written ({text})"
    return f"the database failed a write ({code or text}: {text})"
