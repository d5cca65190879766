"""Ball motion for drawing: where each ball is, and how it is turned, at any moment of a stroke.

The server sends exact analytic segments (``shared.physics.types.Segment``): position is
quadratic and angular velocity linear within a segment. Position is therefore evaluated in closed
form at whatever time the frame needs, so every client draws the same ball at the same place for
the same server time, at any display rate, and a late joiner simply starts at a later ``t``.

Orientation (for the rotation marks) is the integral of the angular velocity. Within one segment
the rotation vector ``w0·τ + alpha·τ²/2`` is exact when the spin axis does not turn and a very
close approximation otherwise; composing per-segment rotations from the stroke's start keeps the
result a pure function of ``t`` (no per-frame accumulation, so no drift and no dependence on the
frame rate).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from shared.physics.motion import state_at
from shared.physics.types import Segment
from shared.table import BallName

Quat = tuple[float, float, float, float]  # (w, x, y, z), unit
Vec3 = tuple[float, float, float]

IDENTITY: Quat = (1.0, 0.0, 0.0, 0.0)


def quat_mul(a: Quat, b: Quat) -> Quat:
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def quat_from_rotvec(v: Vec3) -> Quat:
    """The rotation by ``|v|`` radians about ``v`` (right-handed)."""
    angle = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2])
    if angle < 1e-12:
        return IDENTITY
    s = math.sin(angle / 2) / angle
    return (math.cos(angle / 2), v[0] * s, v[1] * s, v[2] * s)


def rotate(q: Quat, p: Vec3) -> Vec3:
    """``p`` rotated by ``q`` (q · p · q⁻¹)."""
    w, x, y, z = q
    px, py, pz = p
    # t = 2 · (q_xyz × p); p' = p + w·t + q_xyz × t
    tx = 2 * (y * pz - z * py)
    ty = 2 * (z * px - x * pz)
    tz = 2 * (x * py - y * px)
    return (
        px + w * tx + (y * tz - z * ty),
        py + w * ty + (z * tx - x * tz),
        pz + w * tz + (x * ty - y * tx),
    )


def _normalise(q: Quat) -> Quat:
    n = math.sqrt(sum(c * c for c in q))
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def _segment_rotvec(seg: Segment, tau: float) -> Vec3:
    half = tau * tau / 2
    return (
        seg.spin[0] * tau + seg.spin_acc[0] * half,
        seg.spin[1] * tau + seg.spin_acc[1] * half,
        seg.spin[2] * tau + seg.spin_acc[2] * half,
    )


@dataclass(frozen=True, slots=True)
class BallPose:
    """What the renderer needs for one ball at one instant."""

    x: float  # m, table frame
    y: float  # m
    z: float  # m above resting height (airborne balls)
    orientation: Quat
    spin: Vec3  # rad/s
    speed: float  # m/s in the table plane


class BallPath:
    """One ball's segments with the orientation at each segment start precomputed."""

    def __init__(self, segments: Sequence[Segment], start_orientation: Quat = IDENTITY) -> None:
        if not segments:
            raise ValueError("a ball path needs at least one segment")
        self.segments = tuple(segments)
        self._starts = [s.t0 for s in self.segments]
        if any(b < a for a, b in zip(self._starts, self._starts[1:], strict=False)):
            raise ValueError("segments must be ordered by t0")
        qs = [start_orientation]
        for prev, nxt in zip(self.segments, self.segments[1:], strict=False):
            dq = quat_from_rotvec(_segment_rotvec(prev, nxt.t0 - prev.t0))
            qs.append(_normalise(quat_mul(dq, qs[-1])))
        self._orient = qs

    @property
    def end_time(self) -> float:
        return self.segments[-1].t0

    def pose(self, t: float) -> BallPose:
        """The pose at ``t`` seconds after the strike. Before the first segment the ball sits at
        its start; the last segment is the ball at rest (or spinning out)."""
        i = max(0, bisect_right(self._starts, t) - 1)
        seg = self.segments[i]
        t = max(t, seg.t0)
        pos, vel, spin = state_at(seg, t)
        q = _normalise(
            quat_mul(quat_from_rotvec(_segment_rotvec(seg, t - seg.t0)), self._orient[i])
        )
        return BallPose(pos[0], pos[1], pos[2], q, spin, math.hypot(vel[0], vel[1]))


class StrokeMotion:
    """All balls of one stroke: poses at any time, and when the motion is over."""

    def __init__(
        self,
        trajectory: Mapping[BallName, Sequence[Segment]],
        orientations: Mapping[BallName, Quat] | None = None,
    ) -> None:
        orientations = orientations or {}
        self.paths: dict[BallName, BallPath] = {
            ball: BallPath(segs, orientations.get(ball, IDENTITY))
            for ball, segs in trajectory.items()
            if segs
        }
        self.duration = max((p.end_time for p in self.paths.values()), default=0.0)

    def poses(self, t: float) -> dict[BallName, BallPose]:
        return {ball: path.pose(t) for ball, path in self.paths.items()}


def resting_pose(x: float, y: float, orientation: Quat = IDENTITY) -> BallPose:
    return BallPose(x, y, 0.0, orientation, (0.0, 0.0, 0.0), 0.0)
