"""Bad input and dropped connections in a live match: a clear error, and nothing lost.

End to end on loopback (the real server, real websocket clients, the real referee and physics),
plus the one race the sockets cannot force, driven by hand through the sans-I/O room core."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

import pytest

from server.lobby import GameServer
from server.simulation import run_job
from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.test_room import _assert_unchanged, _core, _snapshot, _to_play
from tests.server.wire import Wire, find_scoring_stroke

CLOCK_S = 30
OPTIONS = rules.MatchOptions(distance=3, shot_clock_s=CLOCK_S)

# Strokes the protocol refuses (docs/protocol.md "stroke"), each with the field the error must
# name. A valid stroke is {"direction": 10.0, "speed": 1.0}; each case breaks one thing.
BAD_STROKES: list[tuple[dict[str, Any], str]] = [
    ({"speed": 9.0}, "speed"),  # above 8 m/s
    ({"speed": 0}, "speed"),  # (0, 8]: zero is no stroke
    ({"speed": -1.0}, "speed"),
    ({"speed": "3.5"}, "speed"),  # a string is not a number
    ({"speed": True}, "speed"),  # nor is a bool (an int in Python)
    ({"speed": 2**60}, "speed"),  # beyond the JavaScript-safe integers
    ({"speed": None}, "speed"),  # required
    ({"tip_x": 0.5, "tip_y": 0.49}, "tip_x"),  # hypot 0.7 > 0.6: a miscue
    ({"tip_y": math.nan}, "tip_y"),
    ({"elevation": 95.0}, "elevation"),  # [0, 89]
    ({"direction": math.nan}, "direction"),
    ({"direction": math.inf}, "direction"),
    ({"direction": 360.0}, "direction"),  # [0, 360)
    ({"spot": "middle"}, "spot"),
]


async def _answer(w: Wire, body: dict[str, Any], rid: int) -> tc.Error:
    await w.send({"t": "stroke", "direction": 10.0, "speed": 1.0, **body, "id": rid})
    return await w.expect(tc.Error, where=lambda m: m.re == rid)


async def test_out_of_range_strokes_from_the_shooter_change_nothing(
    server: GameServer, url: str
) -> None:
    alice, bob, carol, _, breaker = await _to_play(url, distance=3, shot_clock_s=CLOCK_S)
    shooter, other = [alice, bob][breaker], [alice, bob][1 - breaker]
    before = await _snapshot(carol)
    assert before.match.shooter == breaker and before.match.break_shot is True

    for n, (body, name) in enumerate(BAD_STROKES, start=100):
        err = await _answer(shooter, body, n)
        assert err.code == "bad_field", (body, err)
        assert name in err.message and len(err.message.split()) >= 3, (body, err.message)

    # Nothing reached the room: the same snapshot, no broadcast to anyone, the clock untouched.
    await _assert_unchanged(carol, before)
    for w in (carol, other):
        heard = [m for m in await w.quiet(0.2) if getattr(m, "seq", 0) > before.seq]
        assert heard == [], heard
    # The shooter is still seated and plays a valid stroke normally (the break).
    stroke, _ = find_scoring_stroke(before.match, OPTIONS, score=False)
    await shooter.send(stroke)
    played = await carol.expect(tc.StrokePlayed, timeout=5)
    assert played.shooter == breaker and played.seq == before.seq + 1
    assert played.stroke.cue.direction == stroke.cue.direction
    assert played.stroke.cue.speed == stroke.cue.speed
    assert played.result.next_shooter == 1 - breaker  # a miss: the turn passes
    await asyncio.sleep(max(0.0, played.rest_ms / 1000 - time.time()) + 0.05)

    # The referee refuses a starting spot after the break (R-BREAK-1): bad_field, naming it,
    # and nothing changes either (this one is checked by the room, not the decoder).
    at_rest = await _snapshot(carol)
    assert at_rest.match.shooter == 1 - breaker and at_rest.in_motion is None
    spot = await other.refused(ts.Stroke(cue=CueParams(direction=0.0, speed=1.0, spot="left")))
    assert spot.code == "bad_field" and "spot" in spot.message
    await _assert_unchanged(carol, at_rest)
    assert server.metrics.internal_errors == 0


@pytest.mark.slow  # ~15 s each: a scoring stroke rolls ~11 s and the test waits for its rest
@pytest.mark.parametrize("back_at", ["before_rest", "after_rest"])
async def test_a_shooter_who_drops_mid_stroke_loses_nothing(
    server: GameServer, url: str, back_at: str
) -> None:
    alice, bob, carol, rid, breaker = await _to_play(
        url, distance=3, shot_clock_s=CLOCK_S, grace_s=60
    )
    shooter, other = [alice, bob][breaker], [alice, bob][1 - breaker]
    start = await _snapshot(carol)
    # A stroke the referee scores (found offline with the server's physics and referee).
    stroke, duration = find_scoring_stroke(start.match, OPTIONS)
    assert duration > 2.0  # long enough to come back while the balls still roll

    await shooter.send(stroke)
    await shooter.close()  # gone before the balls come to rest

    # The opponent and the spectator hear the stroke and the drop (either order: a race).
    for w in (other, carol):
        played = await w.expect(tc.StrokePlayed, timeout=5)
        assert played.shooter == breaker
        down = await w.expect(tc.PlayerStatus, where=lambda m: m.status == "disconnected")
        assert down.seat == breaker and down.grace_until_ms is not None
    assert time.time() * 1000 < played.rest_ms, "the drop came too late to test anything"
    assert played.result.points == 1 and played.result.foul is None
    assert played.result.next_shooter == breaker  # scored: the shooter goes on
    assert played.match.score[breaker] == 1 and played.match.score[1 - breaker] == 0

    if back_at == "after_rest":
        await asyncio.sleep(max(0.0, played.rest_ms / 1000 - time.time()) + 0.05)
        away = await _snapshot(carol)
        # R-CLOCK-1 / R-END-5: the clock starts at rest and is paused for the absent shooter,
        # with the whole of it left; the other player cannot take the turn.
        assert away.match.deadline_ms is None and away.match.paused_ms == CLOCK_S * 1000
        assert away.in_motion is None
        assert (
            await other.refused(ts.Stroke(cue=CueParams(direction=0.0, speed=1.0)))
        ).code == "not_your_turn"
        await _assert_unchanged(carol, away)

    assert shooter.welcome is not None
    back = await Wire.open(url, "back", token=shooter.welcome.token)
    joined = await back.request(ts.Rejoin(room_id=rid, seat_token=shooter.seat_token), tc.Joined)
    assert joined.seat == breaker
    snap = await back.expect(tc.Snapshot)
    up = await carol.expect(
        tc.PlayerStatus, where=lambda m: m.status == "connected" and m.seat == breaker
    )
    assert up.seat == breaker and snap.seat == breaker
    if back_at == "before_rest":
        # The rejoined player animates the rest of its own stroke, exactly as broadcast.
        assert snap.in_motion is not None
        assert snap.in_motion.trajectory == played.trajectory
        assert snap.in_motion.seq == played.seq
        assert (snap.in_motion.start_ms, snap.in_motion.rest_ms) == (
            played.start_ms,
            played.rest_ms,
        )
        # Back before rest: the clock (which starts at rest) lost nothing.
        assert snap.match.deadline_ms == played.rest_ms + CLOCK_S * 1000
        await asyncio.sleep(max(0.0, played.rest_ms / 1000 - time.time()) + 0.05)
    else:
        assert snap.in_motion is None
        assert snap.match.deadline_ms >= played.rest_ms + CLOCK_S * 1000

    # The stroke counted exactly once, as the referee judged it.
    now = await _snapshot(back)
    for key in ("score", "innings", "shooter", "balls", "current_run", "high_run", "phase"):
        assert getattr(now.match, key) == getattr(played.match, key), key
    assert now.match.connected == (True, True) and now.room.seats[breaker].connected
    await carol.quiet(0.2)
    assert [m for m in carol.log if isinstance(m, tc.StrokePlayed)] == [played]
    replay = await back.request(ts.GetReplay(match_id=now.room.match_id), tc.Replay)
    assert not replay.finished
    assert [s.kind for s in replay.strokes] == ["lag", "stroke"]
    assert replay.strokes[1].body.trajectory == played.trajectory  # type: ignore[union-attr]
    assert replay.strokes[1].seat == breaker and replay.strokes[1].body.seq == played.seq  # type: ignore[union-attr]

    # And the match goes on with the right shooter: the rejoined player strikes again.
    miss, _ = find_scoring_stroke(now.match, OPTIONS, score=False)
    await back.send(miss)
    again = await carol.expect(tc.StrokePlayed, timeout=5)
    assert again.shooter == breaker and again.seq > played.seq
    assert again.match.score[breaker] == 1 and again.result.next_shooter == 1 - breaker
    assert server.metrics.internal_errors == 0


def test_core_a_stroke_in_flight_when_its_shooter_drops_counts_once() -> None:
    """The race the sockets cannot force: the drop reaches the room while the stroke is still
    being simulated. The result is applied at the time the stroke arrived (it was sent in time),
    the clock stays paused for the absent shooter, and a rejoin sees the stroke in motion."""
    room, a, b, s = _core()
    room.spectate(s, ts.Spectate(room_id="r1"), 1_000)
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_000)
    room.handle(a, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)), 2_000)
    (lag,) = room.handle(b, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)), 2_000).jobs
    fx = room.simulated(run_job(lag), 2_100)
    (lag_msg,) = [m for _, m in fx.sends if isinstance(m, tc.LagResult)]
    moving = room.snapshot(None, now=2_100).in_motion
    assert moving is not None and moving.seq == lag_msg.seq  # as broadcast, seq included
    winner = room.state.lag_winner
    assert winner is not None
    who, conn = (a, b)[winner], (a, b)[winner].conn
    t = room.state.resting_at_ms + 10
    room.handle(who, ts.ChooseBreak(breaker="me"), t)
    (job,) = room.handle(who, ts.Stroke(cue=CueParams(direction=90.0, speed=2.0)), t + 10).jobs
    seq = room.seq

    fx = room.disconnect(conn, t + 20)  # before the simulation comes back
    (down,) = [m for _, m in fx.sends if isinstance(m, tc.PlayerStatus)]
    assert down.status == "disconnected" and down.seat == winner
    fx = room.simulated(run_job(job), t + 500)
    (played,) = [m for _, m in fx.sends if isinstance(m, tc.StrokePlayed)]
    assert played.shooter == winner and played.start_ms == t + 10
    assert all(conn not in to for to, _ in fx.sends)  # only the ones still there hear it
    assert [log.kind for log in fx.strokes] == ["stroke"] and room.strokes_played == 1
    assert room.state.strokes_played == 1
    assert played.seq > seq
    rest = room.state.resting_at_ms
    assert rest == played.rest_ms
    if played.result.next_shooter == winner:
        # Scored: the clock (from rest, R-CLOCK-1) waits for the absent shooter, all of it left.
        assert room.state.deadline_ms is None and room.state.paused_ms == 30_000
    else:  # missed: the other player's clock runs from rest
        assert room.state.deadline_ms == rest + 30_000

    # Back before rest: the stroke in motion, as broadcast (same seq), and nothing replayed.
    fx = room.rejoin(who, ts.Rejoin(room_id="r1", seat_token="t"), f"h{winner}", t + 600)
    (snap,) = [m for _, m in fx.sends if isinstance(m, tc.Snapshot)]
    assert snap.in_motion is not None and snap.in_motion.seq == played.seq
    assert snap.in_motion.rest_ms == rest and not fx.jobs and not fx.strokes
    assert room.state.deadline_ms == rest + 30_000 and room.state.strokes_played == 1


def test_core_a_concede_while_the_balls_roll_drops_that_stroke_from_the_rematch() -> None:
    """R-END-5: the shooter's opponent concedes while the stroke is still being simulated, and
    both ask for a rematch at once. The old stroke belongs to the finished match: its result is
    dropped, the rematch's clock runs, and its breaker can strike."""
    room, a, b, _s = _core()
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_000)
    room.handle(a, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)), 2_000)
    (lag,) = room.handle(b, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)), 2_000).jobs
    room.simulated(run_job(lag), 2_100)
    winner = room.state.lag_winner
    assert winner is not None
    players = (a, b)
    t = room.state.resting_at_ms + 10
    room.handle(players[winner], ts.ChooseBreak(breaker="me"), t)
    (job,) = room.handle(
        players[winner], ts.Stroke(cue=CueParams(direction=90.0, speed=2.0)), t + 10
    ).jobs

    fx = room.handle(players[1 - winner], ts.Concede(), t + 20)
    assert any(isinstance(m, tc.GameOver) for _, m in fx.sends)
    room.handle(a, ts.Rematch(), t + 30)
    room.handle(b, ts.Rematch(), t + 30)
    assert room.state.phase is rules.Phase.PLAY and room.next_wake() is not None

    fx = room.simulated(run_job(job), t + 500)  # the old match's stroke comes back
    assert fx.sends == [] and fx.strokes == []  # stale: nothing is judged or broadcast
    breaker = room.state.shooter
    assert breaker is not None
    fx = room.handle(players[breaker], ts.Stroke(cue=CueParams(direction=90.0, speed=2.0)), t + 600)
    assert len(fx.jobs) == 1 and not any(isinstance(m, tc.Error) for _, m in fx.sends)
