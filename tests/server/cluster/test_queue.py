"""Quick match over a cluster (server/cluster/queue.py), against a real Redis, PostgreSQL and
nodes: players queued on different nodes are paired once, by one matcher, into one room on one
node, and both reach it."""

from __future__ import annotations

import asyncio
from collections import Counter

from server.cluster.directory import connect
from server.cluster.queue import TICKETS
from server.core.accounts import AccountsConfig
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.cluster.test_node import _nodes, _until, _url
from tests.server.wire import Wire

FAST = AccountsConfig(pair_every_s=0.1)


async def test_players_queued_on_two_nodes_play_one_match_on_one_node(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b", "c", accounts=FAST) as nodes:
        a, b, _ = nodes
        ann, bob = await Wire.open(_url(a), "ann"), await Wire.open(_url(b), "bob")
        await ann.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        await bob.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        joined = [await w.expect(tc.Joined, timeout=5) for w in (ann, bob)]
        assert joined[0].room_id == joined[1].room_id
        assert {j.seat for j in joined} == {0, 1}
        rid = joined[0].room_id
        # One room, on the node of one of them (the longer waiter's); the other one plays it
        # through their node's relay.
        where = [rid in n.rooms for n in nodes]
        assert where in ([True, False, False], [False, True, False])
        relaying = b if where[0] else a
        assert relaying.cluster is not None and len(relaying.cluster.relays) == 1
        # One matcher made the pairing, once.
        paired = [n.cluster.queue.paired for n in nodes]  # type: ignore[union-attr]
        assert sorted(paired) == [0, 0, 1]
        counts = Counter(n.desk.counts["paired"] for n in nodes)
        assert counts == Counter({0: 2, 1: 1})
        for w in (ann, bob):  # the match starts for both, as a hand-joined room
            await w.expect(tc.Call, where=lambda m: m.code == "lag")
        await ann.send(ts.Concede())
        for w in (ann, bob):
            assert (await w.expect(tc.GameOver, timeout=5)).winner == 1 - joined[0].seat
        r = connect(redis_url)
        try:
            assert await r.hlen(TICKETS) == 0  # nobody waits any more
        finally:
            await r.aclose()


async def test_many_players_over_three_nodes_are_each_paired_once(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b", "c", accounts=FAST) as nodes:
        wires = [await Wire.open(_url(nodes[i % 3]), f"p{i}") for i in range(8)]
        await asyncio.gather(
            *(w.request(ts.Queue(discipline="one_cushion"), tc.Queued) for w in wires)
        )
        joined = [await w.expect(tc.Joined, timeout=10) for w in wires]
        rooms = Counter(j.room_id for j in joined)
        assert len(rooms) == 4 and set(rooms.values()) == {2}  # four matches of two
        assert sum(len(n.rooms) for n in nodes) == 4  # each on exactly one node
        # Two more pairing rounds on every node: a second pairing would seat someone twice.
        rounds = [n.cluster.queue.rounds for n in nodes]  # type: ignore[union-attr]
        await _until(
            lambda: all(
                n.cluster.queue.rounds >= r + 2  # type: ignore[union-attr]
                for n, r in zip(nodes, rounds, strict=True)
            )
        )
        for w in wires:
            assert sum(isinstance(m, tc.Joined) for m in w.log) == 1


async def test_an_unqueued_player_is_not_paired_and_a_matcher_that_stops_is_replaced(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b", accounts=FAST) as (a, b):
        await _until(lambda: any(n.cluster.queue.matcher for n in (a, b)))  # type: ignore[union-attr]
        matcher, other = (a, b) if a.cluster.queue.matcher else (b, a)  # type: ignore[union-attr]
        await matcher.stop()  # drains: gives the matcher's lease back
        await _until(lambda: other.cluster.queue.matcher, timeout=3)  # type: ignore[union-attr]
        ann, bob = await Wire.open(_url(other), "ann"), await Wire.open(_url(other), "bob")
        await ann.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        await ann.request(ts.Unqueue(), tc.Unqueued)
        await bob.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        done = other.cluster.queue.rounds  # type: ignore[union-attr]
        await _until(lambda: other.cluster.queue.rounds >= done + 2)  # type: ignore[union-attr]
        assert not other.rooms  # Ann left the queue: nobody for Bob
        carol = await Wire.open(_url(other), "carol")
        await carol.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        assert (await bob.expect(tc.Joined, timeout=5)).room_id == (
            await carol.expect(tc.Joined, timeout=5)
        ).room_id


async def test_a_player_whose_pairing_was_lost_is_queued_again(pg_url: str, redis_url: str) -> None:
    """The pair's message went nowhere (its node died): the player still waiting is put back
    in the queue by their own node, and paired with the next one."""
    async with _nodes(pg_url, redis_url, "a", "b", accounts=FAST) as (a, b):
        ann = await Wire.open(_url(a), "ann")
        await ann.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        r = connect(redis_url)
        try:
            # Ann's ticket reaches Redis through the node's writer: wait for it there.
            t0 = asyncio.get_running_loop().time()
            while not (fields := await r.hkeys(TICKETS)):
                await asyncio.sleep(0.02)
                assert asyncio.get_running_loop().time() - t0 < 10, "no ticket in Redis"
            assert len(fields) == 1
            await r.hdel(TICKETS, *fields)  # taken by a pairing whose message was lost
            t0 = asyncio.get_running_loop().time()
            while not await r.hlen(TICKETS):
                await asyncio.sleep(0.1)
                assert asyncio.get_running_loop().time() - t0 < 10
            assert asyncio.get_running_loop().time() - t0 >= 4.5  # not before REASSERT_S
        finally:
            await r.aclose()
        bob = await Wire.open(_url(b), "bob")
        await bob.request(ts.Queue(discipline="three_cushion"), tc.Queued)
        assert (await ann.expect(tc.Joined, timeout=5)).room_id == (
            await bob.expect(tc.Joined, timeout=5)
        ).room_id
