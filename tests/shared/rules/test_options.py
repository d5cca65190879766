"""Match options validate themselves (bad input gets a clear error, nothing is built)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from shared.rules import DEFAULT_DISTANCE, Discipline, MatchOptions
from shared.table import TABLES


def test_wire_names_and_defaults() -> None:
    assert [d.value for d in Discipline] == [
        "three_cushion",
        "one_cushion",
        "straight_rail",
        "balkline_47_2",
        "balkline_47_1",
        "balkline_71_2",
        "balkline_71_1",
    ]
    assert MatchOptions(discipline="one_cushion").discipline is Discipline.ONE_CUSHION  # type: ignore[arg-type]
    assert MatchOptions().target == DEFAULT_DISTANCE[Discipline.THREE_CUSHION] == 25
    assert MatchOptions(distance=7).target == 7


def test_R_END_2_R_END_4_set_play_turns_the_equalizing_inning_off() -> None:
    assert MatchOptions().equalizing_applies
    assert not MatchOptions(sets=3).equalizing_applies
    assert not MatchOptions(equalizing=False).equalizing_applies
    # R-END-2 as corrected: "the option can turn it on" in set play too.
    assert MatchOptions(sets=3, equalizing=True).equalizing_applies
    assert MatchOptions(sets=3).sets_to_win == 2


@pytest.mark.parametrize(
    "kwargs",
    [
        pytest.param({"discipline": "snooker"}, id="unknown discipline"),
        pytest.param({"distance": 0}, id="distance zero"),
        pytest.param({"distance": 2.5}, id="distance not whole"),
        pytest.param({"shot_clock_s": True}, id="bool is not a number"),
        pytest.param({"timeout_s": 301}, id="R-TIMEOUT-1 at most five minutes"),
        pytest.param({"table": "pool"}, id="R-TABLE-1 unknown table"),
        pytest.param({"corner_zone_leg": 0.9}, id="corner zone larger than half the width"),
        pytest.param({"sets": 0}, id="no sets"),
    ],
)
def test_bad_options_are_refused(kwargs) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        MatchOptions(**kwargs)


def test_every_rules_module_is_pure() -> None:
    """No pymunk, asyncio, websockets or arcade behind any module of shared.rules."""
    code = (
        "import pkgutil, importlib, sys, shared.rules as r\n"
        "for m in pkgutil.iter_modules(r.__path__):\n"
        "    importlib.import_module('shared.rules.' + m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('pymunk', 'asyncio', 'websockets', 'arcade', 'pyglet'))\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("discipline", list(Discipline))
def test_R_TABLE_1_every_table_starts_a_match_in_every_discipline(table, discipline) -> None:  # type: ignore[no-untyped-def]
    # The club tables used to be refused: the 0.71 m corner leg is more than half their width.
    opts = MatchOptions(discipline=discipline, table=table)
    spec = opts.table_spec
    # R-DISC-FREE decision: 0.71 m on the match table, scaled with the table's length.
    assert opts.zone_leg == pytest.approx(min(0.71 * spec.length / 2.84, spec.width / 2))
    assert opts.zone_leg <= spec.width / 2


def test_R_DISC_FREE_corner_zone_leg_scales_with_the_table() -> None:
    assert MatchOptions().zone_leg == pytest.approx(0.71)
    assert MatchOptions(table="club_210").zone_leg == pytest.approx(0.525)
    assert MatchOptions(table="ru_9ft").zone_leg == pytest.approx(0.64)
    assert MatchOptions(table="club_210", corner_zone_leg=0.4).zone_leg == 0.4
    with pytest.raises(ValueError, match="corner_zone_leg"):
        MatchOptions(table="club_210", corner_zone_leg=0.71)
