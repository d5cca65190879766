"""docs/protocol.md documents every message and every error code as built."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

from shared.protocol import CLIENT_TYPES, SERVER_TYPES, ErrorCode

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
            if wire not in ("id", "re", "seq"):
                assert f"`{wire}`" in DOC, f"{cls.TYPE}.{wire}"
