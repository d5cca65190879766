"""The tournament state machine (server/core/tournament.py): time passed in, no I/O."""

from __future__ import annotations

import pytest

from server.core.tournament import (
    BYE,
    NO_SHOW,
    CloseTable,
    Format,
    MatchState,
    OpenTable,
    Phase,
    Score,
    TMatch,
    Tournament,
    TournamentError,
    TournamentOptions,
)

T0 = 1_000_000
CLOSES = T0 + 60_000
STARTS = T0 + 120_000


def options(fmt: Format = Format.KNOCKOUT, **kw: object) -> TournamentOptions:
    base: dict[str, object] = {
        "name": "Club night",
        "discipline": "three_cushion",
        "distance": 5,
        "format": fmt,
        "capacity": 16,
        "registration_closes_ms": CLOSES,
        "starts_ms": STARTS,
    }
    if fmt is Format.SWISS:
        base["rounds"] = 3
    base.update(kw)
    return TournamentOptions(**base)  # type: ignore[arg-type]


def event(n: int, fmt: Format = Format.KNOCKOUT, **kw: object) -> Tournament:
    t = Tournament("t1", "org", options(fmt, **kw), T0)
    for i in range(1, n + 1):
        t.register(f"p{i}", f"Player {i}", T0 + i)
    return t


def ratings(n: int) -> dict[str, float]:
    """p1 strongest: seeds follow the numbers."""
    return {f"p{i}": 2000.0 - i for i in range(1, n + 1)}


def play(t: Tournament, now: int, pick: object = min) -> list[TMatch]:
    """Open every due table and finish its match: ``pick`` chooses the winner of the two."""
    steps = t.due(now, ratings(len(t.entrants)))
    played = []
    for step in steps:
        assert isinstance(step, OpenTable)
        t.table_opened(step.key, f"r{step.key}", now)
        m = t.match(step.key)
        t.started(step.key, 1000 * step.key[0] + step.key[1])
        winner = pick(step.players)  # type: ignore[operator]
        t.finished(step.key, winner, "distance", {winner: Score(5, 4, 3)})
        played.append(m)
    return played


def test_options_problems_are_sentences() -> None:
    assert options().problem(T0) is None
    assert "capacity" in (options(capacity=1).problem(T0) or "")
    assert "capacity" in (options(capacity=257).problem(T0) or "")
    assert "close before" in (options(registration_closes_ms=STARTS + 1).problem(T0) or "")
    assert "future" in (options().problem(STARTS) or "")
    assert "rounds" in (options(Format.SWISS, rounds=None).problem(T0) or "")
    assert "Swiss" in (options(rounds=3).problem(T0) or "")
    assert "group" in (options(Format.ROUND_ROBIN, groups=9).problem(T0) or "")
    assert "name" in (options(name=" ").problem(T0) or "")


def test_registration_refusals() -> None:
    t = event(2, capacity=2)
    with pytest.raises(TournamentError) as full:
        t.register("p3", "Three", T0 + 10)
    assert full.value.code == "tournament_full"
    with pytest.raises(TournamentError) as twice:
        t.register("p1", "One", T0 + 10)
    assert twice.value.code == "already_registered"
    t.unregister("p2", T0 + 20)
    with pytest.raises(TournamentError) as gone:
        t.unregister("p2", T0 + 21)
    assert gone.value.code == "not_registered"
    with pytest.raises(TournamentError) as late:
        t.register("p3", "Three", CLOSES)
    assert late.value.code == "registration_closed"
    assert [e.player_id for e in t.entrants] == ["p1"]


def test_fewer_than_two_players_cancel_at_the_start() -> None:
    t = event(1)
    assert t.next_deadline() == STARTS
    assert t.due(STARTS - 1) == [] and t.phase is Phase.REGISTRATION
    assert t.due(STARTS) == []
    assert t.phase is Phase.CANCELLED


def test_the_draw_seeds_by_rating_and_opens_the_first_round() -> None:
    t = event(4)
    steps = t.due(STARTS, {"p1": 1400, "p2": 1900, "p3": 1600, "p4": 1500})
    assert [(e.player_id, e.seed) for e in t.entrants] == [
        ("p2", 1),
        ("p3", 2),
        ("p4", 3),
        ("p1", 4),
    ]
    assert steps == [OpenTable((0, 0), ("p2", "p1")), OpenTable((0, 1), ("p3", "p4"))]
    assert t.phase is Phase.RUNNING


