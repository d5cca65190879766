"""``shared.protocol`` loads its public names on first use: each one is there, is the object its
submodule defines, and is what the type checker is told it is."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import shared.protocol as protocol
from shared.protocol import to_client, to_server


def test_every_public_name_resolves_to_the_submodules_object() -> None:
    for name in protocol.__all__:
        value = getattr(protocol, name)
        homes = [m for m in (to_client, to_server) if name in vars(m)]
        for home in homes:
            assert vars(home)[name] is value, name
    assert protocol.Stroke is to_server.Stroke and protocol.Welcome is to_client.Welcome


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = protocol.Nope  # type: ignore[attr-defined]


def test_the_type_checkers_names_are_the_public_names() -> None:
    """mypy reads the ``TYPE_CHECKING`` imports, the program ``__all__``: one list each, kept
    equal here."""
    tree = ast.parse(Path(protocol.__file__).read_text(encoding="utf-8"))
    guarded = next(n for n in tree.body if isinstance(n, ast.If))
    imported = {
        alias.name
        for node in guarded.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    assert imported == set(protocol.__all__)
