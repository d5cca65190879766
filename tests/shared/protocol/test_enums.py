"""The protocol's words are enums, and an older client still reads a newer server's words.

A newer server may add a phase, an end reason, a call or an event kind. Frames holding them
must decode on this release (nothing refused), keep the word as sent (for display, and so a
frame passed on is the same bytes), and match none of this release's members, so the client's
``if`` chains fall through. Structural words (balls, a replay entry's kind) stay closed, and a
client asking for a word the server does not know is refused with the known ones listed.
"""

from __future__ import annotations

import msgpack
import pytest

from shared.protocol import BadField, decode, decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import views as pv
from shared.protocol.enums import (
    UNKNOWN,
    CallCode,
    Discipline,
    EndReason,
    EventKind,
    OpenEnum,
    Phase,
    ReplayKind,
    SeatStatus,
)
from shared.wireviews import match_view
from tests.shared.protocol.golden_states import golden_states, room_view

STATES = golden_states()


def _frame(msg: tc.ServerMessage) -> dict[str, object]:
    out: dict[str, object] = msgpack.unpackb(encode(msg), raw=False)
    return out


def _game_over() -> tc.GameOver:
    from shared import wireviews
    from shared.rules import scoresheet

    state = STATES[-1][1]
    return tc.GameOver(
        seq=3,
        winner=0,
        reason=EndReason.DISTANCE,
        scoresheet=wireviews.sheet_view(scoresheet(state)),
        match_id=9,
    )


def test_members_are_their_wire_words() -> None:
    """A StrEnum member is its word: equal to it, and encoded as exactly its bytes."""
    assert Phase.PLAY == "play" and str(Phase.PLAY) == "play"
    assert msgpack.packb(Phase.BREAK_CHOICE) == msgpack.packb("break_choice")
    turn = tc.Turn(seq=1, shooter=0, deadline_ms=5, phase=Phase.PLAY)
    assert encode(turn) == msgpack.packb(
        {"t": "turn", "seq": 1, "shooter": 0, "deadline_ms": 5, "phase": "play"}
    )


def test_decoded_words_are_members() -> None:
    _, state = STATES[5]
    data = msgpack.packb({"t": "turn", "seq": 1, "shooter": 0, "deadline_ms": 5, "phase": "lag"})
    turn = decode_server(data)
    assert isinstance(turn, tc.Turn) and turn.phase is Phase.LAG
    frame = _frame(tc.Snapshot(seq=1, room=room_view(), match=match_view(state)))
    view = pv.MatchView.from_wire(frame["match"], "match")
    assert type(view.phase) is Phase and type(view.discipline) is Discipline
    assert view.phase.known and view.discipline is Discipline(state.options.discipline.value)


@pytest.mark.parametrize(
    ("where", "word"),
    [
        (("match", "phase"), "sudden_death"),
        (("match", "discipline"), "artistic"),
        (("room", "phase"), "sudden_death"),
        (("room", "discipline"), "artistic"),
    ],
)
def test_an_unknown_word_in_a_snapshot_decodes_and_keeps_its_word(
    where: tuple[str, str], word: str
) -> None:
    """Forward compatibility: a newer server's snapshot with a word this release lacks."""
    _, state = STATES[5]
    frame = _frame(tc.Snapshot(seq=1, room=room_view(), match=match_view(state)))
    frame[where[0]][where[1]] = word  # type: ignore[index]
    data = msgpack.packb(frame)
    snap = decode_server(data)
    assert isinstance(snap, tc.Snapshot)
    got = getattr(getattr(snap, where[0]), where[1])
    assert isinstance(got, OpenEnum)
    assert not got.known and got.name == UNKNOWN
    assert got == word and str(got) == word and got.value == word  # kept for display
    assert got not in list(type(got))  # no known member matches: the client's ifs fall through
    assert encode(snap) == data  # passed on unchanged (a relay, a recording)


