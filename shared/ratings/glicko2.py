"""Glicko-2, as in Mark Glickman's "Example of the Glicko-2 system" (Boston University, 2022).

Step numbers in the comments are the paper's. Ratings are on the Glicko scale (1500 ± 350 for a
new player); the algorithm works on the Glicko-2 scale, ``(r - 1500) / 173.7178``.

The paper updates every player once per *rating period*, from all the games of that period,
using the ratings everyone had when it began. The server keeps that exactly: a standing stores
the values at the start of the current period plus that period's games, and the rating shown
is :func:`rate` over those games (so it equals the paper's batch result once the period ends).
A player who plays in no period has only step 6 applied for it (:func:`decay`): the deviation
grows with the volatility, so an inactive player's rating becomes uncertain again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

SCALE: Final = 173.7178  # Glicko → Glicko-2 (paper, step 2)
DEFAULT_RATING: Final = 1500.0
DEFAULT_DEVIATION: Final = 350.0
DEFAULT_VOLATILITY: Final = 0.06
# τ constrains how fast volatility moves; the paper suggests 0.3–1.2 and uses 0.5 in its example.
DEFAULT_TAU: Final = 0.5
EPSILON: Final = 0.000001  # convergence tolerance of step 5 (the paper's value)
# Above this deviation a rating is "provisional": listed, but flagged (the 95% interval is wider
# than ±220 points). Lichess uses 110 on the same scale for the same purpose.
PROVISIONAL_DEVIATION: Final = 110.0


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rating) and self.deviation > 0 and self.volatility > 0):
            raise ValueError(f"not a rating: {self}")

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL_DEVIATION


@dataclass(frozen=True, slots=True)
class Game:
    """One game of the period against an opponent as rated at the start of the period.
    ``score``: 1 a win, 0.5 a draw, 0 a loss."""

    opponent: Rating
    score: float

    def __post_init__(self) -> None:
        if self.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game's score is 0, 0.5 or 1, not {self.score}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """E(μ, μ_j, φ_j): the player's expected score against this opponent (paper, step 3)."""
    return _e(
        (player.rating - DEFAULT_RATING) / SCALE,
        (opponent.rating - DEFAULT_RATING) / SCALE,
        opponent.deviation / SCALE,
    )


def _volatility(phi: float, sigma: float, delta: float, v: float, tau: float) -> float:
    """Step 5: the new volatility, by the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2) - (x - a) / (
            tau * tau
        )

    big_a = a
    if delta * delta > phi2 + v:
        big_b = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def rate(
    player: Rating,
    games: Sequence[Game],
    tau: float = DEFAULT_TAU,
    max_deviation: float = DEFAULT_DEVIATION,
) -> Rating:
    """The player's rating after one rating period with these games (steps 2–8).

    No games: only the deviation grows (step 6 with σ' = σ), capped at ``max_deviation`` so a
    long-gone player is never less known than a newcomer.
    """
    if not games:
        return decay(player, 1, max_deviation)
    mu = (player.rating - DEFAULT_RATING) / SCALE  # step 2
    phi = player.deviation / SCALE
    inv_v = 0.0
    improvement = 0.0
    for game in games:  # steps 3 and 4
        mu_j = (game.opponent.rating - DEFAULT_RATING) / SCALE
        phi_j = game.opponent.deviation / SCALE
        g = _g(phi_j)
        e = _e(mu, mu_j, phi_j)
        inv_v += g * g * e * (1.0 - e)
        improvement += g * (game.score - e)
    v = 1.0 / inv_v
    delta = v * improvement
    sigma = _volatility(phi, player.volatility, delta, v, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma * sigma)  # step 6
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)  # step 7
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(  # step 8
        rating=SCALE * mu_new + DEFAULT_RATING,
        deviation=min(max_deviation, SCALE * phi_new),
        volatility=sigma,
    )


def decay(player: Rating, periods: int, max_deviation: float = DEFAULT_DEVIATION) -> Rating:
    """``periods`` rating periods without a game: φ' = √(φ² + n σ²) (step 6 applied n times)."""
    if periods < 0:
        raise ValueError("periods must be >= 0")
    if periods == 0:
        return player
    phi = player.deviation / SCALE
    phi_new = math.sqrt(phi * phi + periods * player.volatility * player.volatility)
    return Rating(player.rating, min(max_deviation, SCALE * phi_new), player.volatility)


def period_of(now_ms: int, period_s: float) -> int:
    """Which rating period a moment falls in (periods count from the Unix epoch)."""
    if period_s <= 0:
        raise ValueError("period_s must be > 0")
    return int(now_ms // int(period_s * 1000))
