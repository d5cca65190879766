"""Aiming and shooting through the window's own input events (offscreen).

``drive_input.py`` runs in a subprocess (it owns a GL context): it queues mouse and key events
on a headless window, lets the window deliver them, and reports what the table view sent.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.app.aim import FULL_PULL
from shared.physics.types import MAX_SPEED
from shared.table import MATCH

DRIVER = Path(__file__).with_name("drive_input.py")


# Every test here reads one module-wide run (the fixture below): kept on one xdist worker so
# that run happens once, not once per worker.
pytestmark = pytest.mark.xdist_group("desktop_input")


@pytest.fixture(scope="module")
def driven() -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, str(DRIVER)],
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, "ARCADE_HEADLESS": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def test_cue_follows_the_mouse_and_drag_back_and_release_shoots(driven: dict[str, Any]) -> None:
    case = driven["mouse_shot"]
    cx, cy = case["cue"]
    expected = math.degrees(math.atan2(0.9 - cy, 2.0 - cx))
    # The mouse lands on whole pixels: within a pixel's worth of angle at that distance.
    assert case["aimed"] == pytest.approx(expected, abs=0.2)
    # Pulled back 0.25 m of a 0.5 m full pull: half power.
    assert case["loaded"] == pytest.approx(MAX_SPEED * 0.25 / FULL_PULL, rel=0.03)
    [stroke] = case["sent"]
    assert stroke["t"] == "stroke"
    assert stroke["direction"] == pytest.approx(case["aimed"], abs=1e-3)
    assert stroke["speed"] == pytest.approx(case["loaded"], abs=1e-3)


def test_keyboard_fine_adjustment_power_spin_elevation_and_space_to_shoot(
    driven: dict[str, Any],
) -> None:
    case = driven["keyboard_shot"]
    [stroke] = case["sent"]  # one stroke: the second Space came before the server answered
    assert not case["cue_back"]
    # three fine steps left (+0.1° each), one coarse step right (−1°)
    assert stroke["direction"] == pytest.approx((case["d0"] + 0.3 - 1.0) % 360, abs=1e-6)
    assert stroke["speed"] == pytest.approx(case["s0"] + 0.1)
    assert stroke["tip_y"] == pytest.approx(0.05)
    assert stroke["elevation"] == pytest.approx(2.5)


def test_spin_selector_sets_the_tip_and_keeps_it_inside_the_miscue_limit(
    driven: dict[str, Any],
) -> None:
    case = driven["spin"]
    tx, ty, radius = case["first"]
    assert tx == pytest.approx(0.3, abs=1.5 / radius)
    assert ty == pytest.approx(-0.2, abs=1.5 / radius)
    assert math.hypot(*case["edge"]) == pytest.approx(0.6)  # clicked the rim: clamped
    assert case["sent"] == []


def test_spectator_has_no_cue_but_can_chat(driven: dict[str, Any]) -> None:
    assert driven["spectator"]["sent"] == [{"t": "chat", "text": "hi all"}]


def test_nothing_is_sent_when_it_is_not_my_turn(driven: dict[str, Any]) -> None:
    assert driven["not_my_turn"]["sent"] == []


def test_r_lag_7_lag_winner_chooses_who_breaks(driven: dict[str, Any]) -> None:
    case = driven["break_choice"]
    assert "[1] break yourself" in case["prompt"]
    assert case["sent"] == [{"t": "choose_break", "breaker": "me"}]


def test_r_frozen_1_frozen_cue_ball_offers_a_respot(driven: dict[str, Any]) -> None:
    case = driven["frozen"]
    assert "re-spot" in case["prompt"]
    assert case["sent"] == [{"t": "respot"}]


def test_r_break_1_breaker_chooses_the_starting_spot(driven: dict[str, Any]) -> None:
    [stroke] = driven["break_shot"]["sent"]
    assert stroke["spot"] == "left"  # switched from the default right spot with S


def test_r_lag_7_break_choice_also_by_mouse(driven: dict[str, Any]) -> None:
    case = driven["break_choice_click"]
    assert case["labels"] == ["I break", "Opponent breaks"]
    assert case["sent"] == [{"t": "choose_break", "breaker": "opponent"}]


def test_practice_room_balls_are_placed_by_right_drag_and_kept_on_the_cloth(
    driven: dict[str, Any],
) -> None:
    case = driven["place"]
    assert case["dragging"] != [0.72, 0.52]  # the ball follows the pointer while dragging
    [msg] = case["sent"]
    assert msg["t"] == "place"
    x, y = msg["balls"]["white"]
    assert x == pytest.approx(1.4, abs=0.01)
    assert y == pytest.approx(MATCH.width - MATCH.ball_radius)  # clamped inside the cushion


def test_contact_sounds_play_when_the_animation_reaches_them(driven: dict[str, Any]) -> None:
    case = driven["sounds"]
    # R-CLOCK-3: the scene has 8.4 s on the clock, so the 10 s warning has sounded, once.
    assert case["before"] == ["clock_warning"]
    # 0.2 s into the stroke: two contacts heard, in order; the one at 5 s is still to come.
    assert case["after"] == ["clock_warning", "ball_cushion", "ball_ball"]


def test_players_chat_too_and_see_the_lines_over_the_table(driven: dict[str, Any]) -> None:
    case = driven["player_chat"]
    assert case["shown"] == ["kim: good luck", "say: thanks|"]
    assert case["sent"] == [{"t": "chat", "text": "thanks"}]
    assert all(y < case["rails_bottom"] for y in case["ys"])  # under the table, off the cloth


def test_results_buttons_rematch_fetch_the_replay_and_go_back_to_the_lobby(
    driven: dict[str, Any],
) -> None:
    case = driven["results"]
    assert case["sent"] == [
        {"t": "rematch"},
        {"t": "get_replay", "match_id": 3},
        {"t": "leave"},
    ]
    assert case["now"] == "lobby"


def test_replay_steps_through_the_strokes_and_back(driven: dict[str, Any]) -> None:
    case = driven["replay"]
    steps = {s["label"]: s for s in case["steps"]}
    after1, after2 = case["expected_after"]
    assert steps["start"]["index"] == -1 and not steps["start"]["animating"]
    assert steps["playing 1"]["index"] == 0 and steps["playing 1"]["animating"]
    for label, expected in (("after 1", after1), ("after 2", after2), ("back to after 1", after1)):
        balls = steps[label]["balls"]
        for ball, (x, y) in expected.items():
            assert balls[ball] == pytest.approx([x, y], abs=1e-9), (label, ball)
    assert case["now"] == "results"  # Esc goes back to the finished match's results


def test_escape_in_a_running_match_asks_first_then_leaves(driven: dict[str, Any]) -> None:
    """Issue 13 point 6: Esc asks; N stays with nothing sent; Esc then Y leaves."""
    case = driven["escape"]
    asked = case["asked"]
    assert asked["sent"] == [] and asked["now"] == "table" and not asked["can_aim"]
    assert asked["overlay"][0] == "Leave the match?"
    assert "rejoin it from the lobby" in " ".join(asked["overlay"][1])
    assert case["stayed"] == {"sent": [], "overlay": None, "can_aim": True}
    assert case["sent"] == [{"t": "leave"}]
    assert case["now"] == "lobby"
    assert case["room"] is None


def test_closing_the_window_in_a_running_match_asks_first(driven: dict[str, Any]) -> None:
    case = driven["close"]
    assert case["kept_open"] is True and case["sent"] == []
    assert case["overlay"][0] == "Quit the match?"


def test_the_window_redraws_only_when_something_changed(driven: dict[str, Any]) -> None:
    """Ten ticks of a still table draw at most one frame; input or a call draws the next."""
    case = driven["redraw"]
    assert case["idle"] <= 1
    assert case["after_input"] == 1 and case["after_call"] == 1


def test_the_lobby_keeps_the_url_tried_and_its_whole_error(driven: dict[str, Any]) -> None:
    case = driven["bad_url"]
    assert case["field"] == "ws://127.0.0.1:9/"
    assert case["status"] == "could not connect to ws://127.0.0.1:9/: nobody answered there"


def test_r_lag_3_one_lag_stroke_per_round(driven: dict[str, Any]) -> None:
    case = driven["lag_once"]
    assert case == {"first": True, "strokes": 1, "can_aim": False}


def test_a_dead_local_server_is_said_and_offered_a_restart(driven: dict[str, Any]) -> None:
    case = driven["local_down"]
    title, lines = case["overlay"]
    assert title == "The local server stopped" and "[R] restart it" in lines[0]
    assert not case["can_aim"] and case["sent"] == []


def test_mouse_wheel_sets_the_power_gauge(driven: dict[str, Any]) -> None:
    case = driven["wheel"]
    assert case["s1"] == pytest.approx(case["s0"] + 0.3)
