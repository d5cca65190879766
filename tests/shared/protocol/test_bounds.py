"""Bounds are declared once, in the field types, and the decoder checks them.

Each case is a frame with one bad value: the error names the field's path and says what was
wrong, as ``_validate`` did when it re-checked every field by hand. Room options take their
bounds and sentences from the one options table (``shared.options``). Messages keep only the
checks that span several fields.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import msgpack
import pytest

from shared.options import WIRE_OPTIONS
from shared.protocol import BadField, decode, decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import views as pv
from shared.protocol.base import Message
from shared.protocol.typed import View
from shared.wireviews import match_view
from tests.shared.protocol.golden_states import golden_states, room_view

STATES = golden_states()


def _snapshot_frame() -> dict[str, Any]:
    _, state = STATES[5]
    snap = tc.Snapshot(seq=1, room=room_view(), match=match_view(state))
    out: dict[str, Any] = msgpack.unpackb(encode(snap), raw=False)
    return out


# (client frame, field path, what the sender reads)
CLIENT_CASES = [
    ({"t": "hello", "v": 1001, "name": "ana"}, "v", "v must be in [0, 1000], got 1001"),
    ({"t": "hello", "v": 1, "name": "a" * 33}, "name", "name must be 1 to 32 characters long"),
    (
        {"t": "hello", "v": 1, "name": "ana\u202e"},
        "name",
        "name must not contain control or invisible characters",
    ),
    ({"t": "chat", "text": ""}, "text", "text must be 1 to 200 characters long, got 0"),
    ({"t": "join", "room_id": ""}, "room_id", "room_id must be 1 to 32 characters long, got 0"),
    ({"t": "stroke", "direction": 360.0, "speed": 1}, "direction", "direction must be in [0.0,"),
    ({"t": "stroke", "direction": 0, "speed": 0}, "speed", "speed must be in (0.0, 8.0], got 0"),
    ({"t": "stroke", "direction": 0, "speed": 1, "spot": "mid"}, "spot", "spot must be one of"),
    ({"t": "place", "balls": {}}, "balls", "balls must have at least 1 entry, got 0"),
    ({"t": "place", "balls": {"red": [11, 0]}}, "balls.red[0]", "must be in [-10.0, 10.0]"),
    ({"t": "place", "balls": {"blue": [1, 1]}}, "balls key", "balls key must be one of red,"),
    ({"t": "choose_break", "breaker": "both"}, "breaker", "me, opponent, got 'both'"),
    ({"t": "get_replay", "match_id": 0}, "match_id", "match_id must be at least 1, got 0"),
    ({"t": "get_replay", "match_id": 1, "limit": 501}, "limit", "limit must be in [1, 500]"),
    ({"t": "list_matches", "limit": 0}, "limit", "limit must be in [1, 100], got 0"),
    ({"t": "queue", "discipline": "one_cushion", "level": 6}, "level", "level must be in [1, 5]"),
    ({"t": "queue", "discipline": "one_cushion", "distance": 0}, "distance", "in [1, 10000]"),
    ({"t": "leaderboard", "discipline": "one_cushion", "offset": -1}, "offset", "[0, 10000000]"),
    ({"t": "ping", "id": 2**60}, "id", "id is too large"),
]


@pytest.mark.parametrize(("frame", "field", "says"), CLIENT_CASES)
def test_a_bad_client_field_is_named_with_what_was_wrong(
    frame: dict[str, Any], field: str, says: str
) -> None:
    with pytest.raises(BadField) as info:
        decode(msgpack.packb(frame))
    assert info.value.field == field
    assert says in info.value.message


@pytest.mark.parametrize("option", [o for o in WIRE_OPTIONS if o.kind in (int, float)])
def test_room_option_bounds_are_the_options_tables(option: Any) -> None:
    """create_room refuses exactly what the table refuses, with the table's own sentence."""
    for value in (option.low, option.high):
        ok = decode(
            msgpack.packb({"t": "create_room", "discipline": "one_cushion", option.name: value})
        )
        assert getattr(ok, option.name) == value
    for value in (option.low - 1, option.high + 1):
        with pytest.raises(BadField) as info:
            decode(
                msgpack.packb({"t": "create_room", "discipline": "one_cushion", option.name: value})
            )
        assert info.value.field == option.name
        assert info.value.message == option.problem(value)


def test_the_table_option_takes_the_tables_choices() -> None:
    with pytest.raises(BadField) as info:
        decode(msgpack.packb({"t": "create_room", "discipline": "one_cushion", "table": "huge"}))
    assert info.value.field == "table" and "unknown table 'huge'" in info.value.message


