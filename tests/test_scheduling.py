"""The suite's scheduler (tests/scheduling.py): a module that declares an xdist group is one
work unit, every other test is its own, and units start in a planned order: long ones early,
computing ones beside waiting ones."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.scheduling import (
    Cost,
    DurationLog,
    computes,
    module_group,
    needs_more,
    plan_units,
    planned_order,
    read_durations,
    wants_computing,
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


def test_waiting_units_run_beside_a_few_computing_ones_and_all_start_before_the_end() -> None:
    costs = {
        "match": Cost(60.0, 3.0),  # a match in table time: a twentieth of a core
        "final": Cost(40.0, 2.0),
        "render": Cost(30.0, 30.0),
        "search": Cost(10.0, 5.0),
        "cup": Cost(20.0, 1.0),
        "draw": Cost(10.0, 10.0),
        "quick": Cost(5.0, 5.0),
    }
    # Three workers, one computing unit kept running. At 0: render computes, the match and
    # the final wait beside it. At 30 render ends: search (one computing unit again); at 40
    # search and the final end: draw, then the cup (the last waiting unit); the short
    # computing unit is left for the end, beside the cup and the match.
    assert plan_units(costs, workers=3, computing=1) == [
        "render",
        "match",
        "final",
        "search",
        "draw",
        "cup",
        "quick",
    ]
    # Without waiting units it is longest first.
    busy = {k: c for k, c in costs.items() if c.cpu / c.wall >= 0.5}
    assert plan_units(busy, workers=3, computing=1) == ["render", "search", "draw", "quick"]


def test_a_free_worker_takes_the_kind_of_unit_the_run_lacks_now() -> None:
    # What a match in table time and a rendering run recorded: one waits, one computes.
    assert not computes(Cost(60, 3)) and computes(Cost(30, 30))
    # 300 s of computing work left (its CPU over the cores) and a 60 s match queued: a
    # computing unit while fewer than four run beside the free worker, else the match.
    assert wants_computing(computing=2, compute_left_s=300, longest_wait_s=60, target=4)
    assert not wants_computing(computing=4, compute_left_s=300, longest_wait_s=60, target=4)
    # Near the end: 40 s of computing work left, shorter than the match still queued. The
    # match goes first, even with no computing unit running, so that it does not wait alone
    # at the end while the cores idle.
    assert not wants_computing(computing=0, compute_left_s=40, longest_wait_s=60, target=4)
    # No waiting unit left: computing, however many run.
    assert wants_computing(computing=9, compute_left_s=10, longest_wait_s=None, target=4)


def test_a_groups_tests_stay_together_and_unknown_tests_are_guessed() -> None:
    ids = ["a::quick", "g::one", "b::match", "g::two", "c::new_slow", "d::quick"]

    def unit(n: str) -> str:
        return "group:g" if n.startswith("g::") else n

    known = {"b::match": Cost(50.0, 2.0), "g::one": Cost(30.0, 30.0), "g::two": Cost(30.0, 30.0)}
    order = planned_order(ids, {"c::new_slow", "b::match"}, known, unit)
    # The group computes (60 s), the match waits (50 s); a slow test nobody timed yet is
    # guessed at 20 s and half a core, a quick one at 0.1 s: both count as computing, and
    # with fewer than four computing units running, free workers take those first.
    assert order == ["g::one", "g::two", "c::new_slow", "a::quick", "d::quick", "b::match"]


def test_durations_are_written_per_test_and_read_back(tmp_path: Path) -> None:
    log = DurationLog(tmp_path / "durations.json")
    phases = [("t::long", 0.2, []), ("t::long", 3.0, []), ("t::long", 0.1, [("cpu_s", 1.25)])]
    for nodeid, seconds, props in [*phases, ("t::x", 0.3, [("cpu_s", 0.3)])]:
        report = SimpleNamespace(nodeid=nodeid, duration=seconds, user_properties=props)
        log.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    log.pytest_sessionfinish()
    # Setup, call and teardown add up; the CPU comes with the teardown; tests under a second
    # are left out (they count 0.1 s).
    assert read_durations(tmp_path / "durations.json") == {"t::long": Cost(3.3, 1.2)}
    assert read_durations(tmp_path / "missing.json") == {}
    # A later run keeps the slower case: a quicker run lowers a record by a fifth at most, a
    # slower one replaces it, and a test the run left out keeps its record.
    (tmp_path / "durations.json").write_text('{"t::long": [10.0, 1.0], "t::other": [5.0, 0.5]}')
    again = DurationLog(tmp_path / "durations.json")
    for nodeid, seconds, cpu in [("t::long", 2.0, 3.0), ("t::new", 1.5, 0.2)]:
        report = SimpleNamespace(nodeid=nodeid, duration=seconds, user_properties=[("cpu_s", cpu)])
        again.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    again.pytest_sessionfinish()
    assert read_durations(tmp_path / "durations.json") == {
        "t::long": Cost(8.0, 3.0),
        "t::new": Cost(1.5, 0.2),
        "t::other": Cost(5.0, 0.5),
    }
    (tmp_path / "old.json").write_text('{"t::a": 4.0}')
    assert read_durations(tmp_path / "old.json") == {"t::a": Cost(4.0, 2.0)}


def test_a_worker_measures_each_tests_cpu_for_the_durations_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin is the repository's tests/
    pytester.makepyfile(
        test_c=(
            "import time\n\n"
            "def test_busy():\n"
            "    end = time.process_time() + 1.2\n"
            "    while time.process_time() < end:\n"
            "        pass\n\n"
            "def test_asleep():\n"
            "    time.sleep(1.2)\n"
        ),
    )
    out = pytester.path / "durations.json"
    result = pytester.runpytest_subprocess(
        "-p", "tests.scheduling", "-p", "no:cacheprovider", f"--write-durations={out}"
    )
    result.assert_outcomes(passed=2)
    costs = read_durations(out)
    busy, asleep = costs["test_c.py::test_busy"], costs["test_c.py::test_asleep"]
    assert busy.cpu >= 1.0 and asleep.cpu < 0.5
    assert busy.wall >= 1.0 and asleep.wall >= 1.0


def test_the_recorded_durations_name_tests_that_exist() -> None:
    known = read_durations()
    assert len(known) > 50  # the long ones of the suite are in it
    missing = [n for n in known if not (ROOT / n.split("::", 1)[0]).exists()]
    assert missing == [], "tests/durations.json names modules that are gone: rewrite it"
