"""Practice rooms' aim preview: where the cue ball goes, up to its first cushion.

The path comes from the project's own physics (``shared.physics.simulate``, the same code the
server runs), so swerve from english and a deflection off a ball show as they will happen.
Pure (no arcade); about 2 ms a call, so the view recomputes it only when the aim changes.
"""

from __future__ import annotations

from collections.abc import Mapping

from shared.physics import simulate
from shared.physics.trajectory import position_at
from shared.physics.types import Stroke
from shared.table import BallName, Point, TableSpec

STEP_S = 0.02  # one point per 20 ms of the path


def path_to_first_cushion(
    table: TableSpec, balls: Mapping[BallName, Point], cue: BallName, stroke: Stroke
) -> list[Point]:
    """The cue ball's centre from the strike to its first cushion contact (or to rest)."""
    result = simulate(table, dict(balls), cue, stroke)
    end = result.duration
    for e in result.events:
        if e.kind == "ball_cushion" and cue in e.balls:
            end = e.t
            break
    n = max(1, int(end / STEP_S))
    return [position_at(result, cue, end * i / n) for i in range(n + 1)]
