"""Accounts, quick match, leaderboards and profiles over the real server on loopback."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from server.credentials import COST_ENV, DEFAULT_COST
from server.net import desk
from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.wire import Wire

PASSWORD = "correct horse battery"


async def test_register_then_login_from_another_connection(url: str) -> None:
    ann = await Wire.open(url, "ann")
    assert ann.welcome is not None
    guest_id = ann.welcome.player_id
    reg = await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    # Registering keeps the identity (and its history) and hands out a new token.
    assert reg.player_id == guest_id and reg.token != ann.welcome.token
    # Another machine: a fresh guest logs in and becomes Ann.
    other = await Wire.open(url, "somebody")
    assert other.welcome is not None and other.welcome.player_id != guest_id
    login = await other.request(ts.Login(name="ann", password=PASSWORD), tc.Welcome)
    assert login.player_id == guest_id and login.token not in (reg.token, ann.welcome.token)
    # Every token handed out keeps working in hello (the old machine stays logged in).
    for token in (ann.welcome.token, reg.token, login.token):
        again = await Wire.open(url, "x", token=token)
        assert again.welcome is not None and again.welcome.player_id == guest_id
    # Names are unique case-insensitively and by look-alikes.
    bob = await Wire.open(url, "bob")
    for taken in ("ANN", "Ann ", "Аnn"):  # the last starts with a Cyrillic А
        err = await bob.refused(ts.Register(name=taken, password=PASSWORD))
        assert err.code in ("name_taken", "bad_name"), (taken, err)
    assert (await bob.refused(ts.Register(name="A_n-n", password=PASSWORD))).code == "name_taken"
    assert (await ann.refused(ts.Register(name="Ann2", password=PASSWORD))).code == (
        "already_registered"
    )
    short = await bob.refused(ts.Register(name="Bob", password="short"))
    assert short.code == "bad_field" and "at least 8" in short.message
    assert (await bob.refused(ts.Register(name="admin", password=PASSWORD))).code == "bad_name"


async def test_wrong_password_and_unknown_name_get_the_same_answer(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The production cost (the suite's is lower): a hash then takes tens of milliseconds.
    monkeypatch.setenv(COST_ENV, str(DEFAULT_COST))
    ann = await Wire.open(url, "ann")
    await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    eve = await Wire.open(url, "eve")
    t0 = time.perf_counter()
    wrong = await eve.refused(ts.Login(name="Ann", password="not the password"))
    t_wrong = time.perf_counter() - t0
    t0 = time.perf_counter()
    unknown = await eve.refused(ts.Login(name="Nobody", password="not the password"))
    t_unknown = time.perf_counter() - t0
    assert (wrong.code, wrong.message) == (unknown.code, unknown.message)
    assert wrong.code == "bad_login"
    # Both ran scrypt: neither answer comes back measurably faster than a hash.
    assert min(t_wrong, t_unknown) > 0.01


async def test_brute_force_is_slowed_per_name_and_per_connection(url: str) -> None:
    ann = await Wire.open(url, "ann")
    await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    # Five wrong guesses at Ann from five connections: then even the right password waits.
    for i in range(5):
        guesser = await Wire.open(url, f"guesser{i}")
        err = await guesser.refused(ts.Login(name="Ann", password=f"guess number {i}"))
        assert err.code == "bad_login"
    late = await Wire.open(url, "late")
    limited = await late.refused(ts.Login(name="Ann", password=PASSWORD))
    assert limited.code == "rate_limited" and "try again in" in limited.message
    # One connection trying many names is stopped after ten attempts.
    spray = await Wire.open(url, "spray")
    codes = [
        (await spray.refused(ts.Login(name=f"user{i}", password="password1"))).code
        for i in range(11)
    ]
    assert codes[:10] == ["bad_login"] * 10 and codes[10] == "rate_limited"


def stored_hashes(db_path: str) -> list[str]:
    """The password hashes as the database holds them, read with the engine's own client."""
    if db_path.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(db_path) as pg:
            return [h for (h,) in pg.execute("SELECT password_hash FROM accounts")]
    db = sqlite3.connect(db_path)
    try:
        return [h for (h,) in db.execute("SELECT password_hash FROM accounts")]
    finally:
        db.close()


