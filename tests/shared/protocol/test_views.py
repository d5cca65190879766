"""The typed views keep v1's bytes: the same keys and shapes as before they were typed, and a
decode error names the path of the bad field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgpack
import pytest

from shared import physics, wireviews
from shared.protocol import BadField, decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import views as pv
from shared.rules import scoresheet
from shared.wireviews import match_view
from tests.shared.protocol.golden_states import golden_states

# Captured from the untyped builders (dict-returning match_view / Scoresheet.to_dict) over the
# golden matches, before the views were typed: v1 as clients already deployed read it.
V1 = json.loads((Path(__file__).parent / "v1_views.json").read_text())
ALL = golden_states()
# Singles keep v1's bytes exactly; team matches (R-TEAM-1) came after v1 and add fields.
STATES = [(k, s) for k, s in ALL if not s.options.teams]
TEAMS = [(k, s) for k, s in ALL if s.options.teams]


def _wire(obj: Any) -> Any:
    """What a peer sees: through msgpack and back (tuples become lists)."""
    return msgpack.unpackb(msgpack.packb(obj), raw=False)


def test_the_golden_matches_pass_through_every_phase() -> None:
    phases = {match_view(s).phase for _, s in STATES}
    assert phases == {"lag", "break_choice", "play", "timeout", "over"}
    assert len(STATES) == len(V1)


@pytest.mark.parametrize(("key", "state"), STATES, ids=[k for k, _ in STATES])
def test_match_and_scoresheet_wire_forms_are_exactly_v1(key: str, state: Any) -> None:
    view = match_view(state)
    assert _wire(view.to_wire()) == V1[key]["match"]
    assert _wire(wireviews.sheet_view(scoresheet(state)).to_wire()) == V1[key]["scoresheet"]
    # and back: a client decodes the very same view
    assert pv.MatchView.from_wire(_wire(view.to_wire()), "match") == view


def test_team_matches_show_every_player_and_round_trip() -> None:
    assert TEAMS, "no team golden match"
    for key, state in TEAMS:
        view = match_view(state)
        assert view.players is not None and len(view.players) == 4, key
        assert [(p.seat, p.slot) for p in view.players] == [(0, 0), (1, 0), (0, 1), (1, 1)]
        if view.shooter is not None and view.phase in ("play", "timeout"):
            assert view.shooter_slot == state.shooter_slot, key
        assert pv.MatchView.from_wire(_wire(view.to_wire()), "match") == view
        sheet = wireviews.sheet_view(scoresheet(state))
        assert sheet.players is not None and len(sheet.players) == 4
        assert pv.Scoresheet.from_wire(_wire(sheet.to_wire()), "scoresheet") == sheet
        # A bot's copy of the state from the view agrees on who strikes.
        back = wireviews.state_from_view(view, state.options)
        assert back.shooter_slot == state.shooter_slot, key
    # The per-player figures add up to the side's points.
    final = scoresheet(TEAMS[-1][1])
    for side in (0, 1):
        assert sum(p.points for p in final.players if p.side == side) == final.match[side].points


def test_a_decode_error_names_the_field_path() -> None:
    state = STATES[-1][1]
    played = tc.GameOver(
        seq=1,
        winner=0,
        reason="distance",
        scoresheet=wireviews.sheet_view(scoresheet(state)),
        match_id=3,
    )
    wire = msgpack.unpackb(encode(played), raw=False)
    wire["scoresheet"]["match"][1]["points"] = "many"
    with pytest.raises(BadField) as info:
        decode_server(msgpack.packb(wire))
    assert info.value.field == "scoresheet.match[1].points"
    assert "scoresheet.match[1].points must be an integer" in info.value.message

    snap = _wire(match_view(STATES[5][1]).to_wire())
    snap["balls"]["white"] = [0.1, None]
    with pytest.raises(BadField) as info:
        pv.MatchView.from_wire(snap, "match")
    assert info.value.field == "match.balls.white[1]"
    snap["balls"] = {"blue": [0.1, 0.2]}
    with pytest.raises(BadField) as info:
        pv.MatchView.from_wire(snap, "match")
    assert "match.balls key" in info.value.message


def test_cue_params_take_the_physics_limits() -> None:
    top = pv.CueParams(direction=0, speed=physics.types.MAX_SPEED, elevation=89.0)
    assert top.physics() == physics.Stroke(0.0, physics.types.MAX_SPEED, 0.0, 0.0, 89.0)
    with pytest.raises(BadField):
        pv.CueParams(direction=0, speed=physics.types.MAX_SPEED + 0.01)
    with pytest.raises(BadField):
        pv.CueParams(direction=0, speed=1, elevation=physics.types.MAX_ELEVATION + 1)
    limit = physics.types.MISCUE_LIMIT
    with pytest.raises(BadField):
        pv.CueParams(direction=0, speed=1, tip_x=limit * 0.8, tip_y=limit * 0.8)
    assert pv.CueParams.of(top.physics(), "left") == pv.CueParams(
        direction=0.0, speed=physics.types.MAX_SPEED, elevation=89.0, spot="left"
    )


def test_ball_of_is_the_referees_rule() -> None:
    """R-LAG-7: the view answers "which ball does this seat play" as the referee does."""
    for _, state in STATES:
        view = match_view(state)
        for seat in (0, 1):
            assert view.ball_of(seat) == state.ball_of(seat)


def test_the_rooms_score_is_optional_both_ways() -> None:
    """Issue 21: ``RoomSummary.score`` is added inside v1. An older server's entry (no score)
    decodes, with no score; an entry without a score encodes exactly as before (no key); and a
    client built before the field existed still reads an entry that has one."""
    from dataclasses import dataclass

    from shared.protocol.typed import View

    old_entry = {
        "room_id": "r1",
        "discipline": "three_cushion",
        "distance": 15,
        "players": ["ana", "bob"],
        "spectators": 2,
        "phase": "play",
        "private": False,
        "practice": False,
    }
    frame = msgpack.packb({"t": "rooms", "rooms": [old_entry]})
    (decoded,) = decode_server(frame).rooms  # type: ignore[attr-defined]
    assert decoded.score is None and decoded.players == ("ana", "bob")
    assert encode(tc.Rooms(rooms=(decoded,))) == frame  # v1 bytes unchanged without a score

    new_entry = {**old_entry, "score": [7, 4]}
    (live,) = decode_server(msgpack.packb({"t": "rooms", "rooms": [new_entry]})).rooms  # type: ignore[attr-defined]
    assert live.score == (7, 4)
    assert live.to_wire()["score"] == [7, 4]

    @dataclass(frozen=True, slots=True, kw_only=True)
    class OldRoomSummary(View):  # RoomSummary as v1 clients have it, without ``score``
        room_id: str
        discipline: str
        distance: int
        players: tuple[str | None, ...]
        spectators: int
        phase: str
        private: bool
        practice: bool

    assert OldRoomSummary.from_wire(new_entry).players == ("ana", "bob")
    with pytest.raises(BadField, match="score"):
        pv.RoomSummary.from_wire({**old_entry, "score": [1, -1]})
