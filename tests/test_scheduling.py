"""The suite's scheduler (tests/scheduling.py): a module that declares an xdist group is one
work unit, every other test is its own, and slow tests are collected first."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.scheduling import module_group, needs_more, work_unit

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
