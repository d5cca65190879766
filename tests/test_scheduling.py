"""The suite's scheduler (tests/scheduling.py): a module that declares an xdist group is one
work unit, every other test is its own, and slow tests are collected first."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.scheduling import (
    DurationLog,
    longest_first,
    module_group,
    needs_more,
    read_durations,
    work_unit,
)

ROOT = Path(__file__).resolve().parent.parent


def test_the_modules_that_share_one_run_declare_their_group() -> None:
    assert module_group(ROOT / "tests/client/app/test_screenshots.py") == "desktop_screenshots"
    assert module_group(ROOT / "tests/server/net/web/test_browser.py") == "chromium"
    assert module_group(ROOT / "tests/shared/physics/test_engine.py") is None
    assert module_group(ROOT / "tests/no_such_module.py") is None


def test_a_declared_module_is_one_work_unit_and_other_tests_are_their_own() -> None:
    groups: dict[str, str | None] = {}
    shots = [
        "tests/client/app/test_screenshots.py::test_diamonds_are_drawn_on_the_rails",
        "tests/client/app/test_screenshots.py::test_results_show_the_winner_and_the_scoresheet",
    ]
    plain = [
        "tests/shared/physics/test_engine.py::test_a",
        "tests/shared/physics/test_engine.py::test_b",
    ]
    units = {work_unit(n, ROOT, groups) for n in shots}
    assert units == {"group:desktop_screenshots"}
    assert [work_unit(n, ROOT, groups) for n in plain] == plain


def test_slow_tests_are_collected_first(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin is the repository's tests/
    pytester.makepyfile(
        test_a="def test_quick():\n    pass\n",
        test_b="import pytest\n\n@pytest.mark.slow\ndef test_long():\n    pass\n",
    )
    pytester.makeini("[pytest]\nmarkers =\n    slow: long\n")
    result = pytester.runpytest_subprocess(
        "-p", "tests.scheduling", "--collect-only", "-q", "-p", "no:cacheprovider"
    )
    ids = [line for line in result.outlines if "::" in line]
    assert ids == ["test_b.py::test_long", "test_a.py::test_quick"]


def test_a_worker_gets_its_next_test_only_when_down_to_the_one_it_runs() -> None:
    # xdist keeps up to three tests queued per worker, so a long match could wait behind
    # another for a minute while other workers were idle; here a worker holds one beyond the
    # running one (it needs that one to know whether to tear its module's fixtures down).
    assert needs_more(0) and needs_more(1)
    assert not needs_more(2) and not needs_more(3)


def test_the_longest_units_start_first_and_a_groups_tests_stay_together() -> None:
    ids = ["a::quick", "g::one", "b::match", "g::two", "c::new_slow", "d::quick"]

    def unit(n: str) -> str:
        return "group:g" if n.startswith("g::") else n

    known = {"b::match": 50.0, "g::one": 30.0, "g::two": 30.0, "d::quick": 0.5}
    order = longest_first(ids, {"c::new_slow", "b::match"}, known, unit)
    # The group (60 s in all) before the 50 s match; a slow test nobody timed yet is guessed at
    # 20 s; the rest by their seconds, ties in collection order.
    assert order == ["g::one", "g::two", "b::match", "c::new_slow", "d::quick", "a::quick"]


def test_durations_are_written_per_test_and_read_back(tmp_path: Path) -> None:
    log = DurationLog(tmp_path / "durations.json")
    for nodeid, seconds in [("t::long", 0.2), ("t::long", 3.0), ("t::long", 0.1), ("t::x", 0.3)]:
        log.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=seconds))  # type: ignore[arg-type]
    log.pytest_sessionfinish()
    # Setup, call and teardown add up; tests under a second are left out (they count 0.1 s).
    assert read_durations(tmp_path / "durations.json") == {"t::long": 3.3}
    assert read_durations(tmp_path / "missing.json") == {}


def test_the_recorded_durations_name_tests_that_exist() -> None:
    known = read_durations()
    assert len(known) > 50  # the long ones of the suite are in it
    missing = [n for n in known if not (ROOT / n.split("::", 1)[0]).exists()]
    assert missing == [], "tests/durations.json names modules that are gone: rewrite it"
