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


# The adapter's words: every rules value has a wire word ------------------------------------------


def test_every_rules_enum_value_has_a_known_wire_member() -> None:
    """The rules' Phase, Discipline and Termination each map onto a known member of the
    protocol's own enum (shared.protocol.enums), with the same word, and back."""
    from shared.protocol import enums as pe
    from shared.rules import Discipline, Phase, Termination

    for table, rules_enum, wire_enum in (
        (wireviews.PHASES, Phase, pe.Phase),
        (wireviews.DISCIPLINES, Discipline, pe.Discipline),
        (wireviews.END_REASONS, Termination, pe.EndReason),
    ):
        assert set(table) == set(rules_enum)
        for value, word in table.items():
            assert type(word) is wire_enum and word.known and word.value == value.value
        assert len(set(table.values())) == len(rules_enum)  # one word each
    for phase in Phase:
        assert wireviews.rules_phase(wireviews.PHASES[phase]) is phase
    for d in Discipline:
        assert wireviews.rules_discipline(wireviews.DISCIPLINES[d]) is d


def test_an_unknown_wire_word_has_no_rules_value() -> None:
    """A newer server's phase or discipline cannot be turned into a referee state."""
    import pytest

    from shared.protocol import enums as pe

    with pytest.raises(ValueError, match="unknown phase 'sudden_death'"):
        wireviews.rules_phase(pe.Phase("sudden_death"))
    with pytest.raises(ValueError, match="unknown discipline"):
        wireviews.rules_discipline(pe.Discipline("artistic"))


def _string_args(call_name: str, position: int) -> set[str]:
    """The string literals passed at ``position`` to ``call_name(...)`` anywhere in
    shared/rules: the words the referee can produce that it keeps as strings."""
    import ast
    from pathlib import Path

    rules_dir = Path(__file__).parents[2] / "shared" / "rules"
    found = set()
    for path in rules_dir.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == call_name
                and len(node.args) > position
                and isinstance(node.args[position], ast.Constant)
                and isinstance(node.args[position].value, str)
            ):
                found.add(node.args[position].value)
    return found


def test_every_call_foul_and_lag_word_of_the_referee_is_a_known_wire_word() -> None:
    """The rules keep call codes, foul codes and lag reasons as strings; each one they can
    produce is declared in the protocol, so clients know every word today's server sends."""
    from shared.protocol import enums as pe
    from shared.rules.lag import LAG_RULE
    from shared.rules.verdict import CALL_RULES, UNSPECIFIC_CALLS

    calls = _string_args("Call", 0)
    assert {"good", "miss", "foul", "lag_repeat", "frozen", "zone_in"} <= calls  # the scan works
    calls |= set(CALL_RULES) | UNSPECIFIC_CALLS
    assert {c for c in calls if not pe.CallCode(c).known} == set()
    fouls = _string_args("Foul", 1)
    assert {"clock", "off_table"} <= fouls
    assert {f for f in fouls if not pe.FoulCode(f).known} == set()
    reasons = set(LAG_RULE) | {"coin_toss", "no_lag_stroke"}
    assert {r for r in reasons if not pe.LagReason(r).known} == set()


def test_every_physics_event_kind_is_a_known_wire_word() -> None:
    from typing import get_args

    from shared.physics.types import EventKind
    from shared.protocol import enums as pe

    kinds = set(get_args(EventKind))
    assert len(kinds) >= 10
    assert {k for k in kinds if not pe.EventKind(k).known} == set()


def test_events_and_verdicts_become_views_with_wire_words() -> None:
    from shared.physics import simulate
    from shared.physics.types import Stroke
    from shared.protocol import enums as pe
    from shared.rules import Call, Verdict

    state = to_play()
    result = simulate(state.options.table_spec, dict(state.positions), "white", Stroke(30, 3))
    events = wireviews.event_views(result.events)
    assert len(events) == len(result.events)
    for view, event in zip(events, result.events, strict=True):
        assert type(view.kind) is pe.EventKind and view.kind == event.kind
        assert view.balls == event.balls and view.t == event.t
    verdict = Verdict(points=1, calls=(Call("good", "Good.", "R-PLAY-1"),))
    res = wireviews.stroke_result_view(verdict)
    assert res.calls[0].code is pe.CallCode.GOOD and res.points == 1
