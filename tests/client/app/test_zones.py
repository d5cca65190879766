"""Zone lines drawn for straight rail and balkline come from the referee's zones
(R-DISC-FREE, R-DISC-BALK)."""

from __future__ import annotations

import pytest

from client.app.zones import zone_lines
from shared.rules.zones import ANCHOR_SIDE
from shared.table import MATCH, TABLES

L, W = MATCH.length, MATCH.width


def _has(
    lines: list[tuple[tuple[float, float], tuple[float, float]]],
    a: tuple[float, float],
    b: tuple[float, float],
) -> bool:
    return any(
        (p == pytest.approx(a, abs=1e-6) and q == pytest.approx(b, abs=1e-6))
        or (p == pytest.approx(b, abs=1e-6) and q == pytest.approx(a, abs=1e-6))
        for p, q in lines
    )


def test_r_disc_balk_47_draws_four_full_balklines() -> None:
    lines = zone_lines(MATCH, "balkline_47_2")
    for x in (L / 6, 5 * L / 6):  # 0.473 m from the short cushions
        # the line across the table is split by the long-axis lines into three pieces
        assert _has(lines, (x, 0.0), (x, W / 3))
        assert _has(lines, (x, W / 3), (x, 2 * W / 3))
    assert _has(lines, (L / 6, W / 3), (5 * L / 6, W / 3))


def test_r_disc_balk_anchor_squares_have_one_side_on_the_cushion() -> None:
    lines = zone_lines(MATCH, "balkline_71_1")
    s = ANCHOR_SIDE
    x = L / 4
    assert _has(lines, (x - s / 2, s), (x + s / 2, s))  # the square's inner side
    assert _has(lines, (x - s / 2, 0.0), (x - s / 2, s))


def test_r_disc_free_straight_rail_draws_the_corner_hypotenuses() -> None:
    lines = zone_lines(MATCH, "straight_rail", 0.71)
    assert len(lines) == 4
    assert _has(lines, (0.0, 0.71), (0.71, 0.0))


def test_three_cushion_and_unknown_disciplines_draw_no_lines() -> None:
    assert zone_lines(MATCH, "three_cushion") == []
    assert zone_lines(MATCH, "snooker") == []


def test_lines_scale_with_smaller_tables() -> None:
    club = TABLES["club_210"]
    lines = zone_lines(club, "balkline_47_2")
    assert _has(lines, (club.length / 6, 0.0), (club.length / 6, club.width / 3))
