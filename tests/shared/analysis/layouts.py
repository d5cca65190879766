"""One simulated layout per named pattern: the position is found by the simulator
(``shared.analysis.layouts.lay_out``), never written down as events."""

from __future__ import annotations

from dataclasses import dataclass

from shared.analysis.layouts import Layout, lay_out
from shared.analysis.patterns import Pattern
from shared.physics import Stroke
from shared.table import MATCH, CushionName, Point


@dataclass(frozen=True, slots=True)
class Case:
    pattern: Pattern
    cushions: tuple[CushionName, ...]  # the cue ball's cushions before the second ball
    cue_at: Point
    stroke: Stroke
    first_after: int
    cut: float
    second_after: int
    first_where: float = 0.5

    def build(self) -> Layout:
        return lay_out(
            MATCH,
            self.cue_at,
            self.stroke,
            first_after=self.first_after,
            first_where=self.first_where,
            cut=self.cut,
            second_after=self.second_after,
        )


CASES = (
    Case(
        Pattern.BANK,
        ("top", "right", "bottom", "left"),
        (0.7, 0.5),
        Stroke(0.0, 4.0, 0.4),
        3,
        -0.35,
        1,
    ),
    Case(Pattern.TICKY, ("top", "right", "right"), (0.7, 0.5), Stroke(0.0, 2.5, 0.4), 2, -0.35, 1),
    Case(
        Pattern.UMBRELLA, ("top", "right", "bottom"), (0.7, 0.5), Stroke(0.0, 2.5, 0.4), 2, 0.35, 1
    ),
    Case(
        Pattern.CUSHION_FIRST,
        ("top", "left", "bottom", "right"),
        (0.7, 0.5),
        Stroke(0.0, 4.0, -0.4),
        1,
        0.35,
        3,
    ),
    Case(
        Pattern.DOUBLE_THE_RAIL,
        ("left", "top", "left"),
        (0.7, 0.5),
        Stroke(75.0, 4.0, -0.4),
        0,
        0.35,
        3,
    ),
    Case(
        Pattern.THROUGH_THE_TABLE,
        ("left", "right", "top"),
        (0.7, 0.5),
        Stroke(25.0, 4.0, -0.4),
        0,
        -0.35,
        3,
    ),
    Case(
        Pattern.REVERSE,
        ("left", "bottom", "right"),
        (0.15, 0.4),
        Stroke(74.0, 4.0, -0.55, -0.1),
        0,
        -0.98,
        3,
        first_where=0.3,
    ),
    Case(
        Pattern.AROUND_THE_TABLE, ("right", "top", "left"), (0.7, 0.5), Stroke(0.0, 4.0), 0, 0.35, 3
    ),
    Case(Pattern.END_TO_END, ("top", "right", "bottom"), (0.7, 0.5), Stroke(25.0, 4.0), 0, 0.35, 3),
    Case(Pattern.OTHER, ("top", "left", "right"), (0.7, 0.5), Stroke(0.0, 2.5, -0.4), 0, -0.35, 3),
)
