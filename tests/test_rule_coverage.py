"""The rule-coverage plugin (``tests/rule_coverage.py``) on a small suite of its own, in a
subprocess: it counts the rules the referee applies (across xdist workers, and through a name
bound before the plugin started) and fails a run in which a rule marked ``tested`` never fired.
"""

from __future__ import annotations

import pytest

from tests.rule_coverage import ENV, ROOT, doc_rows, marked_tested, never_fired

CONFTEST = """
pytest_plugins = ["tests.rule_coverage"]

# Bound before the plugin swaps the referee's apply in: the swap must reach it too.
from shared.rules import apply as early_apply
"""

LAG = """
from shared.rules import MatchOptions, Start, new_match
import conftest

def test_start_lags() -> None:
    conftest.early_apply(new_match(MatchOptions(), 0), Start(), 0)  # R-LAG-1, R-LAG-2, ...
"""

REFUSAL = """
import pytest
from shared.rules import ChooseBreak, IllegalAction, MatchOptions, Start, apply, new_match

def test_refused_play_counts() -> None:
    state, _ = apply(new_match(MatchOptions(), 0), Start(), 0)
    with pytest.raises(IllegalAction):
        apply(state, ChooseBreak(0, 0), 0)  # wrong phase: no rule
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_lag=LAG, test_refusal=REFUSAL)
    return pytester


def test_a_run_where_tested_rules_never_fire_fails_and_names_them(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, "1")
    run = suite.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")
    run.assert_outcomes(passed=2)
    assert run.ret == pytest.ExitCode.TESTS_FAILED
    # Start fires the lag setup (R-LAG-1, R-LAG-2, R-SPOT-1, R-TABLE-1, R-CLOCK-2).
    run.stdout.fnmatch_lines(
        [f"rules fired: 5 of {len(marked_tested())} marked tested", "*never applied*R-LAG-3*"]
    )
    assert "R-LAG-1," not in run.stdout.str().split("never applied")[1]


def test_without_the_variable_nothing_is_enforced(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    run = suite.runpytest_subprocess("-p", "no:cacheprovider")
    assert run.ret == pytest.ExitCode.OK
    assert "rules fired" not in run.stdout.str()


def test_never_fired_keeps_the_docs_order() -> None:
    assert never_fired(["R-A", "R-B", "R-C"], {"R-B", "R-X"}) == ["R-A", "R-C"]


def test_the_docs_table_parses() -> None:
    rows = doc_rows("| R-END-1 | tested | game to the distance |\n| R-X-1 | elsewhere | why |\n")
    assert rows == {"R-END-1": ("tested", "game to the distance"), "R-X-1": ("elsewhere", "why")}
