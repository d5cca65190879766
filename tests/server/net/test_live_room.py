"""End to end: a real server on loopback, real websocket clients, the real referee and physics;
and the sans-I/O room core driven by hand (more of it, whole matches, in test_room_core.py)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace

import msgpack
import pytest

from server.core.room import Member, Room, settings_from_wire
from shared import rules
from shared.protocol import encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams, RoomSummary
from tests.server.wire import Wire

OPTIONS = rules.MatchOptions(distance=1, shot_clock_s=5)


async def _seated_room(url: str) -> tuple[Wire, Wire, Wire, str]:
    alice = await Wire.open(url, "alice")
    bob = await Wire.open(url, "bob")
    carol = await Wire.open(url, "carol")
    created = await alice.request(
        ts.CreateRoom(discipline="three_cushion", distance=1, shot_clock_s=5), tc.RoomCreated
    )
    rid = created.room_id
    await carol.request(ts.Spectate(room_id=rid), tc.Snapshot)
    assert (await alice.request(ts.Join(room_id=rid), tc.Joined)).seat == 0
    assert (await bob.request(ts.Join(room_id=rid), tc.Joined)).seat == 1
    return alice, bob, carol, rid


async def _snapshot(w: Wire) -> tc.Snapshot:
    return await w.request(ts.Sync(), tc.Snapshot)


async def _assert_unchanged(w: Wire, before: tc.Snapshot) -> None:
    """A refusal changed nothing: the room's snapshot is the same and nothing was broadcast."""
    after = await _snapshot(w)
    assert after.seq == before.seq, "a refusal was followed by a broadcast"
    assert after.match == before.match and after.room == before.room
    assert after.in_motion == before.in_motion


async def _lag(alice: Wire, bob: Wire, carol: Wire) -> int:
    """R-LAG-3: both lag strokes in, simulated together; returns the winner's seat."""
    await carol.expect(tc.Turn, where=lambda m: m.phase == "lag")
    # R-LAG-2: alice taps her ball backwards and never reaches the top cushion, so she loses to
    # bob's lag, the softest that reaches it (its balls rest after ~9.5 s).
    await alice.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
    await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    lag = await carol.expect(tc.LagResult, timeout=10)
    assert lag.winner is not None, lag.reason
    assert set(lag.trajectory.paths) == {"white", "yellow", "red"}
    await asyncio.sleep(max(0.0, (lag.rest_ms or 0) / 1000 - time.time()))
    return lag.winner


async def _to_play(url: str, **options: object) -> tuple[Wire, Wire, Wire, str, int]:
    """A seated room past the lag, with the lag winner to break; returns its seat."""
    alice = await Wire.open(url, "alice")
    bob = await Wire.open(url, "bob")
    carol = await Wire.open(url, "carol")
    settings = {"distance": 1, **options}  # distance 1 unless the test asks for another
    created = await alice.request(
        ts.CreateRoom(discipline="three_cushion", **settings),  # type: ignore[arg-type]
        tc.RoomCreated,
    )
    rid = created.room_id
    await carol.request(ts.Spectate(room_id=rid), tc.Snapshot)
    alice.seat_token = (await alice.request(ts.Join(room_id=rid), tc.Joined)).seat_token
    bob.seat_token = (await bob.request(ts.Join(room_id=rid), tc.Joined)).seat_token
    winner = await _lag(alice, bob, carol)
    await (alice if winner == 0 else bob).send(ts.ChooseBreak(breaker="me"))
    await carol.expect(tc.Turn, where=lambda m: m.phase == "play")
    return alice, bob, carol, rid, winner


