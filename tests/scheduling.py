"""Keep a module's tests on one worker when the module says so, as ``--dist loadgroup`` should.

Several modules share one expensive module-scoped fixture: a rendering run, a desktop window, a
browser. They mark themselves ``pytestmark = pytest.mark.xdist_group("name")`` so that xdist
sends all their tests to one worker and the fixture runs once. pytest-xdist 3.8 implements that
by appending ``@name`` to each test's id on the worker, which pytest 9 no longer lets it do (a
node's id is now computed, and the attribute xdist writes is never read): every marked module
was silently spread over all the workers, each running the fixture again.

This scheduler does the grouping on the controller instead, from the module's own declaration
(the controller sees only test ids, not markers). Unmarked tests stay one work unit each, so the
long independent ones still spread; groups are handed out first (xdist orders work units by
size), then the tests marked ``slow`` (every worker collects them first, in the same order), so
that a long match does not start last and keep the run waiting for it alone. A worker is sent
its next unit when it has at most one test left to run, not three as xdist does: a long test
queued behind another long one would start a minute late while other workers sat idle.
"""

from __future__ import annotations

import re
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


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    return DeclaredGroups(config, log)
