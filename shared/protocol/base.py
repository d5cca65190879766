"""The base of every message: a frozen, slotted dataclass that validates itself (as h11's events).

A message class names its wire type in ``TYPE`` and, where a wire name is a Python keyword, maps
field names to wire names in ``WIRE``. Construction runs ``_validate``; a bad field raises
:class:`~shared.protocol.errors.BadField`, whether the message came off the wire or from our code.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from shared.protocol.fields import check_opt_int


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    TYPE: ClassVar[str] = ""
    WIRE: ClassVar[dict[str, str]] = {}

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        """Check every field; subclasses override (zero-arg super() fails on slotted classes)."""

    def to_wire(self) -> dict[str, Any]:
        """The msgpack map: ``t``, every required field (null included) and every optional field
        that is not None."""
        out: dict[str, Any] = {"t": self.TYPE}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None or f.default is MISSING:
                out[self.WIRE.get(f.name, f.name)] = value
        return out


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientMessage(Message):
    """A message a client sends. ``id`` is echoed as ``re`` in the direct answer or error."""

    id: int | None = None

    def __post_init__(self) -> None:
        check_opt_int("id", self.id)
        self._validate()


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerMessage(Message):
    """A message the server sends."""
