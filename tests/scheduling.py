"""Keep a module's tests on one worker when the module says so, as ``--dist loadgroup`` should.

Several modules share one expensive module-scoped fixture: a rendering run, a desktop window, a
browser. They mark themselves ``pytestmark = pytest.mark.xdist_group("name")`` so that xdist
sends all their tests to one worker and the fixture runs once. pytest-xdist 3.8 implements that
by appending ``@name`` to each test's id on the worker, which pytest 9 no longer lets it do (a
node's id is now computed, and the attribute xdist writes is never read): every marked module
was silently spread over all the workers, each running the fixture again.

This scheduler does the grouping on the controller instead, from the module's own declaration
(the controller sees only test ids, not markers). Unmarked tests stay one work unit each, so the
long independent ones still spread.

The order units start in is planned from what each test cost in a recorded run
(``tests/durations.json``: wall seconds and CPU seconds, its processes' included; ``pytest -n 10
--write-durations tests/durations.json`` updates it, keeping the slower case: ``KEEP``). Long units
start early, so that the run does not wait at its end for one of them, and units that compute (a
rendering run, a bot's search) are handed out beside units that mostly wait (a match played in table
time), so that the two cores stay busy from the start instead of ten matches waiting together while
the CPU idles; the waiting units are all started while computing ones are left to run beside them.
Which kind a free worker takes next is decided when it is free, on what the other workers run then
(at least four computing units while any is queued), so a plan made from recorded costs that this
run does not repeat cannot leave every worker waiting on a match with the cores idle; and near the
end the waiting units left go first, once the computing work left is no longer than they are, so
that none waits alone after it. A test the file does not know counts 20 s if marked ``slow``,
otherwise 0.1 s, and half a core. A worker is sent its next unit when it has at most one test left
to run, not three as xdist does: a long test queued behind another long one would start a minute
late while other workers sat idle.
"""

from __future__ import annotations

import heapq
import json
import os
import re
from collections import deque
from collections.abc import Callable, Generator
from pathlib import Path
from typing import NamedTuple

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
        self.costs: dict[str, Cost] = {}  # each unit's recorded cost (its kind follows)
        self.queued: dict[bool, deque[str]] = {True: deque(), False: deque()}  # by kind, in order
        self.compute_left_s = 0.0  # the queued computing units' CPU over the cores

    def schedule(self) -> None:
        if self.collection is None and self.collection_is_completed:
            nodeids = list(next(iter(self.registered_collections.values()), []))
            self.costs = unit_costs(nodeids, set(), read_durations(), self._split_scope)
            for unit in self.costs:  # in collection order, which is the planned order
                self.queued[computes(self.costs[unit])].append(unit)
            self.compute_left_s = sum(c.cpu for c in self.costs.values() if computes(c)) / CORES
        super().schedule()

    # The planned order is followed by kind, but which kind a free worker takes is decided on
    # what runs now: recorded costs are only a guide (a match in table time takes 14 s in one
    # run and 40 s in the next), and planned ahead the workers were all found waiting on
    # matches together for several seconds at a time while computing units were still queued.
    def _assign_work_unit(self, node: WorkerController) -> None:
        others = [self._last_unit(n) for n in self.assigned_work if n is not node]
        running = sum(1 for u in others if u is not None and computes(self.cost(u)))
        compute, wait = self._first_queued(True), self._first_queued(False)
        longest = self.cost(wait).wall if wait is not None else None
        take = compute if wants_computing(running, self.compute_left_s, longest) else wait
        scope = take if take is not None else next(iter(self.workqueue))
        if computes(self.cost(scope)):
            self.compute_left_s -= self.cost(scope).cpu / CORES
        self.workqueue.move_to_end(scope, last=False)  # xdist's assignment takes the first
        super()._assign_work_unit(node)

    def _first_queued(self, kind: bool) -> str | None:
        """The first unit of that kind still in the work queue."""
        units = self.queued[kind]
        while units and units[0] not in self.workqueue:
            units.popleft()
        return units[0] if units else None

    def cost(self, unit: str) -> Cost:
        """A unit's recorded cost; one the plan did not see counts as a quick computing one."""
        return self.costs.get(unit, Cost(QUICK_GUESS_S, QUICK_GUESS_S * GUESS_CORES))

    def _last_unit(self, node: WorkerController) -> str | None:
        """The unit a worker runs last of those it was sent and has not finished."""
        pending = [u for u, tests in self.assigned_work[node].items() if not all(tests.values())]
        return pending[-1] if pending else None

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
GUESS_CORES = 0.5  # the share of a core a test the file does not know is taken to use


