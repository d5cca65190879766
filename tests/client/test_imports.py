"""The headless client never pulls in the window toolkit, and the ``carom bot`` / ``carom watch``
entry modules stay light enough for ``carom --help`` (no physics, no sockets at import)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _imported(module: str, roots: tuple[str, ...]) -> list[str]:
    code = (
        f"import json, sys; import {module}; "
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(roots)!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return list(json.loads(out))


@pytest.mark.parametrize(
    "module", ["client.session", "client.background", "client.bot.player", "client.demo"]
)
def test_headless_client_imports_no_window_toolkit(module: str) -> None:
    assert _imported(module, ("arcade", "pyglet")) == []


@pytest.mark.parametrize("module", ["client.bot_cli", "client.watch"])
def test_cli_modules_are_light(module: str) -> None:
    assert _imported(module, ("arcade", "pyglet", "pymunk", "websockets", "asyncio")) == []