async def test_a_match_over_the_wire_reaches_everyone_alike_and_is_stored(url: str) -> None:
    """The wiring end to end: sockets, the actor, the physics, the store and replays. (The
    referee's play through the room, clocks and graces included, is in test_room_core.py,
    with a fake clock.)"""
    alice, bob, carol, rid = await _seated_room(url)
    # A spectator can never act (R-PLAY-3); nothing changes, nothing is broadcast.
    before = await _snapshot(carol)
    assert (
        await carol.refused(ts.Stroke(cue=CueParams(direction=0.0, speed=1.0)))
    ).code == "not_a_player"
    await _assert_unchanged(carol, before)
    # A second connection of a seated player, without the seat, cannot act either.
    assert alice.welcome is not None
    twin = await Wire.open(url, "twin", token=alice.welcome.token)
    assert (
        await twin.refused(ts.Stroke(cue=CueParams(direction=0.0, speed=1.0)))
    ).code == "not_in_room"
    await twin.request(ts.Spectate(room_id=rid), tc.Snapshot)
    assert (await twin.refused(ts.Concede())).code == "not_a_player"

    await carol.expect(tc.Turn, where=lambda m: m.phase == "lag")
    await alice.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
    await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    lag = await carol.expect(tc.LagResult, timeout=10)
    assert lag.winner is not None and set(lag.trajectory.paths) == {"white", "yellow", "red"}
    # R-END-5: the lag's loser concedes while the balls still roll.
    await (alice, bob)[1 - lag.winner].send(ts.Concede())
    over = await carol.expect(tc.GameOver)
    assert over.winner == lag.winner and over.reason == "concede"
    for p in (alice, bob):
        await p.expect(tc.GameOver)
    logs = [
        [m for m in x.log if isinstance(m, tc.GameOver | tc.LagResult)] for x in (alice, bob, carol)
    ]
    assert logs[0] == logs[1] == logs[2] == [lag, over]
    for x in (alice, bob, carol):
        seqs = [m.seq for m in x.broadcasts()]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "a gap in seq"

    # The finished match is stored with its strokes: the replay browser can show it.
    found = await alice.request(ts.ListMatches(), tc.Matches)
    assert found.matches[0].match_id == over.match_id
    assert found.matches[0].winner == lag.winner
    mine = await alice.request(ts.ListMatches(player_id=alice.welcome.player_id), tc.Matches)
    assert [m.match_id for m in mine.matches] == [over.match_id]
    assert carol.welcome is not None
    watched = await carol.request(ts.ListMatches(player_id=carol.welcome.player_id), tc.Matches)
    assert watched.matches == ()  # a spectator played no match
    assert over.match_id is not None
    replay = await carol.request(ts.GetReplay(match_id=over.match_id), tc.Replay)
    assert replay.finished and replay.scoresheet == over.scoresheet
    assert [s.kind for s in replay.strokes] == ["lag"]
    assert replay.strokes[0].body.trajectory == lag.trajectory  # type: ignore[union-attr]

    # Both ask for a rematch: everyone gets the fresh match, with a new id.
    await alice.send(ts.Rematch())
    await bob.send(ts.Rematch())
    fresh = await carol.expect(tc.Snapshot, where=lambda m: m.room.match_id != over.match_id)
    assert fresh.match.score == (0, 0) and fresh.match.phase in ("lag", "play")


async def test_frozen_ball_respot_in_practice(url: str) -> None:
    ann = await Wire.open(url, "ann")
    rid = (
        await ann.request(ts.CreateRoom(discipline="three_cushion", practice=True), tc.RoomCreated)
    ).room_id
    await ann.request(ts.Join(room_id=rid), tc.Joined)
    assert (await ann.refused(ts.Respot())).code == "not_frozen"
    # The white touching the red (R-FROZEN-5): the referee calls it frozen (R-CALL-3).
    await ann.request(ts.Place(balls={"white": (1.0, 0.7), "red": (1.0615, 0.7)}), tc.Snapshot)
    frozen = await ann.expect(tc.Call, where=lambda m: m.code == "frozen")
    assert "red" in frozen.text
    await ann.send(ts.Respot())
    await ann.expect(tc.Call, where=lambda m: m.code == "respot")
    snap = await ann.request(ts.Sync(), tc.Snapshot)
    w, r = snap.match.balls["white"], snap.match.balls["red"]
    assert ((w[0] - r[0]) ** 2 + (w[1] - r[1]) ** 2) ** 0.5 > 0.0625  # apart now (R-RESPOT-3C)


# The sans-I/O core, driven by hand: no sockets, no clock, no event loop. ------------------------


def _core() -> tuple[Room, Member, Member, Member]:
    room = Room(
        "r1", settings_from_wire(ts.CreateRoom(discipline="three_cushion", shot_clock_s=30)), 1_000
    )
    a, b, s = Member(1, "pa", "ann"), Member(2, "pb", "bob"), Member(3, "ps", "sue")
    return room, a, b, s


