"""The SQL connection the stores' queries are written against (``?`` placeholders, SQL that
SQLite and PostgreSQL both accept: ``ON CONFLICT … DO UPDATE/NOTHING``, row comparisons).

``sqlite3.Connection`` is one; ``server.store.postgres.PgDb`` wraps a psycopg connection as another.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol


class Cursor(Protocol):
    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Db(Protocol):
    @property
    def in_transaction(self) -> bool: ...

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def executescript(self, sql_script: str, /) -> Cursor: ...

    def close(self) -> None: ...


class DatabaseUnavailable(OSError):
    """A networked database cannot be reached or refused a write (connection lost, server
    down, its disk full). An OSError, so every place that already turns a failing disk into a
    clear ``unavailable`` answer handles it the same way."""
