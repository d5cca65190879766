"""Facts of real tables the simulator must reproduce (PHYSICS.md), through ``simulate``."""

from __future__ import annotations

import itertools
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from shared.physics import (
    DEFAULT_SPEC,
    Event,
    PositionError,
    ShotResult,
    Stroke,
    StrokeError,
    aim_direction,
    position_at,
    simulate,
    simulate_lag,
)
from shared.physics.strike import squirt_angle
from shared.physics.types import MAX_ELEVATION
from shared.table import MATCH, BallName, Point

R = MATCH.ball_radius
S = DEFAULT_SPEC
# Two balls parked in corners, out of the way of single-ball shots.
PARKED: dict[BallName, Point] = {"yellow": (2.75, 1.33), "red": (2.75, 0.09)}


def first(result: ShotResult, kind: str, ball: str | None = None, after: int = 0) -> Event:
    for e in result.events[after:]:
        if e.kind == kind and (ball is None or ball in e.balls):
            return e
    raise AssertionError(f"no {kind} event for {ball} in {[e.kind for e in result.events]}")


def heading(v: tuple[float, float]) -> float:
    return math.degrees(math.atan2(v[1], v[0]))


def test_rolling_stop_distance() -> None:
    # A level hit 2R/5 above centre rolls at once. Above roll_slow_speed it decelerates at
    # μr·g (tracked roll-outs, PHYSICS.md), then at μr_slow·g: it stops after
    # (v0² − vs²)/(2·μr·g) + vs²/(2·μr_slow·g), within 1 %; that is at most 2 cm short of the
    # constant-μr roll-out v0²/(2·μr·g) the tracked shots were fitted with.
    r = simulate(MATCH, {"white": (0.3, 0.71), **PARKED}, "white", Stroke(0.0, 0.35, 0, 0.4))
    v0 = r.events[0].after["white"].vel[0]
    travelled = r.final["white"][0] - 0.3  # type: ignore[index]
    vs, g = S.roll_slow_speed, S.g
    two_regime = (v0**2 - vs**2) / (2 * S.mu_roll * g) + vs**2 / (2 * S.mu_roll_slow * g)
    assert travelled == pytest.approx(two_regime, rel=0.01)
    assert 0.0 < v0**2 / (2 * S.mu_roll * g) - travelled < 0.02
    assert travelled > 1.0


def test_stun_to_roll_speed_and_distance() -> None:
    # Centre hit, level cue: slides, then rolls at 5/7·v0 after 12·v0²/(49·μs·g) of travel.
    r = simulate(MATCH, {"white": (0.3, 0.71), **PARKED}, "white", Stroke(0.0, 2.0))
    v0 = r.events[0].after["white"].vel[0]
    roll = first(r, "slide_to_roll", "white").after["white"]
    assert roll.vel[0] == pytest.approx(5 / 7 * v0, rel=0.01)
    assert roll.pos[0] - 0.3 == pytest.approx(12 * v0**2 / (49 * S.mu_slide * S.g), rel=0.01)
    assert roll.vel[1] == pytest.approx(0.0, abs=1e-12)


def test_natural_roll_from_two_fifths_hit() -> None:
    r = simulate(MATCH, {"white": (0.3, 0.71), **PARKED}, "white", Stroke(0.0, 0.3, 0, 0.4))
    kinds = [e.kind for e in r.events]
    assert "slide_to_roll" not in kinds  # it never slid
    assert kinds == ["strike", "spin_to_rest", "rest"]


def test_head_on_stun_keeps_one_minus_e_over_two() -> None:
    # 1 mm gap: the cue ball has no time to pick up spin (a stun hit).
    balls: dict[BallName, Point] = {
        "white": (1.0, 0.71),
        "yellow": (1.0 + 2 * R + 0.001, 0.71),
        "red": (2.7, 0.12),
    }
    r = simulate(MATCH, balls, "white", Stroke(0.0, 2.0))
    hit = first(r, "ball_ball")
    assert hit.balls == ("white", "yellow")
    assert hit.after["white"].vel[0] / hit.speeds[0] == pytest.approx((1 - S.e_ball) / 2, rel=1e-6)


