"""The words of protocol v1 as types: phases, disciplines, end reasons, call codes, event kinds …

Each is a ``StrEnum``, so a member is its wire word (``Phase.PLAY == "play"``, msgpack packs it
as that string) and the bytes are those of v1. Code compares members (``phase is Phase.PLAY``),
never string literals.

**Open words.** A newer server may add a word an older client has never heard of (a phase, an
end reason, a call). Such a frame must still decode: an :class:`OpenEnum` turns an unknown
string into a member of its class that keeps the raw word (``str(member)`` and ``.value`` give
it back for display, ``.known`` is False) instead of refusing the frame. A client's ``if``
chains over known members simply do not match it. Where a client *sends* one of these words
(``create_room.discipline``), the field is marked :class:`~shared.protocol.bounds.Known` and an
unknown word is refused with the list of known ones.

**Closed words** are structural: the ball names (``BallName``, the table's own), the cushions, a
replay entry's ``kind`` (it decides how the rest of the entry is read), the break spot and the
lag winner's choice. An unknown value there is refused.

The rules package has enums of its own (``shared.rules.Phase``, ``Discipline``,
``Termination``); this module imports nothing of the rules. ``shared.wireviews`` maps one onto
the other, and a test checks that every rules value has a known wire member here.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Final, Literal, Self

from shared.table import BALLS, CUSHIONS, BallName, CushionName

__all__ = [
    "BALLS",
    "CUSHIONS",
    "SPOTS",
    "UNKNOWN",
    "BallName",
    "Breaker",
    "CallCode",
    "CushionName",
    "Discipline",
    "EndReason",
    "EventKind",
    "FoulCode",
    "LagReason",
    "MatchOutcome",
    "OpenEnum",
    "Phase",
    "ReplayKind",
    "SeatKey",
    "SeatStatus",
    "Spot",
]

UNKNOWN: Final = "UNKNOWN"  # the ``name`` of a member made from a word this release lacks


class OpenEnum(StrEnum):
    """A ``StrEnum`` that accepts words it does not know (see the module docstring).

    ``Cls("new_word")`` returns a member of ``Cls`` whose value is ``"new_word"``, whose name
    is ``UNKNOWN`` and whose ``known`` is False; it equals the string ``"new_word"`` and is
    encoded as it. Such members are not cached (a peer cannot grow the class), nor are they
    iterated by ``list(Cls)``."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        if not isinstance(value, str):
            return None
        member = str.__new__(cls, value)
        member._name_ = UNKNOWN
        member._value_ = value
        return member

    @property
    def known(self) -> bool:
        """Whether this release knows the word (False: a newer peer's word, kept as sent)."""
        return self._name_ != UNKNOWN

    @classmethod
    def known_member(cls, value: str) -> Self:
        """The member named by ``value``; ValueError when this release does not know it (for
        adapters that must not send a word the protocol has not declared)."""
        member = cls._value2member_map_.get(value)
        if member is None:
            raise ValueError(f"{value!r} is not a known {cls.__name__}")
        return member  # type: ignore[return-value]


class Phase(OpenEnum):
    """``match.phase``, ``rooms[].phase``, ``turn.phase`` (RULES.md: the match's phases)."""

    WAITING = "waiting"  # seats not yet filled
    LAG = "lag"  # R-LAG-*: both lag strokes awaited
    BREAK_CHOICE = "break_choice"  # R-LAG-6: the lag winner chooses who breaks
    PLAY = "play"
    TIMEOUT = "timeout"  # R-TIMEOUT-1: a time-out is running
    OVER = "over"


class Discipline(OpenEnum):
    """The carom disciplines (``create_room.discipline`` and every view naming one)."""

    THREE_CUSHION = "three_cushion"
    ONE_CUSHION = "one_cushion"
    STRAIGHT_RAIL = "straight_rail"
    BALKLINE_47_2 = "balkline_47_2"
    BALKLINE_47_1 = "balkline_47_1"
    BALKLINE_71_2 = "balkline_71_2"
    BALKLINE_71_1 = "balkline_71_1"


