"""What the stores keep of a room, in a form of the server's own, with a version number.

A room's row is written by :meth:`server.core.room.Room.to_record` and read back after a restart by
:meth:`server.core.room.Room.from_record` (the room core owns that form; the stores only move it in
and out of their tables). What the room was opened with is :class:`RoomSettings`: its record is
versioned, so the protocol's ``create_room`` can change without touching stored rooms, and a
row written by an older release is converted on reading.

Record versions of ``rooms.options`` and ``matches.options``:

- 1 (no ``v`` key; every release before record versions): the ``create_room`` message as the
  client sent it, less ``t``, ``id`` and ``password``.
- 2: ``{"v": 2, "discipline": …, "private": …, "options": {name: value}}``, the options by their
  names in the options table (``shared/options.py``), only those chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from shared.options import BY_NAME, WIRE_OPTIONS, Value
from shared.rules import Discipline, MatchOptions

ROOM_RECORD_VERSION: Final = 2


class RecordError(ValueError):
    """A stored record this server cannot read (written by a newer release, or damaged)."""


@dataclass(frozen=True, slots=True)
class RoomSettings:
    """What a room was opened with: the discipline, the options its creator chose (absent: the
    referee's default) and whether it is private. Checked by the referee on construction."""

    discipline: str
    options: Mapping[str, Value] = field(default_factory=dict)
    private: bool = False

    def __post_init__(self) -> None:
        unknown = set(self.options) - set(BY_NAME)
        if unknown:
            raise ValueError(f"unknown room options: {', '.join(sorted(unknown))}")
        self.match_options()  # the referee's own checks: ValueError naming the option

    def match_options(self) -> MatchOptions:
        return MatchOptions(discipline=Discipline(self.discipline), **self.options)  # type: ignore[arg-type]

    def sent(self) -> dict[str, Any]:
        """The wire's view of them (``replay.room.options``: as sent, absent = default)."""
        return {"discipline": self.discipline, "private": self.private, **self.options}

    def to_record(self) -> dict[str, Any]:
        return {
            "v": ROOM_RECORD_VERSION,
            "discipline": self.discipline,
            "private": self.private,
            "options": dict(self.options),
        }

    @classmethod
    def from_sent(cls, sent: object, discipline: str, private: bool | None) -> RoomSettings:
        """From any object carrying the wire's option fields (``create_room``)."""
        chosen = {o.name: getattr(sent, o.name) for o in WIRE_OPTIONS}
        return cls(discipline, {k: v for k, v in chosen.items() if v is not None}, bool(private))

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> RoomSettings:
        version = data.get("v", 1)
        if version == 1:
            chosen = {o.name: data.get(o.name) for o in WIRE_OPTIONS}
            options = {k: v for k, v in chosen.items() if v is not None}
            return cls(str(data["discipline"]), options, bool(data.get("private")))
        if version == ROOM_RECORD_VERSION:
            return cls(str(data["discipline"]), dict(data["options"]), bool(data["private"]))
        raise RecordError(
            f"a room record of version {version}: this server reads up to {ROOM_RECORD_VERSION}"
        )


@dataclass(slots=True)
class RoomRecord:
    room_id: str
    options: dict[str, Any]  # RoomSettings.to_record()
    private: bool
    password_hash: str | None
    created_ms: int
    seq: int
    seats: list[dict[str, Any] | None]
    state: dict[str, Any] | None
    match_id: int | None
    # When the row was last written (a drain writes every room) or marked as served (twice a
    # second while a match runs): a restart moves every clock on by the time since, so nobody
    # is charged for time the server was not there.
    updated_ms: int | None = None
    creator: str | None = None  # player_id of who created the room