def test_core_join_start_and_hidden_lag_strokes() -> None:
    room, a, b, s = _core()
    room.spectate(s, ts.Spectate(room_id="r1"), 1_000)
    fx = room.join(a, ts.Join(room_id="r1", id=7), "h0", "tok0", 1_000)
    joined = [m for _, m in fx.sends if isinstance(m, tc.Joined)]
    assert [(j.seat, j.seat_token, j.re) for j in joined] == [(0, "tok0", 7)]
    fx = room.join(b, ts.Join(room_id="r1"), "h1", "tok1", 1_100)
    assert fx.new_match and fx.snapshot_all and room.state.phase is rules.Phase.LAG
    # Only the joiner hears its own seat token.
    assert all(to == (b.conn,) for to, m in fx.sends if isinstance(m, tc.Joined))
    # R-LAG-3: a lag stroke is kept hidden; a second one from the same seat is refused.
    fx = room.handle(a, ts.Stroke(cue=CueParams(direction=0.0, speed=0.1)), 1_200)
    assert not fx.jobs and [m.code for _, m in fx.sends if isinstance(m, tc.Call)] == ["lag_stroke"]
    fx = room.handle(a, ts.Stroke(cue=CueParams(direction=0.0, speed=0.2), id=9), 1_300)
    assert [(m.code, m.re) for _, m in fx.sends] == [("already_played", 9)]
    state = room.state
    fx = room.handle(s, ts.Stroke(cue=CueParams(direction=0.0, speed=0.2)), 1_300)
    assert [m.code for _, m in fx.sends] == ["not_a_player"] and room.state is state
    fx = room.handle(b, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)), 1_400)
    (job,) = fx.jobs
    assert job.kind == "lag" and set(job.strokes) == {"white", "yellow"}
    assert job.strokes["white"].speed == 0.1 and job.received_ms == 1_400
    # While it is simulated, the balls are moving for everyone.
    fx = room.handle(b, ts.TimeOut(), 1_450)
    assert [m.code for _, m in fx.sends] == ["balls_moving"]


def test_core_applies_the_simulation_at_the_time_the_stroke_arrived() -> None:
    from server.sim.job import run_job

    room, a, b, s = _core()
    room.spectate(s, ts.Spectate(room_id="r1"), 1_000)
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_000)
    room.handle(a, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)), 2_000)
    (job,) = room.handle(b, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)), 2_000).jobs
    out = run_job(job)
    assert room.simulated(replace(out, job=job.job + 1), 9_000).sends == []  # stale: ignored
    seq = room.seq
    fx = room.simulated(out, 9_000)  # the result comes back later; the lag started at 2_000
    (lag,) = [m for _, m in fx.sends if isinstance(m, tc.LagResult)]
    assert lag.start_ms == 2_000 and lag.rest_ms == room.state.resting_at_ms
    assert lag.winner == room.state.lag_winner and lag.seq == seq + 1
    assert all(to == (a.conn, b.conn, s.conn) for to, _ in fx.sends)  # seats, then spectators
    assert [m.seq for _, m in fx.sends] == list(range(seq + 1, seq + 1 + len(fx.sends)))
    assert [log.kind for log in fx.strokes] == ["lag"]
    # The stored record is the broadcast's wire form, byte for byte: the actor encodes it once
    # and sends those bytes (a replay shows exactly what the room saw).
    (log,) = fx.strokes
    assert log.sent is lag and encode(lag) == msgpack.packb(log.record, use_bin_type=True)


def test_core_break_spot_choice() -> None:
    """R-BREAK-1: the breaker picks the left or right starting spot with the first stroke."""
    from server.sim.job import run_job

    room, a, b, _ = _core()
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_000)
    room.handle(a, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)), 2_000)
    (job,) = room.handle(b, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)), 2_000).jobs
    room.simulated(run_job(job), 2_100)
    winner = room.state.lag_winner
    assert winner is not None
    who = (a, b)[winner]
    after = room.state.resting_at_ms
    room.handle(who, ts.ChooseBreak(breaker="me"), after)
    table = room.options.table_spec
    (job,) = room.handle(
        who, ts.Stroke(cue=CueParams(direction=90.0, speed=2.0, spot="left")), after + 10
    ).jobs
    assert job.balls["white"] == table.left_start_spot and job.spot == "left"
    room.simulated(run_job(job), after + 20)
    rest = room.state.resting_at_ms
    nxt = (a, b)[room.state.shooter or 0]
    fx = room.handle(
        nxt, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0, spot="right"), id=4), rest + 10
    )
    assert [(m.code, m.re) for _, m in fx.sends] == [("bad_field", 4)] and not fx.jobs


