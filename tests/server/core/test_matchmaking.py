"""Quick-match pairing (pure, time passed in)."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import example, given, settings
from hypothesis import strategies as st

from server.core.accounts import AccountsConfig
from server.core.matchmaking import Matchmaker, Ticket

CFG = AccountsConfig(window=100, widen_per_s=10, max_window=800, bot_after_s=30)


def ticket(key: int, rating: float, since: int = 0, **kw: object) -> Ticket:
    base = Ticket(key, f"p{key}", "three_cushion", None, rating, False, since)
    return replace(base, **kw)  # type: ignore[arg-type]


def test_closest_ratings_are_paired_first() -> None:
    mm = Matchmaker(CFG)
    for k, r in enumerate([1500, 1580, 1520, 1900]):
        mm.add(ticket(k, r))
    (pair,) = mm.pair(0)
    assert {pair.a.rating, pair.b.rating} == {1500, 1520}
    assert len(mm) == 2  # 1580 and 1900 wait on (320 apart, windows of 100)


def test_players_left_between_pairs_are_paired_too() -> None:
    # 1050-1060 is the closest pair; 1000 and 1100 are then neighbours, 100 apart: a fit.
    mm = Matchmaker(CFG)
    for k, r in enumerate([1000, 1050, 1060, 1100]):
        mm.add(ticket(k, r))
    pairs = mm.pair(0)
    assert sorted(sorted((p.a.rating, p.b.rating)) for p in pairs) == [
        [1000, 1100],
        [1050, 1060],
    ]


def test_a_newcomer_between_two_long_waiters_does_not_keep_them_apart() -> None:
    # 1000 and 1202 have waited 10.2 s (windows of 202) and accept each other; 1101 just came
    # (window 100) and is 101 from each, so it fits neither. The two still play.
    mm = Matchmaker(CFG)
    mm.add(ticket(1, 1000, since=0))
    mm.add(ticket(2, 1101, since=10_200))
    mm.add(ticket(3, 1202, since=0))
    (pair,) = mm.pair(10_200)
    assert {pair.a.player_id, pair.b.player_id} == {"p1", "p3"}
    assert len(mm) == 1 and 2 in mm  # the newcomer waits on


def test_the_window_widens_with_waiting() -> None:
    mm = Matchmaker(CFG)
    mm.add(ticket(1, 1500, since=0))
    mm.add(ticket(2, 1800, since=0))
    assert mm.pair(10_000) == []  # windows of 200 after 10 s: 300 apart is too far
    assert mm.pair(19_000) == []  # 290
    (pair,) = mm.pair(20_000)  # 300: both accept now
    assert {pair.a.player_id, pair.b.player_id} == {"p1", "p2"}


def test_both_players_must_accept_the_gap() -> None:
    mm = Matchmaker(CFG)
    mm.add(ticket(1, 1500, since=0))  # has waited long: window 800
    mm.add(ticket(2, 2000, since=100_000))  # just came: window 100
    assert mm.pair(100_000) == []
    assert len(mm.pair(140_000)) == 1  # the newcomer's window reached 500


def test_pools_do_not_mix() -> None:
    mm = Matchmaker(CFG)
    mm.add(ticket(1, 1500))
    mm.add(ticket(2, 1500, discipline="one_cushion"))
    mm.add(ticket(3, 1500, distance=15))
    assert mm.pair(1_000_000) == []


def test_a_bot_is_offered_only_after_the_wait_and_never_instead_of_a_human() -> None:
    mm = Matchmaker(CFG)
    mm.add(ticket(1, 1500, since=0))
    mm.add(ticket(9, 1900, since=0, bot=True))
    mm.add(ticket(8, 1450, since=0, bot=True))
    assert mm.pair(29_000) == []  # no human around, but the bot wait has not passed
    (pair,) = mm.pair(30_000)
    assert pair.with_bot and pair.a.key == 1 and pair.b.key == 8  # the nearest bot
    # Two humans in the window: they play each other, the bot waits.
    mm.add(ticket(2, 1500, since=0))
    mm.add(ticket(3, 1510, since=0))
    (pair,) = mm.pair(60_000)
    assert not pair.with_bot and 9 in mm
    # Bots are never paired with each other.
    mm.add(ticket(7, 1900, since=0, bot=True))
    assert mm.pair(10**9) == []


def test_one_ticket_per_key_remove_and_capacity() -> None:
    mm = Matchmaker(AccountsConfig(max_queue=2))
    assert mm.add(ticket(1, 1500)) and mm.add(ticket(1, 1600))  # re-queue replaces
    assert len(mm) == 1
    assert mm.add(ticket(2, 1500))
    assert not mm.add(ticket(3, 1500))  # full
    assert mm.remove(2) is not None and mm.remove(2) is None
    mm.add(ticket(4, 1600, player_id="p1"))  # the same player on two connections
    assert mm.pair(10**9) == []


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(800, 2600),  # rating
            st.integers(0, 120_000),  # waited ms
            st.sampled_from(["three_cushion", "one_cushion"]),
            st.sampled_from([None, 10]),
            st.booleans(),  # bot
        ),
        max_size=60,
    )
)
# Found by this test: a newcomer between two long waiters kept them apart.
@example(
    [
        (1000.0, 10200, "three_cushion", None, False),
        (1101.0, 0, "three_cushion", None, False),
        (1202.0, 10200, "three_cushion", None, False),
    ]
)
def test_every_pairing_is_fair_by_the_rules(
    specs: list[tuple[float, int, str, int | None, bool]],
) -> None:
    now = 200_000
    mm = Matchmaker(CFG)
    tickets = [
        Ticket(i, f"p{i}", disc, dist, rating, bot, now - waited)
        for i, (rating, waited, disc, dist, bot) in enumerate(specs)
    ]
    for t in tickets:
        mm.add(t)
    pairs = mm.pair(now)
    seen: set[object] = set()
    for p in pairs:
        assert p.a.key not in seen and p.b.key not in seen  # nobody plays twice
        seen.update((p.a.key, p.b.key))
        assert p.a.pool == p.b.pool  # same discipline and distance
        assert not (p.a.bot and p.b.bot)  # bots never play each other
        if p.with_bot:  # a bot only for a human who waited long enough
            human = p.b if p.a.bot else p.a
            assert now - human.since_ms >= CFG.bot_after_s * 1000
        else:  # two humans: within both windows
            gap = abs(p.a.rating - p.b.rating)
            assert gap <= min(mm.window(p.a, now), mm.window(p.b, now)) + 1e-9
    assert len(mm) == len(tickets) - 2 * len(pairs)  # the paired left the queue, nobody else
    # Nobody left waiting could have been paired with another human left waiting.
    left = [t for t in tickets if t.key not in seen and not t.bot]
    for a in left:
        for b in left:
            if a.key != b.key and a.pool == b.pool:
                gap = abs(a.rating - b.rating)
                assert gap > min(mm.window(a, now), mm.window(b, now))


# R-TEAM-1: doubles quick match --------------------------------------------------------------------


def test_four_doubles_tickets_make_two_even_sides_and_singles_wait_apart() -> None:
    from server.core.matchmaking import TeamPairing

    mm = Matchmaker(CFG)
    for k, r in enumerate([1500, 1560, 1530, 1590]):
        mm.add(ticket(k, r, team_mode="doubles"))
    mm.add(ticket(9, 1545))  # a singles ticket: another pool, nobody to play
    (table,) = mm.pair(0)
    assert isinstance(table, TeamPairing)
    # The strongest with the weakest (A1, A2) against the two in the middle (B1, B2).
    assert [t.rating for t in table.seats] == [1590, 1560, 1500, 1530]
    assert table.side_ratings == (3090, 3090)
    assert len(mm) == 1 and 9 in mm


def test_doubles_needs_four_within_every_window_and_scotch_is_its_own_pool() -> None:
    mm = Matchmaker(CFG)
    for k, r in enumerate([1500, 1520, 1540]):
        mm.add(ticket(k, r, team_mode="doubles"))
    mm.add(ticket(3, 1530, team_mode="scotch"))
    assert mm.pair(0) == []  # three doubles and one Scotch ticket: no table
    mm.add(ticket(4, 1800, team_mode="doubles"))
    assert mm.pair(0) == []  # 300 apart: outside the windows of 100
    tables = mm.pair(30_000)  # after 30 s every window is 400 wide
    assert len(tables) == 1 and len(mm) == 1 and 3 in mm
