"""What the referee decides: fouls, announcements, the end of a game, and the player's mistakes.

``apply`` returns a :class:`Verdict` beside the new state. Everything a human referee would say
is a :class:`Call` (RULES.md §10); every turn change carries its reason (R-CALL-1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from shared.table import BallName, Point

Seat = int  # 0 or 1


class IllegalAction(Exception):
    """The player (or the server on a player's behalf) tried something the rules refuse.

    ``code`` is the protocol's stable error code (PROTOCOL.md "Errors"); the message is a
    sentence for a person. An illegal action never changes the state.
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Termination(StrEnum):
    """One member per way a game or match can end (python-chess style); values are wire words."""

    DISTANCE = "distance"  # R-END-1: a player reached the distance (or won the sets)
    EQUALIZED = "equalized"  # R-END-2: both reached the distance in equal innings: draw
    INNINGS_LIMIT = "innings_limit"  # R-END-3
    CONCEDE = "concede"  # R-END-5
    FORFEIT = "forfeit"  # R-END-5: disconnected past the grace time
    NO_SHOW = "no_show"  # R-END-5: absent at the start past the no-show grace
    ABANDONED = "abandoned"  # both players gone or silent: no winner


@dataclass(frozen=True, slots=True)
class GameOver:
    winner: Seat | None  # None: a draw (or an abandoned match)
    reason: Termination


@dataclass(frozen=True, slots=True)
class Foul:
    rule_id: str  # e.g. "R-FOUL-CLOCK"
    code: str  # wire word: "clock", "off_table", "push", "break", "zone"
    text: str


@dataclass(frozen=True, slots=True)
class Call:
    """A referee announcement (RULES.md §10)."""

    code: str  # wire word: "good", "miss", "foul", "to_go", "frozen", "zone_in", ...
    text: str
    rule_id: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """What one action decided, beside the new state."""

    points: int = 0  # points scored by this stroke (0 or 1)
    foul: Foul | None = None
    calls: tuple[Call, ...] = ()
    respots: Mapping[BallName, Point] = field(default_factory=dict)
    next_shooter: Seat | None = None
    game_over: GameOver | None = None  # the whole match is over
    set_over: GameOver | None = None  # a set ended (set play); the match may go on
    lag_winner: Seat | None = None
    lag_reason: str | None = None  # wire word: "nearer", "touched_red", "crossed", ...
    lag_repeat: bool = False  # the lag is played again
