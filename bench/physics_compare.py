"""The old and the new engine on the same strokes (issue 26): ``dump`` and ``diff``.

``python -m bench.physics_compare dump > out.json`` simulates the physics bench's 120 strokes
and 60 steep ones (the bench generator, seed 26, elevation drawn from 30–89°) and writes each
stroke's final positions, the time the cue ball stops translating and its event counts. Run it
once in a tree of the old engine (``git archive OLD shared bench``, with that tree first on
``PYTHONPATH``) and once here, then ``diff old.json new.json`` prints what moved.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
from typing import Any

from bench.physics import stroke_set
from shared.physics import ShotResult, Stroke, simulate
from shared.table import MATCH


def _white_stop(result: ShotResult) -> float | None:
    for e in result.events:
        if "white" in e.balls and e.kind in ("roll_to_spin", "spin_to_rest"):
            return e.t
    return None


def dump() -> list[dict[str, Any]]:
    rng = random.Random(26)
    steep = [
        (balls, Stroke(s.direction, s.speed, s.tip_x, s.tip_y, rng.uniform(30.0, 89.0)))
        for balls, s in stroke_set(60, seed=26)
    ]
    out = []
    for name, strokes in (("bench", stroke_set()), ("steep", steep)):
        for balls, stroke in strokes:
            r = simulate(MATCH, balls, "white", stroke)
            kinds = [e.kind for e in r.events]
            out.append(
                {
                    "set": name,
                    "final": dict(r.final),
                    "duration": r.duration,
                    "white_stop": _white_stop(r),
                    "airborne": kinds.count("airborne"),
                    "off_table": kinds.count("off_table"),
                    "first_contact": [list(e.balls) for e in r.events if e.kind == "ball_ball"][:1],
                }
            )
    return out


def diff(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[str]:
    lines = []
    for name in ("bench", "steep"):
        pairs = [(a, b) for a, b in zip(old, new, strict=True) if a["set"] == name]
        earlier = sorted(
            a["white_stop"] - b["white_stop"]
            for a, b in pairs
            if a["white_stop"] is not None and b["white_stop"] is not None
        )
        moved = sorted(
            math.dist(a["final"][ball], b["final"][ball])
            for a, b in pairs
            for ball in a["final"]
            if a["final"][ball] is not None and b["final"][ball] is not None
        )
        lines.append(f"{name}: {len(pairs)} strokes")
        if earlier:
            lines.append(
                f"  cue ball stops sooner by: median {statistics.median(earlier):.2f} s, "
                f"p10 {earlier[len(earlier) // 10]:.2f}, p90 {earlier[9 * len(earlier) // 10]:.2f}"
            )
        lines.append(
            f"  final positions moved: median {statistics.median(moved):.3f} m, "
            f"p90 {moved[9 * len(moved) // 10]:.3f}, max {moved[-1]:.3f}"
        )
        same = sum(a["first_contact"] == b["first_contact"] for a, b in pairs)
        lines.append(f"  same first ball-ball contact: {same} of {len(pairs)}")
        for key in ("airborne", "off_table"):
            lines.append(
                f"  strokes with {key}: {sum(a[key] > 0 for a, _ in pairs)} -> "
                f"{sum(b[key] > 0 for _, b in pairs)}"
            )
        lines.append(
            f"  median duration: {statistics.median(a['duration'] for a, _ in pairs):.2f} s -> "
            f"{statistics.median(b['duration'] for _, b in pairs):.2f} s"
        )
    return lines


if __name__ == "__main__":
    if sys.argv[1:2] == ["dump"]:
        json.dump(dump(), sys.stdout)
    elif sys.argv[1:2] == ["diff"] and len(sys.argv) == 4:
        with open(sys.argv[2]) as a, open(sys.argv[3]) as b:
            print("\n".join(diff(json.load(a), json.load(b))))
    else:
        raise SystemExit(__doc__)
