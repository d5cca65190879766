"""The headless client never pulls in the window toolkit, and the ``carom bot`` / ``carom watch``
entry modules stay light enough for ``carom --help`` (no physics, no sockets at import)."""

from __future__ import annotations

import pytest

from tests.imports import loaded_by_each

# One worker runs the module, so that each list is imported once (tests/imports.py).
pytestmark = pytest.mark.xdist_group("client_imports")

HEADLESS = ("client.session", "client.background", "client.bot.player", "client.demo")
CLI = ("client.bot_cli", "client.watch")


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_client_imports_no_window_toolkit(module: str) -> None:
    assert loaded_by_each(HEADLESS, ("arcade", "pyglet"))[module] == []


# The desktop client's screen states and words: the window's views draw them, and their tests
# (tests/client/app) run them without a window.
STATES = (
    "client.app.bridge",
    "client.app.model",
    "client.app.layout",
    "client.app.words",
    "client.app.standing",
    "client.app.tournaments",
    "client.app.stats_page",
)


@pytest.mark.parametrize("module", STATES)
def test_the_screens_states_and_words_load_no_window_toolkit(module: str) -> None:
    assert loaded_by_each(STATES, ("arcade", "pyglet"))[module] == []


@pytest.mark.parametrize("module", CLI)
def test_cli_modules_are_light(module: str) -> None:
    assert (
        loaded_by_each(CLI, ("arcade", "pyglet", "pymunk", "websockets", "asyncio"))[module] == []
    )


def test_the_client_uses_no_server_internals_but_the_launcher() -> None:
    """The client talks to servers over the protocol only; the one server module it may import
    is the documented launcher (server/process.py) that ``make play`` and the local game use to
    start a server process. Read from the source, so a lazy import inside a function counts."""
    import ast
    from pathlib import Path

    allowed = {"server.process"}
    found: dict[str, set[str]] = {}
    root = Path(__file__).resolve().parents[2] / "client"
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            for name in names:
                if name == "server" or name.startswith("server."):
                    found.setdefault(name, set()).add(path.name)
    assert set(found) <= allowed, {k: v for k, v in found.items() if k not in allowed}
    assert found, "the launcher is used (make play starts a local server through it)"