def test_a_knockout_of_five_runs_to_a_winner_through_byes() -> None:
    t = event(5)
    first = play(t, STARTS)
    assert [m.players for m in first] == [("p4", "p5")]
    assert [m.reason for m in t.rounds[0]] == [BYE, "distance", BYE, BYE]
    second = play(t, STARTS + 1)
    assert sorted(m.players for m in second) == [("p1", "p4"), ("p2", "p3")]
    final = play(t, STARTS + 2)
    assert [m.players for m in final] == [("p1", "p2")]
    assert t.phase is Phase.FINISHED and t.winner == "p1"
    assert t.due(STARTS + 3) == [] and t.next_deadline() is None
    assert not t.still_in("p1")


def test_still_in_follows_the_bracket() -> None:
    t = event(4)
    play(t, STARTS, pick=max)  # p4 beats p1, p3 beats p2
    assert t.still_in("p4") and t.still_in("p3")
    assert not t.still_in("p1") and not t.still_in("p2")


def test_a_no_show_loses_to_the_seated_player_after_the_no_show_time() -> None:
    t = event(2, no_show_s=300)
    [step] = t.due(STARTS, ratings(2))
    t.table_opened(step.key, "room1", STARTS)
    t.seated(step.key, "p2")
    assert t.next_deadline() == STARTS + 300_000
    assert t.due(STARTS + 299_999) == []
    steps = t.due(STARTS + 300_000)
    assert steps == [CloseTable(step.key, "room1")]
    m = t.match(step.key)
    assert (m.state, m.winner, m.reason) == (MatchState.DONE, "p2", NO_SHOW)
    assert t.phase is Phase.FINISHED and t.winner == "p2"


def test_a_started_match_is_not_a_no_show() -> None:
    t = event(2, no_show_s=1)
    [step] = t.due(STARTS, ratings(2))
    t.table_opened(step.key, "room1", STARTS)
    t.started(step.key, 77)
    assert t.due(STARTS + 3_600_000) == []
    assert t.match(step.key).state is MatchState.OPEN


def test_both_absent_both_lose_and_the_next_round_gets_a_bye() -> None:
    t = event(4, no_show_s=10)
    steps = t.due(STARTS, ratings(4))
    for s in steps:
        assert isinstance(s, OpenTable)
        t.table_opened(s.key, f"room{s.key[1]}", STARTS)
    # p1 v p4: nobody comes. p2 v p3: played, p3 wins.
    t.started((0, 1), 5)
    t.finished((0, 1), "p3", "distance", {})
    steps = t.due(STARTS + 10_000)
    assert steps == [CloseTable((0, 0), "room0")]
    absent = t.match((0, 0))
    assert (absent.winner, absent.reason) == (None, NO_SHOW)
    # The final is a bye for p3: the event ends with p3 as its winner, no table opened.
    assert t.rounds[1][0].players == ("p3",) and t.rounds[1][0].reason == BYE
    assert t.phase is Phase.FINISHED and t.winner == "p3"


def test_a_drawn_knockout_match_goes_to_the_better_seed() -> None:
    t = event(2, innings_limit=10)
    [step] = t.due(STARTS, ratings(2))
    t.table_opened(step.key, "r", STARTS)
    t.started(step.key, 1)
    t.finished(step.key, None, "innings_limit", {})
    assert t.winner == "p1"


def test_a_result_told_twice_counts_once() -> None:
    t = event(4)
    steps = t.due(STARTS, ratings(4))
    t.table_opened(steps[0].key, "r", STARTS)
    t.finished(steps[0].key, "p1", "distance", {})
    version = t.version
    t.finished(steps[0].key, "p4", "distance", {})
    assert t.match(steps[0].key).winner == "p1" and t.version == version


def test_cancel_closes_open_tables() -> None:
    t = event(4)
    steps = t.due(STARTS, ratings(4))
    t.table_opened(steps[0].key, "r0", STARTS)
    assert t.cancel(STARTS + 1) == [CloseTable(steps[0].key, "r0")]
    assert t.phase is Phase.CANCELLED
    with pytest.raises(TournamentError) as over:
        t.cancel(STARTS + 2)
    assert over.value.code == "tournament_over"


