"""Bad input and dropped connections in a live match: a clear error, and nothing lost.

End to end on loopback (the real server, real websocket clients, the real referee and physics),
plus the races the sockets cannot force, driven by hand through the sans-I/O room core."""

from __future__ import annotations

import math
from typing import Any

from server.net.gateway import GameServer
from server.sim.job import run_job
from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.net.test_live_room import _assert_unchanged, _core, _seated_room, _snapshot
from tests.server.wire import Wire

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


async def test_out_of_range_strokes_from_a_player_change_nothing(
    server: GameServer, url: str
) -> None:
    alice, bob, carol, _ = await _seated_room(url)
    before = await _snapshot(carol)
    assert before.match.phase == "lag"

    for n, (body, name) in enumerate(BAD_STROKES, start=100):
        err = await _answer(alice, body, n)
        assert err.code == "bad_field", (body, err)
        assert name in err.message and len(err.message.split()) >= 3, (body, err.message)

    # Nothing reached the room: the same snapshot, no broadcast to anyone, no lag stroke kept.
    await _assert_unchanged(carol, before)
    for w in (carol, bob):
        heard = [m for m in await w.quiet(0.2) if getattr(m, "seq", 0) > before.seq]
        assert heard == [], heard
    # The player is still seated and plays valid strokes normally (the lag).
    await alice.send(ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
    await bob.send(ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    lag = await carol.expect(tc.LagResult, timeout=10)
    assert lag.winner == 1 and lag.seq > before.seq
    assert server.metrics.internal_errors == 0


# A shooter who drops mid-stroke: tests/server/core/test_room.py (a fake clock, the real referee
# and physics), and below the one race the sockets cannot force.


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
