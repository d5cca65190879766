"""Codec: every message survives encode → decode, and garbage raises only ProtocolError."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.protocol import (
    CLIENT_TYPES,
    SERVER_TYPES,
    BadField,
    BadMessage,
    ClientMessage,
    ProtocolError,
    ServerMessage,
    TooLarge,
    UnknownType,
    decode,
    decode_server,
    encode,
)
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import views as pv
from shared.protocol.bounds import HIDDEN_CATEGORIES
from shared.protocol.views import CueParams
from tests.shared.protocol.view_strategies import SERVER_MOTION, view, views_of

ids = st.none() | st.integers(-(2**53) + 1, 2**53 - 1)
names = st.text(
    st.characters(min_codepoint=32, blacklist_categories=tuple(HIDDEN_CATEGORIES)),
    min_size=1,
    max_size=32,
)
tokens = st.text(min_size=1, max_size=64)
room_ids = st.text(min_size=1, max_size=32)
passwords = st.none() | st.text(min_size=1, max_size=64)
seats = st.integers(0, 1)
times = st.integers(0, 2**53 - 1)
seqs = st.integers(0, 2**40)
# Nested payloads: msgpack-native values only (lists, not tuples), as they come off the wire.
leaves = st.none() | st.booleans() | st.integers(-(2**31), 2**31) | st.floats(allow_nan=False)
leaves = leaves | st.text(max_size=10)
payload = st.recursive(
    leaves,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
maps = st.dictionaries(st.text(max_size=8), payload, max_size=5)

CLIENT_FIELDS = sorted({f.name for c in CLIENT_TYPES.values() for f in dataclasses.fields(c)})


def _tip() -> st.SearchStrategy[tuple[float, float]]:
    r = st.floats(0.0, 0.6)
    a = st.floats(0.0, 2 * math.pi)
    return st.tuples(r, a).map(lambda ra: (ra[0] * math.cos(ra[1]), ra[0] * math.sin(ra[1])))


strokes = st.builds(
    lambda d, s, tip, e, spot, i: ts.Stroke(
        cue=CueParams(direction=d, speed=s, tip_x=tip[0], tip_y=tip[1], elevation=e, spot=spot),
        id=i,
    ),
    st.floats(0.0, 360.0, exclude_max=True),
    st.floats(0.0, 8.0, exclude_min=True),
    _tip(),
    st.floats(0.0, 89.0),
    st.none() | st.sampled_from(["left", "right"]),
    ids,
)
points = st.tuples(st.floats(-10, 10), st.floats(-10, 10))

CLIENT: dict[type[ClientMessage], st.SearchStrategy[Any]] = {
    ts.Hello: st.builds(
        ts.Hello, v=st.integers(0, 1000), name=names, token=st.none() | tokens, id=ids
    ),
    ts.ListRooms: st.builds(ts.ListRooms, id=ids),
    ts.CreateRoom: st.builds(
        lambda **kw: ts.CreateRoom(**kw, private=True if kw["password"] else None),
        discipline=st.sampled_from(ts.DISCIPLINES),
        distance=st.none() | st.integers(1, 10_000),
        shot_clock_s=st.none() | st.integers(5, 600),  # the options table's bounds
        innings_limit=st.none() | st.integers(1, 10_000),
        sets=st.none() | st.integers(1, 9),
        equalizing=st.none() | st.booleans(),
        password=passwords,
        practice=st.none() | st.booleans(),
        id=ids,
    ),
    ts.Join: st.builds(ts.Join, room_id=room_ids, password=passwords, id=ids),
    ts.Spectate: st.builds(ts.Spectate, room_id=room_ids, password=passwords, id=ids),
    ts.Rejoin: st.builds(ts.Rejoin, room_id=room_ids, seat_token=tokens, id=ids),
    ts.Leave: st.builds(ts.Leave, id=ids),
    ts.Stroke: strokes,
    ts.ChooseBreak: st.builds(ts.ChooseBreak, breaker=st.sampled_from(["me", "opponent"]), id=ids),
    ts.Respot: st.builds(ts.Respot, id=ids),
    ts.Place: st.builds(
        ts.Place,
        balls=st.dictionaries(st.sampled_from(ts.BALL_NAMES), points, min_size=1),
        id=ids,
    ),
    ts.TimeOut: st.builds(ts.TimeOut, id=ids),
    ts.Resume: st.builds(ts.Resume, id=ids),
    ts.Concede: st.builds(ts.Concede, id=ids),
    ts.Rematch: st.builds(ts.Rematch, id=ids),
    ts.Chat: st.builds(ts.Chat, text=names, id=ids),
    ts.Sync: st.builds(ts.Sync, id=ids),
    ts.Ping: st.builds(ts.Ping, id=ids),
    ts.ListMatches: st.builds(
        ts.ListMatches,
        limit=st.none() | st.integers(1, 100),
        player_id=st.none() | tokens,
        before=st.none() | st.integers(1, 2**40),
        id=ids,
    ),
    ts.GetReplay: st.builds(ts.GetReplay, match_id=st.integers(1, 2**40), id=ids),
    ts.Register: st.builds(
        ts.Register, name=names, password=tokens, bot=st.none() | st.booleans(), id=ids
    ),
    ts.Login: st.builds(ts.Login, name=names, password=tokens, id=ids),
    ts.Queue: st.builds(
        ts.Queue,
        discipline=st.sampled_from(ts.DISCIPLINES),
        distance=st.none() | st.integers(1, 10_000),
        level=st.none() | st.integers(1, 5),
        id=ids,
    ),
    ts.Unqueue: st.builds(ts.Unqueue, id=ids),
    ts.GetLeaderboard: st.builds(
        ts.GetLeaderboard,
        discipline=st.sampled_from(ts.DISCIPLINES),
        limit=st.none() | st.integers(1, 100),
        offset=st.none() | st.integers(0, 10_000_000),
        id=ids,
    ),
    ts.GetProfile: st.builds(ts.GetProfile, player_id=tokens, id=ids),
}

SERVER: dict[type[ServerMessage], st.SearchStrategy[Any]] = {
    tc.Welcome: st.builds(
        tc.Welcome, v=st.just(1), player_id=tokens, token=tokens, server_time_ms=times, re=ids
    ),
    tc.Rooms: st.builds(tc.Rooms, rooms=views_of(pv.RoomSummary), re=ids),
    tc.RoomCreated: st.builds(tc.RoomCreated, room_id=room_ids, re=ids),
    tc.Joined: st.builds(tc.Joined, room_id=room_ids, seat=seats, seat_token=tokens, re=ids),
    tc.Left: st.builds(tc.Left, room_id=room_ids, re=ids),
    tc.Snapshot: st.builds(
        tc.Snapshot,
        seq=seqs,
        room=view(pv.RoomView),
        match=view(pv.MatchView),
        seat=st.none() | seats,
        in_motion=st.none() | SERVER_MOTION[tc.StrokePlayed] | SERVER_MOTION[tc.LagResult],
        re=ids,
    ),
    tc.StrokePlayed: SERVER_MOTION[tc.StrokePlayed],
    tc.LagResult: SERVER_MOTION[tc.LagResult],
    tc.Turn: st.builds(
        tc.Turn,
        seq=seqs,
        shooter=st.none() | seats,
        deadline_ms=st.none() | times,
        phase=st.none() | st.sampled_from(["lag", "play"]),
        frozen=st.none() | st.booleans(),
    ),
    tc.Call: st.builds(tc.Call, seq=seqs, code=names, text=st.text(max_size=50)),
    tc.PlayerStatus: st.builds(
        tc.PlayerStatus,
        seq=seqs,
        seat=seats,
        status=st.sampled_from(tc.STATUSES),
        grace_until_ms=st.none() | times,
    ),
    tc.GameOver: st.builds(
        tc.GameOver,
        seq=seqs,
        winner=st.none() | seats,
        reason=st.text(max_size=20),
        scoresheet=view(pv.Scoresheet),
        match_id=st.none() | st.integers(1, 2**40),
    ),
    tc.ChatLine: st.builds(
        tc.ChatLine, seq=seqs, sender=names, text=st.text(max_size=200), seat=st.none() | seats
    ),
    tc.Error: st.builds(tc.Error, code=names, message=st.text(max_size=50), re=ids),
    tc.Pong: st.builds(tc.Pong, server_time_ms=times, re=ids),
    tc.Audience: st.builds(
        tc.Audience, room_id=st.text(min_size=1, max_size=32), spectators=st.integers(0, 10_000)
    ),
    tc.Matches: st.builds(tc.Matches, matches=views_of(pv.MatchRow), re=ids),
    tc.Replay: st.builds(
        tc.Replay,
        match_id=st.integers(1, 2**40),
        room=view(pv.ReplayRoom),
        strokes=views_of(pv.ReplayStroke),
        finished=st.booleans(),
        scoresheet=st.none() | view(pv.Scoresheet),
        next_after=st.none() | st.integers(0, 2**40),
        re=ids,
    ),
    tc.Closing: st.builds(tc.Closing, reason=st.text(max_size=40)),
    tc.Queued: st.builds(
        tc.Queued,
        discipline=st.sampled_from(ts.DISCIPLINES),
        rating=st.floats(0, 10_000),
        distance=st.none() | st.integers(1, 10_000),
        re=ids,
    ),
    tc.Unqueued: st.builds(tc.Unqueued, re=ids),
    tc.Leaderboard: st.builds(
        tc.Leaderboard,
        discipline=st.sampled_from(ts.DISCIPLINES),
        rows=views_of(pv.LeaderRow),
        re=ids,
    ),
    tc.Profile: st.builds(
        tc.Profile,
        player_id=tokens,
        name=names,
        registered=st.booleans(),
        bot=st.booleans(),
        standings=views_of(pv.StandingRow),
        matches=views_of(pv.ProfileMatch),
        re=ids,
    ),
    tc.Rated: st.builds(
        tc.Rated,
        match_id=st.integers(1, 2**40),
        discipline=st.sampled_from(ts.DISCIPLINES),
        before=st.floats(0, 10_000),
        after=st.floats(0, 10_000),
        deviation=st.floats(0, 10_000),
    ),
}


def test_every_message_type_has_a_strategy() -> None:
    assert set(CLIENT) == set(CLIENT_TYPES.values())
    assert set(SERVER) == set(SERVER_TYPES.values())


@settings(max_examples=60, deadline=None)
@given(st.one_of(*CLIENT.values()))
def test_client_message_round_trip(msg: ClientMessage) -> None:
    assert decode(encode(msg)) == msg


@settings(max_examples=60, deadline=None)
@given(st.one_of(*SERVER.values()))
def test_server_message_round_trip(msg: ServerMessage) -> None:
    assert decode_server(encode(msg)) == msg


def test_wire_names_are_the_contract() -> None:
    """PROTOCOL.md spells ``chat.from``; the Python field is ``sender``."""
    wire = msgpack.unpackb(encode(tc.ChatLine(seq=3, sender="ann", text="hi")))
    assert wire == {"t": "chat", "seq": 3, "from": "ann", "text": "hi"}
    wire = msgpack.unpackb(encode(ts.Stroke(cue=CueParams(direction=90, speed=2.0), id=7)))
    assert wire["t"] == "stroke" and wire["id"] == 7 and "spot" not in wire


def test_unknown_keys_are_ignored_for_forward_compatibility() -> None:
    data = msgpack.packb({"t": "ping", "id": 4, "future_field": [1, 2]})
    assert decode(data) == ts.Ping(id=4)


def test_nullable_required_field_must_still_be_present() -> None:
    with pytest.raises(BadField):
        decode_server(msgpack.packb({"t": "lag_result", "seq": 1, "reason": "x", "trajectory": {}}))
    ok = {"t": "lag_result", "seq": 1, "winner": None, "reason": "repeat", "trajectory": {}}
    assert decode_server(msgpack.packb(ok)).winner is None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"", BadMessage),
        (b"\xc1", BadMessage),  # a byte msgpack never uses
        (b"\x93\x01\x02\x03", BadMessage),  # an array, not a map
        (msgpack.packb({"x": 1}), BadMessage),  # no "t"
        (msgpack.packb({"t": 5}), BadMessage),  # "t" not a string
        (msgpack.packb({"t": "ping"}) + b"\x00", BadMessage),  # trailing bytes
        (msgpack.packb({1: 2, "t": "ping"}), None),  # odd extra keys are ignored
        (msgpack.packb({"t": "fly"}), UnknownType),
        (msgpack.packb({"t": "welcome"}), UnknownType),  # a server message sent to the server
        (msgpack.packb({"t": "stroke", "direction": 1.0}), BadField),  # speed missing
        (msgpack.packb({"t": "stroke", "direction": math.nan, "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": math.inf, "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": 1e300, "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": 2**63, "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": True, "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": "90", "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": 360.0, "speed": 1.0}), BadField),
        (msgpack.packb({"t": "stroke", "direction": 0, "speed": 0}), BadField),
        (
            msgpack.packb({"t": "stroke", "direction": 0, "speed": 1, "tip_x": 0.5, "tip_y": 0.5}),
            BadField,
        ),
        (msgpack.packb({"t": "stroke", "direction": 0, "speed": 1, "spot": "middle"}), BadField),
        (msgpack.packb({"t": "chat", "text": "x" * 201}), BadField),
        (msgpack.packb({"t": "chat", "text": "line\nbreak"}), BadField),
        (msgpack.packb({"t": "chat", "text": b"bytes"}), BadField),
        (msgpack.packb({"t": "hello", "v": 1, "name": ""}), BadField),
        (msgpack.packb({"t": "hello", "v": 1, "name": ["a"]}), BadField),
        (msgpack.packb({"t": "ping", "id": 1.5}), BadField),
        (msgpack.packb({"t": "ping", "id": 2**60}), BadField),
        (msgpack.packb({"t": "create_room", "discipline": "snooker"}), BadField),
        (
            msgpack.packb({"t": "create_room", "discipline": "three_cushion", "password": "x"}),
            BadField,
        ),
        (
            msgpack.packb({"t": "create_room", "discipline": "three_cushion", "shot_clock_s": 0}),
            BadField,
        ),
        (msgpack.packb({"t": "place", "balls": {}}), BadField),
        (msgpack.packb({"t": "place", "balls": {"blue": [1, 1]}}), BadField),
        (msgpack.packb({"t": "place", "balls": {"red": [1]}}), BadField),
        (msgpack.packb({"t": "place", "balls": {"red": [1, math.nan]}}), BadField),
        (msgpack.packb({"t": "place", "balls": [[1, 1]]}), BadField),
        (msgpack.packb({"t": "choose_break", "breaker": "both"}), BadField),
        (msgpack.packb({"t": "get_replay", "match_id": 0}), BadField),
        (msgpack.packb({"t": "join", "room_id": "r" * 33}), BadField),
        (msgpack.packb({"t": "join", "room_id": msgpack.ExtType(5, b"x")}), BadField),
        (b"\x81\xa1t" + b"\x91" * 5000 + b"\x90", BadMessage),  # nested too deep
        (b"x" * (16 * 1024 + 1), TooLarge),
        (bytearray(msgpack.packb({"t": "ping"})), None),
    ],
)
def test_garbage_raises_only_protocol_errors(
    data: bytes, error: type[ProtocolError] | None
) -> None:
    if error is None:
        assert decode(data) == ts.Ping()
    else:
        with pytest.raises(error) as info:
            decode(data)
        assert info.value.code == error.code
        assert info.value.message


def test_text_frames_are_refused() -> None:
    with pytest.raises(BadMessage):
        decode('{"t": "ping"}')


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_never_raise_anything_else(data: bytes) -> None:
    try:
        decode(data)
        decode_server(data)
    except ProtocolError as exc:
        assert exc.code in {"bad_message", "unknown_type", "bad_field", "too_large"}


wire_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats()
    | st.text(max_size=300)
    | st.binary(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=12), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(sorted(CLIENT_TYPES)),
    st.dictionaries(
        st.sampled_from(CLIENT_FIELDS),
        wire_values,
    ),
)
def test_known_types_with_random_fields_never_raise_anything_else(
    t: str, fields: dict[str, Any]
) -> None:
    try:
        msg = decode(msgpack.packb({"t": t, **fields}, use_bin_type=True))
    except ProtocolError:
        return
    assert decode(encode(msg)) == msg  # whatever got through is a valid, re-encodable message
