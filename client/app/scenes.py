"""Hand-made game states for screenshots, tests, the docs image and the frame benchmark.

Each scene is a ``GameModel`` on a frozen clock, fed the server's own messages: every ``match``
is ``shared.wireviews.match_view`` of a real referee state (``MatchState``), every room, result and
scoresheet a typed ``shared.protocol`` view, sent through their wire form as the server sends
them (a ``snapshot`` then, for the animated scene, a ``stroke_played``). Nothing here is a
hand-written wire map. The stroke here is
a simple hand-made rolling path (straight legs with cushion bounces, rolling deceleration and
rolling spin), exact in the ``Segment`` form the physics sends; it is test data for the drawing,
not a physics result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import msgpack

from client.app.model import GameModel
from client.session import Link
from shared import rules, wireviews
from shared.physics import encode_trajectory
from shared.physics.types import Segment, Stroke
from shared.protocol import codec
from shared.protocol import to_client as tc
from shared.protocol import views as pv
from shared.protocol.base import ServerMessage
from shared.rules import Discipline, GameOver, MatchOptions, MatchState, Phase, Termination
from shared.table import MATCH, BallName, TableSpec

M = TypeVar("M", bound=ServerMessage)

NOW_MS = 1_800_000_000_000.0  # a fixed server time for every scene
ROLL_DECEL = 0.004 * 9.81  # m/s², rolling resistance (PHYSICS.md starting numbers)

SCENES = (
    "player",
    "spectator",
    "stroke",
    "balkline",
    "break_choice",
    "practice",
    "reconnecting",
    "doubles",
)
# A doubles room (R-TEAM-1): Caudron & Zanetti against Jaspers & Merckx, Zanetti to play.
DOUBLES_NAMES = ("Caudron", "Jaspers", "Zanetti", "Merckx")
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


def _options(discipline: str = "three_cushion", practice: bool = False) -> MatchOptions:
    return MatchOptions(discipline=Discipline(discipline), distance=25, practice=practice)


def room_view(
    discipline: str = "three_cushion", spectators: int = 3, practice: bool = False
) -> pv.RoomView:
    """The room as the server describes it: Caudron (and Jaspers) seated and connected."""
    opts = _options(discipline, practice)
    names = ("Caudron",) if practice else ("Caudron", "Jaspers")
    return pv.RoomView(
        room_id="solo" if practice else "demo",
        discipline=discipline,
        distance=opts.target,
        players=names,
        spectators=spectators,
        phase="play",
        private=False,
        practice=practice,
        options=wireviews.room_options(opts),
        seats=tuple(
            pv.SeatView(player_id=f"p{i}", name=n, connected=True, left=False)
            for i, n in enumerate(names)
        ),
        match_id=3,
    )


def match_state(
    balls: dict[BallName, tuple[float, float]],
    *,
    discipline: str = "three_cushion",
    practice: bool = False,
    phase: Phase = Phase.PLAY,
    shooter: int | None = 0,
    score: tuple[int, int] = (17, 14),
    innings: tuple[int, int] = (12, 12),
    high_run: tuple[int, int] = (5, 4),
    timeouts_left: tuple[int, int] = (1, 0),
    current_run: int = 2,
    deadline_ms: int | None = int(NOW_MS) + 8_400,  # 8.4 s left: the 10 s warning colour
    **more: Any,
) -> MatchState:
    """A real referee state: the referee's own view of it is what every scene shows."""
    state = rules.new_match(_options(discipline, practice), 0)
    game = replace(
        state.current,
        breaker=0,
        points=score,
        innings=innings,
        high_run=high_run,
        timeouts_left=timeouts_left,
    )
    return replace(
        state,
        phase=phase,
        balls=(balls["white"], balls["yellow"], balls["red"]),
        sets=(game,),
        white_seat=0 if phase is not Phase.BREAK_CHOICE else None,
        shooter=shooter,
        current_run=current_run,
        deadline_ms=deadline_ms,
        **more,
    )


