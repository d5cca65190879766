"""A team room through the room core (server/core/room.py) with a fake clock: four seats by
line-up (R-TEAM-1), a partner's turn refused to the other (R-TEAM-4), a restart from the real
SQLite file that keeps the four seats, the clocks and whose stroke it is, and the partner who
does not come back (R-TEAM-7)."""

from __future__ import annotations

from pathlib import Path

from server.core.room import Room
from server.store.sqlite import Store
from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.drive import Drive
from tests.server.wire import stroke_for

NAMES = ("alice", "bob", "cid", "dot")


def _team_room(mode: str) -> Drive:
    d = Drive.create(
        ts.CreateRoom(discipline="one_cushion", distance=3, grace_s=20, team_mode=mode)
    )
    d.spectate(d.member("eve"))
    for name in NAMES:
        who = d.member(name)
        d.join(who)
        d.players.append(who)
    return d


def _past_the_lag(d: Drive) -> None:
    alice, bob = d.players[0], d.players[1]
    d.send(alice, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))  # short: loses
    d.send(bob, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    assert d.expect(d.people["eve"], tc.LagResult).winner == 1
    d.until_rest()
    d.send(d.players[1], ts.ChooseBreak(breaker="opponent"))  # side 0 breaks, by alice


def _play(d: Drive, score: bool) -> tc.StrokePlayed:
    state = d.room.state
    assert state.shooter is not None and state.shooter_slot is not None
    who = d.players[state.shooter + 2 * state.shooter_slot]
    msg, _ = stroke_for(state, d.room.options, score)
    d.send(who, msg)
    played = d.expect(d.people["eve"], tc.StrokePlayed)
    d.until_rest()
    return played


def test_four_seats_by_line_up_and_the_partners_turns() -> None:
    d = _team_room("scotch")
    eve = d.people["eve"]
    joined = [m for m in d.log[eve.conn] if isinstance(m, tc.PlayerStatus)]
    assert [(m.seat, m.slot) for m in joined] == [(0, 0), (1, 0), (0, 1), (1, 1)]
    _past_the_lag(d)
    turn = d.expect(eve, tc.Turn, where=lambda m: m.phase == "play")
    assert (turn.shooter, turn.shooter_slot) == (0, 0)
    cid = d.players[2]
    assert d.refused(cid, ts.TimeOut()).code == "not_your_turn"
    played = _play(d, score=True)
    # R-TEAM-3: in Scotch doubles the partner plays the side's next stroke.
    assert (played.shooter, played.shooter_slot) == (0, 0)
    assert (played.result.next_shooter, played.result.next_slot) == (0, 1)
    turn = d.expect(eve, tc.Turn, where=lambda m: m.seq > played.seq)
    assert (turn.shooter, turn.shooter_slot) == (0, 1)
    alice = d.players[0]
    assert d.refused(alice, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))).code == (
        "not_your_turn"
    )


def test_a_team_room_comes_back_from_the_database_with_its_four_seats(tmp_path: Path) -> None:
    d = _team_room("doubles")
    _past_the_lag(d)
    _play(d, score=False)  # A1 misses: B1 is to play
    d.advance(7_000)  # 7 of B1's 30 s
    room = d.room
    with Store(str(tmp_path / "c.db")) as store:
        store.save_room(room.to_record(), d.now)
    with Store(str(tmp_path / "c.db")) as store:
        (record,) = store.open_rooms()
    back = Room.from_record(record, d.now + 60_000)  # down for a minute: nobody is charged
    assert [s.name if s else None for s in back.seats] == list(NAMES)
    state = back.state
    assert (state.shooter, state.shooter_slot) == (1, 0)
    assert state.current.player_innings == room.state.current.player_innings
    # Every seat is away after the restart: B1's clock is paused with what was left.
    assert state.deadline_ms is None and state.paused_ms == 23_000
    assert all(g == d.now + 60_000 + 20_000 for g in state.grace_deadline)
    assert back.room_view().players == NAMES


def test_a_partner_gone_for_good_leaves_the_other_playing() -> None:
    d = _team_room("doubles")
    eve = d.people["eve"]
    _past_the_lag(d)
    cid = d.players[2]
    d.drop(cid)
    status = d.expect(eve, tc.PlayerStatus, where=lambda m: m.status == "disconnected")
    assert (status.seat, status.slot) == (0, 1)
    _play(d, score=False)  # A1
    _play(d, score=False)  # B1; A2 (cid) is due and away: the clock waits for the grace
    assert d.room.state.shooter_slot == 1 and d.room.state.deadline_ms is None
    d.advance(20_000)
    out = d.expect(eve, tc.Call, where=lambda m: m.code == "partner_out")
    assert out.text == (
        "Seat 0's second player did not come back in time; the first player plays all of "
        "the side's strokes from now on."
    )
    turn = d.expect(eve, tc.Turn, where=lambda m: m.seq > out.seq)
    assert (turn.shooter, turn.shooter_slot) == (0, 0) and turn.deadline_ms is not None
    played = _play(d, score=False)
    assert (played.shooter, played.shooter_slot) == (0, 0)
    assert d.room.state.phase is rules.Phase.PLAY
