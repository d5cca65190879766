"""The one options table (shared/options.py) and every place derived from it agree: the referee's
MatchOptions, the wire's create_room, replay and room views, the desktop client's pickers and the
docs. Adding an option means adding a row there; these tests name whatever else still disagrees."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from shared.options import BY_NAME, ROOM_OPTIONS, WIRE_OPTIONS, OptionSpec, markdown_table
from shared.protocol import to_server as ts
from shared.protocol.errors import BadField
from shared.protocol.views import RoomOptions, SentOptions
from shared.rules import MatchOptions
from shared.wireviews import options_from_view, room_options

ROOT = Path(__file__).resolve().parents[2]
WIRE_NAMES = {o.name for o in WIRE_OPTIONS}


def names(cls: type, less: set[str]) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)} - less


def test_every_typed_carrier_has_exactly_the_tables_options() -> None:
    assert names(MatchOptions, {"discipline"}) == {o.name for o in ROOM_OPTIONS}
    assert names(ts.CreateRoom, {"discipline", "private", "password", "id"}) == WIRE_NAMES
    assert names(SentOptions, {"discipline", "private"}) == WIRE_NAMES
    assert names(RoomOptions, {"discipline"}) == WIRE_NAMES


def test_the_referees_defaults_are_the_tables() -> None:
    defaults = MatchOptions()
    for o in ROOM_OPTIONS:
        assert getattr(defaults, o.name) == o.default, o.name


def _outside(o: OptionSpec) -> list[object]:
    if o.kind is bool:
        return ["yes", 1]
    if o.kind is str:
        return ["no_such_" + o.name]
    assert o.low is not None and o.high is not None
    step = 1 if o.kind is int else 0.001
    return [o.low - step, o.high + step, True]


def _inside(o: OptionSpec) -> list[object]:
    if o.kind is bool:
        return [True, False]
    if o.kind is str:
        return list(o.choices)
    assert o.low is not None and o.high is not None
    kind = int if o.kind is int else float
    return [kind(o.low), kind(o.high) if o.name != "corner_zone_leg" else 0.5]


@pytest.mark.parametrize("option", WIRE_OPTIONS, ids=lambda o: o.name)
def test_the_wire_and_the_referee_refuse_and_accept_the_same_values(option: OptionSpec) -> None:
    for value in _outside(option):
        with pytest.raises(BadField, match=option.name):
            ts.CreateRoom(discipline="three_cushion", **{option.name: value})
        with pytest.raises(ValueError, match=option.name):
            MatchOptions(**{option.name: value})
    for value in _inside(option):
        msg = ts.CreateRoom(discipline="straight_rail", **{option.name: value})
        referee = MatchOptions(discipline="straight_rail", **{option.name: value})  # type: ignore[arg-type]
        assert getattr(msg, option.name) == value
        # The room shows the value in force, and a client rebuilds the same options from it.
        shown = room_options(referee)
        assert getattr(shown, option.name) == value
        assert room_options(options_from_view(shown)) == shown


def test_the_desktop_pickers_offer_every_option_with_picker_values() -> None:
    from client.app.lobby_view import CreateDialog

    dialog = CreateDialog(0, 800)
    for o in WIRE_OPTIONS:
        if o.picks:
            picker = dialog.pickers[o.name]
            assert picker.label == o.label and tuple(picker.choices) == o.picks, o.name
    # The dialog's first values send nothing but what the table says is the default.
    sent = dialog.options()
    assert all(sent[k] == BY_NAME[k].default for k in sent if k in BY_NAME), sent


def test_the_docs_options_table_is_the_generated_one() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    found = re.search(r"<!-- options:begin -->\n(.*?)<!-- options:end -->", text, re.S)
    assert found is not None, "docs/protocol.md lost its options table markers"
    assert found[1] == markdown_table(), "run: python -m shared.options, and paste the table"
