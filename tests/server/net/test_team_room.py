"""Team rooms over a real server on loopback (R-TEAM-1…7): four players take the four seats of a
doubles room, the first players lag, the wrong partner's stroke is refused and changes nothing,
a partner who drops for good leaves the other playing every stroke of the side, and everyone —
a spectator too — is told the same."""

from __future__ import annotations

import asyncio
import time

import pytest

from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.wire import Wire, search_stroke

OPTIONS = rules.MatchOptions(distance=2, grace_s=2, team_mode=rules.TeamMode.DOUBLES)
GENTLE = ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))


async def _until(t_ms: int | None) -> None:
    await asyncio.sleep(max(0.0, (t_ms or 0) / 1000 - time.time()) + 0.05)


async def _snapshot(w: Wire) -> tc.Snapshot:
    return await w.request(ts.Sync(), tc.Snapshot)


async def _miss(player: Wire, eve: Wire) -> tc.StrokePlayed:
    """``player`` plays a stroke that scores nothing; returns it as the spectator saw it."""
    snap = await _snapshot(eve)
    stroke, _ = await search_stroke(snap.match, OPTIONS, score=False)
    await _until(snap.match.resting_at_ms)
    await player.send(stroke)
    played = await eve.expect(tc.StrokePlayed, timeout=15)
    await _until(played.rest_ms)
    return played


@pytest.mark.slow
async def test_a_doubles_room_over_the_wire(url: str) -> None:
    names = ("alice", "bob", "carol", "dave")
    alice, bob, carol, dave = [await Wire.open(url, n) for n in names]
    eve = await Wire.open(url, "eve")
    created = await alice.request(
        ts.CreateRoom(discipline="three_cushion", distance=2, grace_s=2, team_mode="doubles"),
        tc.RoomCreated,
    )
    rid = created.room_id
    await eve.request(ts.Spectate(room_id=rid), tc.Snapshot)
    # R-TEAM-1: the seats fill by line-up, the first players of both sides first.
    places = []
    for w in (alice, bob, carol, dave):
        joined = await w.request(ts.Join(room_id=rid), tc.Joined)
        places.append((joined.seat, joined.slot))
    assert places == [(0, 0), (1, 0), (0, 1), (1, 1)]
    late = await Wire.open(url, "frank")
    assert (await late.refused(ts.Join(room_id=rid))).code == "room_full"
    snap = await _snapshot(eve)
    assert snap.room.players == names and snap.room.options.team_mode == "doubles"
    assert snap.match.players is not None and len(snap.match.players) == 4
    rooms = await late.request(ts.ListRooms(), tc.Rooms)
    assert next(r for r in rooms.rooms if r.room_id == rid).players == names

    # The lag is the first players' (R-TEAM-1): carol's is refused.
    await eve.expect(tc.Turn, where=lambda m: m.phase == "lag")
    refused = await carol.refused(GENTLE)
    assert refused.code == "not_your_turn"
    await alice.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))  # short: loses
    await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    lag = await eve.expect(tc.LagResult, timeout=15)
    assert lag.winner == 1, lag.reason
    await _until(lag.rest_ms)
    # Either partner of the winning side chooses; side 1 breaks, by its first player (bob).
    await dave.send(ts.ChooseBreak(breaker="me"))
    turn = await eve.expect(tc.Turn, where=lambda m: m.phase == "play")
    assert (turn.shooter, turn.shooter_slot) == (1, 0)

    # R-TEAM-4: dave's stroke is bob's to play: refused, and nothing changed.
    before = await _snapshot(eve)
    assert (await dave.refused(GENTLE)).code == "not_your_turn"
    after = await _snapshot(eve)
    assert after.seq == before.seq and after.match == before.match

    played = await _miss(bob, eve)
    assert (played.shooter, played.shooter_slot) == (1, 0)
    assert (played.result.next_shooter, played.result.next_slot) == (0, 0)
    turn = await eve.expect(tc.Turn, where=lambda m: m.seq > played.seq)
    assert (turn.shooter, turn.shooter_slot) == (0, 0)

    # Carol (A2) drops and does not come back within the grace: out for good (R-TEAM-7).
    await carol.close()
    status = await eve.expect(tc.PlayerStatus, where=lambda m: m.status == "disconnected")
    assert (status.seat, status.slot) == (0, 1) and status.grace_until_ms is not None
    out = await eve.expect(tc.Call, timeout=10, where=lambda m: m.code == "partner_out")
    for w in (alice, bob, dave):
        assert (await w.expect(tc.Call, where=lambda m: m.code == "partner_out")) == out
    snap = await _snapshot(eve)
    assert snap.match.phase == "play" and snap.match.players is not None
    assert [p.out for p in snap.match.players] == [False, False, True, False]
    assert snap.match.connected == (True, True)  # side 0 still has alice

    await _miss(alice, eve)  # A1
    await _miss(dave, eve)  # B2
    # Side 0's next inning would be carol's: alice plays all of its strokes now.
    snap = await _snapshot(eve)
    assert (snap.match.shooter, snap.match.shooter_slot) == (0, 0)
    played = await _miss(alice, eve)
    assert (played.shooter, played.shooter_slot) == (0, 0)

    # A side concedes by either partner; everyone gets the same scoresheet, four players on it.
    await bob.send(ts.Concede())
    over = await eve.expect(tc.GameOver)
    assert over.winner == 0 and over.reason == "concede"
    for w in (alice, bob, dave):
        assert (await w.expect(tc.GameOver)) == over
    sheet = over.scoresheet
    assert sheet.players is not None and len(sheet.players) == 4
    assert [p.innings for p in sheet.players] == [2, 1, 0, 1]
    assert sheet.match[0].innings == 2 and sheet.match[1].innings == 2

    # The stored match has the four players and replays like any other.
    assert over.match_id is not None
    replay = await eve.request(ts.GetReplay(match_id=over.match_id), tc.Replay)
    assert replay.finished and replay.scoresheet == over.scoresheet
    assert [p.name for p in replay.room.players] == list(names)
    assert replay.room.options.team_mode == "doubles"
    for w in (alice, bob, dave, eve, late):
        await w.close()
