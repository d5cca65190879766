"""Reading and shipping trajectories: evaluate at any time, encode for msgpack, decode; and
the wire form of events.

Pure code (no pymunk): clients and bots import it bare. A trajectory maps each ball to its
segments; each segment is exact closed-form motion from its ``t0`` to the next segment's ``t0``
(the last one lasts forever: a ball at rest, or the flight of a ball that left the table).

Wire form (:func:`encode_trajectory`): ``{ball name: flat list}`` with 16 numbers per segment in
the order ``t0, pos[3], vel[3], acc[3], spin[3], spin_acc[3]``. Zeros are sent as the integer 0
(one msgpack byte instead of nine); every other number is the exact float.

One segment the engine makes is left out: the slow end of a roll (``motion.slow_end_of_roll``),
which follows from the rolling segment before it. The decoder puts it back, so a rolling segment
on the wire carries the two-phase law of the roll (docs/protocol.md "Trajectory"). Decoding
therefore gives back every segment the engine made, the sent ones bit-identical and the rebuilt
ones within rounding (1e-9 relative); the encoder checks that before it leaves one out.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

from shared.physics.motion import slow_end_of_roll
from shared.physics.motion import state_at as segment_state
from shared.physics.spec import DEFAULT_SPEC, PhysicsSpec
from shared.physics.types import Event, Segment, ShotResult
from shared.table import BALLS, BallName, Point

Vec3 = tuple[float, float, float]
SEGMENT_WIDTH: Final = 16
Trajectory = Mapping[BallName, Sequence[Segment]]


def _segments(source: ShotResult | Trajectory, ball: BallName) -> Sequence[Segment]:
    traj = source.trajectory if isinstance(source, ShotResult) else source
    try:
        return traj[ball]
    except KeyError:
        raise ValueError(f"no trajectory for ball {ball!r}") from None


def segment_at(segments: Sequence[Segment], t: float) -> Segment:
    """The segment in force at time ``t`` (the first one before it starts)."""
    if not segments:
        raise ValueError("empty trajectory")
    i = bisect.bisect_right(segments, t, key=lambda s: s.t0) - 1
    return segments[max(i, 0)]


def state_at(segments: Sequence[Segment], t: float) -> tuple[Vec3, Vec3, Vec3]:
    """Position, velocity and spin of a ball at time ``t`` (3-D, exact). Before the first
    segment the ball is where that segment starts."""
    s = segment_at(segments, t)
    return segment_state(s, max(t, s.t0))


def position_at(source: ShotResult | Trajectory, ball: BallName, t: float) -> Point:
    """Where ``ball`` is at time ``t`` (seconds since the strike), in the table plane."""
    p = state_at(_segments(source, ball), t)[0]
    return (p[0], p[1])


def height_at(source: ShotResult | Trajectory, ball: BallName, t: float) -> float:
    """Height of the ball's centre above its resting height at ``t`` (0 on the slate)."""
    return state_at(_segments(source, ball), t)[0][2]


def _pack(x: float) -> float | int:
    return 0 if x == 0.0 else x


def _implied(t_slow: float, t_rest: float, t_next: float | None) -> bool:
    """Whether a rolling segment followed by a segment starting at ``t_next`` (None: none)
    carries its slow end (starting at ``t_slow``, at rest by ``t_rest``). The next segment must
    start inside the slow end: a trajectory from before issue 26 (one rolling law to rest) or one
    interrupted before the switch reads as it always did."""
    if t_next is None:
        return True
    return t_slow < t_next <= t_rest + 1e-9 * max(1.0, t_rest)


def segments_close(a: Segment, b: Segment) -> bool:
    """``a`` equals ``b`` up to rounding: same start, every number within 1e-9 relative (a
    decoded trajectory against the engine's: the rebuilt slow ends differ in the last bits)."""
    if a.t0 != b.t0:
        return False
    for va, vb in zip(
        (*a.pos, *a.vel, *a.acc, *a.spin, *a.spin_acc),
        (*b.pos, *b.vel, *b.acc, *b.spin, *b.spin_acc),
        strict=True,
    ):
        if abs(va - vb) > 1e-9 * max(1.0, abs(vb)):
            return False
    return True