def cut_shot(phi_deg: float, stroke: Stroke, gap: float) -> tuple[ShotResult, int]:
    """Cue ball at (x, 0.71) shot along +x into a yellow placed for cut angle ``phi``."""
    p = math.radians(phi_deg)
    x0 = 1.2 - 2 * R * math.cos(p) - gap
    balls: dict[BallName, Point] = {
        "white": (x0, 0.71),
        "yellow": (1.2, 0.71 + 2 * R * math.sin(p)),
        "red": (2.7, 0.12),
    }
    r = simulate(MATCH, balls, "white", stroke)
    i = next(k for k, e in enumerate(r.events) if e.kind == "ball_ball")
    return r, i


@pytest.mark.parametrize("phi", [15.0, 30.0, 45.0])
def test_ninety_degree_rule_with_throw_narrows(phi: float) -> None:
    r, i = cut_shot(phi, Stroke(0.0, 2.0), gap=0.001)
    hit = r.events[i]
    sep = abs(heading(hit.after["white"].vel) - heading(hit.after["yellow"].vel))
    ideal = 90 - math.degrees(math.atan((1 - S.e_ball) / (2 * math.tan(math.radians(phi)))))
    assert 83.0 < ideal < 89.0  # PHYSICS.md: about 85–89° at e = 0.95; e_b = 0.94 here
    assert sep <= ideal + 1e-6  # friction (throw) never widens the angle
    assert sep > ideal - 5.0  # ... it narrows it by a few degrees at most


@pytest.mark.parametrize(
    ("overlap", "phi", "expected"),
    [("quarter", 48.59, 27.3), ("half", 30.0, 33.7), ("three-quarter", 14.48, 27.6)],
)
def test_thirty_degree_rule_rolling_cue_ball(overlap: str, phi: float, expected: float) -> None:
    r, i = cut_shot(phi, Stroke(0.0, 1.5, 0, 0.4), gap=0.5)
    rolling = first(r, "slide_to_roll", "white", after=i + 1).after["white"]
    deflection = -heading(rolling.vel)
    p = math.radians(phi)
    formula = math.degrees(math.atan(math.sin(p) * math.cos(p) / (math.sin(p) ** 2 + 0.4)))
    assert formula == pytest.approx(expected, abs=0.1)
    assert deflection == pytest.approx(formula, abs=2.0)


@pytest.mark.parametrize("phi", [10.0, 20.0, 30.0])
def test_draw_trisect(phi: float) -> None:
    # Good-action draw: the cue ball ends up turned by about three times the cut angle.
    r, i = cut_shot(phi, Stroke(0.0, 3.0, 0, -0.4), gap=0.25)
    rolling = first(r, "slide_to_roll", "white", after=i + 1).after["white"]
    turned = math.degrees(math.atan2(-rolling.vel[1], -rolling.vel[0]))
    assert 2.0 * phi < turned < 4.0 * phi


def mirror(p: Point) -> Point:
    return (p[0], MATCH.width - p[1])


def test_cushion_mirror_symmetry() -> None:
    balls: dict[BallName, Point] = {"white": (0.6, 0.4), "yellow": (2.0, 1.1), "red": (1.5, 0.3)}
    stroke = Stroke(35.0, 3.0, 0.4, 0.2, 4.0)
    twin = Stroke(325.0, 3.0, -0.4, 0.2, 4.0)
    a = simulate(MATCH, balls, "white", stroke)
    b = simulate(MATCH, {k: mirror(v) for k, v in balls.items()}, "white", twin)
    swap = {"left": "right", "right": "left", "top": "top", "bottom": "bottom", None: None}
    assert [(e.kind, e.balls, swap[e.cushion]) for e in a.events] == [
        (e.kind, e.balls, e.cushion) for e in b.events
    ]
    assert sum(e.kind == "ball_cushion" for e in a.events) >= 3
    for name, p in a.final.items():
        q = b.final[name]
        assert p is not None and q is not None
        assert mirror(p) == pytest.approx(q, abs=1e-9)


