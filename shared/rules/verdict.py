"""What the referee decides: fouls, announcements, the end of a game, and the player's mistakes.

``apply`` returns a :class:`Verdict` beside the new state. Everything a human referee would say
is a :class:`Call` (RULES.md §10); every turn change carries its reason (R-CALL-1).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

from shared.table import BallName, Point

Seat = int  # 0 or 1


class IllegalAction(Exception):
    """The player (or the server on a player's behalf) tried something the rules refuse.

    ``code`` is the protocol's stable error code (PROTOCOL.md "Errors"); the message is a
    sentence for a person. An illegal action never changes the state. ``rule_id`` names the
    RULES.md rule that refused it, when one did (R-PLAY-4 for ``balls_moving``, R-TIMEOUT-1 for
    a time-out out of turn...): a refusal is that rule applied, and rule coverage counts it.
    """

    def __init__(self, code: str, message: str, rule_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule_id = rule_id


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
    next_slot: int | None = None  # R-TEAM-1: the partner of ``next_shooter`` who strikes
    game_over: GameOver | None = None  # the whole match is over
    set_over: GameOver | None = None  # a set ended (set play); the match may go on
    lag_winner: Seat | None = None
    lag_reason: str | None = None  # wire word: "nearer", "touched_red", "crossed", ...
    lag_repeat: bool = False  # the lag is played again
    # The RULES.md ids this transition applied, each once, in the order applied: the rules that
    # decided something (a foul, a point, a re-spot, a deadline...), announced or not. Data for
    # tests and tools (rule coverage counts the ids that really fire); never sent or stored: the
    # wire and the database keep the calls' and fouls' own rule ids.
    rules: tuple[str, ...] = ()


# Announcements that apply a rule of RULES.md §10 (or §6) beside the one their ``rule_id`` names:
# the call is that rule at work. A call code not listed adds only its own ``rule_id``.
CALL_RULES: Mapping[str, tuple[str, ...]] = {
    "good": ("R-CALL-1",),
    "miss": ("R-CALL-1",),
    "foul": ("R-CALL-1",),
    # R-FROZEN-1: "the referee announces it"; touching is R-FROZEN-5's geometry on the balls'
    # size (R-BALL-1).
    "frozen": ("R-FROZEN-1", "R-FROZEN-5", "R-BALL-1"),
    "zone_in": ("R-CALL-4",),
    "zone_armed": ("R-CALL-4",),
    # A ball astride a line is judged inside (R-ZONE-LINE) and announced as such.
    "zone_line": ("R-CALL-4", "R-ZONE-LINE"),
}
# Calls whose wire ``rule_id`` is broader than the rule that decided: every lag repeat is sent
# as R-LAG-4 and every end of a match as R-END-1 (clients and recorded games keep those). The
# verdict names the deciding rule itself (``lag.judge_lag``'s rule, ``game.finish``'s
# termination rule), so these calls add nothing.
UNSPECIFIC_CALLS: frozenset[str] = frozenset({"lag_repeat", "game_over"})


def merge_rules(*groups: Iterable[str]) -> tuple[str, ...]:
    """The ids of ``groups`` in order, each once."""
    return tuple(dict.fromkeys(i for group in groups for i in group))


def with_rules(verdict: Verdict, *ids: str) -> Verdict:
    """``verdict`` that also names ``ids`` as applied."""
    return replace(verdict, rules=merge_rules(verdict.rules, ids))


def named(verdict: Verdict) -> Verdict:
    """``verdict`` naming, beside its own ``rules``, its foul's rule and the rules its calls
    announce (``CALL_RULES``): what ``apply`` returns."""
    announced: list[str] = []
    if verdict.foul is not None:
        announced.append(verdict.foul.rule_id)
    for call in verdict.calls:
        if call.code not in UNSPECIFIC_CALLS:
            announced.append(call.rule_id)
        announced.extend(CALL_RULES.get(call.code, ()))
    return replace(verdict, rules=merge_rules(verdict.rules, announced))
