"""``--fork-workers`` (``tests/forking.py``, what ``make test`` runs): the xdist workers are forks
of the controller, and each looks to its tests like the new interpreter xdist would start."""

from __future__ import annotations

import pytest

SUITE = """
import logging
import os
import sys
from pathlib import Path


def test_the_worker_is_a_fork_of_the_controller():
    # A fork keeps its parent's command line; a worker started by execnet has its own.
    mine = Path("/proc/self/cmdline").read_bytes()
    assert b"--fork-workers" in mine
    assert Path(f"/proc/{os.getppid()}/cmdline").read_bytes() == mine


def test_the_worker_looks_like_python_dash_c():
    # A process pool started with "spawn" re-imports the parent's __main__ from its file: the
    # controller's (pytest's) must not be it.
    assert sys.argv == ["-c"]
    assert not hasattr(sys.modules["__main__"], "__file__")
    # Only what a new interpreter has open, and what this worker opened itself: none of the
    # controller's pipes to the other workers.
    pipes = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the listing's own descriptor, closed by now
            continue
        if target.startswith("pipe:"):
            pipes.append(target)
    # A started worker has four (its two ends with the controller, stderr, a copy of it); a fork
    # that kept the controller's descriptors had twelve.
    assert len(pipes) <= 6, pipes


def test_a_workers_log_stays_in_its_report():
    logging.getLogger("carom.test").warning("a stray line from the worker")
"""


def test_forked_workers_run_the_suite_as_started_ones_would(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_forked=SUITE)
    result = pytester.runpytest_subprocess(
        "-p", "tests.forking", "-p", "no:cacheprovider", "-n", "2", "--fork-workers", "-q"
    )
    result.assert_outcomes(passed=3)
    assert "a stray line from the worker" not in result.stdout.str()
    assert "cannot be rewritten" not in result.stdout.str()
