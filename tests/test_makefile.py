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
