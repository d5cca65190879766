"""The game model: server messages in, what the screen shows out, on the server's clock."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from client.app.model import CALL_SHOW_MS, GameModel
from client.app.scenes import (
    BALLS_AT_REST,
    NOW_MS,
    demo_trajectory,
    match_at,
    room_view,
    snapshot,
    stroke_played,
    wire,
)
from client.session import Link
from shared.protocol import to_client as tc
from shared.protocol import views as pv


def kinds(msgs: list[object]) -> list[str]:
    """The wire names of folded messages, in order."""
    return [getattr(type(m), "TYPE", type(m).__name__) for m in msgs]


class Clock:
    def __init__(self, ms: float) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms


def seated(clock: Clock, offset: float = 0.0) -> GameModel:
    """Seat 0 to play, 30 s on the clock: the server's own messages, the match a real state's
    ``match_view`` (client/app/scenes.py)."""
    m = GameModel(now_local_ms=clock)
    now = int(clock.ms + offset)
    m.apply(wire(tc.Welcome(v=1, player_id="p1", token="t", server_time_ms=now)))
    m.apply(wire(tc.Joined(room_id="demo", seat=0, seat_token="s")))
    match = match_at(BALLS_AT_REST, score=(3, 1), deadline_ms=now + 30_000)
    m.apply(snapshot(room_view(), match, 0))
    return m


def stroke_msg(start_ms: float, seq: int = 2) -> tc.StrokePlayed:
    """A ``stroke_played`` as the room broadcasts it (a miss: seat 1 plays next)."""
    traj = demo_trajectory()
    final = {b: (s[-1].pos[0], s[-1].pos[1]) for b, s in traj.items()}
    rest = int(start_ms) + int(1000 * max(s[-1].t0 for s in traj.values()))
    events = (
        pv.EventView(t=0.0, kind="strike", balls=("white",), speeds=(3.0,)),
        pv.EventView(t=0.5, kind="ball_cushion", balls=("white",), speeds=(1.2,)),
        pv.EventView(t=1.5, kind="ball_ball", balls=("white", "red"), speeds=(0.8, 0.0)),
    )
    after = match_at(final, shooter=1, score=(3, 1), deadline_ms=None)
    played = stroke_played(
        traj, int(start_ms), rest, after, seq=seq, calls=(("miss", "Two cushions"),), events=events
    )
    return wire(played)


def test_clock_offset_from_welcome_turns_server_deadlines_into_seconds_left() -> None:
    clock = Clock(1_000_000.0)
    m = seated(clock, offset=5_000.0)  # the server's clock runs 5 s ahead of ours
    assert m.now_ms() == pytest.approx(1_005_000.0)
    assert m.seconds_left() == pytest.approx(30.0)
    clock.ms += 12_500
    assert m.seconds_left() == pytest.approx(17.5)
    clock.ms += 60_000
    assert m.seconds_left() == 0.0


def test_players_and_spectators_see_the_same_ball_at_the_same_server_time() -> None:
    start = NOW_MS - 700.0
    player, spectator = seated(Clock(NOW_MS)), GameModel(now_local_ms=Clock(NOW_MS - 2_000))
    spectator.clock_offset_ms = 2_000.0  # a different local clock, same server time
    spectator.apply(wire(snapshot(room_view(), match_at(BALLS_AT_REST), None)))
    for m in (player, spectator):
        m.apply(stroke_msg(start))
    assert spectator.spectating and not player.spectating
    assert player.poses()["white"] == spectator.poses()["white"]


def test_a_late_joiner_picks_the_stroke_up_mid_way() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    m.apply(stroke_msg(NOW_MS - 1_000.0))  # arrived a second after the strike
    w = m.poses()["white"]
    start = BALLS_AT_REST["white"]
    assert (w.x, w.y) != start and w.speed > 0
    assert m.animating()
    # the contact at 0.5 s is in the past: no late click; the one at 1.5 s is heard on time
    assert m.due_contacts() == []
    clock.ms += 600
    assert [c.kind for c in m.due_contacts()] == ["ball_ball"]
    assert m.due_contacts() == []


def test_when_the_stroke_ends_the_balls_rest_where_the_server_says() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    msg = stroke_msg(NOW_MS)
    m.apply(msg)
    clock.ms += 60_000
    assert not m.animating()
    assert kinds(m.release_due()) == ["stroke_played"]
    assert m.shooter == 1 and not m.my_turn
    final = msg.match.balls
    poses = m.poses()
    assert m.animation is None
    assert (poses["white"].x, poses["white"].y) == tuple(final["white"])
    # the marks keep the orientation the roll left them in
    assert poses["white"].orientation != (1.0, 0.0, 0.0, 0.0)


def test_referee_calls_show_as_banners_for_a_while() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    m.apply(wire(tc.Call(seq=2, code="frozen", text="Frozen")))
    assert [c.text for c in m.active_calls()] == ["Frozen"]
    clock.ms += CALL_SHOW_MS + 1
    assert m.active_calls() == []


def test_nothing_of_a_stroke_shows_before_its_balls_rest_and_each_call_once() -> None:
    """Issue 13 points 1 and 2: the score, the next shooter, the clock and the calls wait for
    ``rest_ms``; the call comes from the ``call`` message only, not again from the result."""
    clock = Clock(NOW_MS)
    m = seated(clock)
    msg = stroke_msg(NOW_MS)
    rest = math.ceil(NOW_MS + 1000 * max(s[-1].t0 for s in demo_trajectory().values()))
    good = pv.CallView(code="point", text="Good.", rule_id="R-SCORE-1")
    msg = replace(
        msg,
        rest_ms=rest,
        result=replace(msg.result, points=1, calls=(good,)),
        match=replace(msg.match, score=(4, 1), shooter=0),
    )
    m.apply(msg)
    m.apply(wire(tc.Call(seq=3, code="point", text="Good.")))
    m.apply(wire(tc.Turn(seq=4, shooter=0, phase="play", deadline_ms=rest + 30_000)))
    m.apply(wire(tc.ChatLine(seq=5, sender="kim", text="go on")))
    assert m.recent_chat() == [("kim", "go on")]  # chat is not a consequence: it shows at once
    for at in (NOW_MS + 1_000, (NOW_MS + rest) / 2, rest - 1):
        clock.ms = at
        assert m.release_due() == []
        assert m.active_calls() == [] and m.score(0) == 3
        assert m.seconds_left() is None and not m.my_turn
    clock.ms = rest
    assert kinds(m.release_due()) == ["stroke_played", "call", "turn", "chat"]
    assert [c.text for c in m.active_calls()] == ["Good."]
    assert m.score(0) == 4 and m.my_turn
    assert m.seconds_left() == pytest.approx(30.0)
    assert [text for _, _, text in m.chat_seen] == ["go on"]  # once


def test_a_spectator_arriving_mid_stroke_sees_the_score_from_before_it() -> None:
    clock = Clock(NOW_MS + 2_000)
    m = GameModel(now_local_ms=clock)
    m.apply(wire(tc.Welcome(v=1, player_id="p2", token="t", server_time_ms=int(clock.ms))))
    live = stroke_msg(NOW_MS)
    good = pv.CallView(code="point", text="Good.", rule_id="R-SCORE-1")
    live = replace(
        live,
        shooter=0,
        rest_ms=int(NOW_MS) + 9_000,
        result=replace(live.result, points=1, calls=(good,)),
    )
    after = match_at(
        BALLS_AT_REST, score=(4, 1), innings=(5, 4), high_run=(6, 4), current_run=3, shooter=0
    )
    m.apply(wire(snapshot(room_view(), after, None, seq=7, in_motion=live)))
    assert m.animating()
    # The score from before; the figures the stroke may have moved are blank, never the new
    # ones; nothing of the stroke's result shows yet.
    assert m.score(0) == 3 and m.score(1) == 1
    assert m.innings(0) is None and m.average(0) is None and m.high_run(0) is None
    assert m.current_run(0) is None
    assert m.innings(1) == 4  # the other player's figures are not the stroke's
    assert m.active_calls() == [] and m.seconds_left() is None
    clock.ms = NOW_MS + 9_000
    assert kinds(m.release_due()) == ["snapshot", "CallView"]
    assert m.score(0) == 4 and m.innings(0) == 5 and m.high_run(0) == 6 and m.current_run(0) == 3
    assert [c.text for c in m.active_calls()] == ["Good."]


def test_stale_broadcast_does_not_replay_an_animation() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    m.apply(stroke_msg(NOW_MS, seq=2))
    anim = m.animation
    m.apply(stroke_msg(NOW_MS + 5, seq=2))  # the same seq again
    assert m.animation is anim


def test_errors_are_kept_and_announced_in_words() -> None:
    m = seated(Clock(NOW_MS))
    m.apply(wire(tc.Error(code="not_your_turn", message="It isn't your turn.")))
    assert m.last_error is not None and m.last_error.code == "not_your_turn"
    assert m.active_calls()[-1].text == "It isn't your turn."


def test_cue_ball_follows_the_breaker() -> None:
    m = seated(Clock(NOW_MS))
    assert m.cue_ball(0) == "white" and m.cue_ball(1) == "yellow"
    assert m.match is not None
    m.match = replace(m.match, white_seat=1)
    assert m.cue_ball(0) == "yellow" and m.cue_ball(1) == "white"


def test_r_timeout_1_the_clock_shows_the_time_out_while_it_runs() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    m.apply(wire(tc.Turn(seq=2, shooter=0, phase="timeout", deadline_ms=int(NOW_MS) + 60_000)))
    assert m.phase == "timeout"
    assert m.seconds_left() == pytest.approx(60.0)
    clock.ms += 45_000
    assert m.seconds_left() == pytest.approx(15.0)


def test_nothing_counts_down_while_the_balls_roll() -> None:
    """R-CLOCK-1: the shot clock starts when all balls are at rest."""
    clock = Clock(NOW_MS)
    m = seated(clock)
    m.apply(stroke_msg(NOW_MS))
    assert m.animating() and m.seconds_left() is None


def test_while_the_connection_is_down_the_clock_and_the_turn_freeze() -> None:
    """Issue 13 point 7: the overlay's state; the clock shows what was left, no turn."""
    clock = Clock(NOW_MS)
    m = seated(clock)
    assert m.my_turn and m.seconds_left() == pytest.approx(30.0)
    clock.ms += 4_000
    m.apply(Link("lost"))
    m.apply(Link("reconnecting", attempt=3))
    assert m.link_down and m.reconnect_attempt == 3 and not m.my_turn
    clock.ms += 10_000
    assert m.seconds_left() == pytest.approx(26.0)  # frozen
    m.apply(Link("restored"))
    assert not m.link_down and m.my_turn
    assert m.seconds_left() == pytest.approx(16.0)  # the server's deadline again


