"""Shared helpers for the referee tests: drive a match with hand-built results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pytest

from shared.physics.types import Stroke
from shared.rules import (
    ChooseBreak,
    Discipline,
    LagResult,
    LagStroke,
    MatchOptions,
    MatchState,
    PlayStroke,
    Start,
    Verdict,
    apply,
    cue_ball,
    new_match,
    stroke_start,
)
from shared.rules.placement import Side, lag_position
from shared.table import BallName, Point
from tests.shared.rules.builders import STROKE, make_result

T0 = 1_000_000
POINT_3C = ["top", "red", "left", "bottom", "yellow"]  # a three-cushion point for the white
MISS = ["red"]  # one ball only
R = 0.03075  # m, ball radius on every table (R-BALL-1)


def play(
    state: MatchState,
    steps: Sequence[str] = (),
    final: Mapping[BallName, Point | None] | None = None,
    *,
    stroke: Stroke = STROKE,
    spot: Side | None = None,
    seat: int | None = None,
    now: int | None = None,
    duration: float = 4.0,
) -> tuple[MatchState, Verdict]:
    """Play one stroke for the shooter, as soon as the balls are at rest."""
    shooter = state.shooter if seat is None else seat
    assert shooter is not None
    start = stroke_start(state, spot)
    result = make_result(start, {cue_ball(state): stroke}, steps, final, duration)
    at = state.resting_at_ms if now is None else now
    return apply(state, PlayStroke(shooter, stroke, result), at)


def lag_result(state: MatchState, steps: Sequence[str], final: Mapping[str, Point]) -> LagResult:
    start = dict(
        zip(("white", "yellow", "red"), lag_position(state.options.table_spec), strict=True)
    )
    a, b = state.lag_strokes
    assert a is not None and b is not None
    res = make_result(start, {"white": a, "yellow": b}, steps, final)
    return LagResult(res)


def to_play(options: MatchOptions | None = None, breaker: int = 0) -> MatchState:
    """A match past the lag (seat 0 won by distance and chose ``breaker``), ready to break."""
    opts = options or MatchOptions()
    s = new_match(opts, T0)
    s, _ = apply(s, Start(), T0)
    s, _ = apply(s, LagStroke(0, Stroke(0.0, 2.0)), T0 + 1000)
    s, _ = apply(s, LagStroke(1, Stroke(0.0, 2.1)), T0 + 2000)
    # R-LAG-2: both lag balls went onto the top cushion and came back; the white stopped nearer.
    lag = lag_result(s, ["white>top", "yellow>top"], {"white": (0.05, 0.2), "yellow": (0.10, 1.22)})
    s, _ = apply(s, lag, T0 + 2000)
    s, _ = apply(s, ChooseBreak(0, breaker), s.resting_at_ms)
    return s


@pytest.fixture
def playing() -> MatchState:
    return to_play()


def frozen_state(discipline: Discipline) -> MatchState:
    """White to play, touching the red (R-FROZEN-1)."""
    s = to_play(MatchOptions(discipline=discipline))
    balls = ((1.0, 0.7), (2.0, 1.1), (1.0 + 2 * R, 0.7))
    return replace(s, balls=balls, break_shot=False, spot_choice=False)
