"""The terminal spectator's text is a pure function of the messages: a recorded match (two
level-4 bots, three-cushion to 2, ending in a draw after the equalizing inning, R-END-2)
replays into exactly the golden text."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from client.app.scenes import BALLS_AT_REST, match_at
from client.commentary import Commentary, clock_line
from client.state import TableState
from client.watch import read_recording
from shared.protocol import to_client as tc

GOLDEN = Path(__file__).parent / "golden"
RECORDING = GOLDEN / "three_cushion_equalized.jsonl"
TEXT = GOLDEN / "three_cushion_equalized.txt"


def test_recorded_match_replays_into_the_golden_text() -> None:
    lines = Commentary().feed_all(read_recording(RECORDING))
    assert "\n".join(lines) + "\n" == TEXT.read_text(encoding="utf-8")


def test_the_golden_text_shows_what_a_spectator_needs() -> None:
    text = TEXT.read_text(encoding="utf-8")
    assert "Lag: Alice wins the lag (nearer)" in text  # R-LAG-2
    assert "  Referee: Good." in text and "Referee: Miss:" in text  # R-CALL-1
    assert "  Referee: 1 to go." in text  # R-CALL-2
    assert "Game over: draw (equalized)" in text  # R-END-2
    assert text.rstrip().splitlines()[-1].split() == ["Bob", "2", "4", "0.500", "2"]


def test_carom_watch_replay_prints_the_same_text() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "client.cli", "watch", "--replay", str(RECORDING)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == TEXT.read_text(encoding="utf-8")


def test_a_broken_recording_is_refused_with_its_line_number(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"t": "call", "seq": 1, "code": "x", "text": "ok"}\n[1, 2]\n')
    proc = subprocess.run(
        [sys.executable, "-m", "client.cli", "watch", "--replay", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "bad.jsonl:2" in proc.stderr


def test_a_broadcast_seen_twice_is_printed_once() -> None:
    c = Commentary()
    call = tc.Call(seq=1, code="good", text="Good.")
    assert c.feed(call) == ["  Referee: Good."]
    assert c.feed(call) == []


def test_clock_warnings_at_ten_and_five_seconds_once_each() -> None:
    # R-CLOCK-3: warnings at 10 s and 5 s, once per deadline.
    # The referee's own view of a real state (client/app/scenes.py): seat 1 to play.
    st = TableState(match=match_at(BALLS_AT_REST, shooter=1, deadline_ms=100_000))
    given: set[tuple[int, int]] = set()
    said = [clock_line(st, now, given) for now in range(80_000, 100_000, 250)]
    assert [s for s in said if s] == ["  Clock: 10 s left (seat 1)", "  Clock: 5 s left (seat 1)"]
    assert st.match is not None
    st.match = replace(st.match, deadline_ms=200_000)  # a new turn: warned again
    assert clock_line(st, 191_000, given) == "  Clock: 10 s left (seat 1)"


def test_a_team_room_is_told_with_both_partners_and_the_one_who_strikes() -> None:
    """R-TEAM-1: a spectator's lines name the side as its two partners, and each turn the
    partner who plays it."""
    from client.app.scenes import DOUBLES_NAMES, doubles_room, doubles_state
    from shared import wireviews

    told = Commentary()
    match = wireviews.match_view(doubles_state())
    lines = told.feed(tc.Snapshot(seq=1, room=doubles_room(), match=match))
    a = f"{DOUBLES_NAMES[0]} & {DOUBLES_NAMES[2]}"
    b = f"{DOUBLES_NAMES[1]} & {DOUBLES_NAMES[3]}"
    assert f"Players: {a} vs {b}" in lines
    assert told.name(1, 1) == DOUBLES_NAMES[3]
    turn = tc.Turn(seq=2, shooter=0, deadline_ms=None, phase="play", shooter_slot=1)
    assert any(line.startswith(f"To play: {DOUBLES_NAMES[2]} ") for line in told.feed(turn))
