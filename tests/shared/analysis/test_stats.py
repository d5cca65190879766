"""The statistics core counts innings, runs, openings and routes the way docs/analysis.md says
(R-PLAY-2: the general average is points per inning)."""

from __future__ import annotations

import pytest

from shared.analysis.charts import _nice_max, all_charts, to_svg
from shared.analysis.patterns import Pattern
from shared.analysis.stats import MatchLog, Opening, StrokeLog, innings_of, player_stats


def _s(
    n: int,
    seat: int,
    points: int,
    *,
    foul: bool = False,
    route: Pattern | None = None,
    think: int | None = 1000,
) -> StrokeLog:
    return StrokeLog(n, seat, points, foul, 1000 * n, think, route)


def _match(match_id: int, seat: int, strokes: list[StrokeLog], when: int = 0) -> MatchLog:
    return MatchLog(match_id, "three_cushion", seat, when, when + 1, tuple(strokes))


# Seat 0 breaks and runs 2, seat 1 misses, seat 0 fouls, seat 1 runs 1, seat 0 scores 1 at the
# end of the match (the last inning is not closed by a miss).
STROKES = [
    _s(1, 0, 1, route=Pattern.AROUND_THE_TABLE),
    _s(2, 0, 1, route=Pattern.TICKY),
    _s(3, 0, 0, route=Pattern.AROUND_THE_TABLE),
    _s(4, 1, 0),
    _s(5, 0, 0, foul=True),
    _s(6, 1, 1),
    _s(7, 1, 0),
    _s(8, 0, 1, route=Pattern.BANK, think=None),
]


def test_innings_and_how_they_began() -> None:
    mine = innings_of(_match(1, 0, STROKES))
    assert [(i.opening, i.run, len(i.strokes)) for i in mine] == [
        (Opening.BREAK, 2, 3),
        (Opening.AFTER_MISS, 0, 1),
        (Opening.AFTER_MISS, 1, 1),
    ]
    theirs = innings_of(_match(1, 1, STROKES))
    assert [(i.opening, i.run) for i in theirs] == [
        (Opening.AFTER_MISS, 0),
        (Opening.AFTER_FOUL, 1),
    ]


def test_practice_innings_follow_one_another() -> None:
    alone = innings_of(_match(1, 0, [_s(1, 0, 1), _s(2, 0, 0), _s(3, 0, 0)]))
    assert [(i.opening, i.run) for i in alone] == [
        (Opening.BREAK, 1),
        (Opening.AFTER_OWN_MISS, 0),
    ]


def test_player_stats_add_up_over_matches() -> None:
    later = _match(2, 1, [_s(1, 0, 0), _s(2, 1, 1, route=Pattern.BANK), _s(3, 1, 0)], when=50)
    stats = player_stats([later, _match(1, 0, STROKES)], "three_cushion")
    assert [m.match_id for m in stats.matches] == [1, 2]  # oldest first
    assert [(m.points, m.innings) for m in stats.matches] == [(3, 3), (1, 1)]
    assert stats.matches[1].cumulative_average == pytest.approx(4 / 4)
    assert (stats.points, stats.innings, stats.high_run) == (4, 4, 2)
    assert stats.average == pytest.approx(1.0)
    assert stats.runs == {0: 1, 1: 2, 2: 1}
    lines = {p.pattern: (p.attempts, p.points) for p in stats.patterns}
    assert lines == {
        Pattern.AROUND_THE_TABLE: (2, 1),
        Pattern.TICKY: (1, 1),
        Pattern.BANK: (2, 2),
    }
    assert stats.patterns[0].pattern in (Pattern.AROUND_THE_TABLE, Pattern.BANK)
    openings = {o.opening: (o.innings, o.points) for o in stats.openings}
    assert openings == {Opening.BREAK: (1, 2), Opening.AFTER_MISS: (3, 2)}
    assert stats.strokes == 7  # five in the first match, two in the second
    assert len(stats.think_ms) == 6  # the one stroke without a measured time is left out


def test_other_disciplines_are_counted_apart() -> None:
    one = MatchLog(3, "one_cushion", 0, 0, 1, (_s(1, 0, 1),))
    assert player_stats([one], "three_cushion").innings == 0
    assert player_stats([one], "one_cushion").points == 1


@pytest.mark.parametrize(
    ("value", "whole", "top"),
    [
        (0.0, True, 4.0),
        (1.0, True, 4.0),
        (5.0, True, 8.0),
        (17.0, True, 20.0),
        (0.7, False, 0.8),
        (2.0, False, 2.0),
        (1.3, False, 2.0),
    ],
)
def test_axis_tops_are_round(value: float, whole: bool, top: float) -> None:
    assert _nice_max(value, whole) == pytest.approx(top)


def test_every_chart_is_an_svg_with_its_title() -> None:
    stats = player_stats([_match(1, 0, STROKES)], "three_cushion")
    for chart in all_charts(stats):
        svg = to_svg(chart)
        assert svg.startswith("<svg") and f"<title>{chart.title}</title>" in svg
    empty = player_stats([], "three_cushion")
    assert "No matches yet." in to_svg(all_charts(empty)[0])
