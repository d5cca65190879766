"""The plus system on our table: ``python -m bench.plus_system`` prints, for each stroke (cue
speed, running english), the third-rail number the simulated cue ball reaches from start numbers
1–4 through first-rail numbers 1–5, against the system's ``start + first`` (docs/analysis.md
"The plus system"). Numbers are printed, never asserted."""

from __future__ import annotations

from shared.physics import simulate
from shared.physics.diamonds import plus_arrival, plus_stroke
from shared.table import MATCH, BallName, Point

PARKED: dict[BallName, Point] = {"yellow": (0.05, 0.05), "red": (0.05, 0.12)}
STROKES = ((1.5, 0.05), (1.5, 0.0), (2.0, 0.05), (2.5, 0.0), (2.5, 0.2), (2.5, 0.3))
STARTS = (1.0, 2.0, 3.0, 4.0)
FIRSTS = (1.0, 2.0, 3.0, 4.0, 5.0)


def reached(start: float, first: float, speed: float, english: float) -> float | None:
    cue, stroke = plus_stroke(MATCH, start, first, speed, english)
    got = plus_arrival(simulate(MATCH, {"white": cue, **PARKED}, "white", stroke), MATCH)
    return None if got is None else got.at_rail


def run() -> list[str]:
    out = []
    for speed, english in STROKES:
        out.append(f"{speed:g} m/s, running english {english:g} R: start + first -> reached")
        worst = 0.0
        for s in STARTS:
            cells = []
            for f in FIRSTS:
                got = reached(s, f, speed, english)
                cells.append(f"{s + f:g}->{'miss' if got is None else f'{got:.2f}'}")
                if got is not None and 3.0 <= f <= 5.0:
                    worst = max(worst, abs(got - (s + f)))
            out.append(f"  start {s:g}: " + "  ".join(cells))
        out.append(f"  worst error for first-rail numbers 3 to 5: {worst:.2f} diamond")
    return out


if __name__ == "__main__":
    for line in run():
        print(line)
