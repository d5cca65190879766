"""Whole matches through the room core (server/core/room.py) with a fake clock: the real referee and
physics, no sockets and no sleeping (tests/server/drive.py plays the actor's part).

These replace socket tests that spent most of their time waiting for a shot clock, a
reconnection grace or the balls to stop; tests/server/net/test_live_room.py keeps the wiring end
to end.
"""

from __future__ import annotations

import pytest

from server.core.room import Member
from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams
from tests.server.drive import Drive
from tests.server.wire import stroke_for

CLOCK_S = 5
OPTIONS = rules.MatchOptions(distance=1, shot_clock_s=CLOCK_S)


def _room(**options: object) -> Drive:
    settings: dict[str, object] = {"distance": 1, "shot_clock_s": CLOCK_S, **options}
    return Drive.create(ts.CreateRoom(discipline="three_cushion", **settings))  # type: ignore[arg-type]


def _lag(d: Drive) -> int:
    """R-LAG-3: both lag strokes in, simulated together; the clock moves to the balls' rest.
    R-LAG-2: alice taps backwards and never reaches the top cushion, so bob's lag wins."""
    alice, bob = d.people["alice"], d.people["bob"]
    d.send(alice, ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)))
    d.send(bob, ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)))
    lag = d.expect(d.people["carol"], tc.LagResult)
    assert lag.winner is not None, lag.reason
    d.until_rest()
    return lag.winner


def _to_play(**options: object) -> tuple[Drive, int]:
    """A seated room with a spectator, past the lag and the break choice; the breaker's seat."""
    d = _room(**options)
    d.seat_all()
    winner = _lag(d)
    d.send(d.players[winner], ts.ChooseBreak(breaker="me"))
    d.expect(d.people["carol"], tc.Turn, where=lambda m: m.phase == "play")
    return d, winner


def test_two_players_and_a_spectator_play_a_three_cushion_game() -> None:
    d = _room()
    d.seat_all()
    alice, bob, carol = d.people["alice"], d.people["bob"], d.people["carol"]
    # A spectator can never act (R-PLAY-3: only the seated players strike); nothing changes.
    state = d.room.state
    assert (
        d.refused(carol, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))).code == "not_a_player"
    )
    assert d.room.state is state

    winner = _lag(d)
    w, lo = (alice, bob)[winner], (alice, bob)[1 - winner]
    assert d.refused(lo, ts.ChooseBreak(breaker="me")).code == "not_your_turn"  # R-LAG-7
    d.send(w, ts.ChooseBreak(breaker="me"))
    turn = d.expect(carol, tc.Turn, where=lambda m: m.phase == "play")
    assert turn.shooter == winner and turn.deadline_ms == d.now + CLOCK_S * 1000

    # A stroke out of turn is refused and changes nothing.
    state = d.room.state
    assert (
        d.refused(lo, ts.Stroke(cue=CueParams(direction=10.0, speed=1.0))).code == "not_your_turn"
    )
    assert d.room.state is state

    # R-CLOCK-1 / R-FOUL-CLOCK: the breaker lets the 5 s clock run out: foul, the turn passes.
    d.advance(CLOCK_S * 1000 - 1)
    assert d.room.state.shooter == winner  # not a millisecond early
    d.advance(1)
    foul = d.expect(carol, tc.Call, where=lambda m: m.code == "foul")
    assert "clock" in foul.text
    d.expect(carol, tc.Turn, where=lambda m: m.shooter == 1 - winner)
    assert d.room.state.current.innings[winner] == 1 and d.room.state.current.points == (0, 0)

    # The other player misses gently; while the balls roll nobody may strike (R-PLAY-4).
    miss, _ = stroke_for(d.room.state, OPTIONS, score=False)
    d.send(lo, miss)
    played = d.expect(carol, tc.StrokePlayed)
    assert played.shooter == 1 - winner and played.rest_ms > played.start_ms == d.now
    snap = d.room.snapshot(None, now=d.now)
    assert snap.in_motion is not None and snap.in_motion.rest_ms == played.rest_ms
    state = d.room.state
    assert d.refused(w, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))).code == "balls_moving"
    assert d.room.state is state  # refused before anything is simulated
    d.until_rest()

    # The breaker scores with a stroke found by simulating from the room's positions.
    assert d.room.state.shooter == winner
    stroke, _ = stroke_for(d.room.state, OPTIONS)
    d.send(w, stroke)
    scored = d.expect(carol, tc.StrokePlayed)
    assert scored.shooter == winner and d.room.state.current.points[winner] == 1
    # R-END-2: the breaker reached the distance; the other player gets the equalizing inning.
    eq = d.expect(carol, tc.Turn, where=lambda m: m.shooter == 1 - winner)
    d.until_rest()
    assert d.room.state.equalizing is True and eq.deadline_ms is not None
    miss, _ = stroke_for(d.room.state, OPTIONS, score=False)
    d.send(lo, miss)
    over = d.expect(carol, tc.GameOver)
    assert over.winner == winner and over.reason == "distance"

    # Everyone saw the same strokes, in the same order, with the same seq and scoresheet.
    logs = [
        [m for m in d.log[p.conn] if isinstance(m, tc.StrokePlayed | tc.GameOver | tc.LagResult)]
        for p in (alice, bob, carol)
    ]
    assert logs[0] == logs[1] == logs[2]
    assert len([m for m in logs[2] if isinstance(m, tc.StrokePlayed)]) == 3
    for p in (alice, bob, carol):
        seqs = [
            m.seq  # type: ignore[attr-defined]
            for m in d.log[p.conn]
            if hasattr(m, "seq") and not isinstance(m, tc.Snapshot)
        ]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), "a gap in seq"
    # What the store is given, in order: the replay's strokes.
    assert d.strokes == ["lag", "clock", "stroke", "stroke", "stroke"]


