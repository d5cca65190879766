"""``make test`` bootstraps once: after an install, the setup target has nothing left to do."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
@pytest.mark.skipif(
    not (ROOT / ".venv" / ".installed").exists(), reason="suite not started through make"
)
def test_setup_is_up_to_date_after_install() -> None:
    # `make -q` exits 0 only when the target is up to date, i.e. nothing would be reinstalled.
    proc = subprocess.run(["make", "-q", "setup"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, "make would reinstall the environment although nothing changed"


def test_ci_script_runs_the_suite_through_make() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    assert "make test" in script


def _venv_interpreter(*args: str) -> str:
    """The interpreter ``make setup`` would make the venv from, with ``args`` given to make."""
    out = subprocess.run(
        ["make", "-n", "-B", *args, ".venv/.installed"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    command = next(line for line in out.splitlines() if "-m venv" in line)
    return command.split("||")[-1].split()[0]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_the_venv_is_made_from_the_distributions_python_where_it_is_recent_enough() -> None:
    # The distribution's CPython is built with profile-guided optimisation; a version manager's
    # usually is not, and the suite spends a quarter more CPU on it (docs/benchmarks.md).
    system = Path("/usr/bin/python3")
    recent = (
        system.exists()
        and subprocess.run(
            [str(system), "-c", "import sys, venv; sys.exit(sys.version_info < (3, 11))"]
        ).returncode
        == 0
    )
    expected = "/usr/bin/python3" if recent else "python3"
    assert _venv_interpreter() == expected
    assert _venv_interpreter("PYTHON=python3.11") == "python3.11"
