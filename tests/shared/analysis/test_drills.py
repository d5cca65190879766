"""Corner-5 and plus-system drills (docs/analysis.md "Drills"): the score of known strokes,
played by the simulator from the drill's position."""

from __future__ import annotations

import dataclasses

import pytest

from shared.analysis.drills import (
    Attempt,
    Drill,
    Grade,
    Session,
    System,
    corner_five,
    corner_five_drills,
    drills,
    plus,
    plus_drills,
    score,
)
from shared.physics import Stroke, simulate
from shared.physics.diamonds import corner_five_stroke, plus_stroke
from shared.table import MATCH


def _play(stroke: Stroke, drill: Drill) -> Attempt:
    return score(drill, simulate(MATCH, drill.balls, "white", stroke))


@pytest.mark.parametrize("drill", corner_five_drills(), ids=lambda d: d.name)
def test_the_systems_own_stroke_lands_near_the_number(drill: Drill) -> None:
    attempt = _play(drill.answer, drill)
    assert attempt.arrival is not None
    # docs/physics.md: within 0.16 diamond from the corner, 0.25 from origins 4 and 6.
    assert attempt.grade in (Grade.ON_THE_NUMBER, Grade.CLOSE), attempt.sentence
    assert attempt.error is not None and attempt.error <= 0.5


def test_aiming_a_diamond_off_lands_about_a_diamond_off() -> None:
    drill = corner_five(5.0, 3.0)
    # The same origin line's neighbour: first rail 1 instead of 2, so about 4 on the third rail.
    start, stroke = corner_five_stroke(MATCH, 5.0, 1.0, 2.5, 0.2)
    moved = dataclasses.replace(drill, balls={**drill.balls, "white": start})
    attempt = _play(stroke, moved)
    assert attempt.arrival is not None and 3.6 <= attempt.arrival <= 4.3
    assert attempt.grade in (Grade.NEAR, Grade.OFF)
    assert "the target was 3" in attempt.sentence


def test_another_route_is_off_the_system() -> None:
    drill = corner_five(5.0, 3.0)
    attempt = _play(Stroke(0.0, 2.0), drill)  # straight up the table: top cushion first
    assert attempt.arrival is None and attempt.grade is Grade.OFF
    assert attempt.sentence.startswith("The cue ball did not meet the right cushion")


def test_a_session_shows_progress() -> None:
    drill = corner_five(5.0, 3.0)
    wild = _play(Stroke(0.0, 2.0), drill)
    good = _play(drill.answer, drill)
    session = Session()
    assert session.progress == "No attempts yet."
    for a in (wild,) * 5 + (good,) * 5:
        session = session.add(a)
    assert session.on_the_number + sum(1 for a in session.attempts if a.grade is Grade.CLOSE) == 5
    assert "closer than the first five (2.00)" in session.progress
    assert session.stars == 5 * good.grade.value


@pytest.mark.parametrize("drill", plus_drills(), ids=lambda d: d.name)
def test_the_plus_systems_own_stroke_grades_on_the_number_or_close(drill: Drill) -> None:
    attempt = _play(drill.answer, drill)
    assert drill.system is System.PLUS and drill.first_rail == drill.target - drill.origin
    # Measured: 6.2, 6.0, 5.0, 7.0, 5.2, 7.1 for targets 6, 6, 5, 7, 5, 7.
    assert attempt.grade in (Grade.ON_THE_NUMBER, Grade.CLOSE), attempt.sentence
    assert attempt.error is not None and attempt.error <= 0.5


def test_a_plus_stroke_aimed_two_numbers_off_grades_off() -> None:
    drill = plus(2.0, 5.0)  # through 3 on the first rail
    # The same start through 5: a diamond further down the first rail, two numbers on.
    start, stroke = plus_stroke(MATCH, 2.0, 5.0, drill.system.speed, drill.system.english)
    moved = dataclasses.replace(drill, balls={**drill.balls, "white": start})
    attempt = _play(stroke, moved)
    assert attempt.arrival is not None and attempt.arrival > 6.5
    assert attempt.grade is Grade.OFF
    assert "the target was 5" in attempt.sentence


def test_the_plus_drill_counts_the_third_rail_from_the_near_end() -> None:
    drill = plus(3.0, 6.0)
    assert drill.target_from_far == 2.0
    assert "counted from the bottom cushion" in drill.task
    assert drill.hint.endswith("3 + 3 = 6.")
    assert drills(System.PLUS) == plus_drills()
    assert drills(System.CORNER_FIVE) == corner_five_drills()