@pytest.mark.parametrize("speed", [1.0, 2.0, 4.0])
def test_running_english_lengthens_the_rebound(speed: float) -> None:
    # 45° into the left cushion (y = W). The ball turns right off it, so right english runs.
    angles = {}
    settled = {}
    for tip_x in (-0.5, 0.0, 0.5):
        aim = 45.0 - math.degrees(squirt_angle(tip_x, MATCH.ball_mass, S))  # same true line
        r = simulate(MATCH, {"white": (0.5, 0.5), **PARKED}, "white", Stroke(aim, speed, tip_x))
        assert heading(r.events[0].after["white"].vel) == pytest.approx(45.0, abs=1e-9)
        rail = first(r, "ball_cushion", "white")
        assert rail.cushion == "left"
        v = rail.after["white"].vel
        angles[tip_x] = math.degrees(math.atan2(v[0], -v[1]))  # from the cushion normal
        v = first(r, "slide_to_roll", "white", after=r.events.index(rail)).after["white"].vel
        settled[tip_x] = math.degrees(math.atan2(v[0], -v[1]))
    assert angles[0.5] > angles[0.0] + 5.0  # markedly longer
    assert angles[-0.5] < angles[0.0]
    assert settled[0.5] > settled[0.0]


def test_jump_near_a_rail_leaves_the_table() -> None:
    # R-OFF-1: a hard jump stroke at the top cushion clears it.
    r = simulate(MATCH, {"white": (2.6, 0.71), **PARKED}, "white", Stroke(0.0, 6.0, 0, 0, 30.0))
    off = first(r, "off_table", "white")
    assert off.cushion == "top"
    assert r.final["white"] is None
    assert r.final["yellow"] == PARKED["yellow"]
    assert r.events[-1].kind == "rest"


def test_level_strokes_never_leave_the_table() -> None:
    r = simulate(MATCH, {"white": (2.6, 0.71), **PARKED}, "white", Stroke(0.0, 8.0, 0.3, 0.5))
    assert all(e.kind not in ("off_table", "airborne") for e in r.events)
    assert r.final["white"] is not None


@pytest.mark.parametrize("elevation", [5.0, 10.0, 15.0])
def test_hard_elevated_strokes_hop_but_stay_on_the_table(elevation: float) -> None:
    # A normal elevated power stroke hops the ball; it meets the cushion still in the air and
    # comes back, like on a real table. Only real jump strokes leave it.
    for start in ((2.6, 0.71), (0.3, 0.71)):
        direction = 0.0 if start[0] > 1.0 else 180.0
        r = simulate(
            MATCH, {"white": start, **PARKED}, "white", Stroke(direction, 8.0, 0, 0.3, elevation)
        )
        assert any(e.kind == "airborne" for e in r.events)
        assert r.final["white"] is not None


@pytest.mark.parametrize("elevation", [45.0, 50.0, 55.0, 60.0, 65.0])
def test_jump_strokes_above_forty_degrees_leave_the_cloth(elevation: float) -> None:
    # Issue 26: no stroke jumped above about 40° (the cue was taken to pin the ball). The
    # cue–ball–slate squeeze is now solved with both contacts at once (strike.squeeze): the
    # ball leaves the cloth and flies a ballistic arc, landing after 2·vz/g at vh·(2·vz/g), and
    # bounces off the slate with e_slate of its vertical speed (Alciatore: about 0.5).
    start = (0.3, 0.71)
    r = simulate(MATCH, {"white": start, **PARKED}, "white", Stroke(0.0, 3.0, 0, 0.1, elevation))
    assert r.events[1].kind == "airborne"
    seg = r.trajectory["white"][0]
    vh, vz = seg.vel[0], seg.vel[2]
    assert vz > 0.6  # a jump of at least 2 cm, not a hop on the nap
    land = first(r, "land", "white")
    assert land.t == pytest.approx(2 * vz / S.g, rel=1e-9)
    assert land.after["white"].pos[0] - start[0] == pytest.approx(vh * land.t, rel=1e-6)
    bounce = r.trajectory["white"][1]
    assert bounce.t0 == pytest.approx(land.t, abs=1e-12)
    assert bounce.vel[2] == pytest.approx(S.e_slate * vz, rel=1e-9)
    assert r.final["white"] is not None


