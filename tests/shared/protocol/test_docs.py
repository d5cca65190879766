"""docs/protocol.md documents every message and every error code as built."""

from __future__ import annotations

import dataclasses
from dataclasses import fields
from pathlib import Path

from shared.protocol import CLIENT_TYPES, SERVER_TYPES, ErrorCode, views
from shared.protocol.typed import hints

DOC = (Path(__file__).parents[3] / "docs" / "protocol.md").read_text()


def test_every_message_type_is_documented() -> None:
    for t in (*CLIENT_TYPES, *SERVER_TYPES):
        assert f"| `{t}` |" in DOC, t


def test_every_error_code_is_documented() -> None:
    for code in ErrorCode:
        assert f"| `{code.value}` |" in DOC, code


def test_every_field_is_documented() -> None:
    for cls in (*CLIENT_TYPES.values(), *SERVER_TYPES.values()):
        for f in fields(cls):
            wire = cls.WIRE.get(f.name, f.name)
            if f.name in cls.FLAT:  # a view's keys in the message's own map (stroke's cue)
                continue
            if wire not in ("id", "re", "seq"):
                assert f"`{wire}`" in DOC, f"{cls.TYPE}.{wire}"


def _section(title: str) -> str:
    """The text under ``#### `title``` up to the next heading."""
    head = f"#### `{title}`\n"
    assert head in DOC, f"docs/protocol.md has no section for {title}"
    rest = DOC.split(head, 1)[1]
    return rest.split("\n#", 1)[0]


def test_every_view_type_is_documented_field_by_field() -> None:
    """Each typed view has its own section in docs/protocol.md naming every one of its wire
    fields (a flattened view's section names the view whose keys it carries)."""
    found = [
        cls
        for cls in vars(views).values()
        if isinstance(cls, type)
        and cls.__module__ == views.__name__
        and dataclasses.is_dataclass(cls)
    ]
    assert len(found) >= 25
    for cls in found:
        text = _section(cls.__name__)
        wire_names = getattr(cls, "WIRE", {})
        for f in fields(cls):
            wire = wire_names.get(f.name, f.name)
            if f.name in getattr(cls, "FLAT", ()):  # its keys sit in this map: name the view
                assert f"`{hints(cls)[f.name].__name__}`" in text, (cls.__name__, f.name)
            else:
                assert f"`{wire}`" in text, f"{cls.__name__}.{wire} is not in its section"
