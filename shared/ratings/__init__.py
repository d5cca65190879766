"""Player ratings: Glicko-2 (Glickman, "Example of the Glicko-2 system", 2022 revision). Pure."""

from __future__ import annotations

from shared.ratings.glicko2 import (
    DEFAULT_DEVIATION,
    DEFAULT_RATING,
    DEFAULT_VOLATILITY,
    PROVISIONAL_DEVIATION,
    Game,
    Rating,
    decay,
    expected_score,
    period_of,
    rate,
)

__all__ = [
    "DEFAULT_DEVIATION",
    "DEFAULT_RATING",
    "DEFAULT_VOLATILITY",
    "PROVISIONAL_DEVIATION",
    "Game",
    "Rating",
    "decay",
    "expected_score",
    "period_of",
    "rate",
]
