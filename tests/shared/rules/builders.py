"""Hand-built physics results for referee tests, written as a tiny event language.

``steps`` are strings, each one event of the cue ball unless it names another ball:

- ``"top"``, ``"left"`` …: the cue ball hits that cushion;
- ``"red"`` / ``"yellow"`` / ``"white"``: the cue ball hits that ball;
- ``"red>top"``: an object ball hits a cushion; ``"red*yellow"``: two object balls collide;
- ``"off:red"``: a ball leaves the table.

Events are 0.1 s apart unless a step ends in ``@t`` (seconds), e.g. ``"red@0.001"``.
``final`` gives rest positions (default: unchanged; a ball that went off is None).
This mirrors the physics contract (shared/physics/types.py) without running it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from shared.physics.types import BallState, Event, Segment, ShotResult, Stroke
from shared.table import CUSHIONS, BallName, Point

BALL_NAMES = ("white", "yellow", "red")


def make_result(
    start: Mapping[Any, Point],
    strokes: Mapping[Any, Stroke],
    steps: Sequence[str] = (),
    final: Mapping[Any, Point | None] | None = None,
    duration: float = 4.0,
    after: Mapping[int, Mapping[Any, Point]] | None = None,
    trajectory: Mapping[Any, tuple[Segment, ...]] | None = None,
) -> ShotResult:
    """Ball names may be plain strings (dict literals in tests); they are checked here."""
    for name in (*start, *strokes, *(final or {})):
        assert name in BALL_NAMES, f"unknown ball {name!r}"
    cue = cast(BallName, next(iter(strokes)))
    events: list[Event] = [Event(0.0, "strike", (cue,))]
    gone: list[BallName] = []
    for k, raw in enumerate(steps, start=1):
        step, _, at = raw.partition("@")
        t = float(at) if at else round(0.1 * k, 3)
        positions = (after or {}).get(k, {})
        states = {cast(BallName, b): BallState(p, (0.0, 0.0)) for b, p in positions.items()}
        if step.startswith("off:"):
            ball = step[4:]
            gone.append(ball)  # type: ignore[arg-type]
            events.append(Event(t, "off_table", (ball,), after=states))  # type: ignore[arg-type]
        elif ">" in step:
            ball, cushion = step.split(">")
            events.append(Event(t, "ball_cushion", (ball,), cushion, after=states))  # type: ignore[arg-type]
        elif "*" in step:
            a, b = step.split("*")
            events.append(Event(t, "ball_ball", (a, b), after=states))  # type: ignore[arg-type]
        elif step in CUSHIONS:
            events.append(Event(t, "ball_cushion", (cue,), step, after=states))
        elif step in BALL_NAMES:
            events.append(Event(t, "ball_ball", (cue, step), after=states))  # type: ignore[arg-type]
        else:
            raise ValueError(f"unknown step {step!r}")
    events.append(Event(duration, "rest", ()))
    end: dict[BallName, Point | None] = {cast(BallName, b): p for b, p in start.items()}
    for b in gone:
        end[b] = None
    for b, q in (final or {}).items():
        end[cast(BallName, b)] = q
    return ShotResult(
        initial={cast(BallName, b): p for b, p in start.items()},
        strokes={cast(BallName, b): s for b, s in strokes.items()},
        events=tuple(events),
        trajectory={cast(BallName, b): t for b, t in (trajectory or {}).items()},
        final=end,
        duration=duration,
    )


STROKE = Stroke(direction=0.0, speed=3.0)
