"""Invariants over random positions and strokes (Hypothesis)."""

from __future__ import annotations

import math

import msgpack
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from shared.physics import (
    DEFAULT_SPEC,
    ShotResult,
    Stroke,
    decode_trajectory,
    encode_trajectory,
    position_at,
    simulate,
    simulate_lag,
    state_at,
)
from shared.physics.trajectory import segments_close
from shared.table import BALLS, MATCH, TABLES, BallName, Point, TableSpec

SETTINGS = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@st.composite
def layouts(draw: st.DrawFn, table: TableSpec = MATCH) -> dict[BallName, Point]:
    r = table.ball_radius
    out: dict[BallName, Point] = {}
    for name in BALLS:
        p = (
            draw(st.floats(r, table.length - r)),
            draw(st.floats(r, table.width - r)),
        )
        assume(all(math.dist(p, q) >= 2 * r for q in out.values()))
        out[name] = p
    return out


@st.composite
def strokes(draw: st.DrawFn) -> Stroke:
    radius = draw(st.floats(0.0, 0.6))
    angle = draw(st.floats(0.0, 2 * math.pi))
    elevation = draw(st.one_of(st.just(0.0), st.floats(0.0, 15.0), st.floats(0.0, 89.0)))
    return Stroke(
        direction=draw(st.floats(0.0, 359.999)),
        speed=draw(st.floats(0.05, 8.0)),
        tip_x=radius * math.cos(angle),
        tip_y=radius * math.sin(angle),
        elevation=elevation,
    )


def energy(result: ShotResult, t: float, table: TableSpec = MATCH) -> float:
    m, r = table.ball_mass, table.ball_radius
    inertia = 0.4 * m * r * r
    total = 0.0
    for name, segs in result.trajectory.items():
        off = [e.t for e in result.events if e.kind == "off_table" and name in e.balls]
        if off and t >= off[0]:  # gone from the table
            continue
        p, v, w = state_at(segs, t)
        total += 0.5 * m * sum(x * x for x in v) + 0.5 * inertia * sum(x * x for x in w)
        total += m * DEFAULT_SPEC.g * p[2]
    return total


@SETTINGS
@given(layouts(), strokes(), st.sampled_from(["white", "yellow"]))
def test_energy_never_rises_at_any_event(
    balls: dict[BallName, Point], stroke: Stroke, cue: BallName
) -> None:
    r = simulate(MATCH, balls, cue, stroke)
    after_strike = [e for e in r.events if e.kind not in ("strike", "airborne") or e.t > 0]
    last = energy(r, 0.0)
    for e in after_strike:
        now = energy(r, e.t)
        assert now <= last * (1 + 1e-9) + 1e-12, (e, last, now)
        last = now
    assert energy(r, r.duration) == 0.0


@SETTINGS
@given(layouts(), strokes())
def test_same_input_gives_bit_identical_output(
    balls: dict[BallName, Point], stroke: Stroke
) -> None:
    a = simulate(MATCH, balls, "white", stroke)
    b = simulate(MATCH, dict(balls), "white", stroke)
    assert repr(a) == repr(b)
    assert msgpack.packb(encode_trajectory(a.trajectory)) == msgpack.packb(
        encode_trajectory(b.trajectory)
    )


@SETTINGS
@given(st.sampled_from(sorted(TABLES)), st.data())
def test_at_rest_nothing_overlaps(table_name: str, data: st.DataObject) -> None:
    table = TABLES[table_name]
    balls = data.draw(layouts(table))
    stroke = data.draw(strokes())
    r = simulate(table, balls, "white", stroke)
    rad = table.ball_radius
    on_table = [p for p in r.final.values() if p is not None]
    for i, p in enumerate(on_table):
        assert rad - 1e-9 <= p[0] <= table.length - rad + 1e-9
        assert rad - 1e-9 <= p[1] <= table.width - rad + 1e-9
        for q in on_table[i + 1 :]:
            assert math.dist(p, q) >= 2 * rad - 1e-9
    assert r.events[-1].kind == "rest"


@SETTINGS
@given(layouts(), strokes())
def test_never_outside_the_table_without_off_table(
    balls: dict[BallName, Point], stroke: Stroke
) -> None:
    r = simulate(MATCH, balls, "white", stroke)
    rad = MATCH.ball_radius
    times = sorted({e.t for e in r.events} | {r.duration * k / 200 for k in range(201)})
    for name in balls:
        off = [e.t for e in r.events if e.kind == "off_table" and name in e.balls]
        assert (r.final[name] is None) == bool(off)
        for t in times:
            if off and t >= off[0]:
                break
            x, y = position_at(r, name, t)
            assert rad - 1e-6 <= x <= MATCH.length - rad + 1e-6, (name, t, x)
            assert rad - 1e-6 <= y <= MATCH.width - rad + 1e-6, (name, t, y)


@SETTINGS
@given(layouts(), strokes())
def test_trajectory_matches_event_positions(balls: dict[BallName, Point], stroke: Stroke) -> None:
    r = simulate(MATCH, balls, "white", stroke)
    wire = decode_trajectory(msgpack.unpackb(msgpack.packb(encode_trajectory(r.trajectory))))
    # Sent segments come back bit-identical, rebuilt slow ends of rolls within rounding.
    assert wire.keys() == r.trajectory.keys()
    for name, segs in r.trajectory.items():
        assert len(wire[name]) == len(segs) and all(map(segments_close, wire[name], segs))
    for e in r.events:
        for name, state in e.after.items():
            for source in (r, wire):
                assert math.dist(position_at(source, name, e.t), state.pos) <= 0.001
    for name, p in r.final.items():
        if p is not None:
            assert math.dist(position_at(wire, name, r.duration + 5.0), p) <= 0.001


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(layouts(), strokes(), strokes())
def test_lag_runs_both_balls_and_keeps_the_invariants(
    balls: dict[BallName, Point], white: Stroke, yellow: Stroke
) -> None:
    # R-LAG-3: two struck balls from t = 0, the red on the table too.
    r = simulate_lag(MATCH, balls, {"white": white, "yellow": yellow})
    assert [e.balls for e in r.events if e.kind == "strike"] == [("white",), ("yellow",)]
    last = energy(r, 0.0)
    for e in r.events:
        if e.t == 0.0 and e.kind in ("strike", "airborne"):
            continue
        now = energy(r, e.t)
        assert now <= last * (1 + 1e-9) + 1e-12
        last = now
        for name, state in e.after.items():
            assert math.dist(position_at(r, name, e.t), state.pos) <= 0.001
    on_table = [p for p in r.final.values() if p is not None]
    for i, p in enumerate(on_table):
        for q in on_table[i + 1 :]:
            assert math.dist(p, q) >= 2 * MATCH.ball_radius - 1e-9
