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
    BadFrame,
    Closed,
    ConnRecord,
    Drain,
    Frame,
    Greeted,
    HelloAsked,
    HelloLate,
    Lobby,
    Opened,
    Out,
    PasswordAsked,
    PasswordChecked,
    PeerTrusted,
    Refused,
    ReplayAsked,
    ReplaySent,
    RoomAsked,
    RoomClosed,
    RoomOpened,
    Route,
    Routed,
    TcpClosed,
    TcpOpened,
)
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts


def _lobby(**limits: object) -> Lobby:
    return Lobby(ServerConfig(**limits))  # type: ignore[arg-type]


def _caller(lobby: Lobby, addr: str = "10.0.0.1", now: float = 0.0) -> ConnRecord:
    caller = lobby.step(Opened(addr), now)
    assert isinstance(caller, ConnRecord)
    return caller


def _greeted(lobby: Lobby, player: str, addr: str = "10.0.0.1") -> ConnRecord:
    caller = _caller(lobby, addr)
    lobby.step(Greeted(caller.conn, player, player), 0.0)
    return caller


def _codes(out: Out | None) -> list[str]:
    assert out is not None
    return [m.code for _, m in out.replies if isinstance(m, tc.Error)]


def test_a_burst_then_the_rate_and_strikes_close_the_flooder() -> None:
    lobby = _lobby(rate=10.0, burst=5.0, max_strikes=3)
    c = _caller(lobby)
    assert all(lobby.step(Frame(c.conn), 0.0) is None for _ in range(5))  # the burst
    refused = lobby.step(Frame(c.conn), 0.0)
    assert _codes(refused) == ["rate_limited"] and refused is not None and not refused.closes
    assert lobby.step(Frame(c.conn), 0.1) is None  # 0.1 s at 10/s refilled one message
    lobby.step(Frame(c.conn), 0.1)
    closing = lobby.step(Frame(c.conn), 0.1)  # third strike
    assert closing is not None and closing.closes == [
        (c.conn, CLOSE_POLICY, "too many bad messages")
    ]
    # Once a close is decided it is not decided again.
    again = lobby.step(Frame(c.conn), 0.1)
    assert again is not None and not again.closes


def test_bad_frames_are_answered_and_count_as_strikes() -> None:
    lobby = _lobby(max_strikes=2)
    c = _caller(lobby)
    bad = tc.Error(code="bad_message", message="not msgpack", re=None)
    first = lobby.step(BadFrame(c.conn, bad), 0.0)
    assert first.replies == [(c.conn, bad)] and not first.closes
    assert lobby.step(BadFrame(c.conn, bad), 0.0).closes == [
        (c.conn, CLOSE_POLICY, "too many bad messages")
    ]


def test_only_ping_and_hello_before_hello_and_every_message_has_a_route() -> None:
    lobby = _lobby()
    c = _caller(lobby)
    assert lobby.step(Routed(c.conn, ts.Ping()), 0.0) is Route.PING
    assert lobby.step(Routed(c.conn, ts.Hello(v=1, name="ann")), 0.0) is Route.HELLO
    assert _codes(lobby.step(Routed(c.conn, ts.ListRooms(id=3)), 0.0)) == ["hello_first"]  # type: ignore[arg-type]
    assert _codes(lobby.step(Routed(c.conn, ts.Chat(text="hi")), 0.0)) == ["hello_first"]  # type: ignore[arg-type]
    assert lobby.step(HelloAsked(c.conn, ts.Hello(v=2, name="x")), 0.0) is not None
    assert lobby.step(HelloAsked(c.conn, ts.Hello(v=1, name="x")), 0.0) is None
    lobby.step(Greeted(c.conn, "p1", "ann"), 0.0)
    refusal = lobby.step(HelloAsked(c.conn, ts.Hello(v=1, name="x")), 0.0)
    assert refusal is not None and refusal.code == "already_greeted"
    assert lobby.step(Routed(c.conn, ts.ListRooms()), 0.0) is Route.LIST_ROOMS
    assert lobby.step(Routed(c.conn, ts.CreateRoom(discipline="one_cushion")), 0.0) is Route.CREATE
    assert lobby.step(Routed(c.conn, ts.Spectate(room_id="r1")), 0.0) is Route.ENTER
    assert lobby.step(Routed(c.conn, ts.GetReplay(match_id=1)), 0.0) is Route.REPLAY
    assert (
        lobby.step(Routed(c.conn, ts.GetLeaderboard(discipline="three_cushion")), 0.0) is Route.DESK
    )
    assert lobby.step(Routed(c.conn, ts.Chat(text="hi")), 0.0) is Route.ROOM


def test_a_connection_that_never_says_hello_is_closed_at_the_deadline() -> None:
    lobby = _lobby()
    silent, greeted = _caller(lobby), _greeted(lobby, "ann")
    assert lobby.step(HelloLate(silent.conn), 0.0).closes == [
        (silent.conn, CLOSE_POLICY, "no hello in time")
    ]
    assert not lobby.step(HelloLate(greeted.conn), 0.0)


