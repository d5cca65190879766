"""Players and spectators see the same ball at the same server moment, and a spectator who
arrives mid-stroke picks the stroke up where it is (DESIGN.md "Life of a stroke" 5).

Real server (``python -m server`` on loopback, real SQLite file), the window's own network
bridge (the client library's background session) and game model; no window needed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from client.app.bridge import Bridge
from client.app.model import GameModel
from client.session import Event
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams


class Window:
    """What a window does each frame, minus the drawing: drain the bridge into the model."""

    def __init__(self, url: str, name: str) -> None:
        self.bridge = Bridge(url, name)
        self.bridge.start()
        self.model = GameModel()
        self.seen: list[Event] = []

    def pump(self) -> None:
        self.model.clock_offset_ms = self.bridge.clock_offset_ms
        for msg in self.bridge.drain():
            self.seen.append(msg)
            self.model.apply(msg)

    def until(self, cond: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            if cond():
                return
            time.sleep(1 / 60)
        raise AssertionError(f"timed out; last messages: {self.seen[-8:]}")

    def created(self) -> str | None:
        return next((m.room_id for m in self.seen if isinstance(m, tc.RoomCreated)), None)


def test_a_spectator_arriving_mid_stroke_sees_the_rest_of_it_in_step_with_the_player(
    server_url: str,
) -> None:
    player = Window(server_url, "player")
    try:
        player.bridge.send(ts.CreateRoom(discipline="three_cushion", practice=True))
        player.until(lambda: player.created() is not None)
        room_id = player.created()
        assert room_id is not None
        player.bridge.send(ts.Join(room_id=room_id))
        player.until(lambda: player.model.my_turn)
        # A long, hard stroke along the table: several seconds of rolling.
        player.bridge.send(ts.Stroke(cue=CueParams(direction=80.0, speed=6.0, tip_y=0.3)))
        player.until(lambda: player.model.animation is not None)
        time.sleep(0.4)

        spectator = Window(server_url, "watcher")
        try:
            spectator.bridge.send(ts.Spectate(room_id=room_id))
            spectator.until(lambda: spectator.model.room is not None)
            anim = spectator.model.animation
            assert anim is not None, "the snapshot should carry the stroke in motion"
            assert spectator.model.spectating
            now = spectator.model.now_ms()
            assert 0.3 < anim.t_at(now) < anim.motion.duration  # mid-stroke, not from the start
            mine = player.model.animation
            assert mine is not None
            assert anim.start_ms == mine.start_ms
            # Same server moment, same ball, same place: on both screens.
            for t in (anim.t_at(now), anim.t_at(now) + 0.5, anim.motion.duration):
                assert anim.motion.poses(t) == mine.motion.poses(t)
        finally:
            spectator.bridge.close()
    finally:
        player.bridge.close()


@pytest.mark.slow
def test_a_finished_match_is_listed_and_its_replay_decodes_for_the_replay_view(
    server_url: str,
) -> None:
    a, b = Window(server_url, "ana"), Window(server_url, "kim")
    try:
        a.bridge.send(ts.CreateRoom(discipline="three_cushion"))
        a.until(lambda: a.created() is not None)
        room_id = a.created()
        assert room_id is not None
        a.bridge.send(ts.Join(room_id=room_id))
        a.until(lambda: a.model.seat is not None)
        b.bridge.send(ts.Join(room_id=room_id))
        for w in (a, b):
            w.until(lambda w=w: w.model.phase == "lag" and w.model.my_turn)
            w.bridge.send(
                ts.Stroke(
                    cue=CueParams(direction=0.0, speed=1.5, tip_x=0.0, tip_y=0.0, elevation=0.0)
                )
            )
        a.until(lambda: any(isinstance(m, tc.LagResult) for m in a.seen))
        assert a.model.animation is not None  # the lag is animated too (both balls)
        assert set(a.model.animation.motion.paths) >= {"white", "yellow"}
        b.bridge.send(ts.Concede())
        a.until(lambda: a.model.game_over is not None)
        over = a.model.game_over
        assert over is not None and over.winner == a.model.seat
        match_id = over.match_id
        assert match_id is not None

        a.bridge.send(ts.ListMatches(limit=5))
        a.until(lambda: any(m.match_id == match_id for m in a.model.matches))
        a.bridge.send(ts.GetReplay(match_id=match_id))
        a.until(lambda: any(isinstance(m, tc.Replay) for m in a.seen))
        replay = next(m for m in a.seen if isinstance(m, tc.Replay))
        lags = [s.body for s in replay.strokes if isinstance(s.body, tc.LagResult)]
        assert lags, "the lag was stored with its trajectory"
        for lag in lags:  # what ReplayView plays: the trajectories decode into segments
            segs = lag.trajectory.segments()
            assert segs and all(len(v) >= 1 for v in segs.values())
    finally:
        a.bridge.close()
        b.bridge.close()
