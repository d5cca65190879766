"""Password hashing: scrypt at the cost RFC 7914 suggests unless an operator sets another, each
hash carrying its own cost (server/credentials.py). The suite itself runs at cost 10
(tests/conftest.py); these tests set the cost they check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.credentials import COST_ENV, check_password, hash_password, password_cost


def test_without_a_setting_new_hashes_cost_two_to_the_fourteen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(COST_ENV, raising=False)
    assert password_cost() == 14
    stored = hash_password("correct horse")
    assert stored.startswith("scrypt$16384$8$1$")
    assert check_password("correct horse", stored)
    assert not check_password("correct hors", stored)


def test_a_hash_keeps_its_own_cost_when_the_setting_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(COST_ENV, "10")
    cheap = hash_password("pass word")
    assert cheap.startswith("scrypt$1024$")
    monkeypatch.setenv(COST_ENV, "14")
    dear = hash_password("pass word")
    assert check_password("pass word", cheap) and check_password("pass word", dear)
    monkeypatch.setenv(COST_ENV, "10")
    assert check_password("pass word", dear) and not check_password("password", dear)


@pytest.mark.parametrize("bad", ["9", "21", "fast", "-1"])
def test_a_cost_out_of_range_is_refused_plainly(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv(COST_ENV, bad)
    with pytest.raises(ValueError, match="from 10 to 20"):
        hash_password("anything")


def test_the_server_will_not_start_with_a_bad_cost(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "server", "--port", "0", "--db", str(tmp_path / "x.db")],
        env={**os.environ, COST_ENV: "99"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert "CAROM_PASSWORD_COST must be a whole number from 10 to 20" in proc.stderr
