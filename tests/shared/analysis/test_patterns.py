"""The stroke's name (docs/analysis.md) on strokes the simulator played, one per pattern."""

from __future__ import annotations

import math

import pytest

from shared.analysis.layouts import lay_out
from shared.analysis.patterns import Pattern, classify, diamonds_along, route
from shared.physics import Stroke, simulate
from shared.rules.events import cushions_before, object_ball_contacts
from shared.table import MATCH
from tests.shared.analysis.layouts import CASES, Case


def test_every_pattern_has_a_simulated_case() -> None:
    assert {c.pattern for c in CASES} == set(Pattern)


@pytest.mark.parametrize("case", CASES, ids=[c.pattern.value for c in CASES])
def test_a_simulated_point_is_named_by_its_route(case: Case) -> None:
    layout = case.build()
    result = layout.result
    # R-DISC-3C: the referee's own reading agrees that the stroke scored.
    contacts = object_ball_contacts(result.events, "white")
    assert [b for _, b in contacts] == ["red", "yellow"]
    assert cushions_before(result.events, "white", contacts[1][0]) >= 3
    reading = classify(result.events, result.trajectory, "white", MATCH)
    assert reading is not None
    assert reading.cushions == case.cushions
    assert reading.pattern is case.pattern
    assert (reading.first_ball, reading.second_ball) == ("red", "yellow")
    assert reading.route[-1].ball == "yellow"


def test_a_stroke_with_too_few_cushions_has_no_name() -> None:
    # R-DISC-3C: the yellow is met after one cushion only: no point, so no pattern.
    layout = lay_out(
        MATCH,
        (0.7, 0.5),
        Stroke(0.0, 4.0),
        first_after=0,
        first_where=0.5,
        cut=0.35,
        second_after=1,
    )
    steps = route(layout.result.events, layout.result.trajectory, "white", MATCH)
    assert [s.ball for s in steps if s.kind == "ball"][:2] == ["red", "yellow"]
    assert classify(layout.result.events, layout.result.trajectory, "white", MATCH) is None


def test_a_stroke_that_meets_one_ball_has_no_name() -> None:
    layout = CASES[-3].build()  # around the table, played again without the yellow
    balls = {k: v for k, v in layout.balls.items() if k != "yellow"}
    result = simulate(MATCH, balls, "white", layout.stroke)
    assert classify(result.events, result.trajectory, "white", MATCH) is None


def test_the_route_reads_positions_and_diamonds_from_the_trajectory() -> None:
    layout = CASES[-3].build()
    steps = route(layout.result.events, layout.result.trajectory, "white", MATCH)
    cushion_events = [
        e for e in layout.result.events if e.kind == "ball_cushion" and e.balls == ("white",)
    ]
    cushions = [s for s in steps if s.is_cushion]
    assert len(cushions) == len(cushion_events)
    for step, event in zip(cushions, cushion_events, strict=True):
        assert step.pos == pytest.approx(event.after["white"].pos, abs=1e-9)
        assert step.after == pytest.approx(event.after["white"].vel, abs=1e-9)
        # A cushion contact: the centre is one radius from the nose line.
        r = MATCH.ball_radius
        x, y = step.pos
        assert min(x, MATCH.length - x, y, MATCH.width - y) == pytest.approx(r, abs=1e-6)


@pytest.mark.parametrize(
    ("cushion", "pos", "expected"),
    [
        ("left", (MATCH.length / 2, MATCH.width), 4.0),
        ("right", (MATCH.length / 8, 0.0), 1.0),
        ("bottom", (0.0, MATCH.width / 2), 2.0),
        ("top", (MATCH.length, MATCH.length / 8 * 3), 3.0),
    ],
)
def test_diamonds_along_a_cushion(cushion: str, pos: tuple[float, float], expected: float) -> None:
    assert math.isclose(diamonds_along(MATCH, cushion, pos), expected)  # type: ignore[arg-type]
