"""The tracked state folds server messages in order, spots gaps and stale views (PROTOCOL.md).

Every message is the server's own message object; every match is the referee's view of a real
state (``client/app/scenes.py``)."""

from __future__ import annotations

from dataclasses import replace

from client.app.scenes import (
    BALLS_AT_REST,
    DEMO_SCORESHEET,
    demo_trajectory,
    match_at,
    room_view,
    stroke_played,
)
from client.state import TableState
from shared.protocol import to_client as tc
from shared.rules import Phase


def snapshot(seq: int, phase: Phase = Phase.PLAY, shooter: int | None = 0) -> tc.Snapshot:
    match = match_at(BALLS_AT_REST, phase=phase, shooter=shooter, deadline_ms=5000)
    return tc.Snapshot(seq=seq, seat=1, room=replace(room_view(), room_id="r1"), match=match)


def test_snapshot_sets_room_seat_and_match() -> None:
    st = TableState()
    assert st.apply(snapshot(4)) == "applied"
    assert (st.room_id, st.seat, st.seq, st.phase, st.shooter) == ("r1", 1, 4, "play", 0)
    assert not st.my_turn


def test_a_sequence_gap_asks_for_sync_and_old_broadcasts_are_ignored() -> None:
    st = TableState()
    st.apply(snapshot(4))
    assert st.apply(tc.ChatLine(seq=5, sender="Ann", text="hi")) == "applied"
    assert st.apply(tc.ChatLine(seq=7, sender="Ann", text="lost one")) == "gap"
    assert st.apply(tc.ChatLine(seq=6, sender="Ann", text="late")) == "stale"
    assert [c.text for c in st.chat] == ["hi", "lost one"]


def test_stroke_played_replaces_the_match_view() -> None:
    st = TableState()
    st.apply(snapshot(1))
    after = match_at(BALLS_AT_REST, shooter=1, score=(0, 0))
    played = stroke_played(demo_trajectory(), 1000, 9000, after, seq=2)
    st.apply(played)
    assert st.shooter == 1 and st.my_turn
    assert st.last_stroke is played and st.match is after


def test_a_turn_that_moves_phase_or_shooter_marks_the_view_stale_until_a_snapshot() -> None:
    # The break choice and a clock foul (R-CLOCK-1) change the match without a match view.
    st = TableState()
    st.apply(snapshot(1, phase=Phase.BREAK_CHOICE, shooter=None))
    turn = tc.Turn(seq=2, shooter=1, deadline_ms=9, phase="play")
    assert st.apply(turn) == "resync"
    assert st.match_stale and st.phase == "play"
    st.apply(snapshot(2))
    assert not st.match_stale


def test_a_turn_that_agrees_with_the_view_needs_no_sync() -> None:
    st = TableState()
    st.apply(snapshot(1))
    assert st.apply(tc.Turn(seq=2, shooter=0, deadline_ms=7, phase="play")) == "applied"
    assert st.deadline_ms == 7


def test_game_over_ends_the_match_and_leaving_forgets_the_room() -> None:
    st = TableState(player_id="p", clock_offset_ms=12.0)
    st.apply(snapshot(1))
    st.apply(tc.GameOver(seq=2, winner=0, reason="distance", scoresheet=DEMO_SCORESHEET))
    assert st.phase == "over" and st.game_over is not None
    st.leave_room()
    assert st.room_id is None and st.match is None and st.player_id == "p"
    assert st.clock_offset_ms == 12.0


def test_joined_keeps_the_seat_token() -> None:
    st = TableState()
    st.apply(tc.Joined(room_id="r9", seat=0, seat_token="secret", re=3))
    assert (st.room_id, st.seat, st.seat_token, st.spectating) == ("r9", 0, "secret", False)


def test_the_audience_count_follows_the_room_and_ignores_another_rooms() -> None:
    s = TableState()
    s.apply(snapshot(5))
    assert s.apply(tc.Audience(room_id="r1", spectators=7)) == "direct"
    assert s.room is not None and s.room.spectators == 7
    assert s.seq == 5  # no broadcast number was used: nothing to resync
    s.apply(tc.Audience(room_id="elsewhere", spectators=99))
    assert s.room.spectators == 7
