"""A parallel test run sent SIGTERM (``tests/stopping.py``) tears its tests down: the processes
they started end with it, and so do its workers. Run on a small suite of its own, in a real
pytest with two xdist workers, each test holding a child process until its teardown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.procs import children

ROOT = Path(__file__).resolve().parent.parent

CONFTEST = """
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest_plugins = ["tests.forking", "tests.stopping"]


@pytest.fixture
def helper(tmp_path_factory):
    # A process the test needs, ended by the fixture's teardown (as the suite's servers are).
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    # A slow teardown, as a cluster's nodes take to drain and stop: longer than xdist gives a
    # worker (it interrupts it 5 s after the controller has gone, and kills it 10 s later).
    time.sleep(12)
    proc.terminate()
    proc.wait(10)
    (Path(os.environ["HELPERS"]) / str(proc.pid)).unlink()


def running(helper):
    # Written from the test's body, so the fixture is set up and its teardown will run.
    (Path(os.environ["HELPERS"]) / str(helper.pid)).write_text("")
"""

SUITE = """
import time

from conftest import running


def test_one(helper):
    running(helper)
    time.sleep(600)


def test_two(helper):
    running(helper)
    time.sleep(600)
"""


def _until(check: object, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("fork", [False, True], ids=["started", "forked"])
def test_sigterm_to_a_parallel_run_tears_every_test_down(tmp_path: Path, fork: bool) -> None:
    """Workers started as new interpreters, or forked from the controller (``--fork-workers``,
    what ``make test`` runs: their command line is the controller's)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "conftest.py").write_text(CONFTEST)
    (suite / "test_sleepy.py").write_text(SUITE)
    helpers = tmp_path / "helpers"
    helpers.mkdir()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "HELPERS": str(helpers),
        "PYTEST_ADDOPTS": "",
    }
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", str(suite)]
    if fork:
        command.append("--fork-workers")
    run = subprocess.Popen(
        [*command, "-p", "no:cacheprovider", "-p", "no:asyncio"],
        cwd=suite,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    started: list[int] = []
    workers: list[int] = []
    try:
        # Both workers are inside a test, each with its helper running.
        _until(lambda: len(list(helpers.iterdir())) == 2, timeout=60)
        started = [int(p.name) for p in helpers.iterdir()]
        workers = [pid for pid, _ in children(run.pid)]
        assert all(_alive(pid) for pid in started)
        run.send_signal(signal.SIGTERM)  # to the controller alone, as `kill PID` does
        out, _ = run.communicate(timeout=90)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()
        for pid in [*started, *workers]:  # whatever a failed stop left behind
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    # The helpers were ended by their fixtures' teardown, not left to run for ten minutes.
    assert not any(_alive(pid) for pid in started), out
    assert list(helpers.iterdir()) == [], out
    assert not any(_alive(pid) for pid in workers), out
    assert "stopped by signal 15" in out, out
