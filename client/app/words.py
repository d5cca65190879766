"""Words on screen are for people: names instead of seats, no rule ids or error codes, and the
cushions named as the player sees the table.

The referee's texts (``call`` messages, fouls, the game-over reason) are written in the rules'
own frame: seats numbered from 0, the rule id in brackets, and the cushions named from the
table's length (``top`` is the far short cushion, RULES.md R-SPOT-1). The window draws the table
landscape with the bottom cushion on the left (``layout.py``), so ``top`` is the short cushion on
the right. The data and the logs keep the original; this module only rewrites what is drawn.

Pure functions, no arcade.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shared.protocol.enums import EndReason

# R-SPOT-1 cushion names → where each one is on this screen.
CUSHIONS_ON_SCREEN = {
    "top": "right short",
    "bottom": "left short",
    "left": "far long",
    "right": "near long",
}

REASONS = {
    EndReason.DISTANCE: "reached the distance",
    EndReason.EQUALIZED: "after the equalizing inning",
    EndReason.INNINGS_LIMIT: "on the innings limit",
    EndReason.CONCEDE: "the opponent conceded",
    EndReason.FORFEIT: "by forfeit",
    EndReason.NO_SHOW: "the opponent did not come back",
    EndReason.ABANDONED: "the match was abandoned",
}

# Plain sentences for the server's error codes (docs/protocol.md "Errors"); the code itself is
# never drawn.
ERRORS = {
    "no_such_room": "That room no longer exists.",
    "bad_password": "Wrong password for that room.",
    "room_full": "Both seats in that room are taken.",
    "already_in_room": "You are already in a room.",
    "not_in_room": "You are not in a room.",
    "not_your_turn": "It is not your turn.",
    "balls_moving": "Wait until the balls stop.",
    "wrong_phase": "That is not possible at this point of the match.",
    "clock_expired": "Your shot clock had run out.",
    "already_played": "You have already played your lag stroke.",
    "not_a_player": "Spectators cannot do that.",
    "bad_field": "The server did not accept that stroke.",
    "not_frozen": "The cue ball is not frozen.",
    "not_start_of_inning": "A time-out is only possible at the start of your inning.",
    "no_timeouts_left": "You have no time-outs left.",
    "rate_limited": "Too many requests; slow down a little.",
    "internal_error": "The server had a problem; nothing changed, please try again.",
    "ConnectionLost": "Not connected to the server.",
    "TimeoutError": "The server did not answer in time.",
}

_RULE_ID = re.compile(r"\s*\(?\bR-[A-Z0-9]+(?:-[A-Z0-9]+)*\)?")
_SEAT = re.compile(r"\b([Ss])eat (\d+)\b")
_CUSHION = re.compile(r"\b(top|bottom|left|right) cushion")
_NEARER = re.compile(r"\bnearer the (top|bottom)\b")
_WINS = re.compile(r"\bwins \((\w+)\)")
_PAIR_WINS = re.compile(r"( & [^.;:,()]+?) wins\b")
_DRAW = re.compile(r"\bDraw \((\w+)\)")
_CODE_PREFIX = re.compile(r"^[a-z]+(?:_[a-z]+)+: ")


def discipline_title(d: str) -> str:
    """``balkline_47_2`` → ``balkline 47/2``, ``three_cushion`` → ``three-cushion``."""
    if d.startswith("balkline_"):
        _, size, n = d.split("_")
        return f"balkline {size}/{n}"
    return d.replace("_", "-")


def plain(text: str, name_of: Callable[[int], str] | None = None) -> str:
    """A referee's or the server's sentence as a player should read it."""
    out = _RULE_ID.sub("", text)
    out = _CODE_PREFIX.sub("", out)
    if name_of is not None:
        out = _SEAT.sub(lambda m: name_of(int(m.group(2))), out)
    else:
        out = _SEAT.sub(
            lambda m: f"{'P' if m.group(1) == 'S' else 'p'}layer {int(m.group(2)) + 1}", out
        )
    out = _CUSHION.sub(lambda m: f"{CUSHIONS_ON_SCREEN[m.group(1)]} cushion", out)
    out = _NEARER.sub(lambda m: f"nearer the {CUSHIONS_ON_SCREEN[m.group(1)]} cushion", out)
    # The game-over sentence's reason code: "X wins (distance)." → "X wins: reached the distance."
    out = _WINS.sub(lambda m: f"wins: {reason_text(m.group(1))}", out)
    # A team's side is two partners ("Ann & Cid"): they win, not wins (R-TEAM-1).
    out = _PAIR_WINS.sub(r"\1 win", out)
    out = _DRAW.sub(lambda m: f"A draw, {reason_text(m.group(1))}", out)
    out = re.sub(r"\s+([.,;:])", r"\1", out)
    return re.sub(r"\s{2,}", " ", out).strip()


def error_text(code: str, message: str) -> str:
    """What a refused request says on screen: the server's sentence, or ours for the code."""
    msg = _CODE_PREFIX.sub("", message or "").strip()
    if msg[:1].isupper():  # the server's own sentence for a person (docs/protocol.md)
        return plain(msg)
    return ERRORS.get(code, "Something went wrong; please try again.")


def reason_text(reason: object) -> str:
    return REASONS.get(str(reason), str(reason).replace("_", " "))


# A test looks for these in everything drawn (issue 13 point 4).
JARGON = re.compile(r"\bseat\b|\bR-[A-Z]+(?:-[A-Z0-9]+)*|\b[a-z]+_[a-z_]+\b", re.IGNORECASE)
