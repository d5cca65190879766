"""Issue 13 point 4: words on screen are for people — names, plain sentences, cushions named
as the player sees them; no seat numbers, rule ids or error codes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from client.app.words import ERRORS, JARGON, error_text, plain, reason_text

GOLDEN = Path(__file__).parent.parent / "golden" / "three_cushion_equalized.jsonl"
# Recorded after the referee's round 2 (its new lag call), straight rail with its zones; it ends
# at the equalizing inning.
GOLDEN_R2 = Path(__file__).parent.parent / "golden" / "straight_rail_lag_round2.jsonl"


def _drawn(recording: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "drive_words.py"), str(recording)],
        capture_output=True,
        text=True,
        env={**os.environ, "ARCADE_HEADLESS": "1"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    drawn: list[str] = json.loads(proc.stdout)
    return drawn


NAMES = {0: "Alice", 1: "Bob"}


@pytest.mark.slow
def test_a_whole_bot_match_seen_by_a_spectator_draws_no_seat_rule_id_or_error_code() -> None:
    drawn = _drawn(GOLDEN)
    assert any("Alice" in t for t in drawn) and any("Bob" in t for t in drawn)
    assert any(t.startswith("Alice") and "equalizing inning" in t for t in drawn)
    assert "Good." in drawn
    assert "Watch replay" in drawn and "Rematch" not in drawn  # a spectator cannot ask for one
    assert any(t.startswith("Carom · ") and "watching" in t and "room r" in t for t in drawn)
    bad = [t for t in drawn if JARGON.search(t)]
    assert bad == []
    # The lag call names the cushion the player sees, not the rules' "top".
    assert any("right short cushion" in t for t in drawn)
    assert not any(re.search(r"\b(top|bottom) cushion", t) for t in drawn)


@pytest.mark.slow
def test_the_round_2_lag_call_and_zones_read_as_the_player_sees_them() -> None:
    drawn = _drawn(GOLDEN_R2)
    assert [t for t in drawn if JARGON.search(t)] == []
    lag = next(t for t in drawn if t.startswith("Lag for the break"))
    assert "right short cushion and back" in lag and "nearer the left short cushion" in lag
    assert any(t.startswith("Bob reached 3; Ana plays the equalizing inning") for t in drawn)


def test_referee_sentences_in_plain_words() -> None:
    name = NAMES.__getitem__
    assert plain("Seat 0 breaks with the white.", name) == "Alice breaks with the white."
    assert (
        plain("Seat 1 sent no lag stroke in time and loses the lag (R-LAG-6).", name)
        == "Bob sent no lag stroke in time and loses the lag."
    )
    assert plain("Foul: seat 0's shot clock ran out (R-CLOCK-1).", name) == (
        "Foul: Alice's shot clock ran out."
    )
    assert plain("Seat 1 wins (distance).", name) == "Bob wins: reached the distance."
    assert plain("Lag for the break: strike toward the top cushion.") == (
        "Lag for the break: strike toward the right short cushion."
    )
    assert plain("Seat 0's ball stopped nearer the bottom.", name) == (
        "Alice's ball stopped nearer the left short cushion."
    )
    assert "near long cushion" in plain("Push: the cue ball was struck into the right cushion")
    assert reason_text("no_show") == "the opponent did not come back"
    assert plain("Draw (innings_limit).") == "A draw, on the innings limit."
    assert plain("Seat 0 wins (distance). Set 2: seat 1 breaks.", name) == (
        "Alice wins: reached the distance. Set 2: Bob breaks."
    )


def test_every_error_code_reads_as_a_sentence_without_the_code() -> None:
    for code in ERRORS:
        for message in ("", "no_such_room: No such room.", "not connected"):
            text = error_text(code, message)
            assert not JARGON.search(text), (code, message, text)
            assert text[:1].isupper() and text.endswith(".")
    assert error_text("room_full", "Both seats are taken.") == "Both seats are taken."


def test_a_team_side_reads_as_two_partners_who_win() -> None:
    """R-TEAM-1: in a team room a seat is a side of two partners; the sentence agrees."""
    sides = {0: "Caudron & Zanetti", 1: "Jaspers & Merckx"}.__getitem__
    assert plain("Seat 0 wins (distance).", sides) == "Caudron & Zanetti win: reached the distance."
    assert plain("Seat 1 wins the toss (R-LAG-6).", sides) == "Jaspers & Merckx win the toss."
    assert plain(
        "Seat 0's second player did not come back in time; the first player plays all of the "
        "side's strokes from now on.",
        sides,
    ) == (
        "Caudron & Zanetti's second player did not come back in time; the first player plays "
        "all of the side's strokes from now on."
    )