def match_at(balls: dict[BallName, tuple[float, float]], **kw: Any) -> pv.MatchView:
    return wireviews.match_view(match_state(balls, **kw))


def snapshot(room: pv.RoomView, match: pv.MatchView, seat: int | None, **kw: Any) -> tc.Snapshot:
    return tc.Snapshot(seq=kw.pop("seq", 1), room=room, match=match, seat=seat, **kw)


def wire(msg: M) -> M:
    """What the model receives: the message as the client decodes it from the server's bytes
    (encoded and decoded here, so a scene holds exactly what a real frame would)."""
    return codec.from_wire(type(msg), msgpack.unpackb(codec.encode(msg), raw=False))


def _model(seat: int | None) -> GameModel:
    model = GameModel(now_local_ms=lambda: NOW_MS)
    model.apply(wire(tc.Welcome(v=1, player_id="p", token="x", server_time_ms=int(NOW_MS))))
    if seat is not None:
        model.apply(wire(tc.Joined(room_id="demo", seat=seat, seat_token="s")))
    return model


def stroke_played(
    traj: dict[BallName, list[Segment]],
    start_ms: int,
    rest_ms: int,
    match: pv.MatchView,
    *,
    seq: int = 2,
    shooter: int = 0,
    speed: float = 1.6,
    points: int = 0,
    calls: tuple[tuple[str, str], ...] = (),
    events: tuple[pv.EventView, ...] = (),
) -> tc.StrokePlayed:
    """A ``stroke_played`` as the room broadcasts it."""
    return tc.StrokePlayed(
        seq=seq,
        shooter=shooter,
        stroke=pv.PlayedStroke(cue=pv.CueParams(direction=35.0, speed=speed), ball="white"),
        start_ms=start_ms,
        rest_ms=rest_ms,
        trajectory=pv.Trajectory(paths={b: tuple(f) for b, f in encode_trajectory(traj).items()}),
        events=events,
        result=pv.StrokeResult(
            points=points,
            foul=None,
            calls=tuple(pv.CallView(code=c, text=t, rule_id="R-PLAY-1") for c, t in calls),
            respots={},
            next_shooter=shooter if points else 1 - shooter,
            game_over=None,
        ),
        match=match,
    )


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


def scored_stroke() -> tuple[tc.StrokePlayed, int]:
    """A scoring ``stroke_played`` by seat 0 as the server broadcasts it, and its ``rest_ms``."""
    traj = demo_trajectory(speed=1.2)
    final = {b: (segs[-1].pos[0], segs[-1].pos[1]) for b, segs in traj.items()}
    rest = int(NOW_MS + 1000.0 * max(segs[-1].t0 for segs in traj.values()))
    after = match_at(final, score=(18, 14), innings=(13, 12), current_run=3, deadline_ms=None)
    msg = stroke_played(
        traj, int(NOW_MS), rest, after, speed=1.2, points=1, calls=(("point", SCORED_CALL),)
    )
    return msg, rest


def build_suspense(name: str) -> Scene:
    """One of SUSPENSE: every message of the stroke has arrived; the clock decides what shows."""
    msg, rest = scored_stroke()
    half = (NOW_MS + rest) / 2
    clock = SceneClock({"1s": NOW_MS + 1000, "half": half, "rest": rest + 300}[name.split("_")[1]])
    after = replace(msg.match, deadline_ms=rest + 30_000)
    if name.startswith("scored"):
        model = _model(0)
        model.now_local_ms = clock
        model.apply(wire(snapshot(room_view(), match_at(BALLS_AT_REST), 0)))
        model.apply(wire(msg))
        model.apply(wire(tc.Call(seq=3, code="point", text=SCORED_CALL)))
        model.apply(wire(tc.Turn(seq=4, shooter=0, deadline_ms=rest + 30_000, phase="play")))
    else:
        clock.ms = half
        model = _model(None)
        model.now_local_ms = clock
        model.apply(wire(snapshot(room_view(), after, None, seq=4, in_motion=msg)))
        if name.endswith("rest"):
            clock.ms = rest + 300
    return Scene(name, model, 35.0)


