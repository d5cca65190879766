"""Limits across nodes (server/cluster/limits.py), against a real Redis and real nodes: a cap or
a rate limit cannot be dodged by spreading over the nodes of a cluster."""

from __future__ import annotations

import asyncio

from server.cluster.directory import Directory, connect
from server.cluster.limits import Holdings, RedisAttempts
from server.core.accounts import AccountsConfig
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.cluster.test_node import _nodes, _until, _url
from tests.server.wire import Wire


async def test_attempts_are_counted_in_one_sliding_window(redis_url: str) -> None:
    r = connect(redis_url)
    try:
        attempts = RedisAttempts(r, "login", limit=3, window_ms=1000)
        for t in (0, 100, 200):
            assert await attempts.wait_ms("ann", t) == 0
            await attempts.count("ann", t)
        assert await attempts.wait_ms("ann", 300) == 700  # until the first leaves the window
        assert await attempts.wait_ms("bob", 300) == 0  # per key
        assert await attempts.wait_ms("ann", 1000) == 0  # the first one left
        await attempts.clear("ann")
        assert await attempts.wait_ms("ann", 300) == 0
    finally:
        await r.aclose()


async def test_holdings_add_up_every_live_node_and_a_dead_nodes_counts_leave(
    redis_url: str,
) -> None:
    r = connect(redis_url)
    try:
        a = Directory(r, "a", "ws://a/", 500)
        b = Directory(r, "b", "ws://b/", 500)
        await a.join()
        await b.join()
        held_a = Holdings(r, "a", a.info.instance, 500)
        held_b = Holdings(r, "b", b.info.instance, 500)
        assert await held_a.take("rooms:identity:ann", 2) is None
        assert await held_b.take("rooms:identity:ann", 2) is None
        assert await held_b.take("rooms:identity:ann", 2) == 2  # refused: 2 held in all
        assert await held_a.take("rooms:identity:bob", 2) is None  # per key
        held_a.give("rooms:identity:ann")
        await _until(lambda: not held_a._pending)
        assert await held_b.take("rooms:identity:ann", 2) is None  # given back on a
        assert await held_a.take("rooms:identity:ann", 2) == 2
        # b dies (no beat): its presence and its counts expire; a's stay while it beats.
        for _ in range(6):
            await asyncio.sleep(0.15)
            await a.beat({})
            await held_a.beat()
        assert await held_a.take("rooms:identity:ann", 2) is None
        # Redis restarted empty: the next beat writes a's counts again.
        await r.flushall()
        await a.join()
        await held_a.beat()
        assert await held_a.take("rooms:identity:bob", 2) is None
        assert await held_a.take("rooms:identity:bob", 2) == 2
    finally:
        await r.aclose()


async def test_the_rooms_per_identity_cap_holds_over_two_nodes(pg_url: str, redis_url: str) -> None:
    async with _nodes(pg_url, redis_url, "a", "b", max_rooms_per_identity=2) as (a, b):
        ann_a = await Wire.open(_url(a), "ann")
        assert ann_a.welcome is not None
        ann_b = await Wire.open(_url(b), "ann", token=ann_a.welcome.token)  # the same player
        create = ts.CreateRoom(discipline="three_cushion")
        await ann_a.request(create, tc.RoomCreated)
        await ann_b.request(create, tc.RoomCreated)
        for w in (ann_a, ann_b):  # one room on each node: each node alone would allow more
            refused = await w.refused(create)
            assert refused.code == "too_many_rooms"
            assert "at most 2 per player" in refused.message
        # Another player is not held to Ann's count.
        bob = await Wire.open(_url(b), "bob")
        await bob.request(create, tc.RoomCreated)


async def test_the_connections_per_address_cap_holds_over_two_nodes(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b", max_connections_per_address=3) as (a, b):
        kept = [await Wire.open(_url(a), "one"), await Wire.open(_url(a), "two")]
        kept.append(await Wire.open(_url(b), "three"))
        fourth = await Wire.open(_url(b))
        assert await fourth.closed(timeout=5) == 1013  # three are open from here already
        await kept.pop().close()  # one goes: room for another, on either node
        await _until(lambda: len(b.clients) == 0)
        again = await Wire.open(_url(b), "again")
        assert (await again.request(ts.Ping(), tc.Pong)).server_time_ms > 0


async def test_failed_logins_are_counted_over_every_node(pg_url: str, redis_url: str) -> None:
    accounts = AccountsConfig(name_failures=5)
    async with _nodes(pg_url, redis_url, "a", "b", accounts=accounts) as (a, b):
        owner = await Wire.open(_url(a), "owner")
        await owner.request(ts.Register(name="Annabel", password="correct horse"), tc.Welcome)
        for guess, node in enumerate((a, b, a, b, a)):  # five failures, over the two nodes
            w = await Wire.open(_url(node), "eve")
            bad = await w.refused(ts.Login(name="Annabel", password=f"guess {guess}"))
            assert bad.code == "bad_login"
        for node in (a, b):  # now refused on both, even with the right password
            w = await Wire.open(_url(node), "eve")
            limited = await w.refused(ts.Login(name="Annabel", password="correct horse"))
            assert limited.code == "rate_limited"


async def test_wrong_room_passwords_are_counted_over_every_node(
    pg_url: str, redis_url: str
) -> None:
    """Each node's backoff lets one identity make 6 wrong guesses before it must wait; spreading
    the guesses over private rooms on two nodes meets the cluster's count (12 in ten minutes)."""
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        private = ts.CreateRoom(discipline="three_cushion", private=True, password="open sesame")
        rooms: dict[str, list[str]] = {"a": [], "b": []}
        for node, name, count in ((a, "a", 2), (b, "b", 3)):
            owner = await Wire.open(_url(node), f"owner-{name}")
            for _ in range(count):
                rooms[name].append((await owner.request(private, tc.RoomCreated)).room_id)
        mallory_a = await Wire.open(_url(a), "mallory")
        assert mallory_a.welcome is not None
        mallory_b = await Wire.open(_url(b), "mallory", token=mallory_a.welcome.token)
        guesses = 0
        for w, node in ((mallory_a, "a"), (mallory_b, "b")):
            for rid in rooms[node][:2]:
                for _ in range(3):  # three mistakes per room go free on each node
                    guesses += 1
                    bad = await w.refused(ts.Join(room_id=rid, password=f"guess {guesses}"))
                    assert bad.code == "bad_password"
        # Node b alone has seen 6 (no wait there yet); the cluster has seen 12.
        held = await mallory_b.refused(ts.Join(room_id=rooms["b"][2], password="guess 13"))
        assert held.code == "rate_limited" and "wrong passwords" in held.message
        # Someone else, from elsewhere in the cluster's eyes (another identity), gets in.
        ann = await Wire.open(_url(b), "ann")
        joined = await ann.request(
            ts.Join(room_id=rooms["b"][2], password="open sesame"), tc.Joined
        )
        assert joined.seat == 0