def test_steep_jump_near_a_rail_leaves_the_table() -> None:
    # A 45° jump stroke towards the top cushion clears it: off the table (R-OFF-1) and the
    # referee's business as before; its final position is None.
    r = simulate(MATCH, {"white": (2.45, 0.71), **PARKED}, "white", Stroke(0.0, 7.0, 0, 0, 45.0))
    off = first(r, "off_table", "white")
    assert off.cushion == "top"
    assert r.final["white"] is None


@pytest.mark.parametrize("elevation", [70.0, 80.0, 89.0])
def test_steep_masse_at_masse_speed_barely_hops(elevation: float) -> None:
    # A massé as played — a steep cue, struck off centre at 1–2 m/s — drives the ball into the
    # slate and sends it sideways; it hops at most a few centimetres and stays on the table.
    # (Struck hard, the same stroke is a jump: the squeeze returns about a third of the cue's
    # speed upwards at any steep elevation, docs/physics.md "Steep jumps".)
    for speed in (1.0, 1.5, 2.0):
        r = simulate(
            MATCH, {"white": (1.4, 0.71), **PARKED}, "white", Stroke(0.0, speed, 0.4, 0, elevation)
        )
        assert max(s.vel[2] for s in r.trajectory["white"]) ** 2 / (2 * S.g) < 0.03
        assert all(e.kind != "off_table" for e in r.events)


@pytest.mark.parametrize("tip_x", [-0.5, 0.5])
def test_masse_curves_towards_the_english_side(tip_x: float) -> None:
    # A steep cue with side english spins the ball about a horizontal axis along its path: the
    # path bends towards the side struck (struck on its left, tip_x < 0: it curves left, +y).
    r = simulate(MATCH, {"white": (0.5, 0.71), **PARKED}, "white", Stroke(0.0, 1.0, tip_x, 0, 70))
    start = heading(r.events[0].after["white"].vel)
    assert abs(start) < 5.0
    roll = first(r, "slide_to_roll", "white")
    bend = -math.copysign(1.0, tip_x) * heading(roll.after["white"].vel)
    assert 30.0 < bend < 90.0
    side = position_at(r, "white", roll.t)[1] - 0.71
    assert -math.copysign(1.0, tip_x) * side > 0.01


def test_masse_curve_up_to_the_maximum_elevation() -> None:
    # The curve of a massé is the slide of a ball whose spin axis the elevated cue tilted:
    # the slip u keeps its direction while friction acts (du/dt = −7/2·μs·g·û, PHYSICS.md), so
    # the path is a parabola and the ball rolls off at v0 − (2/7)·u0 (the stun shot's 5/7·v0
    # when u0 = v0), from the last landing's state. Checked from 30° to the allowed maximum,
    # 89°: the bend grows with the elevation, to nearly square to the cue line for a vertical
    # cue.
    bends = []
    for elevation in (30.0, 45.0, 60.0, 75.0, MAX_ELEVATION):
        r = simulate(
            MATCH, {"white": (1.4, 0.71), **PARKED}, "white", Stroke(0.0, 1.5, -0.4, 0, elevation)
        )
        segs = r.trajectory["white"]
        flying = [s for s in segs if s.vel[2] > 0.0]
        slide = next(s for s in segs if s not in flying)
        v0, w0 = slide.vel, slide.spin
        u0 = (v0[0] - R * w0[1], v0[1] + R * w0[0])
        roll = first(r, "slide_to_roll", "white")
        expected = (v0[0] - 2 / 7 * u0[0], v0[1] - 2 / 7 * u0[1])
        assert roll.after["white"].vel == pytest.approx(expected, rel=1e-6, abs=1e-9)
        # The whole curve, from the heading off the cue (landings' friction bends it too).
        bends.append(heading(roll.after["white"].vel) - heading(segs[0].vel[:2]))
    assert all(0.0 < b1 < b2 for b1, b2 in itertools.pairwise(bends))
    assert 60.0 < bends[-1] < 120.0