class Cost(NamedTuple):
    """What a test (or a work unit) took in a recorded run: wall seconds, and CPU seconds of
    the worker and of the processes it started and waited for."""

    wall: float
    cpu: float


def unit_costs(
    nodeids: list[str], slow: set[str], known: dict[str, Cost], unit_of: Callable[[str], str]
) -> dict[str, Cost]:
    """Each work unit's expected cost: the recorded costs of its tests, or a guess."""
    out: dict[str, Cost] = {}
    for nodeid in nodeids:
        wall = SLOW_GUESS_S if nodeid in slow else QUICK_GUESS_S
        cost = known.get(nodeid, Cost(wall, wall * GUESS_CORES))
        unit = unit_of(nodeid)
        before = out.get(unit, Cost(0.0, 0.0))
        out[unit] = Cost(before.wall + cost.wall, before.cpu + cost.cpu)
    return out


# In the recorded run ten workers share two cores, so a test that computes all along shows
# about a fifth of a core, and one that plays a match in table time a twentieth or less.
BUSY = 0.15  # a unit using at least this share of a core computes; below it, it mostly waits
WORKERS = 10  # the Makefile's TEST_WORKERS: the plan assumes as many
# Computing units kept running beside the waiting ones: enough to keep two cores busy (each
# computes for only part of its time), few enough that the waiting units are all started
# while computing work is left to run beside the last of them.
COMPUTING = 4


def computes(cost: Cost) -> bool:
    """Whether a unit mostly computes (rather than waiting on table time, sockets, processes)."""
    return cost.wall > 0 and cost.cpu / cost.wall >= BUSY


CORES = 2  # the machine the plan is for (docs/benchmarks.md): what the computing units share


def wants_computing(
    computing: int, compute_left_s: float, longest_wait_s: float | None, target: int = COMPUTING
) -> bool:
    """Whether a free worker takes a computing unit (else a waiting one), given how many
    computing units the other workers will run beside it, the computing work still queued (its
    recorded CPU over the cores, in seconds) and the longest waiting unit still queued: a
    computing one while fewer than ``target`` run, except near the end, where a waiting unit
    goes first once the computing work left is no longer than it: started after the last
    computing unit, it would wait alone while the cores idled."""
    if longest_wait_s is None:
        return True
    if compute_left_s <= longest_wait_s:
        return False
    return computing < target


def plan_units(
    costs: dict[str, Cost], workers: int = WORKERS, computing: int = COMPUTING
) -> list[str]:
    """The order units should start in, each kind longest first. The plan follows the run on
    the recorded costs: a worker that becomes free takes a computing unit while fewer than
    ``computing`` of them run, otherwise a waiting unit while any is left. The waiting units
    (matches played in table time) overlap each other and the computing ones, and the run ends
    on short computing units that keep both cores busy to the end. Handed out by their share
    of each kind's total instead, the waiting matches ran late, with nothing computing left
    beside them: the cores idled for the last ten to twenty seconds of the run.
    ``costs`` is in the order ties are broken in."""
    rank = {u: i for i, u in enumerate(costs)}
    by_length = sorted(costs, key=lambda u: (-costs[u].wall, rank[u]))
    busy = {u for u, c in costs.items() if computes(c)}
    kinds = [deque(u for u in by_length if u in busy), deque(u for u in by_length if u not in busy)]
    free = [(0.0, w) for w in range(max(1, workers))]  # when each worker is next free
    running: list[tuple[float, int]] = []  # (end, kind) of the units planned so far
    order: list[str] = []
    while kinds[0] or kinds[1]:
        now, worker = heapq.heappop(free)
        running = [(end, kind) for end, kind in running if end > now]
        computing_now = sum(1 for _, kind in running if kind == 0)
        kind = 0 if kinds[0] and (not kinds[1] or computing_now < computing) else 1
        unit = kinds[kind].popleft()
        order.append(unit)
        end = now + costs[unit].wall
        running.append((end, kind))
        heapq.heappush(free, (end, worker))
    return order


