"""The client compares the protocol's words as enum members, never as string literals.

Issue 20 ("Clean layers"): the views type ``phase``, ``discipline``, ``reason`` and the codes as
enums (``shared.protocol.enums``), and the client used to compare them with strings in 37
places (``phase == "play"``). A string literal compiles and even works (a ``StrEnum`` member
equals its word), so nothing else would notice a new one: this test reads every module of
``client/`` and fails, naming file and line, on a comparison of such a field with a string
literal or a tuple of them.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

CLIENT = Path(__file__).parents[2] / "client"

# Fields (or locals named after them) that hold a word of the protocol.
WORD_FIELDS = frozenset({"phase", "discipline", "reason", "code", "result", "status"})
# Comparisons that are not the protocol's words: the session's own link events (Link.status:
# connected, lost, reconnecting …) are the library's, not the server's.
NOT_WIRE = frozenset(
    {("app/model.py", "status"), ("watch.py", "status"), ("bot/player.py", "status")}
)


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def _literal_words(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return bool(node.elts) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
        )
    return False


def string_compares(path: Path, root: Path = CLIENT) -> list[str]:
    """``file:line field`` for each comparison of a word field with string literals."""
    rel = str(path.relative_to(root))
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for a, b in itertools.pairwise(sides):
            for field, other in ((_name(a), b), (_name(b), a)):
                if field in WORD_FIELDS and (rel, field) not in NOT_WIRE and _literal_words(other):
                    found.append(f"{rel}:{node.lineno} {field}")
    return found


def test_the_client_compares_words_as_enum_members() -> None:
    found = [hit for p in sorted(CLIENT.rglob("*.py")) for hit in string_compares(p)]
    assert not found, f"compare with shared.protocol.enums members instead: {found}"


def test_the_check_sees_a_string_compare(tmp_path: Path) -> None:
    """The scan itself finds what it must (so a green run means something)."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f(m, room, exc):\n"
        '    return m.phase == "play" or room.phase in ("lag", "over") or exc.code != "x"\n'
        "def g(m):\n"
        "    return m.phase == Phase.PLAY\n"
    )
    found = string_compares(probe, tmp_path)
    assert sorted(found) == ["probe.py:2 code", "probe.py:2 phase", "probe.py:2 phase"]
