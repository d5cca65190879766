"""shared.analysis is pure like the rest of shared/: the statistics, the names and the readings
load no window toolkit, no sockets, no asyncio and (for the counting) no physics engine."""

from __future__ import annotations

import pytest

from tests.imports import loaded_by_each
from tests.test_import_guard import FORBIDDEN

# One worker runs the module, so that the list is imported once (tests/imports.py).
pytestmark = pytest.mark.xdist_group("analysis_imports")

ANALYSIS = (
    "shared.analysis.patterns",
    "shared.analysis.stats",
    "shared.analysis.charts",
    "shared.analysis.records",
    "shared.analysis.reading",
    "shared.analysis.daily",
    "shared.analysis.drills",
)


@pytest.mark.parametrize("module", ANALYSIS)
def test_analysis_modules_load_no_io_or_engine(module: str) -> None:
    assert loaded_by_each(ANALYSIS, FORBIDDEN)[module] == []
