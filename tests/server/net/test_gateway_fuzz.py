"""Fuzz: thousands of malformed frames against a live room. The server answers or closes each
fuzzing connection, never crashes, and the players' match goes on untouched."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import random
import time
from typing import Any

import msgpack
import pytest
from websockets.exceptions import ConnectionClosed

from server.net.gateway import GameServer
from shared.protocol import CLIENT_TYPES
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.net.test_live_room import _lag
from tests.server.wire import Wire

# Every field any client message has (so the fuzz follows the protocol as it grows), plus "t".
FIELDS = sorted({f.name for c in CLIENT_TYPES.values() for f in dataclasses.fields(c)} | {"t"})


def _value(rng: random.Random, depth: int = 0) -> Any:
    makers = [
        lambda: None,
        lambda: True,
        lambda: rng.randint(-(2**63), 2**64 - 1),
        lambda: math.nan,
        lambda: math.inf,
        lambda: -math.inf,
        lambda: 1e308,
        lambda: rng.uniform(-1e6, 1e6),
        lambda: "x" * rng.choice([0, 1, 33, 201, 5000]),
        lambda: bytes(rng.randrange(256) for _ in range(rng.randrange(8))),
        lambda: msgpack.ExtType(rng.randrange(128), b"\x00"),
    ]
    if depth < 2:
        makers += [
            lambda: [_value(rng, depth + 1) for _ in range(rng.randrange(4))],
            lambda: {"white": [_value(rng, depth + 1), _value(rng, depth + 1)]},
            lambda: {str(rng.random()): _value(rng, depth + 1)},
        ]
    return rng.choice(makers)()


def _frame(rng: random.Random, room_id: str) -> bytes | str:
    r = rng.random()
    if r < 0.2:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300)))
    if r < 0.25:
        return "a text frame"
    if r < 0.28:
        # Above the codec limit (too_large), now and then above the hard cap (close 1009).
        return b"\x80" * rng.choice([17_000, 40_000, 40_000, 70_000])
    if r < 0.35:
        return msgpack.packb(_value(rng), use_bin_type=True)  # not a map
    t = rng.choice([*CLIENT_TYPES, "nope", "welcome", ""]) if r < 0.9 else rng.random()
    body: dict[str, Any] = {"t": t}
    for name in rng.sample(FIELDS, rng.randrange(1, 6)):
        body[name] = _value(rng)
    if rng.random() < 0.3:
        body["room_id"] = room_id
    if t == "chat":
        body["text"] = 5  # a valid chat would just be chat; keep the room's log for players
    try:
        return msgpack.packb(body, use_bin_type=True)
    except (OverflowError, ValueError):
        return b"\xc1"


async def _fuzz_connection(url: str, room_id: str, rng: random.Random, budget: int) -> int:
    """One fuzzing connection: hello, watch the room, then garbage until closed. Returns the
    number of frames sent; checks each was answered unless the server closed the connection."""
    w = await Wire.open(url, "fuzz")
    await w.request(ts.Spectate(room_id=room_id), tc.Snapshot)
    sent = 0
    try:
        for _ in range(budget):
            await w.ws.send(_frame(rng, room_id))
            sent += 1
            await w.ws.recv()  # every frame gets an answer, until the server closes us
    except ConnectionClosed:
        assert w.ws.close_code in (1008, 1009), w.ws.close_code
    return sent


@pytest.mark.slow
async def test_thousands_of_malformed_frames_change_nothing(server: GameServer, url: str) -> None:
    alice = await Wire.open(url, "alice")
    bob = await Wire.open(url, "bob")
    carol = await Wire.open(url, "carol")
    rid = (
        await alice.request(
            ts.CreateRoom(discipline="three_cushion", distance=3, shot_clock_s=600),
            tc.RoomCreated,
        )
    ).room_id
    await carol.request(ts.Spectate(room_id=rid), tc.Snapshot)
    await alice.request(ts.Join(room_id=rid), tc.Joined)
    await bob.request(ts.Join(room_id=rid), tc.Joined)
    winner = await _lag(alice, bob, carol)
    shooter = [alice, bob][winner]
    await shooter.send(ts.ChooseBreak(breaker="me"))
    await carol.expect(tc.Turn, where=lambda m: m.phase == "play")
    before = await carol.request(ts.Sync(), tc.Snapshot)

    rng = random.Random(20261130)
    sent = 0
    started = time.monotonic()
    while sent < 3000 and time.monotonic() - started < 60:  # ~5 s on an idle machine
        batch = [_fuzz_connection(url, rid, random.Random(rng.random()), 60) for _ in range(8)]
        sent += sum(await asyncio.gather(*batch))
    assert sent >= 3000

    # The match is exactly where it was; the players' connections never noticed.
    after = await carol.request(ts.Sync(), tc.Snapshot)
    assert after.match == before.match and after.seq == before.seq
    assert after.room.seats == before.room.seats
    # And it goes on: the shooter strokes, everyone sees it.
    await shooter.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.3)))
    played = await carol.expect(tc.StrokePlayed, timeout=5)
    assert played.shooter == winner
    for p in (alice, bob):
        assert (await p.expect(tc.StrokePlayed)).seq == played.seq
    assert server.metrics.internal_errors == 0
