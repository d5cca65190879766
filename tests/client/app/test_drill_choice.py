"""The drill screen lets the player choose the diamond system (docs/analysis.md "Drills"): a
button per system above the table and S on the keyboard; each system keeps its own session.
Driven headless in a subprocess (drive_drills.py), on the real physics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from client.app.words import JARGON


def _frames() -> list[dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).parent / "drive_drills.py")],
        capture_output=True,
        text=True,
        env={**os.environ, "ARCADE_HEADLESS": "1"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    frames: list[dict[str, Any]] = json.loads(proc.stdout)
    return frames


def test_the_player_switches_systems_by_key_and_by_button() -> None:
    f = {fr["step"]: fr for fr in _frames()}
    systems = {step: fr["system"] for step, fr in f.items()}
    assert systems == {
        "open": "corner_five",
        "corner answer": "corner_five",
        "S": "plus",
        "plus hint": "plus",
        "plus hint off": "plus",
        "plus answer": "plus",
        "plus next": "plus",
        "S again": "corner_five",
        "click plus": "plus",
        "click corner": "corner_five",
    }
    # The choice is on screen in plain words.
    opened = f["open"]["texts"]
    assert opened["system"] == "Diamond system:"
    assert opened["btn:system:corner_five"] == "Corner five"
    assert opened["btn:system:plus"] == "Plus system"
    assert opened["drill0"] == "Drill 1 of 6 · Corner five from 5 to 3"
    assert "S other system" in opened["drill5"]
    # Each system's drills, target and words.
    plus = f["S"]["texts"]
    assert plus["drill0"] == "Drill 1 of 6 · Plus system from 3 to 6"
    assert plus["target"] == "target 6"
    assert plus["drill1"].startswith("Softly, a touch of running english")
    assert plus["drill1"].endswith("counted from the left short cushion.")
    assert "a touch of running english, an eighth of a tip" in plus["drill2"]
    assert plus["drill4"] == "No attempts yet."  # the corner five's attempt is not counted here
    assert f["plus hint"]["texts"]["drill3"] == (
        "Plus system: the line starts at 3; 6 − 3 = 3, so aim through 3 on the first rail "
        "(two numbers a diamond from the right short cushion): 3 + 3 = 6."
    )
    # The system's own answer grades on the number or close, in the plus system's count.
    answer = f["plus answer"]["texts"]["drill3"]
    assert answer.startswith(("On the number:", "Close:")), answer
    assert answer.endswith("(the target was 6).")
    assert f["plus next"]["texts"]["drill0"] == "Drill 2 of 6 · Plus system from 2 to 6"
    # Each system keeps its session: back on the corner five, its one attempt is still there.
    assert f["S again"]["texts"]["drill4"].startswith("1 attempt, ")
    assert f["click plus"]["texts"]["drill4"].startswith("1 attempt, ")
    for fr in f.values():
        for text in fr["texts"].values():
            assert not JARGON.search(str(text)), text
