"""Accounts, quick match, leaderboards and profiles over the real server on loopback."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

from server.lobby import GameServer
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


async def test_wrong_password_and_unknown_name_get_the_same_answer(url: str) -> None:
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


async def test_passwords_are_not_recoverable_from_the_database(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    ann = await Wire.open(url, "ann")
    await ann.request(ts.Register(name="Ann", password=PASSWORD), tc.Welcome)
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("carom.db*"))
    assert PASSWORD.encode() not in raw
    db = sqlite3.connect(tmp_path / "carom.db")
    (stored,) = db.execute("SELECT password_hash FROM accounts").fetchone()
    db.close()
    assert stored.startswith("scrypt$") and PASSWORD not in stored
    # Two accounts with one password store different hashes (salted).
    bob = await Wire.open(url, "bob")
    await bob.request(ts.Register(name="Bob", password=PASSWORD), tc.Welcome)
    db = sqlite3.connect(tmp_path / "carom.db")
    hashes = {h for (h,) in db.execute("SELECT password_hash FROM accounts")}
    db.close()
    assert len(hashes) == 2


async def test_register_does_not_stall_other_players(url: str) -> None:
    # scrypt runs off the event loop: pings keep being answered while six hashes run.
    users = [await Wire.open(url, f"u{i}") for i in range(6)]
    pinger = await Wire.open(url, "pinger")
    tasks = [
        asyncio.create_task(u.request(ts.Register(name=f"User {i}", password=PASSWORD), tc.Welcome))
        for i, u in enumerate(users)
    ]
    worst = 0.0
    while not all(t.done() for t in tasks):
        t0 = time.perf_counter()
        await pinger.request(ts.Ping(), tc.Pong)
        worst = max(worst, time.perf_counter() - t0)
        await asyncio.sleep(0.05)  # within the message rate limit
    await asyncio.gather(*tasks)
    assert worst < 0.2