def test_connections_are_capped_per_address_and_in_all_and_refused_while_draining() -> None:
    lobby = _lobby(max_connections_per_address=2, max_connections=3)
    assert lobby.step(TcpOpened("10.0.0.1"), 0.0) and lobby.step(TcpOpened("10.0.0.1"), 0.0)
    assert not lobby.step(TcpOpened("10.0.0.1"), 0.0)  # handshakes in progress count too
    assert lobby.step(TcpOpened("10.0.0.2"), 0.0)
    lobby.step(TcpClosed("10.0.0.1"), 0.0)
    assert lobby.step(TcpOpened("10.0.0.1"), 0.0)  # room again once one went away
    lobby.step(PeerTrusted("10.0.0.9"), 0.0)  # another cluster node relaying its clients
    assert all(lobby.step(TcpOpened("10.0.0.9"), 0.0) for _ in range(5))
    for _ in range(3):
        _caller(lobby)
    assert lobby.step(Opened("10.0.0.3"), 0.0) == Refused(CLOSE_TRY_LATER, "server full")
    lobby.step(Drain(), 0.0)
    assert lobby.step(Opened("10.0.0.3"), 0.0) == Refused(CLOSE_GOING_AWAY, "server shutting down")


def test_rooms_are_capped_per_identity_across_reconnects_per_address_and_per_connection() -> None:
    lobby = _lobby(max_rooms_per_identity=4, max_rooms_per_address=6, max_rooms_per_connection=4)
    ann = _greeted(lobby, "ann")
    for i in range(4):
        assert lobby.step(RoomAsked(ann.conn), 0.0) is None
        lobby.step(RoomOpened(f"a{i}", "ann", ann.conn), 0.0)
    lobby.step(Closed(ann.conn), 0.0)
    again = _greeted(lobby, "ann")  # reconnecting resets nothing
    assert "per player" in (lobby.step(RoomAsked(again.conn), 0.0) or "")
    bob = _greeted(lobby, "bob")  # same address: two more, then the address is full
    for i in range(2):
        assert lobby.step(RoomAsked(bob.conn), 0.0) is None
        lobby.step(RoomOpened(f"b{i}", "bob", bob.conn), 0.0)
    assert "address" in (lobby.step(RoomAsked(bob.conn), 0.0) or "")
    elsewhere = _greeted(lobby, "cy", addr="10.0.0.2")
    assert lobby.step(RoomAsked(elsewhere.conn), 0.0) is None
    lobby.step(RoomClosed("a0"), 0.0)  # a room closes: its creator and address get the slot back
    assert lobby.step(RoomAsked(again.conn), 0.0) is None
    assert lobby.step(RoomAsked(bob.conn), 0.0) is None


def test_a_connection_may_create_only_so_many_rooms_and_the_server_only_so_many() -> None:
    lobby = _lobby(max_rooms_per_connection=2, max_rooms=3)
    ann = _greeted(lobby, "ann")
    lobby.step(RoomOpened("r1", "ann", ann.conn), 0.0)
    lobby.step(RoomOpened("r2", "ann", ann.conn), 0.0)
    assert "per connection" in (lobby.step(RoomAsked(ann.conn), 0.0) or "")
    lobby.step(
        RoomOpened("r3", None), 0.0
    )  # restored from the database: counts in the server's total
    bob = _greeted(lobby, "bob", addr="10.0.0.2")
    assert lobby.step(RoomAsked(bob.conn), 0.0) == "The server is full."
    lobby.step(Drain(), 0.0)
    assert lobby.step(RoomAsked(bob.conn), 0.0) == "The server is shutting down."


def test_password_guessing_backs_off_then_closes_the_guesser() -> None:
    lobby = _lobby(max_wrong_passwords=6)
    mallory = _greeted(lobby, "mallory")
    guess = ts.Join(room_id="r1", password="guess")
    for t in range(4):  # three mistakes go free; the fourth starts the backoff
        assert lobby.step(PasswordAsked(mallory.conn, "r1", None), float(t)) is None
        assert _codes(lobby.step(PasswordChecked(mallory.conn, "r1", False, guess), float(t))) == [
            "bad_password"
        ]
    held = lobby.step(PasswordAsked(mallory.conn, "r1", 7), 3.5)
    assert _codes(held) == ["rate_limited"] and held is not None
    assert "try again in 1 s" in held.replies[0][1].message  # type: ignore[attr-defined]
    assert lobby.step(PasswordAsked(mallory.conn, "r1", None), 4.0) is None  # the wait is over
    # Knocking while held still counts as a wrong password: the sixth closes the connection.
    closing = lobby.step(PasswordAsked(mallory.conn, "r1", None), 3.9)
    assert closing is not None and closing.closes == [
        (mallory.conn, CLOSE_POLICY, "too many wrong passwords")
    ]
    # A player with the password, on another address, is not held by mallory's tallies.
    bob = _greeted(lobby, "bob", addr="10.0.0.2")
    assert lobby.step(PasswordAsked(bob.conn, "r1", None), 4.0) is None
    assert not lobby.step(PasswordChecked(bob.conn, "r1", True, ts.Join(room_id="r1")), 4.0)


def test_no_password_at_all_is_a_question_not_a_guess() -> None:
    lobby = _lobby(max_wrong_passwords=1)
    ann = _greeted(lobby, "ann")
    out = lobby.step(PasswordChecked(ann.conn, "r1", False, ts.Join(room_id="r1")), 0.0)
    assert _codes(out) == ["bad_password"] and not out.closes
    assert ann.wrong_passwords == 0


def test_one_replay_at_a_time_and_big_replays_cost_budget() -> None:
    lobby = _lobby(burst=40.0)
    ann = _greeted(lobby, "ann")
    assert lobby.step(ReplayAsked(ann.conn, 1), 0.0) is None
    busy = lobby.step(ReplayAsked(ann.conn, 2), 0.0)
    assert _codes(busy) == ["rate_limited"]
    lobby.step(ReplaySent(ann.conn, 10 * 65536), 0.0)  # 640 KiB: ten messages' worth
    assert ann.tokens == pytest.approx(30.0)
    assert lobby.step(ReplayAsked(ann.conn, 3), 0.0) is None  # free again
