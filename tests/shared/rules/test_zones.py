"""Corner zones and balkline areas (R-DISC-FREE, R-DISC-BALK, R-ZONE-LINE, R-ZONE-CALL)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.physics.types import Segment
from shared.rules import MatchOptions, MatchState, Phase, PlayStroke, apply
from shared.rules.options import Discipline
from shared.rules.zones import LINE_HALF_WIDTH, left_zone, shared_zones, zones_for
from shared.table import MATCH
from tests.shared.rules.builders import STROKE, make_result
from tests.shared.rules.conftest import play, to_play

L, W = MATCH.length, MATCH.width
D = Discipline


@pytest.mark.parametrize(
    ("discipline", "areas", "anchors"),
    [
        pytest.param(
            D.BALKLINE_47_2, 9, 8, id="R-DISC-BALK 47 cm nine areas and eight anchor squares"
        ),
        pytest.param(
            D.BALKLINE_71_1, 6, 6, id="R-DISC-BALK 71 cm six areas and six anchor squares"
        ),
        pytest.param(D.STRAIGHT_RAIL, 0, 0, id="R-DISC-FREE four corner zones"),
        pytest.param(D.THREE_CUSHION, 0, 0, id="R-DISC-3C has no zones"),
    ],
)
def test_zone_geometry(discipline: Discipline, areas: int, anchors: int) -> None:
    zones = zones_for(discipline, MATCH, 0.71)
    assert sum(z.name.startswith("area") for z in zones) == areas
    assert sum(z.name.startswith("anchor") for z in zones) == anchors
    if discipline is D.STRAIGHT_RAIL:
        assert len(zones) == 4


def test_R_DISC_BALK_lines_are_0_473_and_0_71_m_from_the_cushions() -> None:
    z47 = {z.name: z for z in zones_for(D.BALKLINE_47_2, MATCH, 0.71)}
    corner = z47["area 1-1"]
    assert corner.holds((0.473, 0.473)) and not corner.holds((0.476, 0.2))
    z71 = {z.name: z for z in zones_for(D.BALKLINE_71_2, MATCH, 0.71)}
    assert z71["area 1-1"].holds((0.709, 0.709)) and not z71["area 1-1"].holds((0.715, 0.3))
    # Anchor squares straddle the line with one side on the cushion nose (0.178 m side).
    anchor = z47[next(n for n in z47 if n.startswith("anchor x=0.473 right"))]
    assert anchor.holds((0.473 - 0.088, 0.177)) and not anchor.holds((0.473, 0.18))


def test_R_DISC_FREE_corner_zone_is_a_triangle_with_0_71_m_legs() -> None:
    corner = {z.name: z for z in zones_for(D.STRAIGHT_RAIL, MATCH, 0.71)}["corner bottom-right"]
    assert corner.holds((0.35, 0.35)) and corner.holds((0.70, 0.005))
    assert not corner.holds((0.36, 0.36))
    top_left = {z.name: z for z in zones_for(D.STRAIGHT_RAIL, MATCH, 0.71)}["corner top-left"]
    assert top_left.holds((L - 0.1, W - 0.1)) and not top_left.holds((L - 0.5, W - 0.5))


@pytest.mark.parametrize(
    ("x", "inside"),
    [
        pytest.param(L / 6 - 0.01, True, id="R-DISC-BALK inside the area"),
        pytest.param(
            L / 6 + LINE_HALF_WIDTH * 0.9, True, id="R-ZONE-LINE on the line counts inside"
        ),
        pytest.param(L / 6 + 0.003, False, id="R-ZONE-LINE clear of the line is outside"),
    ],
)
def test_R_ZONE_LINE_judged_to_the_shooters_disadvantage(x: float, inside: bool) -> None:
    area = {z.name: z for z in zones_for(D.BALKLINE_47_2, MATCH, 0.71)}["area 1-1"]
    assert area.holds((x, 0.3)) is inside
    assert bool(shared_zones([area], (x, 0.3), (0.2, 0.2))) is inside


AREA = {z.name: z for z in zones_for(D.BALKLINE_47_2, MATCH, 0.71)}["area 1-1"]


def seg(t0: float, x: float, vx: float, ax: float) -> Segment:
    return Segment(t0, (x, 0.35, 0.0), (vx, 0.0, 0.0), (ax, 0.0, 0.0), (0.0,) * 3, (0.0,) * 3)


@pytest.mark.parametrize(
    ("segments", "left"),
    [
        pytest.param(
            (seg(0, 0.3, 1.0, -1.0), seg(1.0, 0.8, -1.0, 1.0)),
            True,
            id="R-DISC-BALK a ball that left and came back has left",
        ),
        pytest.param(
            (seg(0, 0.3, 0.4472, -1.0), seg(0.4472, 0.4, -0.4472, 1.0)),
            False,
            id="R-DISC-BALK a ball that stayed inside has not left",
        ),
        pytest.param(
            (seg(0, 0.3, 0.1, 1.0), seg(1.0, 0.9, 0.0, 0.0)),
            True,
            id="R-DISC-BALK a ball that speeds up under follow spin leaves",
        ),
        pytest.param(
            (seg(0, L / 6 - 0.01, 0.1414, -1.0),),
            False,
            id="R-ZONE-LINE a ball that only reached the line has not left",
        ),
    ],
)
def test_left_zone_reads_the_trajectory_exactly(segments, left) -> None:  # type: ignore[no-untyped-def]
    start = (segments[0].pos[0], 0.35)
    assert left_zone(AREA, "red", start, {"red": segments}, [start], 2.0) is left


# Referee-level: runs of caroms with both object balls inside one area / corner zone.
IN_47 = ((1.5, 0.7), (0.2, 0.2), (0.3, 0.35))  # white to play; yellow and red in area 1-1
IN_CORNER = ((1.5, 0.7), (0.2, 0.1), (0.1, 0.3))  # both in the bottom-right corner zone
CAROM = ["red", "yellow"]


def placed(discipline: Discipline, balls) -> MatchState:  # type: ignore[no-untyped-def]
    s = to_play(MatchOptions(discipline=discipline))
    return replace(s, balls=balls, break_shot=False, spot_choice=False)


@pytest.mark.parametrize(
    ("discipline", "balls"),
    [
        pytest.param(D.BALKLINE_47_2, IN_47, id="R-DISC-BALK R-FOUL-ZONE 47-2 second carom inside"),
        pytest.param(
            D.BALKLINE_71_2,
            ((1.5, 1.0), (0.2, 0.2), (0.5, 0.5)),
            id="R-DISC-BALK R-FOUL-ZONE 71-2 second carom inside",
        ),
        pytest.param(
            D.STRAIGHT_RAIL, IN_CORNER, id="R-DISC-FREE R-FOUL-ZONE second carom in a corner"
        ),
    ],
)
def test_two_stroke_rule_one_free_carom_then_drive_out(discipline, balls) -> None:  # type: ignore[no-untyped-def]
    s = placed(discipline, balls)
    codes = [c.code for c in play(s, [])[1].calls]
    assert "zone_in" not in codes  # a miss ends the inning; calls are for the opponent's balls
    s1, v1 = play(s, CAROM)
    assert v1.points == 1 and any(c.code == "zone_armed" for c in v1.calls)  # R-ZONE-CALL
    s2, v2 = play(s1, CAROM)
    assert v2.points == 0 and v2.foul is not None and v2.foul.rule_id == "R-FOUL-ZONE"
    assert s2.shooter == 1 and s2.current.points == (1, 0)
    # Driving a ball out of the zone scores and clears the count.
    out = (balls[2][0] + 1.0, balls[2][1] + 0.3)
    s3, v3 = play(s1, CAROM, {"red": out})
    assert v3.points == 1 and v3.foul is None and s3.zone_counts == ()


@pytest.mark.parametrize(
    "discipline",
    [
        pytest.param(D.BALKLINE_47_1, id="R-DISC-BALK 47-1 every carom inside must drive out"),
        pytest.param(D.BALKLINE_71_1, id="R-DISC-BALK 71-1 every carom inside must drive out"),
    ],
)
def test_one_stroke_rule(discipline: Discipline) -> None:
    balls = IN_47 if discipline is D.BALKLINE_47_1 else ((1.5, 1.0), (0.2, 0.2), (0.5, 0.5))
    s = placed(discipline, balls)
    _, v = play(s, CAROM)
    assert v.foul is not None and v.foul.code == "zone"
    _, v2 = play(s, CAROM, {"red": (1.5, 1.2)})
    assert v2.points == 1


def test_R_DISC_BALK_ball_that_leaves_and_returns_rearms_the_count() -> None:
    s1, _ = play(placed(D.BALKLINE_47_2, IN_47), CAROM)
    assert s1.zone_counts == (("area 1-1", 1),)
    s = s1
    start = s.positions
    result = make_result(start, {"white": STROKE}, CAROM, after={1: {"red": (0.9, 0.35)}})
    s2, v2 = apply(s, PlayStroke(0, STROKE, result), s.resting_at_ms)
    assert v2.points == 1 and s2.zone_counts == ()
    assert any(c.code == "zone_in" for c in v2.calls)  # "in": the next carom is free again
    _s3, v3 = play(s2, CAROM)
    assert v3.points == 1


def test_R_DISC_BALK_anchor_square_restricts_like_an_area() -> None:
    # Both object balls in the anchor square astride x = L/6 on the right cushion.
    balls = ((1.5, 0.7), (L / 6 - 0.05, 0.1), (L / 6 + 0.05, 0.1))
    s1, v1 = play(placed(D.BALKLINE_47_2, balls), CAROM)
    assert any("anchor" in c.text for c in v1.calls if c.code == "zone_armed")
    _, v2 = play(s1, CAROM)
    assert v2.foul is not None and v2.foul.code == "zone"


def test_R_ZONE_CALL_R_CALL_4_ball_on_a_line_is_announced() -> None:
    balls = ((1.5, 0.7), (0.2, 0.2), (L / 6, 0.3))
    s1, v1 = play(placed(D.BALKLINE_47_2, balls), CAROM)
    codes = [c.code for c in v1.calls]
    assert "zone_line" in codes
    assert s1.phase is Phase.PLAY


def test_R_ZONE_CALL_zone_counts_reset_with_the_inning() -> None:
    s1, _ = play(placed(D.BALKLINE_47_2, IN_47), CAROM)
    s2, _v2 = play(s1, [])  # miss: the opponent comes to the table
    assert s2.zone_counts == () and s2.shooter == 1


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.05, 0.45),
    st.floats(0.05, 0.45),
    st.floats(-2.0, 2.0),
    st.floats(-2.0, 2.0),
    st.floats(-3.0, 3.0),
    st.floats(-3.0, 3.0),
    st.floats(0.05, 1.0),
)
def test_R_DISC_BALK_exact_zone_exit_agrees_with_dense_sampling(x, y, vx, vy, ax, ay, span) -> None:  # type: ignore[no-untyped-def]
    s = Segment(0.0, (x, y, 0.0), (vx, vy, 0.0), (ax, ay, 0.0), (0.0,) * 3, (0.0,) * 3)
    rest = Segment(span, (0.0, 0.0, 0.0), (0.0,) * 3, (0.0,) * 3, (0.0,) * 3, (0.0,) * 3)
    exact = left_zone(AREA, "red", (x, y), {"red": (s, rest)}, [(x, y)], span)
    samples = [
        (x + vx * t + ax * t * t / 2, y + vy * t + ay * t * t / 2)
        for t in (span * k / 4000 for k in range(4001))
    ]
    worst = max(AREA.excess(p) for p in samples)
    # Sampling can only miss an excursion, never invent one; away from the line they agree.
    if worst > LINE_HALF_WIDTH + 1e-4:
        assert exact
    if not exact:
        assert worst <= LINE_HALF_WIDTH + 1e-9
