"""The lobby and the connection's limits, against a real server on loopback."""

from __future__ import annotations

import asyncio
import gc
import time
import urllib.request
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed, InvalidMessage

from server.config import ServerConfig
from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.wire import Wire
from tests.servers import serving, url_of


def _http_get(port: int, path: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, "", e.read().decode()


async def test_hello_identity_and_versions(url: str) -> None:
    w = await Wire.open(url)
    assert (await w.request(ts.Ping(), tc.Pong)).server_time_ms > 0  # ping needs no hello
    assert (await w.refused(ts.ListRooms())).code == "hello_first"
    assert (await w.refused(ts.Hello(v=2, name="x"))).code == "unsupported_version"
    assert (await w.refused(ts.Hello(v=1, name="x", token="nope"))).code == "bad_token"
    welcome = await w.request(ts.Hello(v=1, name="ann"), tc.Welcome)
    assert welcome.v == 1 and welcome.player_id and welcome.token
    assert (await w.refused(ts.Hello(v=1, name="ann"))).code == "already_greeted"
    # The identity token from welcome keeps the same player on a new connection.
    again = await Wire.open(url, "ann again", token=welcome.token)
    assert again.welcome is not None and again.welcome.player_id == welcome.player_id


async def test_rooms_listing_and_errors(url: str) -> None:
    ann = await Wire.open(url, "ann")
    created = await ann.request(
        ts.CreateRoom(discipline="straight_rail", distance=50), tc.RoomCreated
    )
    rooms = (await ann.request(ts.ListRooms(), tc.Rooms)).rooms
    (entry,) = [r for r in rooms if r.room_id == created.room_id]
    assert entry.discipline == "straight_rail" and entry.distance == 50
    assert entry.phase == "waiting" and entry.private is False
    assert entry.players == (None, None) and entry.spectators == 0
    assert (await ann.refused(ts.Join(room_id="rnope"))).code == "no_such_room"
    assert (await ann.refused(ts.Leave())).code == "not_in_room"
    assert (await ann.refused(ts.Chat(text="hi"))).code == "not_in_room"
    # A 2 s shot clock is outside the options table's bounds (5–600 s), which the wire and the
    # referee share: refused as it arrives, naming the option, and no room.
    await ann.send({"t": "create_room", "discipline": "three_cushion", "shot_clock_s": 2, "id": 90})
    bad = await ann.expect(tc.Error, where=lambda e: e.re == 90)
    assert bad.code == "bad_field" and "shot_clock_s must be in [5, 600]" in bad.message
    # Corner zones of 0.6 m fit the widest table but not the 2.10 m club table: the referee
    # refuses the pair (bad_options).
    small = ts.CreateRoom(discipline="straight_rail", table="club_210", corner_zone_leg=0.6)
    bad = await ann.refused(small)
    assert bad.code == "bad_options" and "corner_zone_leg" in bad.message
    joined = await ann.request(ts.Join(room_id=created.room_id), tc.Joined)
    assert joined.seat == 0 and len(joined.seat_token) >= 32
    await ann.expect(tc.Snapshot)
    again = await ann.refused(ts.Spectate(room_id=created.room_id))
    assert again.code == "already_in_room"
    await ann.request(ts.Leave(), tc.Left)
    rooms = (await ann.request(ts.ListRooms(), tc.Rooms)).rooms
    assert [r.players for r in rooms if r.room_id == created.room_id] == [(None, None)]


async def test_private_room_password_is_checked_and_stored_hashed(url: str, tmp_path: Path) -> None:
    ann = await Wire.open(url, "ann")
    bob = await Wire.open(url, "bob")
    secret = "correct horse battery"
    rid = (
        await ann.request(
            ts.CreateRoom(discipline="three_cushion", private=True, password=secret),
            tc.RoomCreated,
        )
    ).room_id
    listed = (await bob.request(ts.ListRooms(), tc.Rooms)).rooms
    assert [r.private for r in listed if r.room_id == rid] == [True]
    assert (await bob.refused(ts.Join(room_id=rid))).code == "bad_password"
    assert (await bob.refused(ts.Join(room_id=rid, password="wrong"))).code == "bad_password"
    assert (await bob.refused(ts.Spectate(room_id=rid, password="wrong"))).code == "bad_password"
    assert (await bob.request(ts.Join(room_id=rid, password=secret), tc.Joined)).seat == 0
    carol = await Wire.open(url, "carol")
    await carol.request(ts.Spectate(room_id=rid, password=secret), tc.Snapshot)
    for f in tmp_path.glob("carom.db*"):
        assert secret.encode() not in f.read_bytes()


async def test_practice_room_place_and_stroke(url: str) -> None:
    ann = await Wire.open(url, "ann")
    rid = (
        await ann.request(ts.CreateRoom(discipline="balkline_47_2", practice=True), tc.RoomCreated)
    ).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    snap = await ann.expect(tc.Snapshot, where=lambda m: m.match.phase == "play")
    assert snap.match.shooter == 0 and snap.match.deadline_ms is None  # no clock
    bob = await Wire.open(url, "bob")
    assert (await bob.refused(ts.Join(room_id=rid))).code == "room_full"  # one player
    placed = await ann.request(
        ts.Place(balls={"white": (0.5, 0.5), "red": (1.0, 0.5)}), tc.Snapshot
    )
    assert placed.match.balls["white"] == (0.5, 0.5)
    assert placed.match.balls["red"] == (1.0, 0.5)
    off = await ann.refused(ts.Place(balls={"yellow": (5.0, 0.5)}))
    assert off.code == "bad_field"
    overlap = await ann.refused(ts.Place(balls={"yellow": (0.52, 0.5)}))
    assert overlap.code == "bad_field"
    await ann.send(ts.Stroke(cue=CueParams(direction=0.0, speed=1.0)))  # white straight at the red
    played = await ann.expect(tc.StrokePlayed)
    assert played.shooter == 0 and played.events[0].kind == "strike"
    assert any(e.kind == "ball_ball" for e in played.events)
    # A spectator arriving mid-stroke gets the stroke in motion with the snapshot.
    late = await bob.request(ts.Spectate(room_id=rid), tc.Snapshot)
    assert late.in_motion is not None and late.in_motion.start_ms == played.start_ms
    assert late.in_motion.trajectory == played.trajectory


async def test_ordinary_rooms_refuse_place(url: str) -> None:
    ann = await Wire.open(url, "ann")
    rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    err = await ann.refused(ts.Place(balls={"white": (0.5, 0.5)}))
    assert err.code == "not_practice"


async def test_chat_reaches_the_room_with_limits(url: str) -> None:
    ann = await Wire.open(url, "ann")
    bob = await Wire.open(url, "bob")
    rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    await bob.request(ts.Spectate(room_id=rid), tc.Snapshot)
    await bob.send(ts.Chat(text="good luck"))
    line = await ann.expect(tc.ChatLine)
    assert (line.sender, line.text, line.seat) == ("bob", "good luck", None)
    await bob.send({"t": "chat", "text": "x" * 201, "id": 99})
    err = await bob.expect(tc.Error, where=lambda m: m.re == 99)
    assert err.code == "bad_field"


async def test_bad_frames_get_errors_then_the_connection_is_closed(url: str) -> None:
    w = await Wire.open(url, "ann")
    await w.send(b"\xc1")
    assert (await w.expect(tc.Error)).code == "bad_message"
    await w.send({"t": "teleport", "id": 5})
    assert (await w.expect(tc.Error, where=lambda m: m.re == 5)).code == "unknown_type"
    await w.send({"t": "stroke", "direction": float("nan"), "speed": 1, "id": 6})
    nan = await w.expect(tc.Error, where=lambda m: m.re == 6)
    assert nan.code == "bad_field" and "direction" in nan.message
    await w.send(b"\x80" * 20_000)
    assert (await w.expect(tc.Error)).code == "too_large"
    await w.ws.send("text frame")
    assert (await w.expect(tc.Error)).code == "bad_message"
    for _ in range(30):
        await w.send(b"\xc1")
    assert await w.closed() == 1008  # policy violation: too many bad messages


async def test_huge_frame_closes_with_1009(url: str) -> None:
    w = await Wire.open(url, "ann")
    await w.send(b"\x80" * 100_000)
    assert await w.closed() == 1009


async def test_rate_limit(url: str) -> None:
    w = await Wire.open(url, "ann")
    for _ in range(60):
        await w.send({"t": "ping"})
    got = [await w._read(10.0) for _ in range(60)]  # one answer per message, whatever the load
    codes = [m.code for m in got if isinstance(m, tc.Error)]
    assert "rate_limited" in codes and len([m for m in got if isinstance(m, tc.Pong)]) >= 35


async def test_health_and_metrics(server: GameServer, url: str) -> None:
    ann = await Wire.open(url, "ann")
    await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
    status, _, body = await asyncio.to_thread(_http_get, server.port, "/health")
    assert (status, body) == (200, "ok\n")
    status, ctype, body = await asyncio.to_thread(_http_get, server.port, "/metrics")
    assert status == 200 and ctype.startswith("text/plain; version=0.0.4")
    values = dict(
        line.rsplit(" ", 1) for line in body.splitlines() if line and not line.startswith("#")
    )
    assert values["carom_rooms"] == "1" and values["carom_connections"] == "1"
    assert "carom_strokes_total" in values and "carom_simulation_cpu_seconds_total" in values
    assert values["carom_stroke_seconds_count"] == "0"
    status, _, _ = await asyncio.to_thread(_http_get, server.port, "/elsewhere")
    assert status == 404


@pytest.mark.parametrize("frame", [msgpack.packb([1, 2]), msgpack.packb({"t": None})])
async def test_garbage_before_hello_is_answered_too(url: str, frame: bytes) -> None:
    w = await Wire.open(url)
    await w.send(frame)
    assert (await w.expect(tc.Error)).code == "bad_message"


async def test_origin_allow_list(tmp_path: Path) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus
    from websockets.typing import Origin

    async with serving(tmp_path, origins=("https://carom.example",)) as srv:
        url = url_of(srv)
        with pytest.raises(InvalidStatus) as info:
            await connect(url, origin=Origin("https://evil.example"))
        assert info.value.response.status_code == 403
        async with connect(url, origin=Origin("https://carom.example")) as ok:
            await ok.send(msgpack.packb({"t": "ping"}))
            assert msgpack.unpackb(await ok.recv())["t"] == "pong"
        async with connect(url) as bot:  # no Origin header: bots and the desktop app
            await bot.send(msgpack.packb({"t": "ping"}))
            assert msgpack.unpackb(await bot.recv())["t"] == "pong"


async def test_a_full_server_closes_new_connections_with_1013(tmp_path: Path) -> None:
    async with serving(tmp_path, max_connections=1) as srv:
        url = url_of(srv)
        first = await Wire.open(url, "ann")
        second = await Wire.open(url)
        assert await second.closed() == 1013
        assert (await first.request(ts.Ping(), tc.Pong)).server_time_ms > 0


async def test_a_client_too_slow_to_read_is_dropped_not_buffered(tmp_path: Path) -> None:
    import socket

    from websockets.asyncio.client import connect

    from server.config import ServerConfig

    cfg = ServerConfig(
        port=0,
        db_path=str(tmp_path / "s.db"),
        workers=0,
        outbound_queue=4,
        rate=10_000,
        burst=10_000,
    )
    srv = GameServer(cfg)
    await srv.start()
    try:
        url = f"ws://127.0.0.1:{srv.port}/"
        ann = await Wire.open(url, "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # a reader on a slow link
        sock.connect(("127.0.0.1", srv.port))
        slow = Wire(await connect(url, sock=sock, max_size=None, compression=None))
        await slow.request(ts.Hello(v=1, name="slow"), tc.Welcome)
        await slow.request(ts.Spectate(room_id=rid), tc.Snapshot)
        sync = msgpack.packb({"t": "sync"})
        for _ in range(3000):  # ~5 MB of snapshots asked for, none read
            if srv.metrics.slow_clients:
                break
            await slow.ws.send(sync)
            await asyncio.sleep(0.001)  # give the server's writer every chance to drain
        # On a loaded machine the server may still be answering requests already sent: wait for
        # it without reading, since reading would drain the backlog that makes the client slow.
        deadline = time.monotonic() + 60
        while not srv.metrics.slow_clients and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert await slow.closed() == 1008 and srv.metrics.slow_clients == 1
        # Everyone else is fine.
        assert (await ann.request(ts.Ping(), tc.Pong)).server_time_ms > 0
    finally:
        await srv.stop()


async def test_empty_rooms_are_closed_and_stay_closed(tmp_path: Path) -> None:
    from server.config import ServerConfig
    from server.store.sqlite import Store

    db = str(tmp_path / "i.db")
    srv = GameServer(
        ServerConfig(port=0, db_path=db, workers=0, idle_room_s=0.3, finished_room_s=0.3)
    )
    await srv.start()
    try:
        url = f"ws://127.0.0.1:{srv.port}/"
        ann = await Wire.open(url, "ann")
        idle = (
            await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
        ).room_id
        kept = (await ann.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Spectate(room_id=kept), tc.Snapshot)  # someone is in this one
        for _ in range(50):
            rooms = [r.room_id for r in (await ann.request(ts.ListRooms(), tc.Rooms)).rooms]
            if idle not in rooms:
                break
            await asyncio.sleep(0.1)
        assert rooms == [kept]
        assert (await ann.refused(ts.Join(room_id=idle))).code == "no_such_room"
    finally:
        await srv.stop()
    with Store(db) as store:  # a restart will not bring it back
        assert [r.room_id for r in store.open_rooms()] == [kept]


# Cheap denial of service (issue 12, points 8 and 9) --------------------------------------------


@pytest.fixture
async def strict(tmp_path: Path) -> AsyncIterator[GameServer]:
    """A real server with small limits, so the tests reach them in a few connections."""
    async with serving(
        tmp_path,
        hello_timeout_s=0.5,
        max_connections_per_address=6,
        max_rooms_per_address=6,
        unjoined_room_s=0.6,
    ) as srv:
        yield srv


async def _refused_connection(url: str) -> bool:
    """Whether the server drops a new connection before or during its handshake."""
    try:
        w = await Wire.open(url, "late")
    except (OSError, ConnectionClosed, InvalidMessage, TimeoutError):
        return True
    await w.close()
    return False


async def test_silent_connections_are_closed_and_capped_per_address(strict: GameServer) -> None:
    url = f"ws://127.0.0.1:{strict.port}/"
    greeted = await Wire.open(url, "ann")
    silent = await Wire.open(url)
    # No hello within the deadline: closed (1008); the one that said hello stays.
    assert await silent.closed(timeout=3) == 1008
    assert (await greeted.request(ts.Ping(), tc.Pong)).server_time_ms > 0

    # Raw TCP connections that never finish (or even start) a handshake count per address.
    raw = [await asyncio.open_connection("127.0.0.1", strict.port) for _ in range(5)]
    await asyncio.sleep(0.1)
    assert await _refused_connection(url)  # 1 + 5 from 127.0.0.1 already
    for _, writer in raw[:2]:
        writer.close()
    await asyncio.sleep(0.2)
    assert not await _refused_connection(url)  # room again once some went away
    for _, writer in raw[2:]:
        writer.close()
    assert strict.metrics.refused_per_address >= 1
    await greeted.close()


async def test_rooms_are_capped_per_identity_across_reconnects_and_per_address(
    strict: GameServer,
) -> None:
    url = f"ws://127.0.0.1:{strict.port}/"
    ann = await Wire.open(url, "ann")
    for _ in range(4):
        await ann.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)
    await ann.close()
    assert ann.welcome is not None
    again = await Wire.open(url, "ann", token=ann.welcome.token)  # reconnecting resets nothing
    refused = await again.refused(ts.CreateRoom(discipline="one_cushion"))
    assert refused.code == "too_many_rooms" and "per player" in refused.message
    # Another identity from the same address: two more, then the address is full.
    bob = await Wire.open(url, "bob")
    for _ in range(2):
        await bob.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)
    refused = await bob.refused(ts.CreateRoom(discipline="one_cushion"))
    assert refused.code == "too_many_rooms" and "address" in refused.message
    # Nobody sat down in any of them: they close soon, and new rooms can be made again.
    deadline = time.monotonic() + 5
    while strict.rooms and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert not strict.rooms
    await bob.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)
    await again.close()
    await bob.close()


