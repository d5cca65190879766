"""The situations behind ``test_physics_cases.py`` and a seeded search for strokes that make them.

Each test names the stroke found when it was written (frozen) and checks, on the real simulator,
that the stroke still makes its situation (a precondition on the physics, not on the referee).
When a physics change breaks that, the test searches again with a fixed seed, warns with the new
parameters to freeze, and goes on to check the referee on the new stroke.

    .venv/bin/python -m tests.shared.rules.find_strokes point3c|kiss2|breakyellow|jump|frozen|balk
"""

from __future__ import annotations

import random
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

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
Start = Mapping[BallName, Point]


def carom(r: ShotResult, cue: BallName = "white") -> tuple[list[BallName], int | None]:
    """Object balls the cue ball touched, and its cushions before the second (None: no carom)."""
    c = object_ball_contacts(r.events, cue)
    return [b for _, b in c], (cushions_before(r.events, cue, c[1][0]) if len(c) == 2 else None)


def kissed(r: ShotResult) -> bool:
    """The cue ball reaches the second ball after exactly two cushions, after a kiss."""
    _, n = carom(r)
    kisses = [i for i, e in filter_events(r.events, by_kind("ball_ball")) if "white" not in e.balls]
    second = object_ball_contacts(r.events, "white")
    return n == 2 and bool(kisses) and kisses[0] < second[1][0]


AREA_1_1 = {z.name: z for z in zones_for(Discipline.BALKLINE_47_2, MATCH, 0.71)}["area 1-1"]


def carom_in_area(r: ShotResult) -> bool:
    """A carom after which both object balls never left balkline 47 area 1-1."""
    return carom(r)[1] is not None and not any(
        r.final[o] is None or left_zone(AREA_1_1, o, r.initial[o], r.trajectory, [], r.duration)
        for o in ("yellow", "red")
    )


def _plain(g: random.Random, low: float, high: float, elevation: float = 0.0) -> Stroke:
    return Stroke(
        round(g.uniform(0, 359.9), 1),
        round(g.uniform(low, high), 2),
        round(g.uniform(-0.4, 0.4), 1),
        round(g.uniform(-0.3, 0.3), 1),
        elevation,
    )


def _away(g: random.Random) -> Stroke:
    s = _plain(g, 1.5, 5)
    return Stroke(round(g.uniform(95, 265), 1), s.speed, s.tip_x, s.tip_y)


@dataclass(frozen=True)
class Case:
    start: Start | None  # None: the start is given by the test (a position after a stroke)
    make: Callable[[random.Random], Stroke]
    wanted: Callable[[ShotResult], bool]


OPEN: Start = {"white": (0.9, 0.4), "yellow": (2.2, 1.0), "red": (1.6, 0.9)}
JUMP: Start = {"white": (2.5, 1.2), "yellow": MATCH.centre_spot, "red": (2.0, 0.4)}
FROZEN: Start = {"white": (1.0, 0.7), "yellow": (2.0, 1.1), "red": (1.0 + 2 * R + 0.0002, 0.7)}
BALK: Start = {"white": (0.15, 0.40), "yellow": (0.2, 0.2), "red": (0.33, 0.33)}

CASES: dict[str, Case] = {
    "point3c": Case(
        OPEN,
        lambda g: _plain(g, 2, 5),
        lambda r: (carom(r)[1] or 0) >= 3 and not off_table_balls(r.events),
    ),
    "kiss2": Case(OPEN, lambda g: _plain(g, 2, 5), kissed),
    "breakyellow": Case(
        dict(zip(BALLS, break_position(MATCH, "white"), strict=True)),
        lambda g: _plain(g, 2, 5),
        lambda r: carom(r)[0][:1] == ["yellow"] and not off_table_balls(r.events),
    ),
    "jump": Case(
        JUMP,
        lambda g: _plain(g, 4, 8, float(round(g.uniform(20, 60)))),
        lambda r: off_table_balls(r.events) == ["white"] and r.final["yellow"] == JUMP["yellow"],
    ),
    "frozen": Case(
        FROZEN, _away, lambda r: 1 <= (carom(r)[1] or 0) < 3 and not off_table_balls(r.events)
    ),
    "balk": Case(BALK, lambda g: _plain(g, 0.2, 1.5), carom_in_area),
}


def search(case: Case, start: Start, tries: int = 40_000) -> tuple[Stroke, ShotResult] | None:
    g = random.Random(1)
    for _ in range(tries):
        s = case.make(g)
        try:
            r = simulate(MATCH, start, "white", s)
        except ValueError:
            continue
        if case.wanted(r):
            return s, r
    return None


def situation(name: str, frozen: Stroke, start: Start | None = None) -> tuple[Stroke, ShotResult]:
    """The frozen stroke and its result if it still makes the situation; else a new one."""
    case = CASES[name]
    begin = start if start is not None else case.start
    assert begin is not None
    result = simulate(MATCH, begin, "white", frozen)
    if case.wanted(result):
        return frozen, result
    found = search(case, begin)
    assert found is not None, f"the physics can no longer make the {name!r} situation"
    warnings.warn(f"physics changed: freeze {found[0]!r} for {name!r}", stacklevel=2)
    return found


def main(name: str) -> None:
    if name not in CASES:
        raise SystemExit(__doc__)
    case = CASES[name]
    assert case.start is not None
    found = search(case, case.start)
    print(found[0] if found else "nothing found")
    if found is not None and name == "balk":  # the second carom, from where the first stopped
        second = {b: p for b, p in found[1].final.items() if p is not None}
        again = search(case, second)
        print(again[0] if again else "no second carom found")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