def test_round_robin_plays_every_pair_and_orders_the_table() -> None:
    t = event(4, Format.ROUND_ROBIN)
    results = {
        # (winner, {player: Score}) by pairing: p1 wins all; p2 and p3 one each, p3 the
        # better average; p4 none.
        frozenset({"p1", "p4"}): ("p1", {"p1": Score(5, 5, 2), "p4": Score(1, 5, 1)}),
        frozenset({"p2", "p3"}): ("p2", {"p2": Score(5, 10, 2), "p3": Score(4, 10, 2)}),
        frozenset({"p1", "p3"}): ("p1", {"p1": Score(5, 5, 2), "p3": Score(4, 5, 3)}),
        frozenset({"p2", "p4"}): ("p4", {"p2": Score(3, 10, 1), "p4": Score(5, 10, 1)}),
        frozenset({"p1", "p2"}): ("p1", {"p1": Score(5, 5, 2), "p2": Score(2, 5, 1)}),
        frozenset({"p3", "p4"}): ("p3", {"p3": Score(5, 2, 5), "p4": Score(0, 2, 0)}),
    }
    now = STARTS
    met = []
    while t.phase is not Phase.FINISHED:
        steps = t.due(now, ratings(4))
        assert steps, "a round robin always has a table to open until it ends"
        for s in steps:
            assert isinstance(s, OpenTable)
            t.table_opened(s.key, "r", now)
            t.started(s.key, 1)
            winner, scores = results[frozenset(s.players)]
            t.finished(s.key, winner, "distance", scores)
            met.append(frozenset(s.players))
        now += 1
    assert sorted(map(sorted, met)) == sorted(map(sorted, results))
    [rows] = t.standings()
    # p1 6 mp; p3, p2 and p4 2 mp each, then by average: p3 13/17 (0.76), p2 10/25 (0.40),
    # p4 6/17 (0.35).
    assert [ln.player_id for ln in rows] == ["p1", "p3", "p2", "p4"]
    assert [ln.match_points for ln in rows] == [6, 2, 2, 2]
    assert t.winner == "p1"


def test_round_robin_in_groups_keeps_groups_apart() -> None:
    t = event(8, Format.ROUND_ROBIN, groups=2)
    t.due(STARTS, ratings(8))
    assert t.groups == [["p1", "p4", "p5", "p8"], ["p2", "p3", "p6", "p7"]]
    for m in t.matches():
        assert m.group is not None and set(m.players) <= set(t.groups[m.group])
    assert len(t.matches()) == 12 and len(t.rounds) == 3


def test_swiss_runs_its_rounds_without_a_rematch() -> None:
    t = event(7, Format.SWISS, rounds=5)
    now = STARTS
    while t.phase is Phase.RUNNING or now == STARTS:
        play(t, now, pick=min)
        now += 1
    assert t.phase is Phase.FINISHED
    assert len(t.rounds) == 5
    pairs = [frozenset(m.players) for m in t.matches() if len(m.players) == 2]
    assert len(pairs) == len(set(pairs)) == 5 * 3
    byes = [m.a for m in t.matches() if m.reason == BYE]
    assert len(byes) == len(set(byes)) == 5  # a different player each round
    [rows] = t.standings()
    assert rows[0].player_id == t.winner == "p1"  # p1 wins every match it plays


def test_swiss_rounds_are_capped_at_the_field_less_one() -> None:
    t = event(4, Format.SWISS, rounds=9)
    now = STARTS
    while t.phase is not Phase.FINISHED:
        play(t, now)
        now += 1
    assert len(t.rounds) == 3


def test_every_word_of_the_core_is_a_known_wire_word() -> None:
    """The event's core and the wire keep their own types with the same words (as the rules
    and the protocol do): each core format, state, table state and result reason must be one
    the wire knows, or a client would show it as a raw word."""
    from server.core import tournament as core
    from shared.protocol import tournament as tw
    from shared.protocol.enums import EndReason

    pairs = (
        (core.Format, tw.TournamentFormat),
        (core.Phase, tw.TournamentState),
        (core.MatchState, tw.TableState),
    )
    for mine, wire in pairs:
        assert all(wire(m.value).known for m in mine), (mine, wire)
    reasons = {core.NO_SHOW, core.BYE, core.EMPTY, core.CANCELLED, *core.BOTH_LOST}
    assert {r for r in reasons if not EndReason(r).known} == set()