def test_core_reruns_a_lag_lost_in_a_restart_or_a_dead_worker() -> None:
    from server.net.actor import restore_room
    from server.sim.job import run_job
    from server.store.sqlite import RoomRecord

    room, a, b, _ = _core()
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_000)
    room.handle(a, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)), 2_000)
    (job,) = room.handle(b, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)), 2_000).jobs
    # The worker dies: no result. The room runs the lag again at once instead of waiting for
    # the lag clock (which would find both strokes in and nothing decided).
    room.simulated(replace(run_job(job), result=None, failure="physics worker died"), 2_050)
    assert room.next_wake() == 0
    (again,) = room.tick(2_060).jobs
    assert again.strokes == job.strokes and again.kind == "lag"
    # The server is killed while that one runs: the saved state has both strokes and no result.
    record = RoomRecord(
        "r1",
        {"discipline": "three_cushion", "shot_clock_s": 30},
        False,
        None,
        1_000,
        room.seq,
        [
            {"player_id": "pa", "name": "ann", "token_hash": "h0"},
            {"player_id": "pb", "name": "bob", "token_hash": "h1"},
        ],
        rules.state_to_dict(room.state),
        1,
    )
    back = restore_room(record, 5_000)
    assert back.next_wake() == 0
    (rerun,) = back.tick(5_000).jobs
    fx = back.simulated(run_job(rerun), 5_100)
    assert [log.kind for log in fx.strokes] == ["lag"]  # decided and stored
    assert back.state.phase is rules.Phase.BREAK_CHOICE and back.state.lag_winner is not None


def test_core_owns_its_persistence_form_and_draws_match_ids() -> None:
    """Issue 11: the room core writes and reads its own row (to_record/from_record) and draws
    the match id itself, so the snapshot everyone gets at the start already names the match;
    broadcasts get consecutive seqs on copies (messages are frozen, nothing is patched)."""
    from server.core.room import SEQ_GAP_ON_RESTORE

    ids = iter([7_001, 7_002])
    room = Room(
        "r1",
        settings_from_wire(
            ts.CreateRoom(discipline="three_cushion", shot_clock_s=30, private=True, password="pw")
        ),
        1_000,
        password_hash="scrypt-hash",
        match_ids=lambda: next(ids),
    )
    a, b = Member(1, "pa", "ann"), Member(2, "pb", "bob")
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    fx = room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_100)
    assert fx.new_match and room.match_id == 7_001
    assert room.snapshot(0).room.match_id == 7_001
    seqs = [m.seq for _, m in fx.sends if getattr(m, "seq", None) is not None]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))) and seqs[-1] == room.seq
    room.handle(a, ts.Stroke(cue=CueParams(direction=0.0, speed=1.5)), 1_200)

    record = room.to_record()
    assert record.match_id == 7_001 and record.seq == room.seq and record.private
    assert "password" not in record.options and record.password_hash == "scrypt-hash"
    assert [s and s["token_hash"] for s in record.seats] == ["h0", "h1"]
    record.updated_ms = 1_200
    back = Room.from_record(record, 4_200)  # down for 3 s
    assert back.match_id == 7_001 and back.seq == room.seq + SEQ_GAP_ON_RESTORE
    assert back.state.lag_strokes == room.state.lag_strokes  # the hidden lag stroke survives
    assert [h and (h.player_id, h.conn) for h in back.seats] == [("pa", None), ("pb", None)]
    assert back.state.connected == (False, False)  # everyone rejoins with a seat token
    assert back.to_record().state == back.to_record().state  # a stable form