def test_a_dropped_player_rejoins_with_the_seat_token_and_plays_on() -> None:
    d, breaker = _to_play(shot_clock_s=30, grace_s=60)
    carol, shooter = d.people["carol"], d.players[breaker]
    d.advance(4_000)  # 4 s of the shooter's 30 s gone
    d.read(carol)  # what came before
    d.drop(shooter)
    # R-END-5: the room hears of it, with the grace deadline; the shot clock pauses.
    status = d.expect(carol, tc.PlayerStatus, where=lambda m: m.status == "disconnected")
    assert status.seat == breaker and status.grace_until_ms == d.now + 60_000
    paused = d.expect(carol, tc.Turn, where=lambda m: m.phase == "play" and m.deadline_ms is None)
    assert paused.shooter == breaker and d.room.state.paused_ms == 26_000
    d.advance(50_000)  # away 50 s, within the grace: nothing happens, the clock stays paused
    assert d.room.state.phase is rules.Phase.PLAY and d.room.state.paused_ms == 26_000

    # Nobody else can take the seat: a fresh connection without the token, or with a wrong one.
    mallory = d.member("mallory")
    assert d.refused_entry(mallory, ts.Join(room_id="r1")).code == "room_full"
    d.rejoin(mallory, "x" * 32)
    assert d.expect(mallory, tc.Error).code == "bad_token"

    # The same player on a new connection with the seat token.
    back = d.reconnect(shooter)
    d.rejoin(back, d.tokens[shooter.player_id])
    assert d.expect(back, tc.Joined).seat == breaker
    assert d.expect(back, tc.Snapshot).seat == breaker
    up = d.expect(
        carol, tc.PlayerStatus, where=lambda m: m.status == "connected" and m.seat == breaker
    )
    assert up.grace_until_ms is None
    resumed = d.expect(carol, tc.Turn, where=lambda m: m.deadline_ms is not None)
    assert resumed.shooter == breaker and resumed.deadline_ms == d.now + 26_000  # none charged
    # And plays on: a gentle stroke is simulated and refereed.
    miss, _ = stroke_for(d.room.state, OPTIONS, score=False)
    d.send(back, miss)
    assert d.expect(carol, tc.StrokePlayed).shooter == breaker


