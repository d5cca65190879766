"""A team room on a cluster is a room like any other (R-TEAM-1): its four players may sit through
different nodes (relayed to the room's node), a spectator watches through a hub, and when the
room's node drains, the room goes on on another node with every partner back in their place and
the partner due still due."""

from __future__ import annotations

import pytest

from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.cluster.test_node import _nodes, _until, _url
from tests.server.midmatch import without_clocks
from tests.server.net.test_team_room import _miss, _snapshot
from tests.server.net.test_team_room import _until as _until_ms
from tests.server.wire import Wire

NAMES = ("alice", "bob", "carol", "dave")


@pytest.mark.slow
async def test_a_doubles_room_plays_across_nodes_and_survives_its_node_draining(
    pg_url: str, redis_url: str
) -> None:
    async with _nodes(pg_url, redis_url, "a", "b") as (a, b):
        # Side 0 (alice, carol) on the room's node; side 1 (bob, dave) through b.
        homes = (a, b, a, b)
        wires = [await Wire.open(_url(node), n) for node, n in zip(homes, NAMES, strict=True)]
        alice, bob, carol, dave = wires
        eve = await Wire.open(_url(b), "eve")  # a spectator through b's hub
        created = await alice.request(
            ts.CreateRoom(discipline="three_cushion", distance=2, team_mode="doubles"),
            tc.RoomCreated,
        )
        rid = created.room_id
        await eve.request(ts.Spectate(room_id=rid), tc.Snapshot)
        tokens, places = [], []
        for w in wires:
            joined = await w.request(ts.Join(room_id=rid), tc.Joined)
            tokens.append(joined.seat_token)
            places.append((joined.seat, joined.slot))
        assert places == [(0, 0), (1, 0), (0, 1), (1, 1)]

        # The lag by the first players (a wrong partner is refused across the relay too).
        await eve.expect(tc.Turn, where=lambda m: m.phase == "lag")
        assert (await dave.refused(ts.Stroke(cue=CueParams(direction=0.0, speed=1.0)))).code == (
            "not_your_turn"
        )
        await alice.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))  # short: loses
        await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
        lag = await eve.expect(tc.LagResult, timeout=15)
        assert lag.winner == 1, lag.reason
        await _until_ms(lag.rest_ms)
        await dave.send(ts.ChooseBreak(breaker="me"))
        await eve.expect(tc.Turn, where=lambda m: m.phase == "play")
        await _miss(bob, eve)  # B1 misses: side 0's inning, alice's (A1)
        played = await _miss(alice, eve)  # A1 misses: side 1's inning, dave's (B2)
        assert (played.result.next_shooter, played.result.next_slot) == (1, 1)
        before = (await _snapshot(eve)).match
        assert (before.shooter, before.shooter_slot) == (1, 1) and before.innings == (1, 1)

        await a.stop()  # the room's node drains: the room is saved and handed on
        for w in (*wires, eve):
            assert await w.closed() == 1001
        await _until(lambda: rid in b.rooms, timeout=60)  # a wait, not a measure

        back = []
        for w, name, token, place in zip(wires, NAMES, tokens, places, strict=True):
            assert w.welcome is not None
            again = await Wire.open(_url(b), name, token=w.welcome.token)
            joined = await again.request(ts.Rejoin(room_id=rid, seat_token=token), tc.Joined)
            assert (joined.seat, joined.slot) == place
            back.append(again)
        alice, bob, carol, dave = back
        after = (await _snapshot(alice)).match
        assert (after.shooter, after.shooter_slot) == (1, 1)  # dave is still due
        assert without_clocks(after) == without_clocks(before)
        # The wrong partner is still refused on the new node; the right one plays.
        gentle = ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))
        assert (await bob.refused(gentle)).code == "not_your_turn"
        played = await _miss(dave, alice)
        assert (played.shooter, played.shooter_slot) == (1, 1)
        await carol.send(ts.Concede())  # either partner concedes for the side
        over = await bob.expect(tc.GameOver)
        assert over.winner == 1 and over.reason == "concede"
        sheet = over.scoresheet
        assert sheet.players is not None and len(sheet.players) == 4
        for w in back:
            await w.close()
