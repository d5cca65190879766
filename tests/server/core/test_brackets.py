"""The formats' draws and pairings, and the table order (server/core/brackets.py)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.core.brackets import (
    Pairing,
    Played,
    bracket_size,
    knockout_first_round,
    knockout_next_round,
    round_robin_rounds,
    seed_positions,
    snake_groups,
    swiss_pairings,
    table,
)


def names(n: int) -> list[str]:
    return [f"s{i}" for i in range(1, n + 1)]  # s1 is seed 1


@pytest.mark.parametrize(
    ("size", "order"),
    [
        (2, [1, 2]),
        (4, [1, 4, 2, 3]),
        (8, [1, 8, 4, 5, 2, 7, 3, 6]),
    ],
)
def test_seed_positions_keep_the_best_seeds_apart(size: int, order: list[int]) -> None:
    assert seed_positions(size) == order


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128, 256])
def test_seeds_one_and_two_meet_only_in_the_final(size: int) -> None:
    order = seed_positions(size)
    assert sorted(order) == list(range(1, size + 1))
    half = size // 2
    assert (1 in order[:half]) != (2 in order[:half])
    # Each first-round pair sums to size + 1 (1 v size, 2 v size-1, ...).
    assert all(order[i] + order[i + 1] == size + 1 for i in range(0, size, 2))


def test_seed_positions_refuse_a_size_that_is_not_a_power_of_two() -> None:
    with pytest.raises(ValueError, match="power of two"):
        seed_positions(6)


@pytest.mark.parametrize(("n", "size"), [(2, 2), (3, 4), (5, 8), (8, 8), (9, 16), (256, 256)])
def test_bracket_size(n: int, size: int) -> None:
    assert bracket_size(n) == size


def test_a_field_of_five_gives_the_three_best_seeds_byes() -> None:
    first = knockout_first_round(names(5))
    assert first == [
        Pairing("s1", None),
        Pairing("s4", "s5"),
        Pairing("s2", None),
        Pairing("s3", None),
    ]


@given(st.integers(min_value=2, max_value=256))
def test_a_knockout_places_everyone_once_and_byes_only_to_the_best(n: int) -> None:
    players = names(n)
    first = knockout_first_round(players)
    placed = [p for pair in first for p in (pair.a, pair.b) if p is not None]
    assert sorted(placed) == sorted(players)
    byes = [int(pair.a[1:]) for pair in first if pair.b is None]
    assert len(byes) == bracket_size(n) - n
    assert sorted(byes) == list(range(1, len(byes) + 1))  # the best seeds get them


def test_the_next_round_pairs_neighbours_and_a_double_no_show_is_a_bye() -> None:
    assert knockout_next_round(["a", "b", None, "d", None, None]) == [
        Pairing("a", "b"),
        Pairing("d", None),
        None,
    ]


def test_snake_groups_share_the_seeds() -> None:
    assert snake_groups(names(8), 2) == [["s1", "s4", "s5", "s8"], ["s2", "s3", "s6", "s7"]]
    with pytest.raises(ValueError, match="groups"):
        snake_groups(names(3), 2)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7, 8, 11])
def test_round_robin_pairs_everyone_once(n: int) -> None:
    rounds = round_robin_rounds(names(n))
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    pairs = [frozenset((p.a, p.b)) for r in rounds for p in r]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    for r in rounds:  # nobody plays twice in one round
        seen = [x for p in r for x in (p.a, p.b)]
        assert len(seen) == len(set(seen))


def test_swiss_pairs_by_rank_and_avoids_a_rematch() -> None:
    ranked = ["a", "b", "c", "d"]
    assert swiss_pairings(ranked, []) == [Pairing("a", "b"), Pairing("c", "d")]
    # a met b: a plays the next best, and the rest is paired without rematches too.
    assert swiss_pairings(ranked, [frozenset("ab"), frozenset("cd")]) == [
        Pairing("a", "c"),
        Pairing("b", "d"),
    ]


def test_swiss_backs_up_when_the_last_two_met() -> None:
    # Greedy would pair a-b, then c-d (met): the search must back up to a-c, b-d.
    assert swiss_pairings(["a", "b", "c", "d"], [frozenset("cd")]) == [
        Pairing("a", "c"),
        Pairing("b", "d"),
    ]


def test_swiss_bye_goes_to_the_lowest_without_one() -> None:
    pairs = swiss_pairings(["a", "b", "c", "d", "e"], [], had_bye=["e"])
    assert pairs is not None
    assert Pairing("d", None) in pairs
    assert all(p.b is not None for p in pairs if p.a != "d")


def test_swiss_says_when_only_rematches_are_left() -> None:
    everyone = [frozenset(p) for p in itertools.combinations("abcd", 2)]
    assert swiss_pairings(["a", "b", "c", "d"], everyone) is None


@given(st.integers(min_value=2, max_value=24), st.randoms(use_true_random=False))
def test_swiss_rounds_up_to_n_minus_one_never_repeat_a_pairing(n: int, rnd: object) -> None:
    players = names(n)
    met: list[frozenset[str]] = []
    byes: list[str] = []
    for _ in range(min(n - 1, 5)):
        ranked = players[:]
        rnd.shuffle(ranked)  # type: ignore[attr-defined]
        pairs = swiss_pairings(ranked, met, byes)
        if pairs is None:
            break
        for p in pairs:
            if p.b is None:
                byes.append(p.a)
            else:
                met.append(frozenset((p.a, p.b)))
    assert len(met) == len(set(met))


def test_the_table_orders_by_match_points_then_average_then_high_run() -> None:
    results = [
        # a: 1 win 1 loss (2 mp), 30 points in 20 innings (1.5), high run 7
        Played("a", "win", 15, 10, 7),
        Played("a", "loss", 15, 10, 3),
        # b: 1 win 1 loss (2 mp), 30 in 20 (1.5), high run 9: above a on the high run
        Played("b", "win", 15, 10, 9),
        Played("b", "loss", 15, 10, 2),
        # c: 1 win 1 loss (2 mp), 30 in 15 (2.0): above both on the average
        Played("c", "win", 15, 5, 4),
        Played("c", "loss", 15, 10, 4),
        # d: two wins (4 mp) with a poor average: first on match points
        Played("d", "win", 5, 20, 1),
        Played("d", "win", 5, 20, 1),
        # e: a draw and a loss (1 mp)
        Played("e", "draw", 30, 10, 10),
        Played("e", "loss", 30, 10, 10),
    ]
    order = table(["a", "b", "c", "d", "e"], results)
    assert [ln.player_id for ln in order] == ["d", "c", "b", "a", "e"]
    d = order[0]
    assert (d.played, d.won, d.match_points, d.points, d.innings) == (2, 2, 4, 10, 40)
    assert order[1].average == pytest.approx(2.0)
    assert order[4].match_points == 1


def test_a_level_table_falls_back_to_the_seed() -> None:
    order = table(["x", "y"], [], seeds={"x": 2, "y": 1})
    assert [ln.player_id for ln in order] == ["y", "x"]
