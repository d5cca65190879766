"""Tournaments in the real SQLite file (server/tournament_book.py) and ``carom admin``."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from server.core.accounts import name_key
from server.core.tournament import (
    Format,
    OpenTable,
    Phase,
    Score,
    TournamentError,
    TournamentOptions,
)
from server.credentials import hash_password
from server.store.sqlite import SCHEMA_VERSION, Store

T0 = 1_700_000_000_000


def opts(**kw: object) -> TournamentOptions:
    base: dict[str, object] = {
        "name": "Friday",
        "discipline": "three_cushion",
        "distance": 5,
        "format": Format.KNOCKOUT,
        "capacity": 4,
        "registration_closes_ms": T0 + 1000,
        "starts_ms": T0 + 2000,
    }
    base.update(kw)
    return TournamentOptions(**base)  # type: ignore[arg-type]


def test_schema_5_has_the_tournament_tables(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        assert SCHEMA_VERSION == 5
        tables = {r[0] for r in store.db.execute("SELECT name FROM sqlite_master")}
        assert {"organizers", "tournaments", "tournament_players", "tournament_matches"} <= tables


def test_a_version_4_file_gains_the_tables(tmp_path: Path) -> None:
    path = str(tmp_path / "old.db")
    with Store(path):
        pass
    con = sqlite3.connect(path)
    for table in ("organizers", "tournaments", "tournament_players", "tournament_matches"):
        con.execute(f"DROP TABLE {table}")
    con.execute("PRAGMA user_version = 4")
    con.commit()
    con.close()
    with Store(path) as store:
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == 5
        store.tournaments.create("org", opts(), T0)
        assert len(store.tournaments.listing()) == 1


def test_organizer_rights(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        book = store.tournaments
        assert not book.is_organizer("p1")
        assert book.grant_organizer("p1", T0)
        assert not book.grant_organizer("p1", T0)  # already
        assert book.is_organizer("p1")
        assert book.revoke_organizer("p1")
        assert not book.revoke_organizer("p1")
        assert not book.is_organizer("p1")


def test_registration_is_checked_in_the_store(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        book = store.tournaments
        t = book.create("org", opts(capacity=2), T0)
        book.register(t.tournament_id, "a", "Ann", T0 + 1)
        book.register(t.tournament_id, "b", "Bob", T0 + 2)
        with pytest.raises(TournamentError) as full:
            book.register(t.tournament_id, "c", "Cy", T0 + 3)
        assert full.value.code == "tournament_full"
        book.unregister(t.tournament_id, "b", T0 + 4)
        with pytest.raises(TournamentError) as closed:
            book.register(t.tournament_id, "c", "Cy", T0 + 1000)
        assert closed.value.code == "registration_closed"
        with pytest.raises(TournamentError) as missing:
            book.register("tnone", "c", "Cy", T0 + 5)
        assert missing.value.code == "no_such_tournament"
        loaded = book.load(t.tournament_id)
        assert loaded is not None
        assert [e.player_id for e in loaded.entrants] == ["a"]


def test_a_running_event_survives_a_reopen(tmp_path: Path) -> None:
    path = str(tmp_path / "c.db")
    with Store(path) as store:
        book = store.tournaments
        t = book.create("org", opts(format=Format.SWISS, rounds=2), T0)
        for i, pid in enumerate(["a", "b", "c", "d"]):
            book.register(t.tournament_id, pid, pid.upper(), T0 + i)
        t = book.load(t.tournament_id)
        assert t is not None
        steps = t.due(T0 + 2000, {"a": 1900, "b": 1800, "c": 1700, "d": 1600})
        assert all(isinstance(s, OpenTable) for s in steps)
        for s in steps:
            t.table_opened(s.key, f"room{s.key[1]}", T0 + 2000)
        t.started(steps[0].key, 42)
        t.finished(steps[0].key, "a", "distance", {"a": Score(5, 7, 3), "c": Score(2, 7, 1)})
        t.seated(steps[1].key, "b")
        before = book.writes
        book.save(t, T0 + 3000)
        assert book.writes > before
        assert not t.changed and not t.entrants_changed
        assert book.tournament_of_room("room1") == (t.tournament_id, steps[1].key)
        id_ = t.tournament_id
        expected = t
    with Store(path) as store:
        again = store.tournaments.load(id_)
    assert again is not None
    assert again.phase is Phase.RUNNING
    assert again.entrants == expected.entrants
    assert again.rounds == expected.rounds
    assert again.version == expected.version
    assert again.standings() == expected.standings()


def test_one_runner_holds_an_event_until_its_lease_ends(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        book = store.tournaments
        t = book.create("org", opts(), T0)
        assert book.claim(t.tournament_id, "n1", T0, 10_000)
        assert not book.claim(t.tournament_id, "n2", T0 + 5_000, 10_000)
        assert book.claim(t.tournament_id, "n1", T0 + 5_000, 10_000)  # renewed
        assert not book.claim(t.tournament_id, "n2", T0 + 14_000, 10_000)
        assert book.claim(t.tournament_id, "n2", T0 + 15_001, 10_000)  # ran out: taken over
        book.release(t.tournament_id, "n2")
        assert book.claim(t.tournament_id, "n3", T0 + 15_002, 10_000)


def _carom(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "client.cli", *args], capture_output=True, text=True, timeout=60
    )


def test_carom_admin_grants_and_revokes_by_name(tmp_path: Path) -> None:
    path = str(tmp_path / "c.db")
    with Store(path) as store:
        store.standings.register("pann", "Ann", name_key("Ann"), hash_password("x" * 10), False, T0)
    granted = _carom("admin", "grant-organizer", "ann", "--db", path)
    assert granted.returncode == 0, granted.stderr
    assert "Ann may now organize tournaments" in granted.stdout
    with Store(path) as store:
        assert store.tournaments.is_organizer("pann")
    revoked = _carom("admin", "revoke-organizer", "Ann", "--db", path)
    assert revoked.returncode == 0 and "no longer" in revoked.stdout
    unknown = _carom("admin", "grant-organizer", "nobody", "--db", path)
    assert unknown.returncode == 1 and "no account named 'nobody'" in unknown.stderr
    with Store(path) as store:
        assert not store.tournaments.is_organizer("pann")


def test_two_postgres_nodes_share_places_and_leases(pg_url: str) -> None:
    """Two nodes on one PostgreSQL (migration 4): the last place goes to one of them, the
    other sees the event full; one runner holds an event until its lease ends."""
    from server.store.postgres import PostgresStore

    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        t = a.tournaments.create("org", opts(capacity=2), T0)
        a.tournaments.register(t.tournament_id, "p1", "One", T0 + 1)
        b.tournaments.register(t.tournament_id, "p2", "Two", T0 + 2)
        with pytest.raises(TournamentError) as full:
            a.tournaments.register(t.tournament_id, "p3", "Three", T0 + 3)
        assert full.value.code == "tournament_full"
        assert b.tournaments.claim(t.tournament_id, "node-b", T0, 10_000)
        assert not a.tournaments.claim(t.tournament_id, "node-a", T0 + 1, 10_000)
        assert a.tournaments.claim(t.tournament_id, "node-a", T0 + 10_001, 10_000)
        loaded = b.tournaments.load(t.tournament_id)
        assert loaded is not None and [e.name for e in loaded.entrants] == ["One", "Two"]
        steps = loaded.due(T0 + 2000, {"p1": 1600.0, "p2": 1700.0})
        assert [s.players for s in steps if isinstance(s, OpenTable)] == [("p2", "p1")]
        b.tournaments.save(loaded, T0 + 2000)
        again = a.tournaments.load(t.tournament_id)
        assert again is not None and again.rounds == loaded.rounds
        assert [e.seed for e in again.entrants] == [1, 2]
    finally:
        a.close()
        b.close()
