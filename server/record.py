"""A room's row in the database: what :meth:`server.room.Room.to_record` writes and
:meth:`server.room.Room.from_record` reads back after a restart (the room core owns that form;
the stores only move it in and out of their tables)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class RoomRecord:
    room_id: str
    options: dict[str, Any]
    private: bool
    password_hash: str | None
    created_ms: int
    seq: int
    seats: list[dict[str, Any] | None]
    state: dict[str, Any] | None
    match_id: int | None
    # When the row was last written (a drain writes every room): a restart moves every clock on
    # by the time since, so nobody is charged for time the server was not there.
    updated_ms: int | None = None
    creator: str | None = None  # player_id of who created the room
