"""The pure packages stay pure (DESIGN.md): a bot, a replay tool or a test can import the
referee and the protocol without dragging in a window toolkit, a physics engine or asyncio."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

FORBIDDEN = ("arcade", "pyglet", "pymunk", "websockets", "asyncio")


@pytest.mark.parametrize(
    "module", ["shared.rules", "shared.protocol", "shared.table", "shared.physics.types"]
)
def test_pure_module_imports_no_io_or_engine(module: str) -> None:
    pulled = loaded_by(module, FORBIDDEN)
    assert pulled == [], f"{module} pulled in {pulled}"


def loaded_by(module: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules starting with one of ``prefixes`` that importing ``module`` loads, in a
    fresh interpreter."""
    code = (
        f"import json, sys; import {module}; print(json.dumps(sorted(m for m in sys.modules "
        f"if any(m == p or m.startswith(p + '.') for p in {prefixes!r}))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    return list(json.loads(out))


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
    pulled = loaded_by(module, (must_not_load,))
    assert pulled == [], f"{module} pulled in {pulled}"


CORE_MODULES = sorted(
    "server.core." + path.stem
    for path in (Path(__file__).resolve().parents[1] / "server" / "core").glob("*.py")
    if path.stem != "__init__"
)


@pytest.mark.parametrize("module", CORE_MODULES)
def test_the_server_cores_do_no_io(module: str) -> None:
    """server/core is the server's logic with time passed in: no event loop, socket, database
    or worker process, and nothing of the shells around it, so every rule and limit in it can be
    driven by hand with a fake clock."""
    pulled = loaded_by(
        module,
        (
            "asyncio",
            "socket",
            "sqlite3",
            "psycopg",
            "redis",
            "websockets",
            "subprocess",
            "server.net",
            "server.store",
            "server.sim",
        ),
    )
    assert pulled == [], f"{module} pulled in {pulled}"


def test_a_physics_worker_loads_neither_the_room_core_nor_the_protocol_messages() -> None:
    """A physics worker process (``python -m server.sim.worker``) runs strokes and builds their
    event views; it starts faster when it does not build the room core and the ~120 message
    classes it never uses (the protocol package loads its names on first use)."""
    pulled = loaded_by(
        "server.sim.pool",
        (
            "server.core.room",
            "server.core.lobby",
            "shared.protocol.to_client",
            "shared.protocol.to_server",
            "shared.protocol.codec",
            "shared.protocol.tournament",
        ),
    )
    assert pulled == [], f"the physics worker pulled in {pulled}"
