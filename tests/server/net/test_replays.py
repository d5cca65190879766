"""Replays cannot be used to amplify load (issue 12, point 10): encoded once per finished
match and page (cached), built off the loop, paged, charged to the rate budget by size, and a
client that does not read them is dropped once it leaves a bounded number of bytes unread."""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import msgpack
import pytest
from websockets.asyncio.client import connect

from server.config import ServerConfig
from server.net.gateway import GameServer
from server.net.replays import ReplayCache, with_re
from server.store.sqlite import RoomRecord, Store
from shared import rules, wireviews
from shared.protocol import decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import views as pv
from tests.server.wire import Wire

STROKES = 400
STATE, _ = rules.apply(rules.new_match(rules.MatchOptions(), 0), rules.Start(), 0)
SHEET = wireviews.sheet_view(rules.scoresheet(STATE))


def _played(n: int) -> tc.StrokePlayed:
    """A stroke as the room broadcasts it, with a 12-segment path (~1.7 KiB in all)."""
    return tc.StrokePlayed(
        seq=n + 1,
        shooter=n % 2,
        stroke=pv.PlayedStroke(cue=pv.CueParams(direction=0.0, speed=1.0), ball="white"),
        start_ms=n,
        rest_ms=n,
        trajectory=pv.Trajectory(paths={"white": (float(n),) * 192}),
        events=(),
        result=pv.StrokeResult(
            points=0, foul=None, calls=(), respots={}, next_shooter=0, game_over=None
        ),
        match=wireviews.match_view(STATE),
    )


def _long_match(db: Path) -> int:
    """A finished public match of 400 strokes of ~1.7 KiB each (~700 KiB as a replay)."""
    with Store(str(db)) as store:
        record = RoomRecord(
            "r1", {"discipline": "three_cushion"}, False, None, 0, 0, [], None, None
        )
        store.save_room(record, 0)
        players = [{"player_id": "pa", "name": "ann"}, {"player_id": "pb", "name": "bob"}]
        options = {"discipline": "three_cushion"}
        match_id = store.start_match("r1", "three_cushion", options, players, 0)
        record.match_id = match_id
        for n in range(STROKES):
            body = _played(n).to_wire()
            store.commit_stroke(record, "stroke", n % 2, n, msgpack.packb(body), n)
        store.finish_match(match_id, 0, "distance", SHEET.to_wire(), STROKES)
        store.close_room("r1", STROKES)
    return match_id


@pytest.fixture
async def replay_server(
    tmp_path: Path, request: pytest.FixtureRequest
) -> AsyncIterator[tuple[GameServer, int]]:
    """A server with one long finished match; ``request.param``: more config fields."""
    db = tmp_path / "carom.db"
    match_id = _long_match(db)
    more = getattr(request, "param", {})
    srv = GameServer(
        ServerConfig(port=0, db_path=str(db), workers=0, outbound_bytes=1 << 20, **more)
    )
    await srv.start()
    try:
        yield srv, match_id
    finally:
        await srv.stop()


# A budget that covers every page at once: that replays cost budget by their size is the lobby
# core's test (tests/server/core/test_lobby.py); this one is about the pages adding up.
@pytest.mark.parametrize("replay_server", [{"rate": 500.0, "burst": 1000.0}], indirect=True)
async def test_a_replay_is_encoded_once_and_pages_add_up(
    replay_server: tuple[GameServer, int],
) -> None:
    server, match_id = replay_server
    url = f"ws://127.0.0.1:{server.port}/"
    full = []
    for name in ("ann", "bob", "carol"):
        w = await Wire.open(url, name)
        full.append(await w.request(ts.GetReplay(match_id=match_id), tc.Replay, timeout=10))
        await w.close()
    assert [len(r.strokes) for r in full] == [STROKES] * 3 and full[0].next_after is None
    assert full[0].strokes == full[1].strokes == full[2].strokes
    assert server.metrics.replay_builds == 1  # the other two came from the cache

    w = await Wire.open(url, "dan")
    pages, after = [], 0
    while True:
        page = await w.request(
            ts.GetReplay(match_id=match_id, after=after, limit=150), tc.Replay, timeout=10
        )
        pages.extend(page.strokes)
        if page.next_after is None:
            break
        after = page.next_after
    assert [s.n for s in pages] == list(range(1, STROKES + 1))
    assert tuple(pages) == full[0].strokes
    await w.close()


