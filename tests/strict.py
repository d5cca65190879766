"""Two guards that keep a green run honest.

``CAROM_NO_SKIP=1`` (set by ``.ci/run``) turns every skipped test into a failure: CI installs
every engine the suite needs (PostgreSQL, Redis, Xvfb, tmpfs mounts as root), so there a skip
can only mean that something the tests rely on is missing, and a run that skipped the cluster
suite must not look the same as one that ran it. On a developer's machine without the engines
the skips stay skips and say what to install.

Whatever the mode, the summary says how many tests ran against each real engine, so a reader of
a CI log sees at once that the PostgreSQL, Redis and virtual-display tests really ran.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator

import pytest

ENGINES = ("PostgreSQL", "Redis", "tmpfs mount", "Xvfb", "Chromium")
# Tests on a virtual display carry a marker; the others say which engine they use through the
# fixture that hands it out (uses_engine), which also covers a fixture asked for at run time.
ENGINE_MARKERS = {"xvfb": "Xvfb"}


def strict() -> bool:
    return os.environ.get("CAROM_NO_SKIP") == "1"


def uses_engine(request: pytest.FixtureRequest, label: str) -> None:
    """Record on the running test that it uses a real engine (``label`` is one of ENGINES).
    The item's user_properties are copied into its reports, which travel from an xdist worker
    to the controller."""
    request.node.user_properties.append(("engine", label))


def mark_engines(item: pytest.Item) -> None:
    for marker, label in ENGINE_MARKERS.items():
        if item.get_closest_marker(marker) and ("engine", label) not in item.user_properties:
            item.user_properties.append(("engine", label))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, None]:
    mark_engines(item)
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    if report.skipped and strict() and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped, and CI allows no skip (CAROM_NO_SKIP=1): {reason}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    ran: Counter[str] = Counter()
    for report in terminalreporter.stats.get("passed", []):
        if report.when == "call":
            ran.update({value for key, value in report.user_properties if key == "engine"})
    line = ", ".join(f"{label} {ran[label]}" for label in ENGINES)
    terminalreporter.write_line(f"tests passed against real engines: {line}")
