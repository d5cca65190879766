"""Glicko-2 against Glickman's worked example and the properties a player would notice."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.ratings import Game, Rating, decay, expected_score, period_of, rate


def test_reproduces_the_papers_worked_example() -> None:
    # Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to
    # 1550/100 and 1700/300 in one period, τ = 0.5.
    player = Rating(1500, 200, 0.06)
    games = [
        Game(Rating(1400, 30), 1.0),
        Game(Rating(1550, 100), 0.0),
        Game(Rating(1700, 300), 0.0),
    ]
    after = rate(player, games, tau=0.5)
    # The paper works on the Glicko-2 scale and prints μ' = -0.2069, φ' = 0.8722, σ' = 0.05999,
    # then converts those rounded values: 173.7178 × -0.2069 + 1500 = 1464.06 and
    # 173.7178 × 0.8722 = 151.52. Unrounded, μ' is -0.20694, i.e. 1464.05: the paper's last
    # printed digit comes from its rounding, so we check its printed digits the way it got them.
    mu = round((after.rating - 1500) / 173.7178, 4)
    phi = round(after.deviation / 173.7178, 4)
    assert (mu, phi) == (-0.2069, 0.8722)
    assert f"{173.7178 * mu + 1500:.2f}" == "1464.06"
    assert f"{173.7178 * phi:.2f}" == "151.52"
    # σ' = 0.0599960, which the paper prints cut to five places (not rounded): 0.05999.
    assert math.floor(after.volatility * 1e5) / 1e5 == 0.05999
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)
    assert after.rating == pytest.approx(1464.06, abs=0.011)
    assert after.deviation == pytest.approx(151.52, abs=0.005)


def test_a_win_raises_a_loss_lowers_a_draw_between_equals_keeps() -> None:
    a, b = Rating(1500, 200), Rating(1500, 200)
    assert rate(a, [Game(b, 1.0)]).rating > 1500 > rate(a, [Game(b, 0.0)]).rating
    assert rate(a, [Game(b, 0.5)]).rating == pytest.approx(1500)
    # Playing makes the rating better known.
    assert rate(a, [Game(b, 0.5)]).deviation < 200


def test_beating_a_stronger_player_is_worth_more() -> None:
    me = Rating(1500, 100)
    weak, strong = Rating(1300, 50), Rating(1700, 50)
    assert rate(me, [Game(strong, 1.0)]).rating - 1500 > rate(me, [Game(weak, 1.0)]).rating - 1500
    assert expected_score(me, strong) < 0.5 < expected_score(me, weak)


def test_inactivity_grows_the_deviation_up_to_a_newcomers() -> None:
    settled = Rating(1800, 60, 0.06)
    one = rate(settled, [])
    assert one.rating == 1800 and one.volatility == 0.06 and one.deviation > 60
    assert decay(settled, 1) == one
    ten = decay(settled, 10)
    assert ten.deviation > one.deviation
    assert decay(settled, 10_000).deviation == 350.0
    assert decay(settled, 0) == settled
    assert not settled.provisional and Rating().provisional


def test_periods_and_bad_values() -> None:
    day = 86_400.0
    assert period_of(0, day) == 0 and period_of(86_399_999, day) == 0
    assert period_of(86_400_000, day) == 1
    with pytest.raises(ValueError):
        Game(Rating(), 0.7)
    with pytest.raises(ValueError):
        Rating(1500, 0)
    with pytest.raises(ValueError):
        decay(Rating(), -1)


ratings = st.builds(
    Rating,
    rating=st.floats(600, 2800),
    deviation=st.floats(30, 350),
    volatility=st.floats(0.03, 0.1),
)


@settings(max_examples=200, deadline=None)
@given(ratings, ratings)
def test_a_win_raises_a_loss_lowers_and_a_game_narrows_the_deviation(
    me: Rating, other: Rating
) -> None:
    won, lost = rate(me, [Game(other, 1.0)]), rate(me, [Game(other, 0.0)])
    drew = rate(me, [Game(other, 0.5)])
    assert lost.rating < drew.rating < won.rating
    assert lost.rating < me.rating < won.rating
    for after in (won, lost, drew):
        # A game tells more than no game at the same volatility (steps 6–7: φ' < φ*). A
        # surprising result raises the volatility, so it may end a hair above an idle period.
        same_sigma = decay(Rating(me.rating, me.deviation, after.volatility), 1)
        assert after.deviation <= same_sigma.deviation
        assert 0 < after.volatility < 1
