"""Bounds written once, in a field's type: ``speed: Annotated[float, Range(0, MAX_SPEED,
lo_open=True)]``.

The typed decoder (``shared.protocol.typed``) reads them from the field declarations and checks
each value as it decodes it, so a frame is checked for types *and* ranges in one walk and the
error names the field's path (``match.set must be at least 0, got -1``). A message built by our
own code is checked against the same declarations when it is constructed. What is left in a
message's ``_validate`` is what no single field can say (``hypot(tip_x, tip_y)`` within the
miscue limit; a password only with ``private``).

Each bound checks a value that already has its base type (the decoder checks that first).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sized
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Final

from shared.protocol.errors import BadField

if TYPE_CHECKING:
    from shared.options import OptionSpec

# JavaScript-safe integer range: ids and times must survive a round trip through a JS client.
MAX_SAFE_INT: Final = 2**53 - 1

# Unicode categories a person cannot see or that change how the text around them shows:
# controls (Cc), format characters (Cf: bidi overrides such as U+202E, zero-width spaces and
# joiners, the BOM), line and paragraph separators (Zl, Zp: U+2028, U+2029), surrogates (Cs),
# private use (Co) and unassigned code points (Cn).
HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _num(x: float) -> str:
    return str(x)


@dataclass(frozen=True, slots=True)
class Range:
    """A number within ``[lo, hi]``; ``lo_open``/``hi_open`` exclude that end; None: unbounded
    on that side (an integer is still within the JavaScript-safe range)."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False
    hi_open: bool = False

    def check(self, value: Any, path: str) -> None:
        lo, hi = self.lo, self.hi
        below = lo is not None and (value <= lo if self.lo_open else value < lo)
        above = hi is not None and (value >= hi if self.hi_open else value > hi)
        if below or above:
            raise BadField(f"{path} must be {self.text()}, got {value}", field=path)

    def text(self) -> str:
        """The allowed values in words: ``in [0, 1]``, ``at least 1``, ``above 0``."""
        lo, hi = self.lo, self.hi
        if lo is not None and hi is not None:
            left = "(" if self.lo_open else "["
            right = ")" if self.hi_open else "]"
            return f"in {left}{_num(lo)}, {_num(hi)}{right}"
        if lo is not None:
            return f"above {_num(lo)}" if self.lo_open else f"at least {_num(lo)}"
        if hi is not None:
            return f"below {_num(hi)}" if self.hi_open else f"at most {_num(hi)}"
        return "a number"


@dataclass(frozen=True, slots=True)
class Length:
    """A string of ``lo`` to ``hi`` characters, or a list or map of ``lo`` to ``hi`` entries."""

    lo: int = 0
    hi: int = MAX_SAFE_INT

    def check(self, value: Sized, path: str) -> None:
        n = len(value)
        if self.lo <= n <= self.hi:
            return
        if isinstance(value, str):
            raise BadField(
                f"{path} must be {self.lo} to {self.hi} characters long, got {n}", field=path
            )
        if n < self.lo:
            entries = "entry" if self.lo == 1 else "entries"
            raise BadField(f"{path} must have at least {self.lo} {entries}, got {n}", field=path)
        raise BadField(f"{path} has too many entries: {n} > {self.hi}", field=path)


@dataclass(frozen=True, slots=True)
class Visible:
    """A string a person will read: no control or invisible characters (they could spoof other
    lines, reorder what others see, or make two different names look the same)."""

    def check(self, value: str, path: str) -> None:
        if value.isprintable() and value.isascii():
            return  # the common case, without a look-up per character
        if any(unicodedata.category(c) in HIDDEN_CATEGORIES for c in value):
            raise BadField(f"{path} must not contain control or invisible characters", field=path)


@dataclass(frozen=True, slots=True)
class Known:
    """An open word (``shared.protocol.enums.OpenEnum``) that must be one this release knows:
    a client may not ask for a discipline the server has never heard of."""

    def check(self, value: Any, path: str) -> None:
        if not value.known:
            choices = ", ".join(sorted(m.value for m in type(value)))
            raise BadField(f"{path} must be one of {choices}, got {str(value)!r}", field=path)


@dataclass(frozen=True, slots=True)
class Option:
    """A room option: its bounds are the options table's row (``shared.options``), so the wire
    refuses exactly what the referee would, with the table's own sentence."""

    spec: OptionSpec

    def check(self, value: Any, path: str) -> None:
        why = self.spec.problem(value)
        if why is not None:
            raise BadField(why, field=path)


Bound = Range | Length | Visible | Known | Option


# Short names for the bounds most fields share.
Seat = Annotated[int, Range(0, 1)]
Slot = Annotated[int, Range(0, 1)]  # a player's place in a side's line-up (R-TEAM-1)
Count = Annotated[int, Range(0)]  # a non-negative whole number (points, innings, seq …)
TimeMs = Annotated[int, Range(0)]  # ms since the epoch (server clock)
Positive = Annotated[int, Range(1)]  # an id or a 1-based number
Rating = Annotated[float, Range(0, 10_000)]
