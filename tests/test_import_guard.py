"""The pure packages stay pure (DESIGN.md): a bot, a replay tool or a test can import the
referee and the protocol without dragging in a window toolkit, a physics engine or asyncio."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FORBIDDEN = ("arcade", "pyglet", "pymunk", "websockets", "asyncio")


@pytest.mark.parametrize(
    "module", ["shared.rules", "shared.protocol", "shared.table", "shared.physics.types"]
)
def test_pure_module_imports_no_io_or_engine(module: str) -> None:
    code = (
        f"import json, sys; import {module}; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [], f"{module} pulled in {out}"