def build(name: str, stroke_t: float = 0.9) -> Scene:
    """The scene called ``name`` (one of SCENES); ``stroke_t`` seconds into the stroke for the
    animated one."""
    if name == "player":
        model = _model(0)
        model.apply(wire(snapshot(room_view(), match_at(BALLS_AT_REST), 0)))
        model.apply(wire(tc.Call(seq=2, code="point", text="Good · 8 to go")))
        w, r = BALLS_AT_REST["white"], BALLS_AT_REST["red"]
        direction = math.degrees(math.atan2(r[1] - w[1] + 0.03, r[0] - w[0])) % 360
        return Scene(name, model, direction, 3.4, (0.25, 0.2), 0.0)
    if name == "spectator":
        model = _model(None)
        model.apply(wire(snapshot(room_view(spectators=5), match_at(BALLS_AT_REST), None)))
        model.apply(wire(tc.ChatLine(seq=2, sender="kim", text="nice position play")))
        model.apply(wire(tc.ChatLine(seq=3, sender="ana", text="three to go for him")))
        return Scene(name, model)
    if name == "stroke":
        model = _model(None)
        model.apply(wire(snapshot(room_view(), match_at(BALLS_AT_REST), None)))
        traj = demo_trajectory()
        final = {b: (segs[-1].pos[0], segs[-1].pos[1]) for b, segs in traj.items()}
        start = int(NOW_MS - stroke_t * 1000.0)
        rest = start + int(1000 * max(segs[-1].t0 for segs in traj.values()))
        model.apply(wire(stroke_played(traj, start, rest, match_at(final, shooter=1))))
        return Scene(name, model)
    if name == "balkline":
        model = _model(1)
        room = room_view("balkline_47_2")
        model.apply(wire(snapshot(room, match_at(BALLS_AT_REST, discipline="balkline_47_2"), 1)))
        return Scene(name, model, 200.0)
    if name == "break_choice":
        model = _model(0)
        m = match_at(
            BALLS_AT_REST,
            phase=Phase.BREAK_CHOICE,
            shooter=None,
            lag_strokes=(Stroke(0.0, 1.0), Stroke(0.0, 1.0)),
            lag_winner=0,
            lag_reason="nearer",
            score=(0, 0),
            innings=(0, 0),
            high_run=(0, 0),
            current_run=0,
        )
        model.apply(wire(snapshot(room_view(), m, 0)))
        return Scene(name, model)
    if name == "reconnecting":
        scene = build("player")
        scene.model.apply(Link("lost"))
        scene.model.apply(Link("reconnecting", attempt=2))
        scene.name = name
        return scene
    if name == "practice":
        model = _model(0)
        m = match_at(
            BALLS_AT_REST,
            practice=True,
            deadline_ms=None,
            score=(3, 0),
            innings=(4, 0),
            high_run=(3, 0),
            current_run=1,
        )
        model.apply(wire(snapshot(room_view(practice=True), m, 0)))
        return Scene(name, model, 75.0, 2.5, (0.3, 0.0), 0.0)
    if name == "doubles":
        model = _model(None)
        model.apply(wire(doubles_joined()))
        model.apply(
            wire(snapshot(doubles_room(), wireviews.match_view(doubles_state()), 0, slot=1))
        )
        w, r = BALLS_AT_REST["white"], BALLS_AT_REST["red"]
        direction = math.degrees(math.atan2(r[1] - w[1] + 0.03, r[0] - w[0])) % 360
        return Scene(name, model, direction, 3.4, (0.25, 0.2), 0.0)
    if name in SUSPENSE:
        return build_suspense(name)
    raise ValueError(f"unknown scene {name!r}; known: {', '.join(SCENES + SUSPENSE)}")