@pytest.mark.parametrize("how", ["drops", "leaves"])
def test_a_player_who_stays_away_forfeits(how: str) -> None:
    d, breaker = _to_play(shot_clock_s=30, grace_s=20)
    carol, away = d.people["carol"], d.players[1 - breaker]
    if how == "leaves":
        d.send(away, ts.Leave())
        d.expect(away, tc.Left)
    else:
        d.drop(away)
    status = d.expect(
        carol, tc.PlayerStatus, where=lambda m: m.seat == 1 - breaker and m.status != "connected"
    )
    assert status.status == ("left" if how == "leaves" else "disconnected")
    d.advance(19_999)
    assert d.room.state.result is None  # the grace is not over yet
    d.advance(1)
    over = d.expect(carol, tc.GameOver)
    assert over.winner == breaker and over.reason == "forfeit"  # R-END-5


def test_a_second_connection_of_the_same_player_cannot_act_without_the_seat() -> None:
    d, breaker = _to_play(shot_clock_s=30)
    twin = d.reconnect(d.players[breaker])  # same identity, no seat
    d.spectate(twin)
    assert (
        d.refused(twin, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))).code == "not_a_player"
    )
    assert d.refused(twin, ts.Concede()).code == "not_a_player"
    assert d.room.state.phase is rules.Phase.PLAY and d.room.state.shooter == breaker


def test_time_out_resume_concede_and_rematch() -> None:
    d, breaker = _to_play(shot_clock_s=30, timeout_s=60)
    carol = d.people["carol"]
    shooter, other = d.players[breaker], d.players[1 - breaker]
    # R-TIMEOUT-1: only the shooter, at the start of an inning; it pauses the shot clock.
    assert d.refused(other, ts.TimeOut()).code == "not_your_turn"
    d.send(shooter, ts.TimeOut())
    assert d.expect(carol, tc.Call, where=lambda m: m.code == "time_out").text
    assert d.room.state.phase is rules.Phase.TIMEOUT
    assert d.room.state.current.timeouts_left[breaker] == 0
    assert (
        d.refused(shooter, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))).code == "wrong_phase"
    )
    d.send(shooter, ts.Resume())
    d.expect(carol, tc.Call, where=lambda m: m.code == "resume")
    d.expect(carol, tc.Turn, where=lambda m: m.phase == "play" and m.deadline_ms is not None)
    assert d.refused(shooter, ts.TimeOut()).code == "no_timeouts_left"
    # R-END-5: conceding loses; the spectator hears it.
    d.send(other, ts.Concede())
    over = d.expect(carol, tc.GameOver)
    assert over.winner == breaker and over.reason == "concede"
    # Both ask for a rematch: a fresh match, the other player breaks with the white.
    first_match = d.room.match_id
    d.send(shooter, ts.Rematch())
    d.send(other, ts.Rematch())
    d.expect(carol, tc.Snapshot, where=lambda m: m.room.match_id != first_match)
    assert d.room.state.phase is rules.Phase.PLAY and d.room.state.shooter == 1 - breaker
    assert d.room.state.current.points == (0, 0) and d.room.match_id != first_match


def test_a_time_out_runs_out_and_the_clock_starts_again() -> None:
    """R-TIMEOUT-1: a time-out nobody ends is over after its length; the shooter's clock then
    runs again (a wait of a minute and a half, in no time)."""
    d, breaker = _to_play(shot_clock_s=30, timeout_s=60)
    d.send(d.players[breaker], ts.TimeOut())
    d.advance(59_999)
    assert d.room.state.phase is rules.Phase.TIMEOUT
    d.advance(1)
    assert d.room.state.phase is rules.Phase.PLAY and d.room.state.shooter == breaker
    assert d.room.state.deadline_ms == d.now + 30_000
    d.advance(30_000)  # and that clock runs out too: a foul, the turn passes (R-FOUL-CLOCK)
    assert d.room.state.shooter == 1 - breaker


