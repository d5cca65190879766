"""The lobby's policy core (server/core/lobby.py), driven by hand: a fake clock, no sockets.

These replace the socket tests that only checked a limit's arithmetic (rate limit, strikes, room
caps across reconnects, password backoff, replay pacing, the hello deadline, the connection
caps); the gateway's wiring of each stays covered end to end in tests/server/net/test_gateway.py.
"""

from __future__ import annotations

import pytest

from server.config import ServerConfig
from server.core.lobby import (
    CLOSE_GOING_AWAY,
    CLOSE_POLICY,
    CLOSE_TRY_LATER,
    Caller,
    Lobby,
    Out,
    Refused,
    Route,
)
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts


def _lobby(**limits: object) -> Lobby:
    return Lobby(ServerConfig(**limits))  # type: ignore[arg-type]


def _caller(lobby: Lobby, addr: str = "10.0.0.1", now: float = 0.0) -> Caller:
    caller = lobby.open(addr, now)
    assert isinstance(caller, Caller)
    return caller


def _greeted(lobby: Lobby, player: str, addr: str = "10.0.0.1") -> Caller:
    caller = _caller(lobby, addr)
    lobby.greeted(caller.conn, player, player)
    return caller


def _codes(out: Out | None) -> list[str]:
    assert out is not None
    return [m.code for _, m in out.replies if isinstance(m, tc.Error)]


def test_a_burst_then_the_rate_and_strikes_close_the_flooder() -> None:
    lobby = _lobby(rate=10.0, burst=5.0, max_strikes=3)
    c = _caller(lobby)
    assert all(lobby.frame(c.conn, 0.0) is None for _ in range(5))  # the burst
    refused = lobby.frame(c.conn, 0.0)
    assert _codes(refused) == ["rate_limited"] and refused is not None and not refused.closes
    assert lobby.frame(c.conn, 0.1) is None  # 0.1 s at 10/s refilled one message
    lobby.frame(c.conn, 0.1)
    closing = lobby.frame(c.conn, 0.1)  # third strike
    assert closing is not None and closing.closes == [
        (c.conn, CLOSE_POLICY, "too many bad messages")
    ]
    # Once a close is decided it is not decided again.
    again = lobby.frame(c.conn, 0.1)
    assert again is not None and not again.closes


def test_bad_frames_are_answered_and_count_as_strikes() -> None:
    lobby = _lobby(max_strikes=2)
    c = _caller(lobby)
    bad = tc.Error(code="bad_message", message="not msgpack", re=None)
    first = lobby.bad_frame(c.conn, bad)
    assert first.replies == [(c.conn, bad)] and not first.closes
    assert lobby.bad_frame(c.conn, bad).closes == [(c.conn, CLOSE_POLICY, "too many bad messages")]


def test_only_ping_and_hello_before_hello_and_every_message_has_a_route() -> None:
    lobby = _lobby()
    c = _caller(lobby)
    assert lobby.route(c.conn, ts.Ping()) is Route.PING
    assert lobby.route(c.conn, ts.Hello(v=1, name="ann")) is Route.HELLO
    assert _codes(lobby.route(c.conn, ts.ListRooms(id=3))) == ["hello_first"]  # type: ignore[arg-type]
    assert _codes(lobby.route(c.conn, ts.Chat(text="hi"))) == ["hello_first"]  # type: ignore[arg-type]
    assert lobby.hello_refusal(c.conn, ts.Hello(v=2, name="x")) is not None
    assert lobby.hello_refusal(c.conn, ts.Hello(v=1, name="x")) is None
    lobby.greeted(c.conn, "p1", "ann")
    refusal = lobby.hello_refusal(c.conn, ts.Hello(v=1, name="x"))
    assert refusal is not None and refusal.code == "already_greeted"
    assert lobby.route(c.conn, ts.ListRooms()) is Route.LIST_ROOMS
    assert lobby.route(c.conn, ts.CreateRoom(discipline="one_cushion")) is Route.CREATE
    assert lobby.route(c.conn, ts.Spectate(room_id="r1")) is Route.ENTER
    assert lobby.route(c.conn, ts.GetReplay(match_id=1)) is Route.REPLAY
    assert lobby.route(c.conn, ts.GetLeaderboard(discipline="three_cushion")) is Route.DESK
    assert lobby.route(c.conn, ts.Chat(text="hi")) is Route.ROOM


def test_a_connection_that_never_says_hello_is_closed_at_the_deadline() -> None:
    lobby = _lobby()
    silent, greeted = _caller(lobby), _greeted(lobby, "ann")
    assert lobby.hello_late(silent.conn).closes == [(silent.conn, CLOSE_POLICY, "no hello in time")]
    assert not lobby.hello_late(greeted.conn)