def wire_segments(segments: Sequence[Segment], spec: PhysicsSpec = DEFAULT_SPEC) -> list[Segment]:
    """The segments that go on the wire: all but each slow end of a roll the decoder rebuilds
    (only where it rebuilds it within rounding)."""
    out: list[Segment] = []
    for k, s in enumerate(segments):
        slow = slow_end_of_roll(segments[k - 1], spec) if k else None
        if slow is not None:
            t_next = segments[k + 1].t0 if k + 1 < len(segments) else None
            if segments_close(slow[0], s) and _implied(slow[0].t0, slow[1], t_next):
                continue
        out.append(s)
    return out


def with_slow_ends(segments: Sequence[Segment], spec: PhysicsSpec = DEFAULT_SPEC) -> list[Segment]:
    """Inverse of :func:`wire_segments`: each rolling segment followed by its slow end."""
    out: list[Segment] = []
    for k, s in enumerate(segments):
        out.append(s)
        slow = slow_end_of_roll(s, spec)
        if slow is not None:
            t_next = segments[k + 1].t0 if k + 1 < len(segments) else None
            if _implied(slow[0].t0, slow[1], t_next):
                out.append(slow[0])
    return out


def encode_trajectory(
    trajectory: Trajectory, spec: PhysicsSpec = DEFAULT_SPEC
) -> dict[str, list[float | int]]:
    """A compact msgpack-friendly form: ball name → flat list of numbers (see module doc).
    ``spec`` must be the one the trajectory was simulated with (and the decoder's)."""
    out: dict[str, list[float | int]] = {}
    for ball, segs in trajectory.items():
        flat: list[float | int] = []
        for s in wire_segments(segs, spec):
            flat.append(_pack(s.t0))
            for vec in (s.pos, s.vel, s.acc, s.spin, s.spin_acc):
                flat.extend((_pack(vec[0]), _pack(vec[1]), _pack(vec[2])))
        out[ball] = flat
    return out


def event_wire(e: Event) -> dict[str, Any]:
    """One event as plain data: an entry of ``stroke_played.events`` (PROTOCOL.md), and the
    base of each event in the physics CLI's ``--json``."""
    out: dict[str, Any] = {"t": e.t, "kind": e.kind, "balls": list(e.balls)}
    if e.cushion is not None:
        out["cushion"] = e.cushion
    if e.speeds:
        out["speeds"] = list(e.speeds)
    return out


def decode_trajectory(
    obj: object, spec: PhysicsSpec = DEFAULT_SPEC
) -> dict[BallName, tuple[Segment, ...]]:
    """Inverse of :func:`encode_trajectory` (the slow ends of rolls rebuilt); raises ValueError
    on anything malformed."""
    if not isinstance(obj, Mapping):
        raise ValueError(f"trajectory must be a map of ball name to numbers, got {type(obj)}")
    out: dict[BallName, tuple[Segment, ...]] = {}
    for ball, flat in obj.items():
        if ball not in BALLS:
            raise ValueError(f"unknown ball {ball!r} in trajectory")
        if not isinstance(flat, list | tuple) or not flat or len(flat) % SEGMENT_WIDTH:
            raise ValueError(f"trajectory of {ball} must be a non-empty list of 16·n numbers")
        nums: list[float] = []
        for x in flat:
            if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
                raise ValueError(f"trajectory of {ball} holds a non-number or non-finite {x!r}")
            nums.append(float(x))
        segs: list[Segment] = []
        for k in range(0, len(nums), SEGMENT_WIDTH):
            n = nums[k : k + SEGMENT_WIDTH]
            if segs and n[0] < segs[-1].t0:
                raise ValueError(f"trajectory of {ball}: segment times go backwards")
            segs.append(
                Segment(
                    n[0],
                    (n[1], n[2], n[3]),
                    (n[4], n[5], n[6]),
                    (n[7], n[8], n[9]),
                    (n[10], n[11], n[12]),
                    (n[13], n[14], n[15]),
                )
            )
        out[ball] = tuple(with_slow_ends(segs, spec))
    return out
