"""Small widget behaviour a player notices."""

from __future__ import annotations

from client.app.layout import Rect
from client.app.widgets import Picker

RIGHT, LEFT = 4, 1  # arcade's mouse buttons


def test_right_click_on_a_picker_at_its_first_choice_stays_there() -> None:
    """Issue 13 point 12: right-clicking Distance at "default" no longer jumps to 400."""
    p = Picker("distance", "Distance", Rect(0, 0, 100, 30), (None, 5, 10, 400))
    assert p.click(50, 15, RIGHT) and p.value is None
    p.click(50, 15, LEFT)
    p.click(50, 15, LEFT)
    assert p.value == 10
    p.click(50, 15, RIGHT)
    assert p.value == 5
    for _ in range(3):
        p.click(50, 15, LEFT)
    assert p.value is None  # forward goes round