def test_connections_are_capped_per_address_and_in_all_and_refused_while_draining() -> None:
    lobby = _lobby(max_connections_per_address=2, max_connections=3)
    assert lobby.tcp_opened("10.0.0.1") and lobby.tcp_opened("10.0.0.1")
    assert not lobby.tcp_opened("10.0.0.1")  # handshakes in progress count too
    assert lobby.tcp_opened("10.0.0.2")
    lobby.tcp_closed("10.0.0.1")
    assert lobby.tcp_opened("10.0.0.1")  # room again once one went away
    lobby.trusted_peers.add("10.0.0.9")  # another cluster node relaying its clients
    assert all(lobby.tcp_opened("10.0.0.9") for _ in range(5))
    for _ in range(3):
        _caller(lobby)
    assert lobby.open("10.0.0.3", 0.0) == Refused(CLOSE_TRY_LATER, "server full")
    lobby.draining = True
    assert lobby.open("10.0.0.3", 0.0) == Refused(CLOSE_GOING_AWAY, "server shutting down")


def test_rooms_are_capped_per_identity_across_reconnects_per_address_and_per_connection() -> None:
    lobby = _lobby(max_rooms_per_identity=4, max_rooms_per_address=6, max_rooms_per_connection=4)
    ann = _greeted(lobby, "ann")
    for i in range(4):
        assert lobby.room_refusal(ann.conn) is None
        lobby.room_opened(f"a{i}", "ann", ann.conn)
    lobby.closed(ann.conn)
    again = _greeted(lobby, "ann")  # reconnecting resets nothing
    assert "per player" in (lobby.room_refusal(again.conn) or "")
    bob = _greeted(lobby, "bob")  # same address: two more, then the address is full
    for i in range(2):
        assert lobby.room_refusal(bob.conn) is None
        lobby.room_opened(f"b{i}", "bob", bob.conn)
    assert "address" in (lobby.room_refusal(bob.conn) or "")
    elsewhere = _greeted(lobby, "cy", addr="10.0.0.2")
    assert lobby.room_refusal(elsewhere.conn) is None
    lobby.room_closed("a0")  # a room closes: its creator and address get the slot back
    assert lobby.room_refusal(again.conn) is None
    assert lobby.room_refusal(bob.conn) is None


def test_a_connection_may_create_only_so_many_rooms_and_the_server_only_so_many() -> None:
    lobby = _lobby(max_rooms_per_connection=2, max_rooms=3)
    ann = _greeted(lobby, "ann")
    lobby.room_opened("r1", "ann", ann.conn)
    lobby.room_opened("r2", "ann", ann.conn)
    assert "per connection" in (lobby.room_refusal(ann.conn) or "")
    lobby.room_opened("r3", None)  # restored from the database: counts in the server's total
    bob = _greeted(lobby, "bob", addr="10.0.0.2")
    assert lobby.room_refusal(bob.conn) == "The server is full."
    lobby.draining = True
    assert lobby.room_refusal(bob.conn) == "The server is shutting down."


def test_password_guessing_backs_off_then_closes_the_guesser() -> None:
    lobby = _lobby(max_wrong_passwords=6)
    mallory = _greeted(lobby, "mallory")
    guess = ts.Join(room_id="r1", password="guess")
    for t in range(4):  # three mistakes go free; the fourth starts the backoff
        assert lobby.password_wait(mallory.conn, "r1", None, float(t)) is None
        assert _codes(lobby.password_checked(mallory.conn, "r1", False, guess, float(t))) == [
            "bad_password"
        ]
    held = lobby.password_wait(mallory.conn, "r1", 7, 3.5)
    assert _codes(held) == ["rate_limited"] and held is not None
    assert "try again in 1 s" in held.replies[0][1].message  # type: ignore[attr-defined]
    assert lobby.password_wait(mallory.conn, "r1", None, 4.0) is None  # the wait is over
    # Knocking while held still counts as a wrong password: the sixth closes the connection.
    closing = lobby.password_wait(mallory.conn, "r1", None, 3.9)
    assert closing is not None and closing.closes == [
        (mallory.conn, CLOSE_POLICY, "too many wrong passwords")
    ]
    # A player with the password, on another address, is not held by mallory's tallies.
    bob = _greeted(lobby, "bob", addr="10.0.0.2")
    assert lobby.password_wait(bob.conn, "r1", None, 4.0) is None
    assert not lobby.password_checked(bob.conn, "r1", True, ts.Join(room_id="r1"), 4.0)


def test_no_password_at_all_is_a_question_not_a_guess() -> None:
    lobby = _lobby(max_wrong_passwords=1)
    ann = _greeted(lobby, "ann")
    out = lobby.password_checked(ann.conn, "r1", False, ts.Join(room_id="r1"), 0.0)
    assert _codes(out) == ["bad_password"] and not out.closes
    assert ann.wrong_passwords == 0


def test_one_replay_at_a_time_and_big_replays_cost_budget() -> None:
    lobby = _lobby(burst=40.0)
    ann = _greeted(lobby, "ann")
    assert lobby.replay_start(ann.conn, 1) is None
    busy = lobby.replay_start(ann.conn, 2)
    assert _codes(busy) == ["rate_limited"]
    lobby.replay_sent(ann.conn, 10 * 65536)  # 640 KiB: ten messages' worth
    assert ann.tokens == pytest.approx(30.0)
    assert lobby.replay_start(ann.conn, 3) is None  # free again