@pytest.mark.parametrize("back_at", ["before_rest", "after_rest"])
def test_a_shooter_who_drops_mid_stroke_loses_nothing(back_at: str) -> None:
    d, breaker = _to_play(distance=3, shot_clock_s=30, grace_s=60)
    carol, shooter, other = d.people["carol"], d.players[breaker], d.players[1 - breaker]
    options = rules.MatchOptions(distance=3, shot_clock_s=30)
    # A stroke the referee scores (found offline with the server's physics and referee).
    stroke, duration = stroke_for(d.room.state, options)
    assert duration > 2.0  # long enough to come back while the balls still roll
    d.read(carol)
    d.send(shooter, stroke)
    d.advance(300)
    d.drop(shooter)  # gone before the balls come to rest

    # The opponent and the spectator hear the stroke, then the drop.
    for p in (other, carol):
        played = d.expect(p, tc.StrokePlayed)
        assert played.shooter == breaker
        down = d.expect(p, tc.PlayerStatus, where=lambda m: m.status == "disconnected")
        assert down.seat == breaker and down.grace_until_ms == d.now + 60_000
    assert d.now < played.rest_ms
    assert played.result.points == 1 and played.result.foul is None
    assert played.result.next_shooter == breaker  # scored: the shooter goes on
    scored = d.room.state.current.points

    if back_at == "after_rest":
        d.until_rest()
        d.advance(5_000)
        # R-CLOCK-1 / R-END-5: the clock starts at rest and is paused for the absent shooter,
        # with the whole of it left; the other player cannot take the turn.
        assert d.room.state.deadline_ms is None and d.room.state.paused_ms == 30_000
        assert d.room.snapshot(None, now=d.now).in_motion is None
        state = d.room.state
        assert (
            d.refused(other, ts.Stroke(cue=CueParams(direction=0.0, speed=1.0))).code
            == "not_your_turn"
        )
        assert d.room.state is state

    back = d.reconnect(shooter)
    d.rejoin(back, d.tokens[shooter.player_id])
    assert d.expect(back, tc.Joined).seat == breaker
    snap = d.expect(back, tc.Snapshot)
    assert snap.seat == breaker
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
        assert d.room.state.deadline_ms == played.rest_ms + 30_000
        d.until_rest()
    else:
        assert snap.in_motion is None and d.room.state.deadline_ms == d.now + 30_000

    # The stroke counted exactly once, as the referee judged it, and was stored once.
    assert d.room.state.current.points == scored and d.room.state.strokes_played == 1
    assert d.room.state.connected == (True, True)
    assert [m for m in d.log[carol.conn] if isinstance(m, tc.StrokePlayed)] == [played]
    assert d.strokes == ["lag", "stroke"]

    # And the match goes on with the right shooter: the rejoined player strikes again.
    miss, _ = stroke_for(d.room.state, options, score=False)
    d.send(back, miss)
    again = d.expect(carol, tc.StrokePlayed)
    assert again.shooter == breaker and again.seq > played.seq
    assert d.room.state.current.points == scored and d.room.state.shooter == 1 - breaker


def test_everyone_hears_the_audience_change_once_a_second_however_many_come_and_go() -> None:
    d = _room()
    d.seat_all()  # carol watches, alice and bob play
    alice, carol = d.people["alice"], d.people["carol"]

    def told(who: Member) -> list[int]:
        return [m.spectators for m in d.read(who) if isinstance(m, tc.Audience)]

    d.advance(1000)
    assert told(alice) == [1] and told(carol) == [1]
    # A crowd arrives within the second: one message with the count it came to.
    fans = [d.member(f"fan{i}") for i in range(5)]
    for fan in fans:
        d.spectate(fan)
    d.advance(999)
    assert told(alice) == []  # not before the second is over
    d.advance(1)
    assert told(alice) == [6] and told(fans[0]) == [6]
    # Two leave and one comes back: one message; nothing when the count ends where it was.
    d.drop(fans[0])
    d.drop(fans[1])
    d.advance(1000)
    assert told(alice) == [4]
    d.drop(fans[2])
    d.spectate(d.member("fan2-again"))
    d.advance(1000)
    assert told(alice) == []
    assert d.room.snapshot(None, now=d.now).room.spectators == 4
