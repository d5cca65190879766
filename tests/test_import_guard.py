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


@pytest.mark.parametrize(
    ("module", "must_not_load"),
    [
        ("shared.rules", "shared.protocol"),
        ("shared.physics", "shared.protocol"),
        ("shared.protocol", "shared.rules"),
    ],
)
def test_the_rules_and_the_protocol_meet_only_in_the_adapter(
    module: str, must_not_load: str
) -> None:
    """Layers: the referee and the physics know nothing of the wire, the wire nothing of the
    referee; shared.wireviews is the one place that turns one into the other."""
    code = (
        f"import json, sys; import {module}; "
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({must_not_load!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(out) == [], f"{module} pulled in {out}"
