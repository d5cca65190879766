"""The tracked state folds server messages in order, spots gaps and stale views (PROTOCOL.md)."""

from __future__ import annotations

from typing import Any

from client.state import TableState


def snapshot(seq: int, phase: str = "play", shooter: int | None = 0) -> dict[str, Any]:
    return {
        "t": "snapshot",
        "seq": seq,
        "seat": 1,
        "room": {"room_id": "r1", "seats": [{"name": "Ann"}, {"name": "Bo"}]},
        "match": {"phase": phase, "shooter": shooter, "deadline_ms": 5000, "balls": {}},
    }


def test_snapshot_sets_room_seat_and_match() -> None:
    st = TableState()
    assert st.apply(snapshot(4)) == "applied"
    assert (st.room_id, st.seat, st.seq, st.phase, st.shooter) == ("r1", 1, 4, "play", 0)
    assert not st.my_turn


def test_a_sequence_gap_asks_for_sync_and_old_broadcasts_are_ignored() -> None:
    st = TableState()
    st.apply(snapshot(4))
    assert st.apply({"t": "chat", "seq": 5, "from": "Ann", "text": "hi"}) == "applied"
    assert st.apply({"t": "chat", "seq": 7, "from": "Ann", "text": "lost one"}) == "gap"
    assert st.apply({"t": "chat", "seq": 6, "from": "Ann", "text": "late"}) == "stale"
    assert [c["text"] for c in st.chat] == ["hi", "lost one"]


def test_stroke_played_replaces_the_match_view() -> None:
    st = TableState()
    st.apply(snapshot(1))
    played = {
        "t": "stroke_played",
        "seq": 2,
        "shooter": 0,
        "start_ms": 1000,
        "rest_ms": 9000,
        "match": {"phase": "play", "shooter": 1, "score": [0, 0]},
    }
    st.apply(played)
    assert st.shooter == 1 and st.my_turn
    assert st.last_stroke is played


def test_a_turn_that_moves_phase_or_shooter_marks_the_view_stale_until_a_snapshot() -> None:
    # The break choice and a clock foul (R-CLOCK-1) change the match without a match view.
    st = TableState()
    st.apply(snapshot(1, phase="break_choice", shooter=None))
    assert st.apply({"t": "turn", "seq": 2, "shooter": 1, "deadline_ms": 9, "phase": "play"}) == (
        "resync"
    )
    assert st.match_stale and st.phase == "play"
    st.apply(snapshot(2))
    assert not st.match_stale


def test_a_turn_that_agrees_with_the_view_needs_no_sync() -> None:
    st = TableState()
    st.apply(snapshot(1))
    assert st.apply({"t": "turn", "seq": 2, "shooter": 0, "deadline_ms": 7, "phase": "play"}) == (
        "applied"
    )
    assert st.deadline_ms == 7


def test_game_over_ends_the_match_and_leaving_forgets_the_room() -> None:
    st = TableState(player_id="p", clock_offset_ms=12.0)
    st.apply(snapshot(1))
    st.apply({"t": "game_over", "seq": 2, "winner": 0, "reason": "distance", "scoresheet": {}})
    assert st.phase == "over" and st.game_over is not None
    st.leave_room()
    assert st.room_id is None and st.match == {} and st.player_id == "p"
    assert st.clock_offset_ms == 12.0


def test_joined_keeps_the_seat_token() -> None:
    st = TableState()
    st.apply({"t": "joined", "room_id": "r9", "seat": 0, "seat_token": "secret", "re": 3})
    assert (st.room_id, st.seat, st.seat_token, st.spectating) == ("r9", 0, "secret", False)
