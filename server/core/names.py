"""When two names look the same to a person.

``skeleton`` folds what makes names differ only on the byte level: Unicode compatibility forms
(NFKC: full-width letters, ligatures), case, spaces and separators, and the Cyrillic and Greek
letters most often passed off as Latin ones. It is a small, deliberate subset of Unicode's
confusables (UTS #39); invisible characters never get this far (the protocol refuses them).
"""

from __future__ import annotations

import unicodedata
from typing import Final

# Cyrillic and Greek letters that look like Latin ones in common fonts (lower case, after
# casefold), mapped to the Latin letter.
LOOKALIKES: Final = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ј": "j", "ѕ": "s",
        "ԁ": "d", "ɡ": "g", "α": "a", "β": "b", "ε": "e", "ι": "i", "κ": "k", "ν": "v",
        "ο": "o", "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "0": "o", "1": "l", "|": "l",
    }
)  # fmt: skip


def skeleton(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold().translate(LOOKALIKES)
    return "".join(c for c in folded if c.isalnum())


def looks_alike(a: str, b: str) -> bool:
    return skeleton(a) == skeleton(b)
