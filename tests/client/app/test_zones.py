"""Zone lines drawn for straight rail and balkline (R-DISC-FREE, R-DISC-BALK)."""

from __future__ import annotations

import pytest

from client.app.zones import ANCHOR_SIDE, anchor_squares, balk_lines, zone_lines
from shared.table import MATCH


def test_r_disc_balk_47_has_four_lines_and_eight_anchor_squares() -> None:
    lines = balk_lines(MATCH, 0.473)
    assert len(lines) == 4
    assert len(anchor_squares(MATCH, 0.473)) == 8 * 3  # three drawn sides per square


def test_r_disc_balk_71_lines_along_the_length_coincide_on_the_long_axis() -> None:
    lines = balk_lines(MATCH, 0.71)
    assert len(lines) == 3
    assert ((0.0, 0.71), (MATCH.length, 0.71)) in lines
    assert len(anchor_squares(MATCH, 0.71)) == 6 * 3


def test_anchor_squares_straddle_the_line_with_one_side_on_the_cushion() -> None:
    sides = anchor_squares(MATCH, 0.473)
    first = sides[:3]  # the square at the right-cushion end of the x = 0.473 line
    xs = sorted({p[0] for seg in first for p in seg})
    assert xs == pytest.approx([0.473 - ANCHOR_SIDE / 2, 0.473 + ANCHOR_SIDE / 2])
    assert max(p[1] for seg in first for p in seg) == pytest.approx(ANCHOR_SIDE)


def test_three_cushion_has_no_zone_lines_and_straight_rail_has_corner_triangles() -> None:
    assert zone_lines(MATCH, "three_cushion") == []
    tri = zone_lines(MATCH, "straight_rail", 0.71)
    assert len(tri) == 4
    assert ((0.71, 0.0), (0.0, 0.71)) in tri
