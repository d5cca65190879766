"""One stroke as a player reads it: its name, the cue ball's path with each cushion contact in
diamonds, the cue parameters in words, and the events in order (docs/analysis.md "Replay
analysis"). Pure: the replay screen draws it, the tests read it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from shared.analysis.patterns import Pattern, Step, attempted, route, scoring_route
from shared.analysis.wire import events_from_views
from shared.physics.trajectory import position_at
from shared.physics.types import MASSE_ELEVATION, Event, Segment
from shared.protocol.to_client import StrokePlayed
from shared.table import BallName, Point, TableSpec

TIP_WIDTH: Final = 0.012  # m: "one tip" of english is a cue tip's width off centre
PATH_STEP: Final = 0.02  # s between the points of a drawn path
SPEED_WORDS: Final[tuple[tuple[float, str], ...]] = (
    (1.0, "very soft"),
    (2.0, "soft"),
    (3.0, "medium"),
    (4.5, "firm"),
    (6.0, "hard"),
    (math.inf, "very hard"),
)


def speed_words(speed: float) -> str:
    """``medium, 2.5 m/s``: the cue speed as players say it, then the number."""
    word = next(w for top, w in SPEED_WORDS if speed <= top)
    return f"{word}, {speed:.1f} m/s"


def _tips(offset_radii: float, radius: float) -> str:
    tips = round(offset_radii * radius / TIP_WIDTH * 2) / 2
    if tips <= 0.5:
        return "half a tip"
    if tips == 1:
        return "one tip"
    whole = int(tips)
    return f"{whole} and a half tips" if tips != whole else f"{whole} tips"


def tip_words(tip_x: float, tip_y: float, radius: float) -> str:
    """Where the cue meets the ball's face: how far off centre (in cue-tip widths), at which
    hour of a clock face (12 is the top of the ball), and what that gives."""
    off = math.hypot(tip_x, tip_y)
    if off * radius < TIP_WIDTH / 4:
        return "centre ball"
    hour = round(math.degrees(math.atan2(tip_x, tip_y)) / 30) % 12 or 12
    side = "right english" if tip_x > 0.05 else "left english" if tip_x < -0.05 else ""
    height = "follow" if tip_y > 0.05 else "draw" if tip_y < -0.05 else ""
    effect = " with ".join(w for w in (side, height) if w) or "centre ball"
    return f"{_tips(off, radius)} at {hour} o'clock: {effect}"


def elevation_words(elevation: float) -> str:
    if elevation < 1.0:
        return "level cue"
    if elevation < MASSE_ELEVATION:
        return f"cue raised {elevation:.0f}°"
    return f"massé, cue at {elevation:.0f}°"


@dataclass(frozen=True, slots=True)
class EventLine:
    t: float  # s since the strike
    text: str  # "the white meets the right cushion at 5.8"


@dataclass(frozen=True, slots=True)
class StrokeReading:
    cue: BallName
    name: str | None  # the point's name when it scored three-cushion style (patterns.py)
    route: Pattern | None  # the route the cue ball followed, scored or not
    steps: tuple[Step, ...]  # every cushion and ball contact of the cue ball
    cue_words: tuple[str, ...]  # speed, tip, elevation, direction
    events: tuple[EventLine, ...]
    path: tuple[Point, ...]  # the cue ball's centre every PATH_STEP s, from strike to rest
    balls_before: Mapping[BallName, Point]  # where every ball stood before the stroke


def balls_before(trajectory: Mapping[BallName, Sequence[Segment]]) -> dict[BallName, Point]:
    """Where each ball stood when the stroke began: the start of its first segment, exactly."""
    return {b: (segs[0].pos[0], segs[0].pos[1]) for b, segs in trajectory.items() if segs}


def path_of(
    events: Sequence[Event],
    trajectory: Mapping[BallName, Sequence[Segment]],
    cue: BallName,
    until: float | None = None,
) -> tuple[Point, ...]:
    """The cue ball's centre every ``PATH_STEP`` seconds from the strike to rest (or to
    ``until`` seconds)."""
    rest = next((e.t for e in events if e.kind == "rest"), None)
    end = (
        rest if rest is not None else max((s[-1].t0 for s in trajectory.values() if s), default=0.0)
    )
    if until is not None:
        end = min(end, until)
    n = max(1, math.ceil(end / PATH_STEP))
    return tuple(position_at(trajectory, cue, min(end, k * PATH_STEP)) for k in range(n + 1))


def _event_text(e: Event, steps: Mapping[float, Step]) -> str | None:
    if e.kind == "ball_ball":
        a, b = e.balls
        return f"the {a} hits the {b}"
    if e.kind == "ball_cushion" and e.cushion is not None:
        step = steps.get(e.t)
        where = f" at {step.diamonds:.1f}" if step is not None and step.diamonds is not None else ""
        return f"the {e.balls[0]} meets the {e.cushion} cushion{where}"
    if e.kind == "strike":
        return f"the cue strikes the {e.balls[0]}"
    if e.kind == "off_table":
        return f"the {e.balls[0]} leaves the table"
    if e.kind == "rest":
        return "every ball is at rest"
    return None  # phase changes (slide, roll, spin) are not shown


def read_played(msg: StrokePlayed, table: TableSpec) -> StrokeReading:
    """A ``stroke_played`` (live or from a replay) read for the replay screen."""
    cue = msg.stroke.ball
    events = events_from_views(msg.events)
    traj = msg.trajectory.segments()
    steps = route(events, traj, cue, table)
    scoring = scoring_route(steps)
    cushion_steps = {s.t: s for s in steps if s.is_cushion and s.cushion is not None}
    lines = tuple(
        EventLine(e.t, text)
        for e in events
        if (text := _event_text(e, cushion_steps if cue in e.balls else {})) is not None
    )
    c = msg.stroke.cue
    path = path_of(events, traj, cue)
    route_name = attempted(steps)
    return StrokeReading(
        cue=cue,
        name=None if scoring is None or route_name is None else route_name.label,
        route=route_name,
        steps=steps,
        cue_words=(
            f"Speed: {speed_words(c.speed)}",
            f"Tip: {tip_words(c.tip_x, c.tip_y, table.ball_radius)}",
            f"Cue: {elevation_words(c.elevation)}, aimed at {c.direction:.1f}°",
        ),
        events=lines,
        path=path,
        balls_before=balls_before(traj),
    )