def test_lag_strikes_both_balls_at_once() -> None:
    # R-LAG-3: both lag balls are struck at t = 0 and run up and down the table.
    balls: dict[BallName, Point] = {
        "white": MATCH.left_start_spot,
        "yellow": MATCH.right_start_spot,
        "red": MATCH.top_spot,
    }
    stroke = Stroke(0.0, 2.2)
    r = simulate_lag(MATCH, {**balls, "red": (2.13, 0.71)}, {"white": stroke, "yellow": stroke})
    strikes = [e for e in r.events if e.kind == "strike"]
    assert [(e.t, e.balls) for e in strikes] == [(0.0, ("white",)), (0.0, ("yellow",))]
    tops = [e.balls[0] for e in r.events if e.kind == "ball_cushion" and e.cushion == "top"]
    assert {"white", "yellow"} <= set(tops)
    assert set(r.strokes) == {"white", "yellow"}


def test_bad_positions_are_refused() -> None:
    ok: dict[BallName, Point] = {"white": (0.5, 0.5), **PARKED}
    with pytest.raises(PositionError, match="overlap"):
        simulate(MATCH, {**ok, "red": (0.52, 0.5)}, "white", Stroke(0.0, 1.0))
    with pytest.raises(PositionError, match="playing surface"):
        simulate(MATCH, {**ok, "white": (0.01, 0.5)}, "white", Stroke(0.0, 1.0))
    with pytest.raises(PositionError, match="finite"):
        simulate(MATCH, {**ok, "white": (math.nan, 0.5)}, "white", Stroke(0.0, 1.0))
    with pytest.raises(PositionError, match="not on the table"):
        simulate(MATCH, {"yellow": (0.5, 0.5)}, "white", Stroke(0.0, 1.0))


def test_stroke_must_be_a_stroke() -> None:
    with pytest.raises(StrokeError):
        simulate(MATCH, {"white": (0.5, 0.5)}, "white", {"speed": 3})  # type: ignore[arg-type]


def test_touching_balls_start_apart_and_stay_apart() -> None:
    # R-FROZEN-5 respots sit exactly at 2R: a stroke straight into the touching ball is a
    # contact at t = 0, resolved without overlap.
    balls: dict[BallName, Point] = {
        "white": (1.0, 0.71),
        "yellow": (1.0 + 2 * R, 0.71),
        "red": (2.7, 0.12),
    }
    r = simulate(MATCH, balls, "white", Stroke(0.0, 1.0))
    hit = first(r, "ball_ball")
    assert hit.t == pytest.approx(0.0, abs=1e-12)
    w, y = r.final["white"], r.final["yellow"]
    assert w is not None and y is not None
    assert math.dist(w, y) >= 2 * R - 1e-9


def test_push_ends_instead_of_an_endless_run_of_collisions() -> None:
    # Found by search: white, with draw and side spin, keeps driving into a slower yellow
    # frozen on the near rail (the earlier cases, found by Hypothesis and by search, no
    # longer push since the cushion law integrates the impact and the roll has a slow end).
    balls: dict[BallName, Point] = {
        "white": (0.5381353155337458, 0.06635886078458436),
        "yellow": (0.8460724935352674, 0.03075),
        "red": (1.0, 1.0),
    }
    stroke = Stroke(
        0.4175263708923289, 0.5759154192125655, -0.1599463477676566, -0.46845463766583983
    )
    r = simulate(MATCH, balls, "white", stroke)
    pair = [e for e in r.events if e.kind == "ball_ball"]
    assert len(pair) >= 8
    assert len(r.events) < 200
    w, y = r.final["white"], r.final["yellow"]
    assert w is not None and y is not None
    assert math.dist(w, y) >= 2 * R - 1e-9


