"""Whole recorded matches replayed through the referee (golden files, python-chess style)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.shared.rules.golden import replay

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.txt"))


def test_there_are_golden_matches() -> None:
    assert len(GOLDEN) >= 4


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_golden_match(path: Path) -> None:
    result = replay(path)
    if os.environ.get("CAROM_REGOLD") == "1":
        path.write_text("\n".join(result.lines) + "\n", encoding="utf-8")
        return
    assert result.mismatches == [], "\n".join(result.mismatches)