def test_unknown_reasons_calls_kinds_and_statuses_decode() -> None:
    frame = _frame(_game_over())
    frame["reason"] = "walkover"
    over = decode_server(msgpack.packb(frame))
    assert isinstance(over, tc.GameOver) and over.reason == "walkover"
    assert not over.reason.known and over.reason is not EndReason.DISTANCE

    call = decode_server(msgpack.packb({"t": "call", "seq": 2, "code": "kiss", "text": "Kiss."}))
    assert isinstance(call, tc.Call) and not call.code.known and call.code == "kiss"

    status = decode_server(
        msgpack.packb({"t": "player_status", "seq": 2, "seat": 1, "status": "away"})
    )
    assert isinstance(status, tc.PlayerStatus) and status.status == "away"
    assert status.status not in (SeatStatus.CONNECTED, SeatStatus.DISCONNECTED, SeatStatus.LEFT)

    event = pv.EventView.from_wire({"t": 0.5, "kind": "jump", "balls": ["white"]}, "events[0]")
    assert event.kind == "jump" and not event.kind.known
    assert pv.EventView.from_wire({"t": 0, "kind": "strike", "balls": []}).kind is EventKind.STRIKE


def test_unknown_words_do_not_grow_the_enum() -> None:
    """A peer cannot fill memory with words: unknown members are made afresh, never cached."""
    before = dict(CallCode._value2member_map_)
    for i in range(100):
        assert not CallCode(f"new_{i}").known
    assert CallCode._value2member_map_ == before
    assert CallCode("new_1") is not CallCode("new_1")
    assert CallCode("new_1") == CallCode("new_1")


def test_a_word_must_still_be_a_short_string() -> None:
    for bad in (3, ["play"], "x" * 65, True):
        frame = {"t": "turn", "seq": 1, "shooter": 0, "deadline_ms": 5, "phase": bad}
        with pytest.raises(BadField) as info:
            decode_server(msgpack.packb(frame))
        assert info.value.field == "phase"


def test_structural_words_stay_closed() -> None:
    """Ball names and a replay entry's kind are not extended by a newer server: an unknown one
    is refused, naming the path and the known words."""
    _, state = STATES[5]
    frame = _frame(tc.Snapshot(seq=1, room=room_view(), match=match_view(state)))
    frame["match"]["cue_ball"] = "blue"  # type: ignore[index]
    with pytest.raises(BadField) as info:
        decode_server(msgpack.packb(frame))
    assert info.value.field == "match.cue_ball"
    assert "match.cue_ball must be one of red, white, yellow, got 'blue'" in info.value.message
    with pytest.raises(BadField) as info:
        pv.ReplayStroke.from_wire({"n": 1, "kind": "trick", "seat": 0, "played_ms": 1}, "s[0]")
    assert info.value.field == "s[0].kind"
    assert "clock, lag, place, stroke" in info.value.message
    assert set(ReplayKind) == {"lag", "stroke", "clock", "place"}


@pytest.mark.parametrize("t", ["create_room", "queue", "leaderboard"])
def test_a_client_may_only_ask_for_a_known_discipline(t: str) -> None:
    with pytest.raises(BadField) as info:
        decode(msgpack.packb({"t": t, "discipline": "snooker"}))
    assert info.value.field == "discipline"
    known = ", ".join(sorted(d.value for d in Discipline))
    assert info.value.message == f"discipline must be one of {known}, got 'snooker'"
    ok = decode(msgpack.packb({"t": t, "discipline": "one_cushion"}))
    assert ok.discipline is Discipline.ONE_CUSHION  # type: ignore[attr-defined]


def test_our_code_may_give_a_word_as_its_string() -> None:
    """Built by our code with a plain string (tests, scenes), a word becomes its member."""
    turn = tc.Turn(seq=1, shooter=None, deadline_ms=None, phase="timeout")  # type: ignore[arg-type]
    assert turn.phase is Phase.TIMEOUT
    with pytest.raises(BadField) as info:
        pv.PlayedStroke(cue=pv.CueParams(direction=0, speed=1), ball="blue")  # type: ignore[arg-type]
    assert info.value.field == "ball"
