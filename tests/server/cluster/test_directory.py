"""Leases, presence and the room directory, against a real redis-server (tests/engines.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from server.cluster.directory import Directory, Leases, NodeNameTaken, connect, holder


@pytest.fixture
async def r(redis_url: str) -> AsyncIterator[aioredis.Redis]:
    client = connect(redis_url)
    try:
        yield client
    finally:
        await client.aclose()


async def test_a_lease_is_exclusive_until_released(r: aioredis.Redis) -> None:
    a, b = Leases(r, "a", "i1", 5000), Leases(r, "b", "i2", 5000)
    assert await a.acquire("r1")
    assert not await b.acquire("r1")
    assert await a.acquire("r1") == 0  # not twice either: one holder, one acquire
    assert await b.owner("r1") == "a"
    assert not await b.release("r1")  # only the holder can give it up
    assert await a.owner("r1") == "a"
    assert await a.release("r1")
    assert await b.acquire("r1")  # free at once after the release, not after the ttl
    assert await a.owner("r1") == "b"


async def test_a_lease_expires_unless_renewed(r: aioredis.Redis) -> None:
    a, b = Leases(r, "a", "i1", 300), Leases(r, "b", "i2", 300)
    assert await a.acquire("kept") and await a.acquire("left")
    for _ in range(6):  # 600 ms: twice the ttl, renewing only one of them
        await asyncio.sleep(0.1)
        assert await a.renew(["kept"]) == set()
    assert not await b.acquire("kept")
    assert await b.acquire("left")  # expired: the next node takes it
    assert await a.renew(["kept", "left"]) == {"left"}  # and a learns it is lost
    assert await a.owner("left") == "b"


async def test_a_lease_is_handed_over_without_being_free(r: aioredis.Redis) -> None:
    a, b, c = Leases(r, "a", "i1", 5000), Leases(r, "b", "i2", 5000), Leases(r, "c", "i3", 5000)
    assert await a.acquire("r1")
    assert await a.hand_over("r1", holder("b", "i2"))
    assert await c.owner("r1") == "b"
    assert not await c.acquire("r1")
    assert await a.renew(["r1"]) == {"r1"}
    assert await b.renew(["r1"]) == set()
    assert not await a.hand_over("r1", holder("c", "i3"))  # no longer a's to give


async def test_a_restarted_node_does_not_inherit_its_old_instance_leases(
    r: aioredis.Redis,
) -> None:
    old, new = Leases(r, "a", "before", 5000), Leases(r, "a", "after", 5000)
    assert await old.acquire("r1")
    assert await new.renew(["r1"]) == {"r1"}
    assert not await new.release("r1")


async def test_two_nodes_see_each_others_rooms_and_a_dead_nodes_rooms_leave(
    r: aioredis.Redis,
) -> None:
    a = Directory(r, "a", "ws://127.0.0.1:1/", 400)
    b = Directory(r, "b", "ws://127.0.0.1:2/", 400)
    await a.join()
    await b.join()
    await a.beat({"r1": {"room_id": "r1", "players": ["Ann", None]}})
    await b.beat({"r2": {"room_id": "r2", "players": []}, "r3": {"room_id": "r3"}})
    for d in (a, b):
        listed = {(x.node, x.url, x.summary["room_id"]) for x in await d.rooms()}
        assert listed == {
            ("a", "ws://127.0.0.1:1/", "r1"),
            ("b", "ws://127.0.0.1:2/", "r2"),
            ("b", "ws://127.0.0.1:2/", "r3"),
        }
    # A change is published; a closed room leaves.
    await b.beat({"r2": {"room_id": "r2", "players": ["Bob"]}})
    assert {x.summary["room_id"]: x.summary for x in await a.rooms()}["r2"]["players"] == ["Bob"]
    assert {x.summary["room_id"] for x in await a.rooms()} == {"r1", "r2"}
    assert await a.rooms(limit=1) != []
    assert len(await a.rooms(limit=1)) == 1
    # b stops beating (killed): within the ttl its rooms and itself are gone.
    for _ in range(6):
        await asyncio.sleep(0.1)
        await a.beat({"r1": {"room_id": "r1", "players": ["Ann", None]}})
    assert [n.name for n in await a.nodes()] == ["a"]
    assert {x.summary["room_id"] for x in await a.rooms()} == {"r1"}
    await a.leave()  # a drained node leaves at once
    assert await a.rooms() == [] and await a.nodes() == []


async def test_a_node_name_in_use_is_refused_and_lost_data_is_published_again(
    r: aioredis.Redis,
) -> None:
    a = Directory(r, "a", "ws://127.0.0.1:1/", 5000)
    await a.join()
    with pytest.raises(NodeNameTaken, match="already running"):
        await Directory(r, "a", "ws://127.0.0.1:9/", 5000).join()
    await a.beat({"r1": {"room_id": "r1"}})
    await r.flushall()  # Redis restarted without its data
    await a.beat({"r1": {"room_id": "r1"}})  # nothing changed, but Redis lost it: noticed
    await a.beat({"r1": {"room_id": "r1"}})
    assert [x.summary for x in await a.rooms()] == [{"room_id": "r1"}]


async def test_open_rooms_without_a_holder_are_found(r: aioredis.Redis) -> None:
    a = Leases(r, "a", "i1", 5000)
    d = Directory(r, "a", "ws://127.0.0.1:1/", 5000)
    for room_id in ("held", "orphan", "gone"):
        await d.opened(room_id)
    await a.acquire("held")
    await d.closed("gone")
    assert await d.unheld() == ["orphan"]


async def test_every_new_holder_gets_a_higher_fencing_token(r: aioredis.Redis) -> None:
    a, b = Leases(r, "a", "i1", 5000), Leases(r, "b", "i2", 5000)
    first = await a.acquire("r1")
    assert first >= 1
    assert await a.release("r1")
    second = await b.acquire("r1")
    assert second > first
    third = await b.hand_over("r1", holder("a", "i1"))
    assert third > second
    assert await b.bump("r1", 100) == 0  # not b's any more
    await r.delete(Leases.fence_key("r1"))  # Redis lost the counter ...
    assert await a.bump("r1", 41) == 42  # ... the holder continues above what it is told
