"""Hand-made game states for screenshots, tests, the docs image and the frame benchmark.

Each scene is a ``GameModel`` on a frozen clock, built the way the server's messages would
build it (a ``snapshot`` then, for the animated scene, a ``stroke_played``). The stroke here is
a simple hand-made rolling path (straight legs with cushion bounces, rolling deceleration and
rolling spin), exact in the ``Segment`` form the physics sends; it is test data for the drawing,
not a physics result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from client.app.model import GameModel
from shared.physics.types import Segment
from shared.table import MATCH, BallName, TableSpec

NOW_MS = 1_800_000_000_000.0  # a fixed server time for every scene
ROLL_DECEL = 0.004 * 9.81  # m/s², rolling resistance (PHYSICS.md starting numbers)

SCENES = ("player", "spectator", "stroke", "balkline", "break_choice", "practice", "reconnecting")
# Suspense (issue 13 point 1): a scoring stroke seen by its player at 1 s, half way and at rest,
# and by a spectator who arrives half way through it.
SUSPENSE = ("scored_1s", "scored_half", "scored_rest", "late_half", "late_rest")
SCORED_CALL = "Good · 7 to go"

BALLS_AT_REST: dict[BallName, tuple[float, float]] = {
    "white": (0.72, 0.52),
    "yellow": (1.95, 1.05),
    "red": (2.25, 0.40),
}


@dataclass
class Scene:
    name: str
    model: GameModel
    aim_direction: float = 0.0  # degrees, where the cue points in the player scenes
    aim_speed: float = 3.0
    tip: tuple[float, float] = (0.0, 0.0)
    elevation: float = 0.0


def _room(discipline: str = "three_cushion", spectators: int = 3) -> dict[str, Any]:
    return {
        "room_id": "demo",
        "options": {"discipline": discipline, "distance": 25, "shot_clock_s": 30},
        "players": [
            {"seat": 0, "name": "Caudron", "status": "connected"},
            {"seat": 1, "name": "Jaspers", "status": "connected"},
        ],
        "spectators": spectators,
    }


def _match(balls: dict[BallName, tuple[float, float]], **extra: Any) -> dict[str, Any]:
    m: dict[str, Any] = {
        "phase": "play",
        "shooter": 0,
        "white_seat": 0,
        "discipline": "three_cushion",
        "balls": {b: list(p) for b, p in balls.items()},
        "score": [17, 14],
        "innings": [12, 12],
        "average": [17 / 12, 14 / 12],
        "high_run": [5, 4],
        "current_run": 2,
        "timeouts_left": [1, 0],
        "deadline_ms": NOW_MS + 8_400,  # 8.4 s left: the 10 s warning colour
    }
    m.update(extra)
    return m


def _model(seat: int | None) -> GameModel:
    model = GameModel(now_local_ms=lambda: NOW_MS)
    model.apply({"t": "welcome", "v": 1, "player_id": "p", "token": "x", "server_time_ms": NOW_MS})
    if seat is not None:
        model.apply({"t": "joined", "room_id": "demo", "seat": seat, "seat_token": "s"})
    return model


def rolling_path(
    spec: TableSpec, start: tuple[float, float], heading: float, speed: float, t0: float = 0.0
) -> list[Segment]:
    """A ball rolling from ``start`` at ``speed`` along ``heading`` (degrees), bouncing off the
    cushions like a mirror, until rolling resistance stops it. Exact quadratic legs."""
    r = spec.ball_radius
    x, y = start
    dx, dy = math.cos(math.radians(heading)), math.sin(math.radians(heading))
    v, t = speed, t0
    segs: list[Segment] = []
    for _ in range(12):
        # time to stop, and time to the next cushion along this leg
        stop_t = v / ROLL_DECEL
        hits = []
        for lim, p, d in (
            (spec.length - r, x, dx),
            (r, x, dx),
            (spec.width - r, y, dy),
            (r, y, dy),
        ):
            if abs(d) > 1e-12:
                s = (lim - p) / d
                if s > 1e-9:
                    hits.append(s)
        s_hit = min(hits)
        # distance v·τ − a·τ²/2 = s_hit → τ
        disc = v * v - 2 * ROLL_DECEL * s_hit
        leg_t = stop_t if disc <= 0 else (v - math.sqrt(disc)) / ROLL_DECEL
        vel = (v * dx, v * dy, 0.0)
        acc = (-ROLL_DECEL * dx, -ROLL_DECEL * dy, 0.0)
        spin = (-vel[1] / r, vel[0] / r, 0.0)
        spin_acc = (-acc[1] / r, acc[0] / r, 0.0)
        segs.append(Segment(t, (x, y, 0.0), vel, acc, spin, spin_acc))
        x += v * dx * leg_t - ROLL_DECEL * dx * leg_t * leg_t / 2
        y += v * dy * leg_t - ROLL_DECEL * dy * leg_t * leg_t / 2
        v -= ROLL_DECEL * leg_t
        t += leg_t
        if disc <= 0:
            break
        v *= 0.8  # the cushion takes some speed
        if abs(x - (spec.length - r)) < 1e-6 or abs(x - r) < 1e-6:
            dx = -dx
        else:
            dy = -dy
    zero = (0.0, 0.0, 0.0)
    segs.append(Segment(t, (x, y, 0.0), zero, zero, zero, zero))
    return segs


def still(pos: tuple[float, float]) -> list[Segment]:
    zero = (0.0, 0.0, 0.0)
    return [Segment(0.0, (pos[0], pos[1], 0.0), zero, zero, zero, zero)]


def demo_trajectory(spec: TableSpec = MATCH, speed: float = 1.6) -> dict[BallName, list[Segment]]:
    return {
        "white": rolling_path(spec, BALLS_AT_REST["white"], 35.0, speed),
        "yellow": still(BALLS_AT_REST["yellow"]),
        "red": still(BALLS_AT_REST["red"]),
    }


class SceneClock:
    """A server clock a scene can move (the scenes' models read it through ``now_local_ms``)."""

    def __init__(self, ms: float) -> None:
        self.ms = ms

    def __call__(self) -> float:
        return self.ms


def scored_stroke() -> tuple[dict[str, Any], float]:
    """A scoring ``stroke_played`` by seat 0 as the server broadcasts it, and its ``rest_ms``."""
    traj = demo_trajectory(speed=1.2)
    final = {b: (segs[-1].pos[0], segs[-1].pos[1]) for b, segs in traj.items()}
    rest = NOW_MS + 1000.0 * max(segs[-1].t0 for segs in traj.values())
    after = _match(
        final,
        score=[18, 14],
        innings=[13, 12],
        average=[18 / 13, 14 / 12],
        current_run=3,
        deadline_ms=None,
    )
    msg = {
        "t": "stroke_played",
        "seq": 2,
        "shooter": 0,
        "stroke": {"direction": 35.0, "speed": 1.2},
        "start_ms": NOW_MS,
        "rest_ms": rest,
        "trajectory": traj,
        "events": [],
        "result": {"points": 1, "calls": [{"code": "point", "text": SCORED_CALL}]},
        "match": after,
    }
    return msg, rest


def build_suspense(name: str) -> Scene:
    """One of SUSPENSE: every message of the stroke has arrived; the clock decides what shows."""
    msg, rest = scored_stroke()
    half = (NOW_MS + rest) / 2
    clock = SceneClock({"1s": NOW_MS + 1000, "half": half, "rest": rest + 300}[name.split("_")[1]])
    if name.startswith("scored"):
        model = _model(0)
        model.now_local_ms = clock
        model.apply({"t": "snapshot", "seq": 1, "room": _room(), "match": _match(BALLS_AT_REST)})
        model.apply(msg)
        model.apply({"t": "call", "seq": 3, "code": "point", "text": SCORED_CALL})
        turn = {"t": "turn", "seq": 4, "shooter": 0, "phase": "play"}
        model.apply({**turn, "deadline_ms": rest + 30_000})
    else:
        clock.ms = half
        model = _model(None)
        model.now_local_ms = clock
        snap = {"t": "snapshot", "seq": 4, "room": _room(), "match": msg["match"], "seat": None}
        after = {**msg["match"], "deadline_ms": rest + 30_000}
        model.apply({**snap, "match": after, "in_motion": msg})
        if name.endswith("rest"):
            clock.ms = rest + 300
    return Scene(name, model, 35.0)


def build(name: str, stroke_t: float = 0.9) -> Scene:
    """The scene called ``name`` (one of SCENES); ``stroke_t`` seconds into the stroke for the
    animated one."""
    if name == "player":
        model = _model(0)
        model.apply({"t": "snapshot", "seq": 1, "room": _room(), "match": _match(BALLS_AT_REST)})
        model.apply({"t": "call", "seq": 2, "code": "point", "text": "Good · 8 to go"})
        w, r = BALLS_AT_REST["white"], BALLS_AT_REST["red"]
        direction = math.degrees(math.atan2(r[1] - w[1] + 0.03, r[0] - w[0])) % 360
        return Scene(name, model, direction, 3.4, (0.25, 0.2), 0.0)
    if name == "spectator":
        model = _model(None)
        model.apply(
            {"t": "snapshot", "seq": 1, "room": _room(spectators=5), "match": _match(BALLS_AT_REST)}
        )
        model.apply({"t": "chat", "seq": 2, "from": "kim", "text": "nice position play"})
        model.apply({"t": "chat", "seq": 3, "from": "ana", "text": "three to go for him"})
        return Scene(name, model)
    if name == "stroke":
        model = _model(None)
        model.apply({"t": "snapshot", "seq": 1, "room": _room(), "match": _match(BALLS_AT_REST)})
        traj = demo_trajectory()
        final = {b: (segs[-1].pos[0], segs[-1].pos[1]) for b, segs in traj.items()}
        model.apply(
            {
                "t": "stroke_played",
                "seq": 2,
                "shooter": 0,
                "stroke": {"direction": 35.0, "speed": 1.6},
                "start_ms": NOW_MS - stroke_t * 1000.0,
                "trajectory": traj,
                "events": [],
                "result": {"points": 0, "calls": []},
                "match": _match(final, shooter=1),
            }
        )
        return Scene(name, model)
    if name == "balkline":
        model = _model(1)
        room = _room("balkline_47_2")
        model.apply({"t": "snapshot", "seq": 1, "room": room, "match": _match(BALLS_AT_REST)})
        return Scene(name, model, 200.0)
    if name == "break_choice":
        model = _model(0)
        m = _match(
            BALLS_AT_REST,
            phase="break_choice",
            lag={
                "balls": {"0": "white", "1": "yellow"},
                "played": [True, True],
                "winner": 0,
                "reason": "nearer",
                "repeats": [0, 0],
            },
            score=[0, 0],
            innings=[0, 0],
            average=[0.0, 0.0],
            high_run=[0, 0],
            current_run=[0, 0],
        )
        model.apply({"t": "snapshot", "seq": 1, "room": _room(), "match": m})
        return Scene(name, model)
    if name == "reconnecting":
        scene = build("player")
        scene.model.apply({"t": "connection", "status": "lost"})
        scene.model.apply({"t": "connection", "status": "reconnecting", "attempt": 2})
        scene.name = name
        return scene
    if name == "practice":
        model = _model(0)
        room = {
            "room_id": "solo",
            "practice": True,
            "options": {"discipline": "three_cushion", "practice": True},
            "players": [{"seat": 0, "name": "Caudron"}],
        }
        m = _match(BALLS_AT_REST, deadline_ms=None, score=[3], innings=[4], current_run=1)
        model.apply({"t": "snapshot", "seq": 1, "room": room, "match": m})
        return Scene(name, model, 75.0, 2.5, (0.3, 0.0), 0.0)
    if name in SUSPENSE:
        return build_suspense(name)
    raise ValueError(f"unknown scene {name!r}; known: {', '.join(SCENES + SUSPENSE)}")


# Other screens ---------------------------------------------------------------------------------
SCREENS = ("lobby", "create_room", "matches", "results", "replay")

DEMO_ROOMS: list[dict[str, Any]] = [
    {
        "room_id": "r7",
        "discipline": "three_cushion",
        "distance": 25,
        "players": ["Caudron", "Jaspers"],
        "spectators": 12,
        "phase": "play",
        "private": False,
    },
    {
        "room_id": "r8",
        "discipline": "balkline_47_2",
        "distance": 150,
        "players": ["Ceulemans", None],
        "spectators": 0,
        "phase": "waiting",
        "private": False,
    },
    {
        "room_id": "r9",
        "discipline": "one_cushion",
        "distance": 50,
        "players": ["kim", "ana"],
        "spectators": 2,
        "phase": "lag",
        "private": True,
    },
]

DEMO_MATCHES: list[dict[str, Any]] = [
    {
        "match_id": 3,
        "room_id": "r7",
        "discipline": "three_cushion",
        "players": ["Caudron", "Jaspers"],
        "winner": 0,
        "reason": "distance",
        "strokes": 61,
        "scoresheet": {"match": [{"points": 25}, {"points": 19}]},
    },
    {
        "match_id": 2,
        "room_id": "r5",
        "discipline": "balkline_71_2",
        "players": ["kim", "ana"],
        "winner": None,
        "reason": "innings_limit",
        "strokes": 140,
        "scoresheet": {"match": [{"points": 80}, {"points": 80}]},
    },
]

DEMO_SCORESHEET: dict[str, Any] = {
    "sets": [
        {
            "number": 1,
            "breaker": 0,
            "result": {"winner": 0, "reason": "distance"},
            "lines": [
                {"points": 25, "innings": 14, "average": 1.786, "high_run": 7},
                {"points": 19, "innings": 14, "average": 1.357, "high_run": 5},
            ],
        },
    ],
    "match": [
        {"points": 25, "innings": 14, "average": 1.786, "high_run": 7},
        {"points": 19, "innings": 14, "average": 1.357, "high_run": 5},
    ],
    "sets_won": [1, 0],
    "result": {"winner": 0, "reason": "distance"},
}


def results_model() -> GameModel:
    model = _model(0)
    m = _match(BALLS_AT_REST, phase="over", score=[25, 19], innings=[14, 14])
    model.apply({"t": "snapshot", "seq": 1, "room": _room(), "match": m})
    model.apply(
        {
            "t": "game_over",
            "seq": 2,
            "winner": 0,
            "reason": "distance",
            "scoresheet": DEMO_SCORESHEET,
            "match_id": 3,
        }
    )
    return model


def replay_message() -> dict[str, Any]:
    """A ``replay`` answer as the server sends it: two strokes with wire-encoded trajectories."""
    from shared.physics import encode_trajectory

    first = demo_trajectory()
    after_first = {b: (s[-1].pos[0], s[-1].pos[1]) for b, s in first.items()}
    second: dict[BallName, list[Segment]] = {
        "white": still(after_first["white"]),
        "yellow": rolling_path(MATCH, after_first["yellow"], 200.0, 1.2),
        "red": still(after_first["red"]),
    }
    after_second = {b: (s[-1].pos[0], s[-1].pos[1]) for b, s in second.items()}
    strokes = []
    plays: list[tuple[dict[BallName, list[Segment]], dict[BallName, tuple[float, float]], int]]
    plays = [(first, after_first, 0), (second, after_second, 1)]
    for n, (traj, after, seat) in enumerate(plays, start=1):
        strokes.append(
            {
                "n": n,
                "kind": "stroke",
                "seat": seat,
                "t": "stroke_played",
                "shooter": seat,
                "start_ms": NOW_MS,
                "trajectory": encode_trajectory(traj),
                "events": [],
                "result": {"points": 0, "calls": [{"code": "miss", "text": "One cushion"}]},
                "match": _match(after, shooter=1 - seat, score=[0, 0], innings=[n, n - 1]),
            }
        )
    return {
        "t": "replay",
        "match_id": 3,
        "room": _room(),
        "strokes": strokes,
        "finished": True,
        "scoresheet": DEMO_SCORESHEET,
    }