def test_the_strike_sounds_when_the_animation_starts_on_every_screen() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    m.apply(stroke_msg(NOW_MS + 100))  # the strike is 0.1 s ahead on the server clock
    assert m.due_contacts() == []
    clock.ms += 150
    [strike] = m.due_contacts()
    assert strike.kind == "cue" and strike.speed == 3.0


def test_a_malformed_trajectory_is_announced_and_nothing_else_is_lost() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    # A path the physics cannot decode (no segment at all; the wire decoder checks only the
    # shape, 16 numbers a segment).
    bad = replace(stroke_msg(NOW_MS), trajectory=pv.Trajectory(paths={"white": ()}))
    m.apply(bad)
    assert m.animation is None
    assert m.active_calls()[-1].text.startswith("A stroke could not be shown")
    # The match state after the stroke still arrived: the balls rest where the server says.
    assert m.shooter == 1
    assert (m.poses()["white"].x, m.poses()["white"].y) == tuple(bad.match.balls["white"])


def test_fast_forward_catches_the_picture_up_but_not_the_result() -> None:
    """Issue 13 point 8: holding F runs the picture four times as fast; the score, calls and
    turn still wait for the server's rest_ms."""
    clock = Clock(NOW_MS)
    m = seated(clock)
    msg = stroke_msg(NOW_MS)
    rest = math.ceil(NOW_MS + 1000 * max(s[-1].t0 for s in demo_trajectory().values()))
    msg = replace(msg, rest_ms=rest)
    m.apply(msg)
    clock.ms = NOW_MS + 1_000
    m.fast_forward(2.0)  # two seconds held at 4×: six seconds ahead
    assert m.animation is not None
    assert m.animation.t_at(m.now_ms()) == pytest.approx(7.0)
    m.fast_forward((rest - NOW_MS) / 1000.0)
    assert not m.animating()  # the picture has caught up: the balls rest on screen
    assert m.holding and m.release_due() == []  # ...but the result is the server's
    clock.ms = rest
    assert kinds(m.release_due()) == ["stroke_played"]