async def test_a_chat_storm_is_held_to_the_rooms_budget(url: str) -> None:
    ann = await Wire.open(url, "ann")
    rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    crowd = [await Wire.open(url, f"fan{i}") for i in range(3)]
    for w in crowd:
        await w.request(ts.Spectate(room_id=rid), tc.Snapshot)
    for i in range(10):
        for w in crowd:
            await w.send(ts.Chat(text=f"go {i}"))
    got = await ann.quiet(0.5)
    lines = [m for m in got if isinstance(m, tc.ChatLine)]
    assert 10 <= len(lines) <= 14  # the burst, plus what refilled meanwhile; never all 30
    limited = [m for w in crowd for m in await w.quiet(0.1) if isinstance(m, tc.Error)]
    assert limited and {m.code for m in limited} == {"rate_limited"}


async def test_password_checks_beyond_the_hashing_queue_are_refused_at_once(
    tmp_path: Path,
) -> None:
    """Issue 12, point 12: 8 guessers at once do not each get a hashing thread; beyond one
    running and two waiting they hear "busy" without any hashing."""
    srv = GameServer(ServerConfig(port=0, db_path=str(tmp_path / "c.db"), workers=0, hash_queue=2))
    await srv.start()
    try:
        url = f"ws://127.0.0.1:{srv.port}/"
        ann = await Wire.open(url, "ann")
        rid = (
            await ann.request(
                ts.CreateRoom(discipline="one_cushion", private=True, password="right one"),
                tc.RoomCreated,
            )
        ).room_id
        guessers = [await Wire.open(url, f"g{i}") for i in range(8)]
        answers = await asyncio.gather(
            *(
                g.refused(ts.Join(room_id=rid, password=f"guess {i}"))
                for i, g in enumerate(guessers)
            )
        )
        busy = [a for a in answers if a.code == "rate_limited" and "busy" in a.message]
        wrong = [a for a in answers if a.code == "bad_password"]
        assert len(wrong) == 3 and len(busy) == 5, answers
        # The room's players are not held up: the right password still works right after.
        bob = await Wire.open(url, "bob")
        await bob.request(ts.Join(room_id=rid, password="right one"), tc.Joined)
    finally:
        await srv.stop()


