"""The one store interface the server uses, and how ``--db`` picks its implementation.

``--db FILE`` is the embedded SQLite store (server/store/sqlite.py, the single-process default);
``--db postgresql://USER@HOST:PORT/DB`` is the PostgreSQL store every node of a cluster shares
(server/store/postgres.py, needs the ``cluster`` extra: psycopg). Both keep a versioned schema and
bring an older one up to date at start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any, ParamSpec, Protocol, TypeVar

from server.core.record import RoomRecord
from server.store.sql import Db
from server.store.sqlite import Store, StoreError
from server.store.standings import Standings

P = ParamSpec("P")
T = TypeVar("T")

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


class GameStore(Protocol):
    """What the lobby, the room actors and the standing desk call (nothing else)."""

    db: Db  # for a read the desk makes directly (a player's name)
    standings: Standings  # accounts and ratings, on the same connection and transactions
    # Why the last write failed, or None once one succeeds again (/health is red meanwhile).
    failure: str | None
    # A lasting problem: writes are refused from then on (SQLite's file checks).
    problem: str | None

    async def run(self, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T: ...
    def check(self) -> str | None: ...
    def close(self) -> None: ...
    def transaction(self) -> AbstractContextManager[None]: ...

    def player_by_token(self, token_hash: str) -> tuple[str, str] | None: ...
    def add_player(self, player_id: str, token_hash: str, name: str, now_ms: int) -> None: ...
    def touch_player(self, player_id: str, name: str, now_ms: int) -> None: ...

    def save_room(self, r: RoomRecord, now_ms: int) -> None: ...
    def touch_rooms(self, room_ids: Sequence[str], now_ms: int) -> None: ...
    def close_room(self, room_id: str, now_ms: int) -> None: ...
    def open_rooms(self) -> list[RoomRecord]: ...

    def start_match(
        self,
        room_id: str,
        discipline: str,
        options: dict[str, Any],
        players: list[dict[str, Any]],
        now_ms: int,
        private: bool = False,
        match_id: int | None = None,
    ) -> int: ...
    def add_guest(self, room_id: str, player_id: str) -> None: ...
    def commit_stroke(
        self,
        room: RoomRecord,
        kind: str,
        seat: int | None,
        played_ms: int,
        record: bytes,
        now_ms: int,
    ) -> int: ...
    def finish_match(
        self,
        match_id: int,
        winner: int | None,
        reason: str,
        scoresheet: dict[str, Any],
        now_ms: int,
    ) -> None: ...
    def list_matches(
        self,
        limit: int,
        player_id: str | None = None,
        before: int | None = None,
        viewer: str | None = None,
    ) -> list[dict[str, Any]]: ...
    def match(self, match_id: int, viewer: str | None = None) -> dict[str, Any] | None: ...
    def strokes(
        self,
        match_id: int,
        after: int = 0,
        limit: int | None = None,
        db: Db | None = None,
    ) -> list[tuple[int, str, int | None, int, bytes]]: ...
    def reader(self) -> Db: ...  # a connection of its own, for a worker thread


def is_postgres(db: str) -> bool:
    return db.startswith(POSTGRES_SCHEMES)


def open_store(db: str) -> GameStore:
    """The store ``--db`` names; StoreError (one sentence with what to do) if it cannot open."""
    if not is_postgres(db):
        return Store(db)
    try:
        from server.store.postgres import PostgresStore
    except ImportError:
        raise StoreError(
            "--db postgresql://… needs psycopg: pip install 'carom[cluster]'"
        ) from None
    return PostgresStore(db)
