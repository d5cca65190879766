"""The pure packages stay pure (DESIGN.md): a bot, a replay tool or a test can import the
referee and the protocol without dragging in a window toolkit, a physics engine or asyncio."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.imports import loaded_by, loaded_by_each

# One worker runs the module, so that each list below is imported once (tests/imports.py).
pytestmark = pytest.mark.xdist_group("import_guard")

FORBIDDEN = ("arcade", "pyglet", "pymunk", "websockets", "asyncio")
# The codec loads every module of the protocol (the package alone loads its names on first use).
PURE = ("shared.rules", "shared.protocol.codec", "shared.table", "shared.physics.types")


@pytest.mark.parametrize("module", PURE)
def test_pure_module_imports_no_io_or_engine(module: str) -> None:
    pulled = loaded_by_each(PURE, FORBIDDEN)[module]
    assert pulled == [], f"{module} pulled in {pulled}"


NO_PROTOCOL = ("shared.rules", "shared.physics")


@pytest.mark.parametrize(
    ("module", "must_not_load"),
    [
        ("shared.rules", "shared.protocol"),
        ("shared.physics", "shared.protocol"),
        ("shared.protocol.codec", "shared.rules"),
    ],
)
def test_the_rules_and_the_protocol_meet_only_in_the_adapter(
    module: str, must_not_load: str
) -> None:
    """Layers: the referee and the physics know nothing of the wire, the wire nothing of the
    referee; shared.wireviews is the one place that turns one into the other."""
    together = NO_PROTOCOL if module in NO_PROTOCOL else (module,)
    pulled = loaded_by_each(together, (must_not_load,))[module]
    assert pulled == [], f"{module} pulled in {pulled}"


CORE_MODULES = tuple(
    sorted(
        "server.core." + path.stem
        for path in (Path(__file__).resolve().parents[1] / "server" / "core").glob("*.py")
        if path.stem != "__init__"
    )
)
NO_IO = (
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
)


@pytest.mark.parametrize("module", CORE_MODULES)
def test_the_server_cores_do_no_io(module: str) -> None:
    """server/core is the server's logic with time passed in: no event loop, socket, database
    or worker process, and nothing of the shells around it, so every rule and limit in it can be
    driven by hand with a fake clock."""
    pulled = loaded_by_each(CORE_MODULES, NO_IO)[module]
    assert pulled == [], f"{module} pulled in {pulled}"


def test_a_physics_worker_loads_neither_the_room_core_nor_the_protocol_messages() -> None:
    """A physics worker process (``python -m server.sim.worker``) runs strokes and builds their
    event views; it starts faster when it does not build the room core and the ~120 message
    classes it never uses (the protocol package loads its names on first use), nor the event
    loop, subprocesses and logging of the pool that talks to it (server/sim/pool.py)."""
    pulled = loaded_by(
        ("server.sim.worker", "server.sim.job"),
        (
            "server.core.room",
            "server.core.lobby",
            "server.sim.pool",
            "shared.protocol.to_client",
            "shared.protocol.to_server",
            "shared.protocol.codec",
            "shared.protocol.tournament",
            "asyncio",
            "subprocess",
            "logging",
        ),
    )
    assert pulled == [], f"the physics worker pulled in {pulled}"


def test_a_list_that_loads_something_forbidden_names_the_module_that_does() -> None:
    """The checks above import each list in one interpreter; when the list loads something
    forbidden, each module is imported alone, and only the one that loads it is blamed."""
    found = loaded_by_each(("json", "asyncio", "shared.table"), ("asyncio",))
    assert found["json"] == [] and found["shared.table"] == []
    assert "asyncio" in found["asyncio"] and "asyncio.events" in found["asyncio"]