def test_ball_landing_on_a_ball_is_set_down_beside_it() -> None:
    # Found by search (again when the squeeze changed the jumps, round 2): a jumped white
    # comes down on top of yellow and bounces on it.
    balls: dict[BallName, Point] = {
        "white": (0.3624312159837802, 0.6036083915943251),
        "yellow": (0.7247840321283403, 0.6024974148843405),
        "red": (0.1, 0.1),
    }
    stroke = Stroke(
        359.9087017418388, 2.3484731943662145, 0, 0.09095578363365775, 51.54893404542052
    )
    r = simulate(MATCH, balls, "white", stroke)
    kinds = [e.kind for e in r.events]
    landed = kinds.index("land")
    land = r.events[landed]
    bounces = [e for e in r.events[:landed] if e.kind == "ball_ball" and e.t == land.t]
    assert len(bounces) >= 5  # it was bouncing on yellow, ever lower, at one instant
    assert math.dist(land.after["white"].pos, position_at(r, "yellow", land.t)) >= 2 * R
    w, y = r.final["white"], r.final["yellow"]
    assert w is not None and y is not None
    assert math.dist(w, y) >= 2 * R - 1e-9


def test_hard_stop_ends_the_stroke_where_the_balls_are() -> None:
    balls: dict[BallName, Point] = {"white": (0.5, 0.5), **PARKED}
    stroke = Stroke(30.0, 5.0, 0.3)
    free = simulate(MATCH, balls, "white", stroke)
    assert free.duration > 2.0
    cut = simulate(MATCH, balls, "white", stroke, replace(S, max_time=1.5))
    assert cut.duration == 1.5
    assert cut.events[-1].kind == "rest"
    assert cut.final["white"] == pytest.approx(position_at(free, "white", 1.5), abs=1e-9)


def test_hard_stop_in_the_air_over_a_ball_sets_it_down_beside() -> None:
    # Stop the ball landing on yellow (above) while it is still in the air over it.
    balls: dict[BallName, Point] = {
        "white": (0.3624312159837802, 0.6036083915943251),
        "yellow": (0.7247840321283403, 0.6024974148843405),
        "red": (0.1, 0.1),
    }
    stroke = Stroke(
        359.9087017418388, 2.3484731943662145, 0, 0.09095578363365775, 51.54893404542052
    )
    full = simulate(MATCH, balls, "white", stroke)
    land = next(e for e in full.events if e.kind == "land")
    cut = simulate(MATCH, balls, "white", stroke, replace(S, max_time=land.t - 1e-3))
    assert [e.kind for e in cut.events[-2:]] == ["land", "rest"]
    w, y = cut.final["white"], cut.final["yellow"]
    assert w is not None and y is not None
    assert math.dist(w, y) >= 2 * R - 1e-9


@pytest.mark.parametrize("tip_x", [-0.5, 0.0, 0.5])
def test_aim_direction_corrects_for_squirt(tip_x: float) -> None:
    start, target = (0.5, 0.5), (2.0, 1.1)
    direction = aim_direction(start, target, tip_x, MATCH.ball_mass)
    r = simulate(MATCH, {"white": start, **PARKED}, "white", Stroke(direction, 3.0, tip_x))
    v = r.events[0].after["white"].vel
    assert heading(v) == pytest.approx(heading((target[0] - start[0], target[1] - start[1])))


def test_a_stroke_gives_the_same_result_whatever_ran_before_it() -> None:
    # Simulations reuse an idle pymunk world: one after a ball flew off the table, after a
    # stroke that ended in an error, or in another thread must be the same to the last bit.
    start = {"white": (0.7, 0.4), **PARKED}
    stroke = Stroke(35.0, 4.0, 0.2, -0.1)
    alone = simulate(MATCH, start, "white", stroke)
    simulate(MATCH, {"white": (2.6, 0.71), **PARKED}, "white", Stroke(0.0, 6.0, 0, 0, 30.0))
    with pytest.raises(PositionError):
        simulate(
            MATCH, {"white": (0.7, 0.4), "yellow": (0.7, 0.41), "red": (1.0, 1.0)}, "white", stroke
        )
    again = simulate(MATCH, start, "white", stroke)
    with ThreadPoolExecutor(2) as pool:
        in_threads = list(pool.map(lambda _: simulate(MATCH, start, "white", stroke), range(4)))
    for result in (again, *in_threads):
        assert result.events == alone.events
        assert result.trajectory == alone.trajectory
        assert result.final == alone.final