def test_instant_replay_plays_the_last_stroke_again_from_its_start() -> None:
    clock = Clock(NOW_MS)
    m = seated(clock)
    msg = stroke_msg(NOW_MS)
    m.apply(msg)
    clock.ms = NOW_MS + 120_000
    m.release_due()
    rest = m.poses()["white"]
    assert m.start_replay() and m.replaying
    start = m.poses()["white"]
    white0 = demo_trajectory()["white"][0].pos
    assert (start.x, start.y) == pytest.approx((white0[0], white0[1]))
    assert (start.x, start.y) != (rest.x, rest.y)
    clock.ms += 120_000
    assert not m.replaying and (m.poses()["white"].x, m.poses()["white"].y) == (rest.x, rest.y)


def test_a_stroke_that_arrives_while_the_last_one_is_held_still_animates() -> None:
    """A clock estimate a little behind the server's: the next stroke_played comes before
    this screen's rest_ms. It is held behind the first, then animated, not skipped."""
    clock = Clock(NOW_MS)
    m = seated(clock)
    first = stroke_msg(NOW_MS)
    rest = math.ceil(NOW_MS + 1000 * max(s[-1].t0 for s in demo_trajectory().values()))
    first = replace(first, rest_ms=rest)
    m.apply(first)
    second = replace(stroke_msg(rest - 5, seq=3), rest_ms=rest + 60_000)
    m.apply(second)
    assert m.strokes_started == 1
    clock.ms = rest
    assert kinds(m.release_due()) == ["stroke_played"]
    assert m.strokes_started == 2 and m.animating() and m.holding
    clock.ms = rest + 60_000
    assert m.release_due() == [second]
