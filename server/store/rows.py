"""Database rows as the protocol's typed views (``matches``, ``replay``, ``profile``).

The store keeps JSON and msgpack it wrote itself; reading it back through the views' decoders
checks every row once, so a damaged or outdated row fails here, naming its field, instead of
reaching a client as a map it cannot read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server.core.record import RoomSettings
from shared.protocol import views as pv


def match_rows(rows: list[dict[str, Any]]) -> tuple[pv.MatchRow, ...]:
    """``matches`` entries from ``Store.list_matches``."""
    return tuple(pv.MatchRow.from_wire(r, f"matches[{i}]") for i, r in enumerate(rows))


def replay_room(match: Mapping[str, Any]) -> pv.ReplayRoom:
    """``replay.room`` from ``Store.match``: the stored options (any record version) as the
    wire shows them, as sent."""
    sent = RoomSettings.from_record(match["options"]).sent()
    return pv.ReplayRoom.from_wire({**match, "options": sent}, "room")


def scoresheet(sheet: object) -> pv.Scoresheet | None:
    return None if sheet is None else pv.Scoresheet.from_wire(sheet, "scoresheet")


def replay_stroke(row: Mapping[str, Any]) -> pv.ReplayStroke:
    """One ``replay.strokes`` entry: ``n``, ``kind``, ``seat``, ``played_ms`` and the stored
    record (the map that was broadcast)."""
    return pv.ReplayStroke.from_wire(row, f"strokes[{row.get('n')}]")


def leader_rows(rows: list[dict[str, Any]]) -> tuple[pv.LeaderRow, ...]:
    return tuple(pv.LeaderRow.from_wire(r, f"rows[{i}]") for i, r in enumerate(rows))


def standing_rows(rows: list[dict[str, Any]]) -> tuple[pv.StandingRow, ...]:
    return tuple(pv.StandingRow.from_wire(r, f"standings[{i}]") for i, r in enumerate(rows))


def profile_matches(rows: list[dict[str, Any]]) -> tuple[pv.ProfileMatch, ...]:
    return tuple(pv.ProfileMatch.from_wire(r, f"matches[{i}]") for i, r in enumerate(rows))