def doubles_options() -> MatchOptions:
    return MatchOptions(
        discipline=Discipline.THREE_CUSHION, distance=25, team_mode=rules.TeamMode.DOUBLES
    )


def doubles_room() -> pv.RoomView:
    """A doubles room as the server describes it: four seats, A1, B1, A2, B2."""
    opts = doubles_options()
    return pv.RoomView(
        room_id="demo",
        discipline="three_cushion",
        distance=opts.target,
        players=DOUBLES_NAMES,
        spectators=4,
        phase="play",
        private=False,
        practice=False,
        options=wireviews.room_options(opts),
        seats=tuple(
            pv.SeatView(player_id=f"p{i}", name=n, connected=True, left=False)
            for i, n in enumerate(DOUBLES_NAMES)
        ),
        match_id=4,
    )


def doubles_joined() -> tc.Joined:
    return tc.Joined(room_id="demo", seat=0, seat_token="s", slot=1)


def doubles_state(phase: Phase = Phase.PLAY, result: GameOver | None = None) -> MatchState:
    """A real doubles referee state in its 13th innings: side 0's second player to strike
    (R-TEAM-2), each player's own points and innings kept (R-TEAM-5)."""
    state = rules.new_match(doubles_options(), 0)
    game = replace(
        state.current,
        breaker=0,
        points=(17, 14),
        innings=(12, 12),
        high_run=(5, 4),
        timeouts_left=(1, 0),
        player_points=(10, 6, 7, 8),
        player_innings=(6, 6, 6, 6),
        result=result,
    )
    balls = BALLS_AT_REST
    return replace(
        state,
        phase=phase,
        balls=(balls["white"], balls["yellow"], balls["red"]),
        sets=(game,),
        white_seat=0,
        shooter=0 if phase is Phase.PLAY else None,
        slot_up=(1, 0),
        current_run=2,
        deadline_ms=int(NOW_MS) + 8_400 if phase is Phase.PLAY else None,
        result=result,
    )


def doubles_results_model() -> GameModel:
    """A finished doubles match: the sides' lines and each player's own (R-TEAM-5)."""
    model = _model(None)
    model.apply(wire(doubles_joined()))
    over = GameOver(0, Termination.DISTANCE)
    state = doubles_state(Phase.OVER, over)
    model.apply(wire(snapshot(doubles_room(), wireviews.match_view(state), 0, slot=1)))
    sheet = wireviews.sheet_view(rules.scoresheet(state))
    model.apply(wire(tc.GameOver(seq=2, winner=0, reason="distance", scoresheet=sheet, match_id=4)))
    return model


# Other screens ---------------------------------------------------------------------------------
SCREENS = (
    "lobby",
    "lobby_member",
    "create_room",
    "matches",
    "results",
    "replay",
    "results_doubles",
)


def _summary(
    room_id: str,
    discipline: str,
    distance: int,
    players: tuple[str | None, ...],
    spectators: int,
    phase: str,
    private: bool,
    score: tuple[int, ...] | None = None,
    practice: bool = False,
) -> pv.RoomSummary:
    return pv.RoomSummary(
        room_id=room_id,
        discipline=discipline,
        distance=distance,
        players=players,
        spectators=spectators,
        phase=phase,
        private=private,
        practice=practice,
        score=score,
    )


DEMO_ROOMS: list[pv.RoomSummary] = [
    _summary("r7", "three_cushion", 25, ("Caudron", "Jaspers"), 12, "play", False, (14, 9)),
    _summary("r8", "balkline_47_2", 150, ("Ceulemans", None), 0, "waiting", False),
    _summary("r9", "one_cushion", 50, ("kim", "ana"), 2, "lag", True, (0, 0)),
    _summary("r10", "straight_rail", 50, ("Blomdahl",), 1, "play", False, (31,), True),
]


