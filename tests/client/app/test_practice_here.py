"""Replay analysis on a real replay, and "practice from here" (docs/analysis.md): a practice
room opens with the balls exactly where the replay had them before the chosen stroke.

Real server on loopback (real SQLite file); the window's own network bridge and game model, no
window needed (as tests/client/app/test_network.py)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from client.app.bridge import Bridge
from client.app.model import GameModel
from client.app.practice_here import PracticeHere
from client.session import Session
from client.stats import replay_pages
from shared.analysis.reading import read_played
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.table import MATCH
from tests.client.practice_play import TICKY, UMBRELLA, play_practice


async def _replay(url: str) -> tc.Replay:
    async with Session(url, "viewer", remember_identity=False) as s:
        rows = await s.ask(ts.ListMatches(), tc.Matches)
        (row,) = rows.matches
        (page,) = await replay_pages(s, row.match_id)
    return page


def _strokes(replay: tc.Replay) -> list[tc.StrokePlayed]:
    return [s.body for s in replay.strokes if isinstance(s.body, tc.StrokePlayed)]


@pytest.mark.slow
async def test_a_replayed_stroke_is_read_as_a_player_reads_it(server_url: str) -> None:
    await play_practice(server_url)
    ticky, umbrella, miss = _strokes(await _replay(server_url))
    reading = read_played(ticky, MATCH)
    assert reading.name == "Ticky" and read_played(umbrella, MATCH).name == "Umbrella"
    assert read_played(miss, MATCH).name is None
    assert reading.cue_words == (
        "Speed: soft, 1.5 m/s",
        "Tip: one tip at 3 o'clock: right english",
        "Cue: level cue, aimed at 270.0°",
    )
    texts = [e.text for e in reading.events]
    assert texts[0] == "the cue strikes the white"
    assert "the white hits the red" in texts and texts[-1] == "every ball is at rest"
    cushions = [t for t in texts if t.startswith("the white meets the")]
    assert len(cushions) >= 3 and all(" at " in t for t in cushions)  # placed in diamonds
    # The path starts where the white stood and follows the trajectory to rest.
    assert reading.path[0] == TICKY.balls["white"]
    assert reading.balls_before == TICKY.balls
    assert read_played(umbrella, MATCH).balls_before == UMBRELLA.balls


class Window:
    """What a window does each frame, minus the drawing: drain the bridge into the model and
    hand every message to the listeners (as the controller's ``on_message``)."""

    def __init__(self, url: str, name: str) -> None:
        self.bridge = Bridge(url, name)
        self.bridge.start()
        self.model = GameModel()
        self.listeners: list[Callable[[object], None]] = []

    def until(self, cond: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.model.clock_offset_ms = self.bridge.clock_offset_ms
            for msg in self.bridge.drain():
                self.model.apply(msg)
                for listener in self.listeners:
                    listener(msg)
            if cond():
                return
            time.sleep(1 / 60)
        raise AssertionError("timed out")


@pytest.mark.slow
async def test_practice_from_here_puts_the_balls_exactly_where_the_replay_had_them(
    server_url: str,
) -> None:
    await play_practice(server_url)
    replay = await _replay(server_url)
    umbrella = _strokes(replay)[1]
    before = read_played(umbrella, MATCH).balls_before
    window = Window(server_url, "learner")
    try:
        flow = PracticeHere(
            window.bridge.send, before, replay.room.discipline, replay.room.options.table
        )
        window.listeners.append(flow.on_message)
        flow.start()
        window.until(lambda: flow.done)
        assert flow.log == ["create", "join", "place", "ready"]
        match = window.model.match
        room = window.model.room
        assert match is not None and room is not None
        assert room.practice and room.room_id == flow.room_id
        assert room.discipline == "three_cushion"
        # Exactly: the same floats the replay's trajectory starts from.
        assert {b: tuple(p) for b, p in match.balls.items()} == dict(before)
        assert match.phase == "play" and window.model.my_turn
    finally:
        window.bridge.close()