async def test_a_client_that_never_reads_replays_is_dropped_at_a_bounded_backlog(
    replay_server: tuple[GameServer, int],
) -> None:
    server, match_id = replay_server
    url = f"ws://127.0.0.1:{server.port}/"
    watcher = await Wire.open(url, "watcher")
    # A client with a tiny receive buffer that stops reading: what it asks for piles up.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.port))
    sock.setblocking(False)
    greedy = await connect(url, sock=sock, max_queue=1, max_size=None, compression=None)
    await greedy.send(encode(ts.Hello(v=1, name="greedy", id=1)))
    peak = 0
    # It keeps asking (within its rate budget) until the server gives up on it; the kernel's
    # socket buffers take the first few megabytes, then the server's queue for it fills.
    for i in range(60):
        await greedy.send(encode(ts.GetReplay(match_id=match_id, id=2 + i)))
        for _ in range(10):
            await asyncio.sleep(0.02)
            peak = max([peak, *(c.queued for c in server.clients.values())])
        if server.metrics.slow_clients:
            break
    assert server.metrics.slow_clients == 1 and server.metrics.closes[1008] == 1
    assert peak <= server.config.outbound_bytes  # never more than the bound waiting for it
    assert server.metrics.replay_builds == 1  # and it was encoded once
    # Everyone else is served as usual.
    assert (await watcher.request(ts.Ping(), tc.Pong)).server_time_ms > 0
    greedy.transport.abort()  # it never reads: no polite close
    await watcher.close()


def test_re_is_spliced_into_the_cached_bytes_and_the_cache_is_bounded() -> None:
    room = pv.ReplayRoom(
        match_id=7,
        room_id="r1",
        discipline="three_cushion",
        options=pv.SentOptions(discipline="three_cushion"),
        players=(),
        started_ms=0,
        finished_ms=1,
        winner=None,
        reason=None,
        scoresheet=SHEET,
    )
    stroke = pv.ReplayStroke(n=1, kind="stroke", seat=0, played_ms=0, body=_played(0))
    reply = tc.Replay(match_id=7, room=room, strokes=(stroke,), finished=True)
    data = encode(reply)
    assert msgpack.unpackb(with_re(data, 42)) == {**msgpack.unpackb(data), "re": 42}
    cache = ReplayCache(max_bytes=100)
    for i in range(5):
        cache.put((i, 0, None), os.urandom(40))
    assert cache.bytes <= 100 and cache.get((4, 0, None)) is not None
    assert cache.get((0, 0, None)) is None


async def test_chat_is_dropped_before_game_messages_for_a_client_falling_behind(
    tmp_path: Path,
) -> None:
    """Issue 12, point 11: a spectator whose socket is full (here: it asked for replays and
    does not read) loses chat lines once its queue is half full, but still gets the game."""
    db = tmp_path / "carom.db"
    match_id = _long_match(db)
    srv = GameServer(
        ServerConfig(
            port=0,
            db_path=str(db),
            workers=0,
            outbound_queue=32,
            outbound_bytes=64 << 20,
            rate=200.0,  # budget to ask for more than the kernel's socket buffers hold
            burst=400.0,
        )
    )
    await srv.start()
    try:
        url = f"ws://127.0.0.1:{srv.port}/"
        ann = await Wire.open(url, "ann")
        rid = (await ann.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", srv.port))
        sock.setblocking(False)
        slow = await connect(url, sock=sock, max_queue=1, max_size=None, compression=None)
        await slow.send(encode(ts.Hello(v=1, name="slow", id=1)))
        await slow.send(encode(ts.Spectate(room_id=rid, id=2)))
        # Megabytes it will not read: its socket and transport fill up, then its queue (the
        # first replay is built once, the others come from the cache).
        await slow.send(encode(ts.GetReplay(match_id=match_id, id=3)))
        for _ in range(500):  # built once: the next ones come from the cache
            if srv.metrics.replay_builds:
                break
            await asyncio.sleep(0.01)
        assert srv.metrics.replay_builds == 1
        for i in range(21):
            await slow.send(encode(ts.GetReplay(match_id=match_id, id=4 + i)))
        for _ in range(200):  # until the server has a backlog for it
            backlog = [c.queue.qsize() for c in srv.clients.values() if c.name == "slow"]
            if backlog and backlog[0] * 2 > srv.config.outbound_queue:
                break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("no backlog built up")
        chatty = await Wire.open(url, "chatty")
        await chatty.request(ts.Spectate(room_id=rid), tc.Snapshot)
        for i in range(10):
            await chatty.send(ts.Chat(text=f"line {i}"))
            await asyncio.sleep(0.02)
        bob = await Wire.open(url, "bob")
        await bob.request(ts.Join(room_id=rid), tc.Joined)  # the match starts: game messages
        await asyncio.sleep(0.3)
        assert srv.metrics.chat_dropped >= 1
        assert srv.metrics.slow_clients == 0  # not dropped: only its chat was

        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)  # now it reads
        got: list[object] = []
        while not any(isinstance(m, tc.Turn) for m in got):
            got.append(decode_server(await asyncio.wait_for(slow.recv(), 10)))
        chats = [m for m in got if isinstance(m, tc.ChatLine)]
        assert len(chats) < 10  # some chat went …
        assert any(isinstance(m, tc.PlayerStatus) for m in got)  # … the game did not
        slow.transport.abort()  # megabytes are still queued for it: no polite close
    finally:
        await srv.stop()
