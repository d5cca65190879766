"""The identity token survives between runs, privately, per server and name."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from client.identity import IdentityStore, default_path


def test_token_is_saved_privately_and_found_again(tmp_path: Path) -> None:
    path = tmp_path / "carom" / "identity.json"
    IdentityStore(path).save("ws://a:1/", "ann", "tok-1")
    again = IdentityStore(path)
    assert again.load("ws://a:1/", "ann") == "tok-1"
    assert again.load("ws://a:1/", "bob") is None
    assert again.load("ws://b:1/", "ann") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_damaged_file_starts_fresh_and_is_kept_aside(tmp_path: Path) -> None:
    path = tmp_path / "identity.json"
    path.write_text("{not json", encoding="utf-8")
    store = IdentityStore(path)
    assert store.load("ws://a:1/", "ann") is None
    assert (tmp_path / "identity.damaged").read_text(encoding="utf-8") == "{not json"
    store.save("ws://a:1/", "ann", "tok")
    assert store.load("ws://a:1/", "ann") == "tok"


def test_default_path_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CAROM_IDENTITY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_path() == tmp_path / "carom" / "identity.json"
    monkeypatch.setenv("CAROM_IDENTITY", str(tmp_path / "x.json"))
    assert default_path() == tmp_path / "x.json"