def _line(points: int, innings: int, high_run: int) -> pv.SheetLine:
    return pv.SheetLine(
        points=points, innings=innings, average=round(points / innings, 3), high_run=high_run
    )


def _sheet(a: pv.SheetLine, b: pv.SheetLine, winner: int | None, reason: str) -> pv.Scoresheet:
    result = pv.GameResult(winner=winner, reason=reason)
    won = (1, 0) if winner == 0 else (0, 1) if winner == 1 else (0, 0)
    game = pv.SheetSet(number=1, breaker=0, lines=(a, b), result=result)
    return pv.Scoresheet(sets=(game,), match=(a, b), sets_won=won, result=result)


DEMO_SCORESHEET = _sheet(_line(25, 14, 7), _line(19, 14, 5), 0, "distance")


def _finished(
    match_id: int,
    room_id: str,
    discipline: str,
    names: tuple[str, str],
    winner: int | None,
    reason: str,
    strokes: int,
    sheet: pv.Scoresheet,
) -> pv.MatchRow:
    return pv.MatchRow(
        match_id=match_id,
        room_id=room_id,
        discipline=discipline,
        players=tuple(pv.PlayerRef(player_id=f"p{i}", name=n) for i, n in enumerate(names)),
        started_ms=int(NOW_MS) - 3_600_000,
        finished_ms=int(NOW_MS),
        winner=winner,
        reason=reason,
        scoresheet=sheet,
        strokes=strokes,
    )


DEMO_MATCHES: list[pv.MatchRow] = [
    _finished(3, "r7", "three_cushion", ("Caudron", "Jaspers"), 0, "distance", 61, DEMO_SCORESHEET),
    _finished(
        2,
        "r5",
        "balkline_71_2",
        ("kim", "ana"),
        None,
        "innings_limit",
        140,
        _sheet(_line(80, 25, 12), _line(80, 25, 14), None, "innings_limit"),
    ),
]


def results_model() -> GameModel:
    model = _model(0)
    over = GameOver(0, Termination.DISTANCE)
    m = match_at(BALLS_AT_REST, phase=Phase.OVER, score=(25, 19), innings=(14, 14), result=over)
    model.apply(wire(snapshot(room_view(), m, 0)))
    model.apply(
        wire(
            tc.GameOver(seq=2, winner=0, reason="distance", scoresheet=DEMO_SCORESHEET, match_id=3)
        )
    )
    return model


def replay_message() -> tc.Replay:
    """A ``replay`` answer as the server sends it: two strokes with wire-encoded trajectories."""
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
        match = match_at(after, shooter=1 - seat, score=(0, 0), innings=(n, n - 1), current_run=0)
        rest = int(NOW_MS) + int(1000 * max(s[-1].t0 for s in traj.values()))
        body = stroke_played(
            traj, int(NOW_MS), rest, match, seq=n, shooter=seat, calls=(("miss", "One cushion"),)
        )
        strokes.append(
            pv.ReplayStroke(n=n, kind="stroke", seat=seat, played_ms=int(NOW_MS), body=body)
        )
    room = pv.ReplayRoom(
        match_id=3,
        room_id="demo",
        discipline="three_cushion",
        options=pv.SentOptions(discipline="three_cushion", distance=25),
        players=(
            pv.PlayerRef(player_id="p0", name="Caudron"),
            pv.PlayerRef(player_id="p1", name="Jaspers"),
        ),
        started_ms=int(NOW_MS),
        finished_ms=int(NOW_MS) + 60_000,
        winner=0,
        reason="distance",
        scoresheet=DEMO_SCORESHEET,
    )
    replay = tc.Replay(
        match_id=3, room=room, strokes=tuple(strokes), finished=True, scoresheet=DEMO_SCORESHEET
    )
    return wire(replay)