def test_core_chat_has_a_budget_per_room_shared_by_everyone() -> None:
    """Issue 12, point 11: a storm of spectators gets ``rate_limited``; the room's other
    traffic is not buried under it. The clock is the test's."""
    room, a, _, s = _core()
    room.spectate(s, ts.Spectate(room_id="r1"), 1_000)
    room.spectate(a, ts.Spectate(room_id="r1"), 1_000)
    sent = refused = 0
    for i in range(30):  # 30 lines in the same millisecond, from two people
        fx = room.handle(s if i % 2 else a, ts.Chat(text=f"line {i}", id=i), 2_000)
        kinds = {type(m) for _, m in fx.sends}
        if tc.ChatLine in kinds:
            sent += 1
        else:
            (err,) = [m for _, m in fx.sends]
            assert isinstance(err, tc.Error) and err.code == "rate_limited" and err.re == i
            refused += 1
    assert (sent, refused) == (10, 20)
    # The budget refills with time: 5 lines a second.
    ok = [
        any(isinstance(m, tc.ChatLine) for _, m in room.handle(s, ts.Chat(text="hi"), 3_000).sends)
        for _ in range(7)
    ]
    assert ok == [True] * 5 + [False] * 2


@pytest.mark.parametrize(
    "bad", ["ali\u202ece", "bo\u200bb", "line\u2028break", "\ufeffbom", "zero\u2060width"]
)
async def test_names_and_chat_with_invisible_characters_are_refused(url: str, bad: str) -> None:
    """Issue 12, point 13: bidi overrides, zero-width characters, line separators."""
    w = await Wire.open(url)
    # Raw maps: our own encoder refuses to send them at all.
    await w.send({"t": "hello", "v": 1, "name": bad, "id": 901})
    refused = await w.expect(tc.Error, where=lambda m: m.re == 901)
    assert refused.code == "bad_field" and "invisible" in refused.message
    await w.request(ts.Hello(v=1, name="fine"), tc.Welcome)
    rid = (await w.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
    await w.request(ts.Spectate(room_id=rid), tc.Snapshot)
    await w.send({"t": "chat", "text": f"hi {bad}", "id": 902})
    assert (await w.expect(tc.Error, where=lambda m: m.re == 902)).code == "bad_field"


async def test_a_look_alike_of_a_seated_players_name_is_marked(url: str) -> None:
    alice = await Wire.open(url, "alice")
    rid = (await alice.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
    await alice.request(ts.Join(room_id=rid), tc.Joined)
    # "Аlice" with a Cyrillic А, and in full-width letters: both pass for "alice".
    twin = await Wire.open(url, "\u0410lice")
    await twin.request(ts.Join(room_id=rid), tc.Joined)
    snap = await twin.expect(tc.Snapshot, where=lambda m: m.room.seats[1] is not None)
    names = [s.name for s in snap.room.seats]
    assert names == ["alice", "\u0410lice (2)"]
    fan = await Wire.open(url, "ＡＬＩＣＥ")
    await fan.request(ts.Spectate(room_id=rid), tc.Snapshot)
    await fan.send(ts.Chat(text="it's me, alice"))
    line = await alice.expect(tc.ChatLine)
    assert line.sender == "ＡＬＩＣＥ (spectator)" and line.seat is None
    await twin.send(ts.Chat(text="no, me"))
    line = await alice.expect(tc.ChatLine, where=lambda m: m.text == "no, me")
    assert line.sender == "\u0410lice (2)" and line.seat == 1


@pytest.mark.slow
async def test_the_rooms_list_shows_the_players_names_and_the_live_score(url: str) -> None:
    """Issue 21: a lobby's ``rooms`` entry names both players and, once the match is on, its
    score as it stands at the request (no score before the match starts)."""
    from tests.server.wire import search_stroke

    dave = await Wire.open(url, "dave")  # in the lobby, looking for something to watch

    async def entry(rid: str) -> RoomSummary:
        rooms = (await dave.request(ts.ListRooms(), tc.Rooms)).rooms
        (found,) = [r for r in rooms if r.room_id == rid]
        return found

    waiting = await dave.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
    listed = await entry(waiting.room_id)
    assert listed.players == (None, None) and listed.score is None

    alice, bob, carol, rid, breaker = await _to_play(url, distance=3)
    listed = await entry(rid)
    assert listed.players == ("alice", "bob")
    assert listed.score == (0, 0) and listed.spectators == 1
    snap = await carol.request(ts.Sync(), tc.Snapshot)
    scoring, _ = await search_stroke(snap.match, replace(OPTIONS, distance=3, shot_clock_s=40))
    await (alice, bob)[breaker].send(scoring)
    played = await carol.expect(tc.StrokePlayed, timeout=10)
    assert played.result.points == 1
    after = (await entry(rid)).score
    assert after == tuple(1 if seat == breaker else 0 for seat in (0, 1))