@pytest.mark.parametrize(
    ("path", "value", "field", "says"),
    [
        (("match", "set"), -1, "match.set", "match.set must be at least 0, got -1"),
        (("match", "shooter"), 2, "match.shooter", "match.shooter must be in [0, 1], got 2"),
        (("match", "deadline_ms"), -5, "match.deadline_ms", "must be at least 0"),
        (("match", "phase"), 7, "match.phase", "match.phase must be a string"),
        (("room", "spectators"), -1, "room.spectators", "room.spectators must be at least 0"),
        (("room", "room_id"), "", "room.room_id", "room.room_id must be 1 to 32 characters"),
        (("seat",), 3, "seat", "seat must be in [0, 1], got 3"),
        (("seq",), -1, "seq", "seq must be at least 0, got -1"),
    ],
)
def test_a_bad_server_field_is_named_by_its_path(
    path: tuple[str, ...], value: object, field: str, says: str
) -> None:
    frame = _snapshot_frame()
    where = frame
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    with pytest.raises(BadField) as info:
        decode_server(msgpack.packb(frame))
    assert info.value.field == field
    assert says in info.value.message


def test_lists_and_maps_have_bounded_sizes() -> None:
    entry = {
        "room_id": "r1",
        "discipline": "three_cushion",
        "distance": 15,
        "players": ["ana", "bob"],
        "spectators": 0,
        "phase": "play",
        "private": False,
        "practice": False,
        "score": [1, 2, 3],
    }
    with pytest.raises(BadField) as info:
        decode_server(msgpack.packb({"t": "rooms", "rooms": [entry]}))
    assert info.value.field == "rooms[0].score"
    assert info.value.message == "rooms[0].score has too many entries: 3 > 2"
    rows = [{"discipline": "one_cushion"}] * 101
    with pytest.raises(BadField) as info:
        decode_server(
            msgpack.packb(
                {
                    "t": "profile",
                    "player_id": "p",
                    "name": "n",
                    "registered": True,
                    "bot": False,
                    "standings": [],
                    "matches": rows,
                }
            )
        )
    assert info.value.field is not None and info.value.field.startswith("matches")


def test_our_own_code_is_held_to_the_same_bounds() -> None:
    """A view or message our code builds is checked against the same declarations."""
    with pytest.raises(BadField) as info:
        tc.Turn(seq=-1, shooter=None, deadline_ms=None)
    assert info.value.field == "seq" and "seq must be at least 0" in info.value.message
    with pytest.raises(BadField) as info:
        tc.ChatLine(seq=1, sender="", text="hi")
    assert info.value.field == "from"  # the wire name, as the peer would see it
    with pytest.raises(BadField) as info:
        pv.SheetLine(points=1, innings=-1, average=0.0, high_run=0)
    assert info.value.field == "innings"
    with pytest.raises(BadField):
        ts.Place(balls={})


def test_cross_field_checks_stay_in_the_message() -> None:
    limit = 0.6
    with pytest.raises(BadField) as info:
        decode(
            msgpack.packb(
                {"t": "stroke", "direction": 0, "speed": 1, "tip_x": limit * 0.8, "tip_y": 0.5}
            )
        )
    assert info.value.field == "tip_x" and "miscue limit" in info.value.message
    with pytest.raises(BadField) as info:
        decode(msgpack.packb({"t": "create_room", "discipline": "one_cushion", "password": "x"}))
    assert info.value.field == "password" and info.value.message == "password needs private: true"
    with pytest.raises(BadField) as info:
        pv.CueParams.from_wire({"direction": 0, "speed": 1, "tip_x": 0.5, "tip_y": 0.5}, "stroke")
    assert info.value.field == "stroke.tip_x"
    assert info.value.message.startswith("stroke.hypot(tip_x, tip_y)")
    assert math.hypot(0.5, 0.5) > limit


def _wire_classes() -> list[type]:
    from shared.protocol.codec import CLIENT_TYPES, SERVER_TYPES

    found = [*CLIENT_TYPES.values(), *SERVER_TYPES.values()]
    found += [
        c
        for c in vars(pv).values()
        if isinstance(c, type) and issubclass(c, View) and c.__module__ == pv.__name__
    ]
    return found


# The checks no single field can state (each names the fields it spans).
CROSS_FIELD = {
    pv.CueParams: "hypot(tip_x, tip_y) within the miscue limit",
    ts.CreateRoom: "password only with private",
}


def test_messages_keep_only_cross_field_checks() -> None:
    """Every other class declares its bounds in its field types and has no ``_validate``."""
    own = {
        cls
        for cls in _wire_classes()
        if cls._validate not in (View._validate, Message._validate)  # type: ignore[attr-defined]
    }
    assert own == set(CROSS_FIELD)
    assert all(dataclasses.is_dataclass(c) for c in own)