async def test_a_closed_connection_is_freed_without_the_garbage_collector(tmp_path: Path) -> None:
    """The server freezes its heap and sweeps it rarely (server/gcpolicy.py), so what a closed
    connection leaves must go by reference counting: Python 3.11's socket transport kept
    itself alive in a cycle (its ``_read_ready_cb``) until a full collection."""
    async with serving(tmp_path) as srv:
        assert srv.server is not None
        w = await Wire.open(url_of(srv), "visitor")
        (conn,) = srv.server.connections
        transport = weakref.ref(conn.transport)
        del conn
        gc.disable()
        try:
            await w.ws.close()
            for _ in range(100):  # the server notices the close within a few loop turns
                if transport() is None:
                    break
                await asyncio.sleep(0.01)
            assert transport() is None
        finally:
            gc.enable()


async def test_a_connection_that_never_asks_does_not_hold_up_a_stop(tmp_path: Path) -> None:
    """Browsers open spare connections before they have a request to send. A stopping server
    drops those at once instead of waiting out their opening handshake (10 s): a restart is
    not held up by a page that is only open, and a real client is still told goodbye."""
    srv = GameServer(ServerConfig(port=0, db_path=str(tmp_path / "carom.db"), workers=0))
    await srv.start()
    stopped = False
    try:
        idle_reader, idle_writer = await asyncio.open_connection("127.0.0.1", srv.port)
        player = await Wire.open(url_of(srv), "ann")
        await asyncio.wait_for(srv.stop(), timeout=5)  # well inside the 10 s handshake limit
        stopped = True
        assert await asyncio.wait_for(idle_reader.read(), timeout=5) == b""  # dropped
        assert await player.closed() == 1001  # the real client was closed as before
        idle_writer.close()
    finally:
        if not stopped:
            await srv.stop()
