"""Screenshots of the study screens for docs/analysis.md, rendered offscreen.

``python -m client.app.study_shots OUTDIR`` writes ``replay_analysis.png`` (a simulated
three-cushion point in the replay screen, stopped on its third cushion) and ``drill.png`` (a
corner-5 drill after a few attempts) and ``drill_plus_two.png`` (the plus system chosen on the
same screen, after two attempts). ``ARCADE_HEADLESS=1`` is set before arcade loads.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from client.app.offscreen import draw_offscreen
from shared import rules, wireviews
from shared.analysis.layouts import Layout, lay_out
from shared.physics import Stroke
from shared.physics.trajectory import encode_trajectory, event_wire
from shared.protocol import to_client as tc
from shared.protocol import views as pv
from shared.table import MATCH

if TYPE_CHECKING:
    from client.app.model import GameModel

START_MS = 1_700_000_000_000


def point_layout() -> Layout:
    return lay_out(
        MATCH,
        (0.7, 0.5),
        Stroke(0.0, 4.0, 0.2, 0.1),
        first_after=0,
        first_where=0.5,
        cut=0.35,
        second_after=3,
    )


def point_replay() -> tc.Replay:
    """A replay of one stroke: an around-the-table point the simulator laid out and played."""
    layout = lay_out(
        MATCH,
        (0.7, 0.5),
        Stroke(0.0, 4.0, 0.2, 0.1),
        first_after=0,
        first_where=0.5,
        cut=0.35,
        second_after=3,
    )
    result = layout.result
    final = {b: p for b, p in result.final.items() if p is not None}
    match = replace(
        wireviews.match_view(rules.new_match(rules.MatchOptions(), 0)),
        balls=final,
        phase="play",
        shooter=0,
        score=(1, 0),
        deadline_ms=None,
    )
    s = layout.stroke
    body = tc.StrokePlayed(
        seq=1,
        shooter=0,
        stroke=pv.PlayedStroke(
            cue=pv.CueParams(direction=s.direction, speed=s.speed, tip_x=s.tip_x, tip_y=s.tip_y),
            ball="white",
        ),
        start_ms=START_MS,
        rest_ms=START_MS + int(result.duration * 1000),
        trajectory=pv.Trajectory.from_wire(encode_trajectory(result.trajectory)),
        events=tuple(pv.EventView.from_wire(event_wire(e)) for e in result.events),
        result=pv.StrokeResult(
            points=1, foul=None, calls=(), respots={}, next_shooter=0, game_over=None
        ),
        match=match,
    )
    room = pv.ReplayRoom(
        match_id=1,
        room_id="study",
        discipline="three_cushion",
        options=pv.SentOptions(discipline="three_cushion", distance=25),
        players=(
            pv.PlayerRef(player_id="p0", name="Ann"),
            pv.PlayerRef(player_id="p1", name="Bob"),
        ),
        started_ms=START_MS,
        finished_ms=START_MS + 60_000,
        winner=None,
        reason=None,
        scoresheet=None,
    )
    entry = pv.ReplayStroke(n=1, kind="stroke", seat=0, played_ms=START_MS, body=body)
    return tc.Replay(match_id=1, room=room, strokes=(entry,), finished=True)


def render(outdir: Path) -> list[Path]:
    draw_offscreen()
    from client.app import replay_analysis as study
    from client.app.app import Controller, make_window, save_screenshot
    from client.app.drill_view import DrillView
    from client.app.replay_view import ReplayView
    from client.app.table_view import TableView

    outdir.mkdir(parents=True, exist_ok=True)
    window = make_window(visible=False)
    out = []
    controller = Controller(window)
    replay = ReplayView(controller, point_replay(), clock=lambda: float(START_MS))
    replay.play(0)
    reading = replay.reading(0)
    assert reading is not None
    third = [s for s in reading.steps if s.is_cushion][2]
    study.freeze_at(replay.model, replay.clock, third.t)  # stopped on the third cushion
    window.show_view(replay)
    out.append(save_screenshot(window, outdir / "replay_analysis.png"))
    _texts(replay.scene.labels.shown, outdir / "replay_analysis.json")

    drill = DrillView(controller)
    for off in (4.0, 2.5, 1.0):
        drill.direction = (drill.drill.answer.direction + off) % 360.0
        drill.play()
    window.show_view(drill)
    out.append(save_screenshot(window, outdir / "drill.png"))
    _texts(drill.scene.labels.shown, outdir / "drill.json")
    # The plus system, chosen as the player would (its button), after two strokes: one a
    # diamond's width of aim off its line, then one half a degree off.
    plus = next(b for b in drill.buttons if b.key == "system:plus")
    drill.on_mouse_press(round(plus.rect.cx), round(plus.rect.cy), 1, 0)
    for off in (3.0, 0.5):
        drill.direction = (drill.drill.answer.direction + off) % 360.0
        drill.play()
    out.append(save_screenshot(window, outdir / "drill_plus_two.png"))
    _texts(drill.scene.labels.shown, outdir / "drill_plus_two.json")
    hints_model = hints_scene()
    controller = Controller(window, hints_model)
    table = TableView(controller)
    table.hints.ask("three_cushion", "match", hints_model.resting_balls(), "white", wait=True)
    window.show_view(table)
    controller.pump()
    out.append(save_screenshot(window, outdir / "hints.png"))
    _texts(table.scene.labels.shown, outdir / "hints.json")
    window.close()
    return out


def hints_scene() -> GameModel:
    """A practice table with the balls of the around-the-table point above."""
    from client.app.scenes import _model, match_at, room_view, snapshot, wire

    layout = point_layout()
    model = _model(0)
    m = match_at(dict(layout.balls), practice=True, deadline_ms=None)
    model.apply(wire(snapshot(room_view(practice=True), m, 0)))
    return model


def _texts(shown: dict[str, tuple[str, float, float]], path: Path) -> None:
    """What the frame wrote, for the tests (key → text, x, y)."""
    path.write_text(json.dumps(shown, indent=1, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m client.app.study_shots OUTDIR", file=sys.stderr)
        sys.exit(2)
    for p in render(Path(sys.argv[1])):
        print(p)
