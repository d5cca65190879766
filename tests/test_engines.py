"""The shared PostgreSQL of a parallel run: the controller starts it beside the workers and writes
how that went to a file; a worker's first PostgreSQL test waits for that file."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from tests import engines


def test_a_worker_waits_for_the_controllers_port(tmp_path: Path) -> None:
    outcome = tmp_path / "outcome"
    late = threading.Timer(0.3, lambda: outcome.write_text("port 54321"))
    late.start()
    try:
        pg = engines.shared_postgres(outcome)
    finally:
        late.cancel()
    assert pg.port == 54321
    assert pg.url("x") == "postgresql://postgres@127.0.0.1:54321/x"


def test_a_failed_start_is_the_tests_error_in_the_controllers_words(tmp_path: Path) -> None:
    outcome = tmp_path / "outcome"
    outcome.write_text("error: the shared PostgreSQL did not start: initdb failed: disk full")
    with pytest.raises(RuntimeError, match=r"^the shared PostgreSQL did not start: initdb failed"):
        engines.shared_postgres(outcome)


def test_a_start_that_never_ends_is_an_error_not_a_hang(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(engines, "READY_WAIT_S", 0.2)
    with pytest.raises(RuntimeError, match=r"was not up after 0\.2 s"):
        engines.shared_postgres(tmp_path / "never")
