"""The bot judges candidate strokes as the referee does, on every table (the corner zones were
0.71·W/1.42 in the bot and a fixed 0.71 m in the referee: on club tables they disagreed). The
bot now rebuilds a real MatchState from the views and calls ``shared.rules.judge``."""

from __future__ import annotations

from dataclasses import replace

import msgpack
import pytest

from client.bot.plan import Judge, plan_stroke
from client.bot.problem import problem_from
from server.core.room import Room, settings_from_wire
from shared import rules
from shared.physics import simulate
from shared.physics.types import Stroke
from shared.protocol import to_server as ts
from shared.protocol.views import MatchView, RoomView
from shared.rules import Discipline, MatchOptions, PlayStroke, apply
from shared.rules.zones import zones_for
from shared.table import TABLES
from shared.wireviews import match_view


def _wire(obj: object) -> object:
    return msgpack.unpackb(msgpack.packb(obj), raw=False)


def _in_the_corner(table: str, discipline: Discipline, leg: float | None) -> rules.MatchState:
    """White to play, both object balls in the bottom-right corner zone, one carom made there
    (under straight rail's rule the next must drive a ball out, R-DISC-FREE)."""
    opts = MatchOptions(discipline=discipline, table=table, corner_zone_leg=leg)
    state, _ = apply(rules.new_match(replace(opts, practice=True), 0), rules.Start(), 0)
    spec = TABLES[table]
    r = spec.ball_radius
    balls = ((0.9 * spec.length / 2.84, 0.5 * spec.width), (4 * r, 3 * r), (3 * r, 7 * r))
    counts = tuple((z.name, 1) for z in zones_for(discipline, spec, opts.zone_leg))[:1]
    return replace(state, options=opts, balls=balls, zone_counts=counts, break_shot=False)


@pytest.mark.parametrize("table", sorted(TABLES))  # the match table and every club table
@pytest.mark.parametrize(
    ("discipline", "leg"),
    [
        (Discipline.STRAIGHT_RAIL, None),
        (Discipline.STRAIGHT_RAIL, 0.3),
        (Discipline.BALKLINE_47_2, None),
    ],
)
def test_the_bot_and_the_referee_judge_every_stroke_alike(
    table: str, discipline: Discipline, leg: float | None
) -> None:
    state = _in_the_corner(table, discipline, leg)
    # The views a bot reads, as the server builds and sends them (through the wire and back):
    # the match view and the room with its options.
    create = ts.CreateRoom(discipline=discipline.value, table=table, corner_zone_leg=leg)
    room = Room("r", settings_from_wire(create), 0)
    room_view = RoomView.from_wire(_wire(room.room_view().to_wire()), "room")
    view = MatchView.from_wire(_wire(match_view(state).to_wire()), "match")
    problem = problem_from(room_view, view, 0)
    assert problem is not None
    judge = Judge(problem)
    assert [z.name for z in judge.zones] == [
        z.name for z in zones_for(discipline, TABLES[table], state.options.zone_leg)
    ]
    # Two strokes the bot would choose (each search is cut at 0.25 s: any legal choice will do).
    strokes = [plan_stroke(problem, 3, seed=s, budget_s=0.25).stroke() for s in range(2)]
    strokes += [Stroke(d, 1.5) for d in (20.0, 45.0, 70.0, 200.0)]  # misses and fouls too
    for stroke in strokes:
        bot = judge.run(stroke)
        result = simulate(TABLES[table], state.positions, "white", stroke)
        _, verdict = apply(state, PlayStroke(0, stroke, result), state.resting_at_ms)
        assert (bot.points, bot.foul) == (verdict.points, verdict.foul is not None), stroke
