"""The base of every message: a frozen, slotted dataclass that validates itself (as h11's events).

A message class names its wire type in ``TYPE`` and, where a wire name is a Python keyword, maps
field names to wire names in ``WIRE``. Each field's type carries its bounds
(``shared.protocol.bounds``); the decoder checks them as it reads a frame, and construction by
our own code checks the same declarations. ``_validate`` keeps only what spans several fields. A
bad field raises :class:`~shared.protocol.errors.BadField`, whether the message came off the
wire or from our code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from shared.protocol.errors import BadField
from shared.protocol.typed import (
    MESSAGES,
    Wire,
    check_fields,
    decoded,
    fields_from_wire,
    fields_to_wire,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Message:
    TYPE: ClassVar[str] = ""
    WIRE: ClassVar[Mapping[str, str]] = {}
    FLAT: ClassVar[frozenset[str]] = frozenset()  # view fields whose keys sit in this map

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Known by name to the views that refer to messages (typed.MESSAGES); the slotted class
        # the dataclass decorator makes replaces the first one under the same name.
        super(Message, cls).__init_subclass__(**kwargs)
        MESSAGES[cls.__name__] = cls

    def __post_init__(self) -> None:
        check_fields(self)
        self._validate()

    def _validate(self) -> None:
        """Checks that span several fields; subclasses override (zero-arg super() fails on
        slotted classes)."""

    def to_wire(self) -> dict[str, Wire]:
        """The msgpack map: ``t``, every required field (null included) and every optional field
        that is not None; nested views as their maps."""
        return fields_to_wire(self, {"t": self.TYPE})

    @classmethod
    def decode_map(cls, obj: Mapping[Any, Any], path: str = "") -> Self:
        """Build from a decoded map: required fields must be present, every value has its
        field's type all the way down (errors name the path), extra keys are ignored."""
        if path and obj.get("t") != cls.TYPE:
            raise BadField(f"{path}.t must be {cls.TYPE!r}", field=f"{path}.t")
        return decoded(cls, fields_from_wire(cls, obj, path), path)


@dataclass(frozen=True, slots=True, kw_only=True)
class ClientMessage(Message):
    """A message a client sends. ``id`` is echoed as ``re`` in the direct answer or error."""

    id: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerMessage(Message):
    """A message the server sends."""
