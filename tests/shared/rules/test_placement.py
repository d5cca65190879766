"""Spots, the break position, touching balls and re-spotting (RULES.md §1, §3, §6, §7)."""

from __future__ import annotations

import math

import pytest

from shared.rules.placement import (
    balls_touch,
    break_position,
    contact_of,
    lag_position,
    respot_3c,
)
from shared.table import MATCH, TABLES, TOUCH_TOLERANCE, table_by_name

R = MATCH.ball_radius
L, W = MATCH.length, MATCH.width


def test_R_SPOT_1_and_R_BREAK_1_break_position_uses_the_five_spots() -> None:
    white, yellow, red = break_position(MATCH, "white", "left")
    assert red == (3 * L / 4, W / 2)  # top spot
    assert yellow == (L / 4, W / 2)  # bottom spot
    assert white == (L / 4, W / 2 + 0.1825)  # left starting spot
    w2, _, _ = break_position(MATCH, "white", "right")
    assert w2 == (L / 4, W / 2 - 0.1825)
    # The other player's ball is the cue ball: white goes on the bottom spot (R-END-2, R-END-4).
    w3, y3, _ = break_position(MATCH, "yellow", "right")
    assert w3 == (L / 4, W / 2) and y3 == (L / 4, W / 2 - 0.1825)


@pytest.mark.parametrize("name", sorted(TABLES))
def test_R_TABLE_1_positions_scale_with_every_table_size(name: str) -> None:
    table = table_by_name(name)
    lag = lag_position(table)
    assert lag[0][0] == lag[1][0] == table.length / 4  # R-LAG-1: on the starting line
    assert lag[0][1] < table.width / 2 < lag[1][1]  # one on each side of the long axis
    assert all(table.contains(p) for p in (*lag, *break_position(table, "white")))


@pytest.mark.parametrize(
    ("gap", "touching"),
    [
        pytest.param(0.0, True, id="R-FROZEN-5 R-BALL-1 balls in contact touch"),
        pytest.param(TOUCH_TOLERANCE, True, id="R-FROZEN-5 within half a millimetre touch"),
        pytest.param(TOUCH_TOLERANCE + 0.0001, False, id="R-FROZEN-5 beyond the tolerance is free"),
    ],
)
def test_balls_touch(gap: float, touching: bool) -> None:
    assert balls_touch((1.0, 0.5), (1.0 + 2 * R + gap, 0.5), MATCH) is touching


@pytest.mark.parametrize(
    ("white", "cushions"),
    [
        pytest.param((1.0, R + 0.0004), ("right",), id="R-FROZEN-5 touching a cushion"),
        pytest.param(
            (R, W - R), ("bottom", "left"), id="R-FROZEN-5 touching two cushions in a corner"
        ),
        pytest.param((1.0, R + 0.0006), (), id="R-FROZEN-5 clear of the cushion"),
    ],
)
def test_cushion_contact(white, cushions) -> None:  # type: ignore[no-untyped-def]
    assert contact_of((white, (2.0, 1.0), (2.5, 0.3)), "white", MATCH).cushions == cushions


TOP, CENTRE, BOTTOM = MATCH.top_spot, MATCH.centre_spot, MATCH.bottom_spot


@pytest.mark.parametrize(
    ("balls", "next_ball", "expected"),
    [
        pytest.param(
            {"white": (1, 1), "yellow": (2, 0.3), "red": None},
            "white",
            {"red": TOP},
            id="R-RESPOT-3C red on the top spot",
        ),
        pytest.param(
            {"white": None, "yellow": (2, 0.3), "red": (2.5, 1.0)},
            "white",
            {"white": BOTTOM},
            id="R-RESPOT-3C the next shooter's ball on the bottom spot",
        ),
        pytest.param(
            {"white": None, "yellow": (2, 0.3), "red": (2.5, 1.0)},
            "yellow",
            {"white": CENTRE},
            id="R-RESPOT-3C the other cue ball on the centre spot",
        ),
        pytest.param(
            {"white": (1, 1), "yellow": TOP, "red": None},
            "white",
            {"red": CENTRE},
            id="R-RESPOT-3C an occupied spot sends the ball to the occupier's spot",
        ),
        pytest.param(
            {"white": (TOP[0] + 2 * R, TOP[1]), "yellow": (2, 0.3), "red": None},
            "white",
            {"red": BOTTOM},
            id="R-RESPOT-GEOM a covered spot counts as occupied",
        ),
        pytest.param(
            {"white": None, "yellow": None, "red": None},
            "yellow",
            {"red": TOP, "yellow": BOTTOM, "white": CENTRE},
            id="R-RESPOT-3C all three jumped go on their spots not the break position",
        ),
        pytest.param(
            {"white": CENTRE, "yellow": TOP, "red": None},
            "white",
            {"red": BOTTOM},
            id="R-RESPOT-3C occupied spots are followed as a chain",
        ),
    ],
)
def test_respot_3c(balls, next_ball, expected) -> None:  # type: ignore[no-untyped-def]
    assert respot_3c(balls, MATCH, next_ball) == expected


def test_R_RESPOT_GEOM_chain_with_no_free_spot_falls_back_to_the_long_axis() -> None:
    # Balls lying between the spots cover all three: the red still gets a free place.
    white = (TOP[0] - 0.04, TOP[1] + 0.03)
    yellow = (BOTTOM[0] + 0.04, BOTTOM[1] - 0.03)
    moved = respot_3c({"white": white, "yellow": yellow, "red": None}, MATCH, "yellow")
    red = moved["red"]
    assert all(math.dist(red, q) > 2 * R + TOUCH_TOLERANCE for q in (white, yellow))
