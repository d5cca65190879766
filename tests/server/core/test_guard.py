"""Backoff against password guessing (issue 12, point 7): the pure core with a fake clock."""

from __future__ import annotations

from server.core.guard import PasswordGuard, keys


def test_a_few_mistakes_are_free_then_each_wrong_guess_doubles_the_wait() -> None:
    g = PasswordGuard()
    mine = keys("r1", "pmallory", "10.0.0.9")
    t = 1000.0
    for _ in range(3):  # typos happen
        assert g.wait(mine, t) == 0
        g.failed(mine, t)
    assert g.wait(mine, t) == 0
    g.failed(mine, t)  # the fourth
    assert g.wait(mine, t) == 1.0
    waits = []
    for _ in range(4):
        t += g.wait(mine, t)
        g.failed(mine, t)
        waits.append(g.wait(mine, t))
    assert waits == [2.0, 4.0, 8.0, 16.0]
    # Another identity from elsewhere is not held back by mallory (the room has room left).
    assert g.wait(keys("r1", "pann", "10.0.0.1"), t) == 0
    # A new identity from mallory's address is: the address has its own tally.
    for i in range(5):
        g.failed(keys(f"r{i + 2}", f"pnew{i}", "10.0.0.9"), t)
    assert g.wait(keys("r9", "pnewest", "10.0.0.9"), t) > 0
    # Ten quiet minutes later, everything starts over.
    assert g.wait(mine, t + 601) == 0


def test_guessing_one_room_from_many_identities_backs_the_room_off() -> None:
    g = PasswordGuard()
    t = 5.0
    for i in range(21):
        g.failed(keys("r1", f"p{i}", f"10.0.{i}.1"), t)
    assert g.wait(keys("r1", "pfresh", "10.9.9.9"), t) > 0
    assert g.wait(keys("r2", "pfresh", "10.9.9.9"), t) == 0


def test_the_right_password_clears_only_the_pair() -> None:
    g = PasswordGuard()
    k = keys("r1", "pann", "10.0.0.1")
    for _ in range(5):
        g.failed(k, 0.0)
    g.succeeded(k)
    assert g.wait(keys("r1", "pann", "10.0.0.1"), 0.0) == 0  # identity's 5 < 6 free
