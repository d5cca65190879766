"""The desktop client's network tests talk to the production server in its own process (the
window's frame loop and the server must not share a GIL), as ``carom play`` runs it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from server.process import ServerProcess


@pytest.fixture
def server_url(tmp_path: Path) -> Iterator[str]:
    with ServerProcess(tmp_path / "carom.db", workers=0) as server:
        yield server.url
