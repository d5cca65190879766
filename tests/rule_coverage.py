"""Rule coverage by the rules that really fire (issue 20), a pytest plugin.

Every referee transition names the RULES.md ids it applied (``Verdict.rules``; a refusal names
its rule in ``IllegalAction.rule_id``). With ``CAROM_RULE_COVERAGE=1`` (``make test`` sets it)
this plugin wraps ``shared.rules.referee.apply`` for the whole run, collects those ids, and at
the end fails the run if a rule that ``docs/rules.md`` marks ``tested`` never fired, printing
"rules fired: N of M marked tested". Without the variable it does nothing: a run of a few tests
(``-k``, a path) would miss rules by construction, so only a whole-suite run should enforce.

The wrapper lives here, not in ``shared``: the referee stays pure (no hook, no global state);
the plugin swaps the function in every loaded module that holds it (``from shared.rules import
apply`` binds a module's own name), before collection imports the test modules, which then bind
the wrapper. Transitions in server subprocesses that tests start are not observed; the in-process
servers and every direct call are.

Under pytest-xdist each worker sends its ids to the controller (``workeroutput``), which checks
the union.
"""

from __future__ import annotations

import functools
import os
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

ENV = "CAROM_RULE_COVERAGE"
WORKER_KEY = "carom_rules_fired"
ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
ROW = re.compile(r"^\| (R-[A-Z0-9-]+) \| (tested|elsewhere|not online) \| (.*) \|$", re.M)

Apply = Callable[..., Any]


def doc_rows(text: str | None = None) -> dict[str, tuple[str, str]]:
    """docs/rules.md's id table: id -> (status, how)."""
    text = DOC.read_text(encoding="utf-8") if text is None else text
    return {m[1]: (m[2], m[3].strip()) for m in ROW.finditer(text)}


def marked_tested() -> list[str]:
    return [rule for rule, (status, _) in doc_rows().items() if status == "tested"]


def never_fired(tested: Iterable[str], fired: Iterable[str]) -> list[str]:
    seen = set(fired)
    return [rule for rule in tested if rule not in seen]


def observed(original: Apply, fired: set[str]) -> Apply:
    """``original`` (the referee's ``apply``) adding the ids each transition applied to
    ``fired``; a refusal's rule counts too (it is that rule applied)."""
    from shared.rules.verdict import IllegalAction

    @functools.wraps(original)
    def apply(*args: Any, **kwargs: Any) -> Any:
        try:
            state, verdict = original(*args, **kwargs)
        except IllegalAction as exc:
            if exc.rule_id is not None:
                fired.add(exc.rule_id)
            raise
        fired.update(verdict.rules)
        return state, verdict

    return apply


def swap(old: object, new: object) -> int:
    """Rebind every module-level name bound to ``old`` to ``new``; how many were rebound."""
    count = 0
    for module in list(sys.modules.values()):
        names = getattr(module, "__dict__", None)
        if not isinstance(names, dict):
            continue
        for name, value in list(names.items()):
            if value is old:
                names[name] = new
                count += 1
    return count


class RuleCoverage:
    """The plugin's state for one run: the ids fired here (and, on the controller, by the
    workers), and the referee's own ``apply`` to put back at the end."""

    def __init__(self, config: pytest.Config) -> None:
        import shared.rules.referee as referee

        self.config = config
        self.fired: set[str] = set()
        self.original: Apply = referee.apply
        self.wrapper = observed(self.original, self.fired)
        self.summary: list[str] = []
        swap(self.original, self.wrapper)

    def close(self) -> None:
        swap(self.wrapper, self.original)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # A module that imported the referee's apply before the swap (a plugin, a conftest
        # imported early) is caught here, before any test runs.
        swap(self.original, self.wrapper)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        # xdist controller: a worker is done; its ids join ours.
        self.fired.update(getattr(node, "workeroutput", {}).get(WORKER_KEY, ()))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller decides
            workeroutput[WORKER_KEY] = sorted(self.fired)
            return
        if self.config.option.collectonly:  # nothing ran, nothing to judge
            return
        tested = marked_tested()
        missing = never_fired(tested, self.fired)
        fired = len(tested) - len(missing)
        self.summary = [f"rules fired: {fired} of {len(tested)} marked tested"]
        if missing:
            self.summary.append(
                "marked tested in docs/rules.md but never applied by the referee during the "
                f"run: {', '.join(missing)}"
            )
            if session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        for i, line in enumerate(self.summary):
            terminalreporter.write_line(line, red=i > 0, bold=i > 0)


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get(ENV) == "1":
        config.pluginmanager.register(RuleCoverage(config), "carom-rule-coverage")


def pytest_unconfigure(config: pytest.Config) -> None:
    plugin = config.pluginmanager.get_plugin("carom-rule-coverage")
    if isinstance(plugin, RuleCoverage):
        plugin.close()
        config.pluginmanager.unregister(plugin)
