"""Re-find the stroke parameters frozen in ``test_physics_cases.py`` after a physics change.

    .venv/bin/python -m tests.shared.rules.find_strokes point3c|kiss2|breakyellow|jump|frozen|balk

A seeded random search over cue parameters from each test's start position; prints the first
stroke that produces the wanted referee situation. Not a test: it is the tool behind the tests.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

from shared.physics import simulate
from shared.physics.types import ShotResult, Stroke
from shared.rules.events import (
    by_kind,
    cushions_before,
    filter_events,
    object_ball_contacts,
    off_table_balls,
)
from shared.rules.options import Discipline
from shared.rules.placement import break_position
from shared.rules.zones import left_zone, zones_for
from shared.table import BALLS, MATCH, BallName, Point

R = MATCH.ball_radius
OPEN: dict[BallName, Point] = {"white": (0.9, 0.4), "yellow": (2.2, 1.0), "red": (1.6, 0.9)}


def carom(r: ShotResult) -> tuple[list[BallName], int | None]:
    c = object_ball_contacts(r.events, "white")
    balls = [b for _, b in c]
    return balls, (cushions_before(r.events, "white", c[1][0]) if len(c) == 2 else None)


def stroke(rng: random.Random, speed: tuple[float, float], elevation: float = 0.0) -> Stroke:
    return Stroke(
        round(rng.uniform(0, 359.9), 1),
        round(rng.uniform(*speed), 2),
        round(rng.uniform(-0.4, 0.4), 1),
        round(rng.uniform(-0.3, 0.3), 1),
        elevation,
    )


def search(
    start: dict[BallName, Point],
    make: Callable[[random.Random], Stroke],
    wanted: Callable[[ShotResult], bool],
    tries: int = 40_000,
) -> tuple[Stroke, ShotResult] | None:
    rng = random.Random(1)
    for _ in range(tries):
        s = make(rng)
        try:
            r = simulate(MATCH, start, "white", s)
        except ValueError:
            continue
        if wanted(r):
            return s, r
    return None


def kissed(r: ShotResult) -> bool:
    _, n = carom(r)
    kisses = [i for i, e in filter_events(r.events, by_kind("ball_ball")) if "white" not in e.balls]
    second = object_ball_contacts(r.events, "white")
    return n == 2 and bool(kisses) and kisses[0] < second[1][0]


def main(what: str) -> None:
    if what == "point3c":
        found = search(OPEN, lambda g: stroke(g, (2, 5)), lambda r: (carom(r)[1] or 0) >= 3)
    elif what == "kiss2":
        found = search(OPEN, lambda g: stroke(g, (2, 5)), kissed)
    elif what == "breakyellow":
        start = dict(zip(BALLS, break_position(MATCH, "white"), strict=True))
        found = search(start, lambda g: stroke(g, (2, 5)), lambda r: carom(r)[0][:1] == ["yellow"])
    elif what == "jump":
        start = {"white": (2.5, 1.2), "yellow": MATCH.centre_spot, "red": (2.0, 0.4)}
        found = search(
            start,
            lambda g: stroke(g, (4, 8), float(round(g.uniform(20, 60)))),
            lambda r: (
                off_table_balls(r.events) == ["white"] and r.final["yellow"] == start["yellow"]
            ),
        )
    elif what == "frozen":
        start = {"white": (1.0, 0.7), "yellow": (2.0, 1.1), "red": (1.0 + 2 * R + 0.0002, 0.7)}
        found = search(
            start,
            lambda g: replace_direction(stroke(g, (1.5, 5)), g.uniform(95, 265)),
            lambda r: 1 <= (carom(r)[1] or 0) < 3 and not off_table_balls(r.events),
        )
    elif what == "balk":
        area = {z.name: z for z in zones_for(Discipline.BALKLINE_47_2, MATCH, 0.71)}["area 1-1"]
        start = {"white": (0.15, 0.40), "yellow": (0.2, 0.2), "red": (0.33, 0.33)}

        def stays(r: ShotResult) -> bool:
            return carom(r)[1] is not None and not any(
                r.final[o] is None or left_zone(area, o, r.initial[o], r.trajectory, [], r.duration)
                for o in ("yellow", "red")
            )

        found = search(start, lambda g: stroke(g, (0.2, 1.5)), stays)
        if found is not None:
            print("first:", found[0], dict(found[1].final))
            second = {b: p for b, p in found[1].final.items() if p is not None}
            found = search(second, lambda g: stroke(g, (0.2, 1.5)), stays)
    else:
        raise SystemExit(__doc__)
    print(found[0] if found else "nothing found")


def replace_direction(s: Stroke, direction: float) -> Stroke:
    return Stroke(round(direction, 1), s.speed, s.tip_x, s.tip_y, s.elevation)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