async def test_passwords_are_not_recoverable_from_the_database(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    db_path = server.config.db_path
    ann = await Wire.open(url, "ann")
    await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    if not db_path.startswith("postgresql://"):
        # The SQLite file and its journal hold no trace of the password, in any page.
        raw = b"".join(p.read_bytes() for p in tmp_path.glob("carom.db*"))
        assert PASSWORD.encode() not in raw
    [stored] = stored_hashes(db_path)
    assert stored.startswith("scrypt$") and PASSWORD not in stored
    # Two accounts with one password store different hashes (salted).
    bob = await Wire.open(url, "bob")
    await bob.request(ts.Register(name="Bob", password=PASSWORD), tc.Welcome)
    hashes = stored_hashes(db_path)
    assert len(hashes) == 2 and len(set(hashes)) == 2


async def test_register_does_not_stall_other_players(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # scrypt runs off the event loop: while passwords are being hashed, other players get their
    # answers. The real hash is held until the pinger has had its answer; had it run on the loop
    # (the test's loop too), no answer could come and the held hash would fail after 10 s.
    started, answered = threading.Event(), threading.Event()
    real = desk.hash_password

    def held(password: str, cost: int | None = None) -> str:
        started.set()
        assert answered.wait(10), "nobody was answered while a password was being hashed"
        return real(password, cost)

    monkeypatch.setattr(desk, "hash_password", held)
    users = [await Wire.open(url, f"u{i}") for i in range(6)]
    pinger = await Wire.open(url, "pinger")
    tasks = [
        asyncio.create_task(u.request(ts.Register(name=f"User {i}", password=PASSWORD), tc.Welcome))
        for i, u in enumerate(users)
    ]
    assert await asyncio.to_thread(started.wait, 10)
    await pinger.request(ts.Ping(), tc.Pong)
    assert not any(t.done() for t in tasks)  # the pong came while all six still waited
    answered.set()
    welcomes = await asyncio.gather(*tasks)
    assert len({w.player_id for w in welcomes}) == 6


async def test_leaderboard_and_profile_after_a_rated_match(url: str) -> None:
    ann = await Wire.open(url, "ann")
    bob = await Wire.open(url, "bob")
    guest = await Wire.open(url, "guest")
    for w, name in ((ann, "Ann"), (bob, "Bob")):
        await w.request(ts.Register(name=name, password=PASSWORD), tc.Welcome)
    rid = (await ann.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    await bob.request(ts.Join(room_id=rid), tc.Joined)
    await ann.expect(tc.Call, where=lambda c: c.code == "lag")
    await ann.send(ts.Concede())  # a concede counts as a loss
    over = await bob.expect(tc.GameOver)
    rated = await bob.expect(tc.Rated, timeout=5)
    assert rated.match_id == over.match_id and rated.before == 1500 < rated.after
    assert (await ann.expect(tc.Rated)).after < 1500
    board = await guest.request(ts.GetLeaderboard(discipline="one_cushion"), tc.Leaderboard)
    assert [(r.rank, r.name) for r in board.rows] == [(1, "Bob"), (2, "Ann")]
    assert all(r.standing.provisional for r in board.rows)  # one game: far from settled
    assert (
        await guest.request(ts.GetLeaderboard(discipline="one_cushion", offset=1), tc.Leaderboard)
    ).rows[0].rank == 2
    empty = await guest.request(ts.GetLeaderboard(discipline="three_cushion"), tc.Leaderboard)
    assert empty.rows == ()
    assert bob.welcome is not None
    profile = await guest.request(ts.GetProfile(player_id=bob.welcome.player_id), tc.Profile)
    assert profile.name == "Bob" and profile.registered and not profile.bot
    (standing,) = profile.standings
    assert standing.discipline == "one_cushion" and standing.standing.wins == 1
    (line,) = profile.matches
    assert line.result == "win" and line.reason == "concede"
    assert line.opponent.name == "Ann" and line.rating_after == rated.after
    replay = await guest.request(ts.GetReplay(match_id=line.match_id), tc.Replay)
    assert replay.finished
    missing = await guest.refused(ts.GetProfile(player_id="pnobody"))
    assert missing.code == "no_such_player"


async def test_a_registered_name_cannot_be_worn_by_someone_else(url: str) -> None:
    ann = await Wire.open(url, "ann")
    reg = await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    # Ann comes back with her token but another name: she is still shown as Ann.
    back = await Wire.open(url, "Mallory", token=reg.token)
    impostor = await Wire.open(url, "ANN")  # a guest trying her name
    rid = (await back.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
    await back.request(ts.Join(room_id=rid), tc.Joined)
    await impostor.request(ts.Join(room_id=rid), tc.Joined)
    snap = await impostor.expect(tc.Snapshot)
    assert snap.room.players == ("Ann", "ANN (guest)")


async def test_metrics_show_logins_and_the_quick_match_queue(server: GameServer, url: str) -> None:
    import urllib.request

    ann = await Wire.open(url, "ann")
    await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    eve = await Wire.open(url, "eve")
    await eve.refused(ts.Login(name="Ann", password="wrong guess"))
    await ann.request(ts.Queue(discipline="three_cushion"), tc.Queued)

    def get() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics", timeout=5) as r:
            return str(r.read().decode())

    body = await asyncio.to_thread(get)
    assert "carom_quick_match_waiting 1" in body
    assert 'carom_logins_total{result="failed"} 1' in body
    assert "carom_registrations_total 1" in body