def planned_order(
    nodeids: list[str],
    slow: set[str],
    known: dict[str, Cost],
    unit_of: Callable[[str], str],
    workers: int = WORKERS,
) -> list[str]:
    """The tests in the order :func:`plan_units` starts their units, a unit's tests together
    in collection order."""
    units = {n: unit_of(n) for n in nodeids}
    costs = unit_costs(nodeids, slow, known, unit_of)
    place = {u: i for i, u in enumerate(plan_units(costs, workers))}
    position = {n: i for i, n in enumerate(nodeids)}
    return sorted(nodeids, key=lambda n: (place[units[n]], position[n]))


def read_durations(path: Path = DURATIONS) -> dict[str, Cost]:
    """The recorded costs; a bare number (the older form) is wall seconds at half a core."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, Cost] = {}
    for k, v in data.items():
        if isinstance(v, int | float):
            out[str(k)] = Cost(float(v), float(v) * GUESS_CORES)
        elif isinstance(v, list) and len(v) == 2:
            out[str(k)] = Cost(float(v[0]), float(v[1]))
    return out


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--write-durations",
        metavar="FILE",
        help="write each test's wall and CPU seconds (setup, call and teardown; 1 s and more) "
        "to FILE, keeping the slower of this run and the recorded one, for the order tests "
        "start in (tests/durations.json)",
    )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    groups: dict[str, str | None] = {}
    by_id = {item.nodeid: item for item in items}
    slow = {item.nodeid for item in items if item.get_closest_marker("slow") is not None}
    # Each worker plans the same order (xdist checks that they all collected the same list).
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", WORKERS))
    order = planned_order(
        list(by_id), slow, read_durations(), lambda n: work_unit(n, root, groups), workers
    )
    items[:] = [by_id[n] for n in order]


class CpuClock:
    """On a worker: the CPU seconds each test took, from its setup to the end of its teardown,
    the worker's own and those of the processes it started and waited for; added to the
    teardown's report (``cpu_s``) for the controller's :class:`DurationLog`."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}

    @staticmethod
    def now() -> float:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.started[item.nodeid] = self.now()

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if call.when == "teardown" and item.nodeid in self.started:
            report.user_properties.append(("cpu_s", self.now() - self.started.pop(item.nodeid)))
        return report


# How much of a recorded duration a rewrite keeps when the new run was quicker. A test that
# plays a match in table time varies from run to run (a bot that thinks less on a busy machine
# misses more strokes: 14 s in one run, 40 s in the next); planned from its quick run, it starts
# late and the suite waits for it at the end with the cores idle. The plan keeps the slower
# case, and a test that really got quicker loses a fifth per rewrite.
KEEP = 0.8


class DurationLog:
    """Adds up each test's phases as the reports reach the controller; at the end, writes
    each test's cost: the larger of this run's and ``KEEP`` of the recorded one."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration
        for name, value in report.user_properties:
            if name == "cpu_s" and isinstance(value, int | float):
                self.cpu[report.nodeid] = float(value)

    def pytest_sessionfinish(self) -> None:
        measured = {k: Cost(v, self.cpu.get(k, v * GUESS_CORES)) for k, v in self.seconds.items()}
        costs = merged(read_durations(self.path), measured)
        kept = {k: [round(c.wall, 1), round(c.cpu, 1)] for k, c in sorted(costs.items())}
        kept = {k: v for k, v in kept.items() if v[0] >= 1.0}
        lines = ",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in kept.items())
        self.path.write_text("{\n" + lines + "\n}\n", encoding="utf-8")


def merged(recorded: dict[str, Cost], measured: dict[str, Cost]) -> dict[str, Cost]:
    """The costs to plan the next runs with: a test measured now keeps the larger of its new
    cost and ``KEEP`` of the recorded one; a test this run did not include keeps its record."""
    out = dict(recorded)
    for k, new in measured.items():
        old = recorded.get(k, Cost(0.0, 0.0))
        out[k] = Cost(max(new.wall, KEEP * old.wall), max(new.cpu, KEEP * old.cpu))
    return out


def pytest_configure(config: pytest.Config) -> None:
    path = config.getoption("--write-durations", None)
    if path and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationLog(Path(path)), "carom-durations")
    if path:
        config.pluginmanager.register(CpuClock(), "carom-cpu-clock")
    # Work units start in collection order (longest first, above), not xdist's largest group
    # first.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    return DeclaredGroups(config, log)
