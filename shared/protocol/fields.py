"""Field checks used by every message's ``__post_init__``.

Each check raises :class:`BadField` naming the field, so a client learns exactly what was wrong.
msgpack gives us ``bool``, ``int``, ``float``, ``str``, ``bytes``, ``list``, ``dict``, ``None``
and ext objects; ``bool`` is a subclass of ``int`` in Python, so every numeric check refuses it
explicitly.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Collection
from typing import Any, Final

from shared.protocol.errors import BadField

# JavaScript-safe integer range: ids and times must survive a round trip through a JS client.
MAX_SAFE_INT = 2**53 - 1


def _name(value: object) -> str:
    return type(value).__name__


def check_int(name: str, value: object, lo: int = -MAX_SAFE_INT, hi: int = MAX_SAFE_INT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadField(f"{name} must be an integer, got {_name(value)}", field=name)
    if not lo <= value <= hi:
        raise BadField(f"{name} must be in [{lo}, {hi}], got {value}", field=name)
    return value


def check_opt_int(
    name: str, value: object, lo: int = -MAX_SAFE_INT, hi: int = MAX_SAFE_INT
) -> int | None:
    return None if value is None else check_int(name, value, lo, hi)


def check_number(
    name: str,
    value: object,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
) -> float:
    """A finite int or float in the range; ``lo_open``/``hi_open`` exclude the bound."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadField(f"{name} must be a number, got {_name(value)}", field=name)
    if isinstance(value, int) and abs(value) > MAX_SAFE_INT:
        raise BadField(f"{name} is too large: {value}", field=name)
    if not math.isfinite(value):
        raise BadField(f"{name} must be a finite number, got {value!r}", field=name)
    below = value <= lo if lo_open else value < lo
    above = value >= hi if hi_open else value > hi
    if below or above:
        left = "(" if lo_open else "["
        right = ")" if hi_open else "]"
        raise BadField(f"{name} must be in {left}{lo}, {hi}{right}, got {value}", field=name)
    return float(value)


def check_str(name: str, value: object, max_len: int, min_len: int = 0) -> str:
    if not isinstance(value, str):
        raise BadField(f"{name} must be a string, got {_name(value)}", field=name)
    if not min_len <= len(value) <= max_len:
        raise BadField(
            f"{name} must be {min_len} to {max_len} characters long, got {len(value)}", field=name
        )
    return value


def check_opt_str(name: str, value: object, max_len: int, min_len: int = 0) -> str | None:
    return None if value is None else check_str(name, value, max_len, min_len)


# Unicode categories a person cannot see or that change how the text around them shows:
# controls (Cc), format characters (Cf: bidi overrides such as U+202E, zero-width spaces and
# joiners, the BOM), line and paragraph separators (Zl, Zp: U+2028, U+2029), surrogates (Cs),
# private use (Co) and unassigned code points (Cn).
HIDDEN_CATEGORIES: Final = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def check_text(name: str, value: object, max_len: int, min_len: int = 0) -> str:
    """A string a person will read: no control or invisible characters (they could spoof
    other lines, reorder what others see, or make two different names look the same)."""
    text = check_str(name, value, max_len, min_len)
    if any(unicodedata.category(c) in HIDDEN_CATEGORIES for c in text):
        raise BadField(f"{name} must not contain control or invisible characters", field=name)
    return text


def check_bool(name: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise BadField(f"{name} must be true or false, got {_name(value)}", field=name)
    return value


def check_opt_bool(name: str, value: object) -> bool | None:
    return None if value is None else check_bool(name, value)


def check_choice(name: str, value: object, choices: Collection[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        shown = value if isinstance(value, str) else _name(value)
        raise BadField(
            f"{name} must be one of {', '.join(sorted(choices))}, got {shown!r}", field=name
        )
    return value


def check_opt_seat(name: str, value: object) -> int | None:
    return check_opt_int(name, value, 0, 1)


def check_list(name: str, value: object, max_len: int = 1_000_000) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise BadField(f"{name} must be a list, got {_name(value)}", field=name)
    if len(value) > max_len:
        raise BadField(f"{name} has too many entries: {len(value)} > {max_len}", field=name)
    return list(value)


def check_point(
    name: str, value: object, lo: float = -10.0, hi: float = 10.0
) -> tuple[float, float]:
    """An ``[x, y]`` pair of finite numbers in metres."""
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise BadField(f"{name} must be a pair [x, y], got {_name(value)}", field=name)
    x = check_number(f"{name}[0]", value[0], lo, hi)
    y = check_number(f"{name}[1]", value[1], lo, hi)
    return (x, y)
