"""The room core and the referee's round-2 rules, driven without sockets (a fake clock): the
`turn` after every stroke (PROTOCOL.md), every table's options, the referee's own re-spots."""

from __future__ import annotations

from dataclasses import replace

import pytest

from server.core.room import Member, Room, settings_from_wire
from server.sim.job import run_job
from shared import rules, wireviews
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from shared.table import TABLES


def _practice() -> tuple[Room, Member]:
    room = Room(
        "p1", settings_from_wire(ts.CreateRoom(discipline="three_cushion", practice=True)), 1_000
    )
    ann = Member(1, "pa", "ann")
    room.join(ann, ts.Join(room_id="p1"), "h0", "tok0", 1_000)
    assert room.state.phase is rules.Phase.PLAY
    return room, ann


def _pair(**options: object) -> tuple[Room, Member, Member]:
    """A straight-rail room with ann and bob seated (``options``: more `create_room` fields)."""
    create = ts.CreateRoom(discipline="straight_rail", **options)  # type: ignore[arg-type]
    room = Room("r1", settings_from_wire(create), 1_000)
    a, b = Member(1, "pa", "ann"), Member(2, "pb", "bob")
    room.join(a, ts.Join(room_id="r1"), "h0", "t0", 1_000)
    room.join(b, ts.Join(room_id="r1"), "h1", "t1", 1_000)
    return room, a, b


def test_a_turn_follows_every_stroke_in_a_practice_room() -> None:
    # A practice room has no clock: shooter, phase and deadline never change after a stroke,
    # and a client waiting for `turn` (as the protocol promises) used to wait forever.
    room, ann = _practice()
    now = 2_000
    for _ in range(2):
        (job,) = room.handle(ann, ts.Stroke(cue=CueParams(direction=90.0, speed=0.3)), now).jobs
        fx = room.simulated(run_job(job), now + 10)
        kinds = [type(m).__name__ for _, m in fx.sends]
        assert "StrokePlayed" in kinds and "Turn" in kinds
        assert kinds.index("Turn") > kinds.index("StrokePlayed")
        turn = next(m for _, m in fx.sends if isinstance(m, tc.Turn))
        assert turn.shooter == 0 and turn.phase == "play" and turn.deadline_ms is None
        now = room.state.resting_at_ms + 1


@pytest.mark.parametrize("table", list(TABLES))
@pytest.mark.parametrize("discipline", [d.value for d in rules.Discipline])
def test_create_room_accepts_every_table_in_every_discipline(table: str, discipline: str) -> None:
    # R-TABLE-1: club_210, club_230 and ru_9ft used to be refused with bad_options.
    opts = settings_from_wire(ts.CreateRoom(discipline=discipline, table=table)).match_options()
    assert opts.table == table and opts.zone_leg <= opts.table_spec.width / 2


def test_create_room_sends_the_corner_zone_leg_to_the_referee() -> None:
    msg = ts.CreateRoom(discipline="straight_rail", table="club_230", corner_zone_leg=0.4)
    opts = settings_from_wire(msg).match_options()
    assert opts.zone_leg == 0.4
    zones = wireviews.match_view(rules.new_match(opts, 0))
    assert zones.phase == "waiting"
    with pytest.raises(ValueError, match="corner_zone_leg"):
        settings_from_wire(replace(msg, corner_zone_leg=0.7))  # more than half the width


def test_a_referee_respot_after_a_clock_foul_sends_everyone_the_table_and_a_turn() -> None:
    # R-FROZEN-1 (free game): the incoming player's ball touches a ball when their turn starts
    # after a clock foul; the referee re-spots all three, and every client must learn it.
    room, _, _ = _pair(shot_clock_s=30)
    state = rules.new_match(room.options, 1_000)
    state, _ = rules.apply(state, rules.Start(), 1_000)
    state, _ = rules.apply(
        replace(state, phase=rules.Phase.BREAK_CHOICE, lag_winner=0, lag_strokes=(None, None)),
        rules.ChooseBreak(0, 0),
        1_000,
    )
    r = TABLES["match"].ball_radius
    touching = ((2.0, 0.4), (1.0, 0.7), (1.0 + 2 * r, 0.7))  # the yellow touches the red
    room.state = replace(state, balls=touching, break_shot=False, spot_choice=False)
    assert room.state.deadline_ms is not None
    fx = room.tick(room.state.deadline_ms)
    calls = [m.code for _, m in fx.sends if isinstance(m, tc.Call)]
    assert "foul" in calls and "respot" in calls
    assert any(isinstance(m, tc.Turn) and m.shooter == 1 for _, m in fx.sends)
    assert fx.snapshot_all  # the new ball positions reach every client
    assert room.state.positions["yellow"] == TABLES["match"].right_start_spot


def test_the_break_choice_sends_everyone_the_table_set_for_the_break() -> None:
    # R-LAG-7: once the lag's winner chooses, the balls go to their break spots and the breaker
    # plays the white. A `turn` alone named neither: the browser page showed the lag's last
    # positions and no ball beside either name until the break stroke had rolled.
    room, _, b = _pair()
    lag_end = ((0.4, 0.3), (0.5, 1.1), (2.1, 0.7))  # where the lag left the balls
    room.state = replace(
        room.state,
        phase=rules.Phase.BREAK_CHOICE,
        lag_winner=1,
        lag_strokes=(None, None),
        balls=lag_end,
        resting_at_ms=1_000,
    )
    fx = room.handle(b, ts.ChooseBreak(breaker="me"), 2_000)
    assert fx.snapshot_all  # everyone gets the table: the balls moved and the white has a side
    assert room.state.white_seat == 1 and room.state.balls != lag_end
    view = wireviews.match_view(room.state)
    assert view.white_seat == 1 and view.ball_of(1) == "white"
    calls = [m.code for _, m in fx.sends if isinstance(m, tc.Call)]
    turn = next(m for _, m in fx.sends if isinstance(m, tc.Turn))
    assert "break" in calls and turn.shooter == 1 and turn.phase == "play"


def test_a_time_out_moves_no_ball_and_sends_no_table() -> None:
    # The other actions outside a stroke leave the balls where they are: a `turn` says it all.
    room, a, _ = _pair(shot_clock_s=30)
    room.state = replace(
        room.state, phase=rules.Phase.BREAK_CHOICE, lag_winner=0, lag_strokes=(None, None)
    )
    room.handle(a, ts.ChooseBreak(breaker="me"), 2_000)
    fx = room.handle(a, ts.TimeOut(), 3_000)
    assert room.state.phase is rules.Phase.TIMEOUT
    assert not fx.snapshot_all
