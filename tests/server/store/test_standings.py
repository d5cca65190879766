"""Ratings in the SQLite store: which matches count, what a result changes, rating periods,
and that a result and its rating change are one transaction (over a real file)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from server.store.api import open_store
from server.store.sqlite import Store

DAY_MS = 86_400_000
SHEET = {
    "match": [
        {"points": 15, "innings": 20, "average": 0.75, "high_run": 4},
        {"points": 9, "innings": 20, "average": 0.45, "high_run": 2},
    ]
}


def _players(store: Store, *, bot: bool = False, guest: bool = False) -> tuple[str, str]:
    for pid, name in (("pa", "Ann"), ("pb", "Bob")):
        store.add_player(pid, "t" + pid, name, 0)
    store.standings.register("pa", "Ann", "ann", "scrypt$x", False, 0)
    if not guest:
        store.standings.register("pb", "Bob", "bob", "scrypt$x", bot, 0)
    return "pa", "pb"


def _play(
    store: Store,
    winner: int | None,
    now: int,
    *,
    practice: bool = False,
    reason: str = "distance",
    discipline: str = "three_cushion",
) -> int:
    players = [{"player_id": "pa", "name": "Ann"}, {"player_id": "pb", "name": "Bob"}]
    match_id = store.start_match("r1", discipline, {"practice": practice}, players, now)
    store.finish_match(match_id, winner, reason, SHEET, now)
    return match_id


def _board(store: Store, now: int = DAY_MS) -> list[tuple[str, float, int, int, int]]:
    rows = store.standings.leaderboard("three_cushion", 20, 0, now)
    return [(r["name"], r["rating"], r["wins"], r["losses"], r["draws"]) for r in rows]


def test_a_rated_win_moves_both_ratings_and_counts_the_statistics(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        _players(store)
        _play(store, 0, DAY_MS)
        rows = store.standings.leaderboard("three_cushion", 20, 0, DAY_MS)
    ann, bob = rows
    assert (ann["name"], ann["rank"], bob["name"], bob["rank"]) == ("Ann", 1, "Bob", 2)
    assert ann["rating"] > 1500 > bob["rating"]
    assert ann["rating"] - 1500 == pytest.approx(1500 - bob["rating"], abs=0.2)
    assert ann["deviation"] < 350 and ann["provisional"]
    assert (ann["games"], ann["wins"], ann["losses"], ann["draws"]) == (1, 1, 0, 0)
    assert ann["average"] == 0.75 and ann["high_run"] == 4
    assert bob["average"] == 0.45 and bob["high_run"] == 2


def test_a_concede_is_a_loss_a_draw_is_half(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        _players(store)
        _play(store, 1, DAY_MS, reason="concede")
        assert [r[0] for r in _board(store)] == ["Bob", "Ann"]
        _play(store, None, DAY_MS, reason="equalized")
        (bob, ann) = _board(store)
        assert bob[4] == ann[4] == 1  # one draw each


@pytest.mark.parametrize("kind", ["guest", "bot", "practice", "abandoned"])
def test_unrated_matches(tmp_path: Path, kind: str) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        _players(store, bot=kind == "bot", guest=kind == "guest")
        _play(
            store,
            None if kind == "abandoned" else 0,
            DAY_MS,
            practice=kind == "practice",
            reason="abandoned" if kind == "abandoned" else "distance",
        )
        assert _board(store) == []
        assert store.standings.take_changes() == []


def test_a_rating_period_uses_its_start_values_and_inactivity_widens_the_deviation(
    tmp_path: Path,
) -> None:
    period = 7 * DAY_MS
    with Store(str(tmp_path / "c.db")) as store:
        _players(store)
        _play(store, 0, 1)  # period 0
        _play(store, 0, 2)
        # Two wins in one period: the update is the paper's, over both games, from 1500/350.
        from shared.ratings import Game, Rating, rate

        expected = rate(Rating(), [Game(Rating(), 1.0), Game(Rating(), 1.0)])
        ann = store.standings.rating("pa", "three_cushion", 3)
        assert ann is not None and ann.rating == pytest.approx(expected.rating)
        dev_now = ann.deviation
        # Ten idle periods later the deviation has grown (rating unchanged) …
        later = store.standings.rating("pa", "three_cushion", 11 * period)
        assert later is not None and later.rating == ann.rating and later.deviation > dev_now
        # … and the next game starts from that wider deviation, so it moves the rating more.
        _play(store, 0, 11 * period)
        after = store.standings.rating("pa", "three_cushion", 11 * period)
        assert after is not None
        assert after.rating - ann.rating > 0
        (changes_row,) = store.db.execute(
            "SELECT COUNT(*) FROM period_games WHERE player_id = 'pa'"
        ).fetchall()
        assert changes_row == (1,)  # the old period's games were closed


def test_a_failed_rating_update_rolls_back_the_result(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        _players(store)
        players = [{"player_id": "pa", "name": "Ann"}, {"player_id": "pb", "name": "Bob"}]
        match_id = store.start_match("r1", "three_cushion", {}, players, DAY_MS)
        store.db.execute("DROP TABLE period_games")  # the rating update will fail
        with pytest.raises(sqlite3.OperationalError):
            store.finish_match(match_id, 0, "distance", SHEET, DAY_MS)
        (finished,) = store.db.execute(
            "SELECT finished_ms FROM matches WHERE match_id = ?", (match_id,)
        ).fetchone()
        assert finished is None  # no result without its rating change
        assert store.standings.take_changes() == []


def test_a_result_is_rated_once_and_only_committed_changes_are_announced(
    tmp_path: Path,
) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        _players(store)
        match_id = _play(store, 0, DAY_MS)
        before = _board(store)
        store.finish_match(match_id, 0, "distance", SHEET, DAY_MS)  # the same result again
        assert _board(store) == before
        assert [c.player_id for c in store.standings.take_changes()] == ["pa", "pb"]
        # A rating whose enclosing transaction rolls back is never announced.
        players = [{"player_id": "pa", "name": "Ann"}, {"player_id": "pb", "name": "Bob"}]
        second = store.start_match("r1", "three_cushion", {}, players, DAY_MS)
        with pytest.raises(RuntimeError), store.transaction():
            store.finish_match(second, 1, "distance", SHEET, DAY_MS)
            raise RuntimeError("the commit fails")
        assert store.standings.take_changes() == []
        assert _board(store) == before


def test_ratings_survive_reopening_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "c.db")
    with Store(path) as store:
        _players(store)
        _play(store, 0, DAY_MS)
        before = _board(store)
    with Store(path) as store:
        assert _board(store) == before


TEAM_SHEET = {
    "match": SHEET["match"],
    "players": [
        {"seat": 0, "slot": 0, "points": 10, "innings": 10, "average": 1.0},
        {"seat": 1, "slot": 0, "points": 4, "innings": 10, "average": 0.4},
        {"seat": 0, "slot": 1, "points": 5, "innings": 10, "average": 0.5},
        {"seat": 1, "slot": 1, "points": 5, "innings": 10, "average": 0.5},
    ],
}


@pytest.mark.parametrize("form", ["doubles", "scotch"])
def test_a_team_result_goes_into_each_players_team_standing(store_db: str, form: str) -> None:
    """R-TEAM-1: the four players each get a rating in the discipline's doubles (or Scotch)
    standing, apart from their singles one; points and innings are their own (R-TEAM-5). On
    both stores: SQLite and PostgreSQL share the standings' queries."""
    names = {"pa": "Ann", "pb": "Bob", "pc": "Cid", "pd": "Dot"}
    with open_store(store_db) as store:
        for pid, name in names.items():
            store.add_player(pid, "t" + pid, name, 0)
            store.standings.register(pid, name, name.lower(), "scrypt$x", False, 0)
        players = [{"player_id": p, "name": n} for p, n in names.items()]  # A1, B1, A2, B2
        record = {"v": 2, "discipline": "three_cushion", "options": {"team_mode": form}}
        match_id = store.start_match("r1", "three_cushion", record, players, DAY_MS)
        store.finish_match(match_id, 0, "distance", TEAM_SHEET, DAY_MS)
        key = f"three_cushion_{form}"
        rows = {r["name"]: r for r in store.standings.leaderboard(key, 20, 0, DAY_MS)}
        singles = store.standings.leaderboard("three_cushion", 20, 0, DAY_MS)
        changes = store.standings.take_changes()
    assert singles == []  # a team match moves no singles rating
    assert set(rows) == set(names.values())
    for winner in ("Ann", "Cid"):  # side 0: A1 and A2
        assert rows[winner]["rating"] > 1500 and rows[winner]["wins"] == 1
    for loser in ("Bob", "Dot"):
        assert rows[loser]["rating"] < 1500 and rows[loser]["losses"] == 1
    assert rows["Ann"]["average"] == 1.0 and rows["Cid"]["average"] == 0.5
    assert {c.discipline for c in changes} == {key} and len(changes) == 4


def test_a_team_match_with_a_guest_is_unrated(tmp_path: Path) -> None:
    with Store(str(tmp_path / "c.db")) as store:
        for pid in ("pa", "pb", "pc", "pd"):
            store.add_player(pid, "t" + pid, pid, 0)
        for pid in ("pa", "pb", "pc"):
            store.standings.register(pid, pid, pid, "scrypt$x", False, 0)
        players = [{"player_id": p, "name": p} for p in ("pa", "pb", "pc", "pd")]
        record = {"v": 2, "discipline": "three_cushion", "options": {"team_mode": "doubles"}}
        match_id = store.start_match("r1", "three_cushion", record, players, DAY_MS)
        store.finish_match(match_id, 0, "distance", TEAM_SHEET, DAY_MS)
        assert store.standings.leaderboard("three_cushion_doubles", 20, 0, DAY_MS) == []
