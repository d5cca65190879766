"""Log lines without secrets: identity tokens, seat tokens and passwords never reach a log.

Messages and inbox items are dataclasses whose ``repr`` would print every field, secrets
included (``Hello(... token='…')``). :func:`redacted` prints the same shape with every secret
field replaced by ``'<redacted>'``; every log line that shows a message or an item uses it.
"""

from __future__ import annotations

import dataclasses
from typing import Final

SECRET_FIELDS: Final = frozenset({"token", "seat_token", "password", "token_hash", "password_hash"})
HIDDEN: Final = "<redacted>"


def redacted(obj: object, depth: int = 0) -> str:
    """``repr(obj)`` with the value of every secret field hidden, nested dataclasses too."""
    if depth > 4 or not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        if isinstance(obj, str | bytes) and len(obj) > 200:
            return repr(obj[:200]) + "…"
        return repr(obj) if not dataclasses.is_dataclass(obj) else type(obj).__name__
    parts = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name, None)
        secret = f.name in SECRET_FIELDS and value
        parts.append(f"{f.name}={repr(HIDDEN) if secret else redacted(value, depth + 1)}")
    return f"{type(obj).__name__}({', '.join(parts)})"
