"""Keep a module's tests on one worker when the module says so, as ``--dist loadgroup`` should.

Several modules share one expensive module-scoped fixture: a rendering run, a desktop window, a
browser. They mark themselves ``pytestmark = pytest.mark.xdist_group("name")`` so that xdist
sends all their tests to one worker and the fixture runs once. pytest-xdist 3.8 implements that
by appending ``@name`` to each test's id on the worker, which pytest 9 no longer lets it do (a
node's id is now computed, and the attribute xdist writes is never read): every marked module
was silently spread over all the workers, each running the fixture again.

This scheduler does the grouping on the controller instead, from the module's own declaration
(the controller sees only test ids, not markers). Unmarked tests stay one work unit each, so the
long independent ones still spread. Units start longest first: every worker collects the tests
in that order, from the seconds recorded in ``tests/durations.json`` (``pytest -n 10
--write-durations tests/durations.json`` rewrites it; a test it does not know counts 20 s if
marked ``slow``, otherwise 0.1 s). A worker is sent its next unit when it has at most one test
left to run, not three as xdist does: a long test queued behind another long one would start a
minute late while other workers sat idle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from xdist.scheduler import LoadScopeScheduling
from xdist.workermanage import WorkerController

_DECLARED = re.compile(r"^pytestmark\s*=.*\bxdist_group\(\s*\"([^\"]+)\"", re.MULTILINE)


def module_group(path: Path) -> str | None:
    """The group a test module declares for all its tests, or None."""
    try:
        found = _DECLARED.search(path.read_text(encoding="utf-8"))
    except OSError:
        return None
    return found.group(1) if found else None


class DeclaredGroups(LoadScopeScheduling):
    def __init__(self, config: pytest.Config, log: object | None = None) -> None:
        super().__init__(config, log)  # type: ignore[arg-type]
        self.root = config.rootpath
        self.groups: dict[str, str | None] = {}

    # xdist's extension point for work units (its loadfile and loadgroup modes override it too).
    def _split_scope(self, nodeid: str) -> str:
        return work_unit(nodeid, self.root, self.groups)

    # xdist's top-up rule, with a shorter queue per worker (a worker needs one test beyond the
    # running one, to know whether to tear its module's fixtures down).
    def _reschedule(self, node: WorkerController) -> None:
        if node.shutting_down:
            return
        if not self.workqueue:
            node.shutdown()
            return
        if needs_more(self._pending_of(self.assigned_work[node])):
            self._assign_work_unit(node)


QUEUED = 1  # tests a worker holds beyond the one it runs


def needs_more(pending: int) -> bool:
    """Whether a worker with ``pending`` tests not yet finished is sent another unit."""
    return pending <= QUEUED


def work_unit(nodeid: str, root: Path, groups: dict[str, str | None]) -> str:
    """The work unit of a test: its module's declared group, or the test alone. ``groups``
    remembers each module's declaration (read once per module)."""
    path = nodeid.split("::", 1)[0]
    if path not in groups:
        groups[path] = module_group(root / path)
    group = groups[path]
    return f"group:{group}" if group else nodeid


DURATIONS = Path(__file__).with_name("durations.json")
SLOW_GUESS_S = 20.0  # a slow test the durations file does not know yet
QUICK_GUESS_S = 0.1


def unit_seconds(
    nodeids: list[str], slow: set[str], known: dict[str, float], unit_of: Callable[[str], str]
) -> dict[str, float]:
    """Each work unit's expected seconds: the recorded durations of its tests, or a guess."""
    out: dict[str, float] = {}
    for nodeid in nodeids:
        guess = SLOW_GUESS_S if nodeid in slow else QUICK_GUESS_S
        unit = unit_of(nodeid)
        out[unit] = out.get(unit, 0.0) + known.get(nodeid, guess)
    return out


def longest_first(
    nodeids: list[str], slow: set[str], known: dict[str, float], unit_of: Callable[[str], str]
) -> list[str]:
    """The tests in the order their units should start: the longest unit first, a unit's tests
    together, ties in collection order. Longest first keeps the run from waiting at its end for
    one long test; it also starts the long table-time matches (mostly waiting) early, beside the
    heavy rendering groups, rather than all together in the middle of the run with the CPU idle."""
    seconds = unit_seconds(nodeids, slow, known, unit_of)
    units = {n: unit_of(n) for n in nodeids}
    position = {n: i for i, n in enumerate(nodeids)}
    first_seen: dict[str, int] = {}
    for nodeid in nodeids:
        first_seen.setdefault(units[nodeid], position[nodeid])
    return sorted(
        nodeids,
        key=lambda n: (-seconds[units[n]], first_seen[units[n]], position[n]),
    )


def read_durations(path: Path = DURATIONS) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--write-durations",
        metavar="FILE",
        help="write each test's seconds (setup, call and teardown; 1 s and more) to FILE, for "
        "the order tests start in (tests/durations.json)",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    groups: dict[str, str | None] = {}
    by_id = {item.nodeid: item for item in items}
    slow = {item.nodeid for item in items if item.get_closest_marker("slow") is not None}
    order = longest_first(list(by_id), slow, read_durations(), lambda n: work_unit(n, root, groups))
    items[:] = [by_id[n] for n in order]


class DurationLog:
    """Adds up each test's phases as the reports reach the controller."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def pytest_sessionfinish(self) -> None:
        kept = {k: round(v, 1) for k, v in sorted(self.seconds.items()) if v >= 1.0}
        self.path.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n", encoding="utf-8")


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--write-durations", None)
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationLog(Path(path)), "carom-durations")
    # Work units start in collection order (longest first, above), not xdist's largest group
    # first.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    return DeclaredGroups(config, log)