class EndReason(OpenEnum):
    """How a game or match ended (``game_over.reason``, ``result.reason``)."""

    DISTANCE = "distance"  # R-END-1
    EQUALIZED = "equalized"  # R-END-2: a draw in equal innings
    INNINGS_LIMIT = "innings_limit"  # R-END-3
    CONCEDE = "concede"  # R-END-5
    FORFEIT = "forfeit"  # R-END-5: disconnected past the grace time
    NO_SHOW = "no_show"  # R-END-5: absent at the start
    ABANDONED = "abandoned"  # both players gone: no winner
    BYE = "bye"  # a tournament match without an opponent (docs/tournaments.md)
    EMPTY = "empty"  # a tournament match with no player left to play it
    CANCELLED = "cancelled"  # the tournament was cancelled before this match had a result


class LagReason(OpenEnum):
    """Why the lag was won or repeated (``lag_result.reason``, ``match.lag.reason``)."""

    NEARER = "nearer"  # R-LAG-2
    NO_TOP_CUSHION = "no_top_cushion"  # R-LAG-2
    CROSSED = "crossed"  # R-LAG-4
    BALLS_TOUCHED = "balls_touched"  # R-LAG-4
    EQUAL = "equal"  # R-LAG-4
    TOUCHED_RED = "touched_red"  # R-LAG-5
    BOTH_TOUCHED_RED = "both_touched_red"  # R-LAG-5
    OFF_TABLE = "off_table"  # R-LAG-5 (docs/rules.md: off the table loses, like the red)
    BOTH_OFF_TABLE = "both_off_table"  # R-LAG-5
    NO_LAG_STROKE = "no_lag_stroke"  # R-CLOCK-2: a lag clock ran out
    COIN_TOSS = "coin_toss"  # R-LAG-6 (amended): an endless run of repeats


class CallCode(OpenEnum):
    """A referee announcement's ``code`` (``call.code``, ``result.calls[].code``; RULES.md
    §10)."""

    LAG = "lag"
    LAG_STROKE = "lag_stroke"
    LAG_REPEAT = "lag_repeat"
    LAG_WINNER = "lag_winner"
    BREAK = "break"
    REMATCH = "rematch"
    GOOD = "good"
    MISS = "miss"
    FOUL = "foul"
    TO_GO = "to_go"
    FROZEN = "frozen"
    RESPOT = "respot"
    ZONE_IN = "zone_in"
    ZONE_ARMED = "zone_armed"
    ZONE_LINE = "zone_line"
    EQUALIZING = "equalizing"
    TIME_OUT = "time_out"
    RESUME = "resume"
    SET_OVER = "set_over"
    GAME_OVER = "game_over"
    PARTNER_OUT = "partner_out"  # R-TEAM-7: a partner gone for good, the other plays on


class FoulCode(OpenEnum):
    """A foul's ``code`` (``result.foul.code``)."""

    CLOCK = "clock"  # R-FOUL-CLOCK
    OFF_TABLE = "off_table"  # R-OFF-1
    PUSH = "push"
    BREAK = "break"
    ZONE = "zone"


class EventKind(OpenEnum):
    """A physics event's ``kind`` (``stroke_played.events[].kind``; PHYSICS.md)."""

    STRIKE = "strike"
    BALL_BALL = "ball_ball"
    BALL_CUSHION = "ball_cushion"
    SLIDE_TO_ROLL = "slide_to_roll"
    ROLL_TO_SPIN = "roll_to_spin"
    SPIN_TO_REST = "spin_to_rest"
    AIRBORNE = "airborne"
    LAND = "land"
    OFF_TABLE = "off_table"
    REST = "rest"


class SeatStatus(OpenEnum):
    """``player_status.status``."""

    CONNECTED = "connected"
    DISCONNECTED = "disconnected"
    LEFT = "left"


class MatchOutcome(OpenEnum):
    """``profile.matches[].result``, from that player's side."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"


class ReplayKind(StrEnum):
    """``replay.strokes[].kind``: closed, it decides how the rest of the entry is read."""

    LAG = "lag"
    STROKE = "stroke"
    CLOCK = "clock"
    PLACE = "place"


Spot = Literal["left", "right"]  # R-BREAK-1: the breaker's starting spot
SPOTS: Final[tuple[Spot, ...]] = ("left", "right")
Breaker = Literal["me", "opponent"]  # choose_break: who breaks, from the lag winner's side
SeatKey = Literal["0", "1"]  # a seat as a map key (``lag.balls``, ``lag_result.strokes``)
