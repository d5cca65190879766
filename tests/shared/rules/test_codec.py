"""The persisted state: JSON-safe and an exact round trip at every step of a match."""

from __future__ import annotations

import json

import pytest

from shared.physics.types import Stroke
from shared.rules import (
    LagStroke,
    MatchOptions,
    MatchState,
    Start,
    TimeOut,
    apply,
    new_match,
    state_from_dict,
    state_to_dict,
)
from tests.shared.rules.conftest import T0, play, to_play


def roundtrip(state: MatchState) -> MatchState:
    text = json.dumps(state_to_dict(state))
    back = state_from_dict(json.loads(text))
    assert back == state
    return back


def test_roundtrip_through_a_match() -> None:
    s = new_match(MatchOptions(discipline="balkline_47_2", distance=3, sets=3), T0)  # type: ignore[arg-type]
    roundtrip(s)
    s, _ = apply(s, Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(1.5, 2.25, 0.1, -0.2, 3.0)), T0 + 1)
    roundtrip(s)
    s = to_play(MatchOptions(discipline="balkline_47_2", distance=3, sets=3))  # type: ignore[arg-type]
    s, _ = play(s, ["red", "yellow"], {"red": (0.123456789012345, 0.3)})
    s, _ = play(s, ["red"])
    s, _ = apply(s, TimeOut(1), s.resting_at_ms)
    roundtrip(s)


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda d: d.pop("phase"), id="missing field"),
        pytest.param(lambda d: d.update(format=99), id="unknown format"),
        pytest.param(lambda d: d.update(phase="dancing"), id="bad phase"),
        pytest.param(lambda d: d["options"].update(discipline="snooker"), id="bad discipline"),
        pytest.param(lambda d: d.update(balls=[[0, 0]]), id="too few balls"),
    ],
)
def test_corrupt_state_is_a_clear_value_error(damage) -> None:  # type: ignore[no-untyped-def]
    d = state_to_dict(to_play())
    damage(d)
    with pytest.raises(ValueError):
        state_from_dict(d)
