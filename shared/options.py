"""The room options, once: name, type, bounds, default, label and help of each.

Every place that knows about a room option reads this table instead of spelling the option out:
the referee's checks (``shared.rules.options.MatchOptions``), the wire checks of ``create_room``
(``shared.protocol.to_server``), the desktop client's create-room pickers
(``client.app.lobby_view``) and the options table of ``docs/protocol.md`` (``python -m
shared.options`` prints it; a test keeps the document equal to it). The typed classes that carry
the options (``MatchOptions``, ``CreateRoom``, ``SentOptions``, ``RoomOptions``) still declare a
typed field each, so that code reading them is checked by mypy; a test fails, naming the class
and the option, when one of them disagrees with this table.

Pure data: it imports nothing of the rules or the protocol, so both can import it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Final

from shared.table import TABLES

Value = int | float | bool | str


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One room option."""

    name: str  # the wire name and the referee's field name
    kind: type[int] | type[float] | type[bool] | type[str]
    label: str  # what a person reads beside the picker
    help: str  # one sentence: what it does, and the default when it is derived
    rule: str  # the rule id it sets (RULES.md); "" for the game's own options
    default: Value | None  # the referee's default; None: derived (the help says how)
    low: float | None = None  # bounds of a number, inclusive
    high: float | None = None
    choices: tuple[str, ...] = ()  # the allowed strings
    picks: tuple[Value | None, ...] = ()  # the desktop picker's values (None: the default)
    wire: bool = True  # sent in create_room and shown in room.options
    default_text: str = "derived"  # the docs' word for a None default

    def problem(self, value: object) -> str | None:
        """Why ``value`` is refused (a sentence naming the option), or None when it is fine."""
        if self.kind is bool:
            return None if isinstance(value, bool) else f"{self.name} must be true or false"
        if self.kind is str:
            if isinstance(value, str) and (not self.choices or value in self.choices):
                return None
            return f"unknown {self.name} {value!r}; known: {', '.join(self.choices)}"
        if isinstance(value, bool) or not isinstance(value, int | float):
            return f"{self.name} must be a number, got {value!r}"
        if self.kind is int and not isinstance(value, int):
            return f"{self.name} must be a whole number, got {value!r}"
        assert self.low is not None and self.high is not None
        if not self.low <= value <= self.high:
            return f"{self.name} must be in [{_num(self.low)}, {_num(self.high)}], got {value}"
        return None

    def bounds_text(self) -> str:
        if self.kind is bool:
            return "true or false"
        if self.kind is str:
            return ", ".join(f"`{c}`" for c in self.choices)
        assert self.low is not None and self.high is not None
        unit = " m" if self.kind is float else ""
        return f"{_num(self.low)}–{_num(self.high)}{unit}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


# The corner zones' legs: at most half a table's width (where a short cushion's two triangles
# meet); the referee checks the room's own table, the wire the widest.
_MAX_LEG = max(spec.width for spec in TABLES.values()) / 2

ROOM_OPTIONS: Final[tuple[OptionSpec, ...]] = (
    OptionSpec(
        "distance",
        int,
        "Distance (points)",
        "Points to win a game; default by discipline (25 in three-cushion).",
        "R-END-1",
        None,
        1,
        10_000,
        picks=(None, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 300, 400),
    ),
    OptionSpec(
        "shot_clock_s",
        int,
        "Shot clock (s)",
        "Seconds for each stroke, counted from the moment the balls are at rest.",
        "R-CLOCK-1",
        30,
        5,
        600,
        picks=(30, 20, 40, 45, 60, 90),
    ),
    OptionSpec(
        "innings_limit",
        int,
        "Innings limit",
        "The match ends after this many innings; default none.",
        "R-END-3",
        None,
        1,
        10_000,
        picks=(None, 10, 15, 20, 25, 30, 40, 50, 60, 80),
        default_text="none",
    ),
    OptionSpec(
        "sets",
        int,
        "Sets (best of)",
        "Best of this many games.",
        "R-END-4",
        1,
        1,
        9,
        picks=(1, 3, 5),
    ),
    OptionSpec(
        "equalizing",
        bool,
        "Equalizing inning",
        "Whether the player who did not break gets the last inning; default on for a single "
        "game, off in set play.",
        "R-END-2",
        None,
        picks=(None, True, False),
    ),
    OptionSpec(
        "timeout_s",
        int,
        "Time-out length (s)",
        "How long a time-out lasts.",
        "R-TIMEOUT-1",
        60,
        1,
        300,
        picks=(60, 30, 120, 180, 300),
    ),
    OptionSpec(
        "timeouts_per_game",
        int,
        "Time-outs per game",
        "Time-outs each player may take in a match (one more in a deciding set).",
        "R-TIMEOUT-1",
        1,
        0,
        10,
        wire=False,
    ),
    OptionSpec(
        "grace_s",
        int,
        "Reconnect grace (s)",
        "How long a dropped player has to come back before forfeiting.",
        "R-END-5",
        60,
        1,
        3600,
        picks=(60, 30, 120, 300),
    ),
    OptionSpec(
        "no_show_s",
        int,
        "No-show grace (s)",
        "How long a seated player may be absent when the match starts.",
        "R-END-5",
        120,
        1,
        3600,
        wire=False,
    ),
    OptionSpec(
        "table",
        str,
        "Table",
        "The table's size.",
        "R-TABLE-1",
        "match",
        choices=tuple(TABLES),
        picks=tuple(TABLES),
    ),
    OptionSpec(
        "practice",
        bool,
        "Practice (one player)",
        "One player, no lag, no clock; balls can be placed by hand.",
        "",
        False,
        picks=(False, True),
    ),
    OptionSpec(
        "corner_zone_leg",
        float,
        "Corner zones (m)",
        "The legs of straight rail's corner triangles; default 0.71 m on the match table, "
        "scaled with the table's length, at most half the table's width.",
        "R-DISC-FREE",
        None,
        0.1,
        _MAX_LEG,
    ),
    OptionSpec(
        "team_mode",
        str,
        "Players",
        "Singles (one against one), doubles (partners take their side's innings in turn) or "
        "Scotch doubles (partners alternate strokes).",
        "R-TEAM-1",
        "singles",
        choices=("singles", "doubles", "scotch"),
        picks=("singles", "doubles", "scotch"),
    ),
)

BY_NAME: Final[dict[str, OptionSpec]] = {o.name: o for o in ROOM_OPTIONS}
WIRE_OPTIONS: Final[tuple[OptionSpec, ...]] = tuple(o for o in ROOM_OPTIONS if o.wire)


def markdown_table() -> str:
    """The options table of docs/protocol.md."""
    rows = [
        "| option | type | allowed | default | rule | what it does |",
        "|---|---|---|---|---|---|",
    ]
    for o in WIRE_OPTIONS:
        default = o.default_text if o.default is None else f"`{str(o.default).lower()}`"
        if isinstance(o.default, str):
            default = f"`{o.default}`"
        kind = {int: "integer", float: "number", bool: "boolean", str: "string"}[o.kind]
        rows.append(
            f"| `{o.name}` | {kind} | {o.bounds_text()} | {default} | {o.rule or '—'} | {o.help} |"
        )
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown_table())
