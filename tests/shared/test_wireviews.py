"""The scoresheet (R-PLAY-2) and the protocol's ``match`` object."""

from __future__ import annotations

import json

import msgpack

from shared import wireviews
from shared.rules import MatchOptions, scoresheet
from shared.wireviews import match_view
from tests.shared.rules.conftest import play, to_play

POINT = ["top", "red", "left", "bottom", "yellow"]


def test_R_PLAY_2_scoresheet_points_innings_average_high_run() -> None:
    s = to_play(MatchOptions(distance=10))
    for steps in (POINT, POINT, POINT, [], POINT, [], [], POINT, []):
        s, _ = play(s, steps)
    # Innings are visits: seat 0 runs 3 then misses, seat 1 runs 1, seat 0 misses at once,
    # seat 1 runs 1.
    sheet = scoresheet(s)
    a, b = sheet.sets[0].lines
    assert (a.points, a.innings, a.high_run) == (3, 2, 3)
    assert (b.points, b.innings, b.high_run) == (2, 2, 1)
    assert a.average == 1.5 and b.average == 1.0
    assert sheet.match == sheet.sets[0].lines
    d = wireviews.sheet_view(sheet).to_wire()
    assert d["match"][0] == {"points": 3, "innings": 2, "average": 1.5, "high_run": 3}


def test_match_view_has_the_protocol_fields_and_is_wire_safe() -> None:
    s, _ = play(to_play(), POINT)
    view = match_view(s)
    assert view.phase == "play" and view.score == (1, 0) and view.current_run == 1
    assert set(view.balls) == {"white", "yellow", "red"}
    wire = view.to_wire()
    for key in ("phase", "shooter", "balls", "score", "innings", "average", "high_run"):
        assert key in wire
    assert json.loads(json.dumps(wire)) == msgpack.unpackb(msgpack.packb(wire))


def test_R_ZONE_CALL_match_view_shows_zone_state() -> None:
    s = to_play(MatchOptions(discipline="straight_rail"))  # type: ignore[arg-type]
    view = match_view(s)
    assert view.zones == ()
    assert view.to_wire()["zones"] == []


def test_R_FROZEN_1_match_view_says_what_the_cue_ball_touches() -> None:
    s = to_play()
    assert match_view(s).frozen is None
    assert "frozen" in match_view(s).to_wire()  # sent as null in play: nothing touches
    r = 0.03075
    s2, _ = play(s, POINT, {"white": (1.0, 0.7), "red": (1.0 + 2 * r, 0.7)})
    frozen = match_view(s2).frozen
    assert frozen is not None and frozen.to_wire() == {"balls": ["red"], "cushions": []}
