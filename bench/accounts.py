"""Quick-match pairing of 10,000 waiting players, and leaderboard queries at 100,000 rated
players in SQLite (docs/benchmarks.md "Accounts and quick match").

Baselines in the same run: for pairing, sorting the same ratings (the floor of any pairing that
looks at every player) and a naive all-pairs scan on 1,000 players; for the leaderboard, the same
query after dropping its index.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from server.core.accounts import AccountsConfig
from server.core.matchmaking import Matchmaker, Ticket
from server.store.sqlite import Store
from shared.protocol import DISCIPLINES

WAITING = 10_000
RATED = 100_000
NOW = 10_000_000_000


def _tickets(rng: random.Random, n: int, pools: int) -> list[Ticket]:
    return [
        Ticket(
            i,
            f"p{i}",
            DISCIPLINES[i % pools],
            None,
            rng.gauss(1500, 300),
            False,
            NOW - rng.randrange(0, 60_000),
        )
        for i in range(n)
    ]


def _time(fn: object, repeat: int = 5) -> float:
    """Median wall ms of ``fn()``."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        runs.append((time.perf_counter() - t0) * 1000)
    return statistics.median(runs)


def _naive_pairs(tickets: list[Ticket], window: float) -> int:
    """Every pair compared: what pairing costs without sorting (the baseline)."""
    free = list(tickets)
    pairs = 0
    while free:
        a = free.pop()
        best, gap = None, window
        for j, b in enumerate(free):
            d = abs(a.rating - b.rating)
            if d <= gap:
                best, gap = j, d
        if best is not None:
            free.pop(best)
            pairs += 1
    return pairs


def pairing() -> Iterator[str]:
    rng = random.Random(2026)
    cfg = AccountsConfig(max_queue=WAITING)
    for pools in (1, len(DISCIPLINES)):
        tickets = _tickets(rng, WAITING, pools)

        def full_round(tickets: list[Ticket] = tickets) -> int:
            mm = Matchmaker(cfg)
            for t in tickets:
                mm.add(t)
            return len(mm.pair(NOW))

        pairs = full_round()
        ms = _time(full_round)
        yield (
            f"pair {WAITING:,} waiting in {pools} pool(s): {pairs:,} pairs, "
            f"{ms:.1f} ms per round (queueing included)"
        )
    # Steady state: nobody fits (ratings 1,000 apart), the round still looks at everyone.
    spread = [
        Ticket(i, f"p{i}", "three_cushion", None, 1000.0 * i, False, NOW) for i in range(WAITING)
    ]
    mm = Matchmaker(cfg)
    for t in spread:
        mm.add(t)
    idle = _time(lambda: mm.pair(NOW))
    ratings = [t.rating for t in tickets]
    floor = _time(lambda: sorted(ratings))
    yield f"a round where nobody fits ({WAITING:,} waiting): {idle:.1f} ms"
    yield f"baseline: sorting {WAITING:,} ratings {floor:.2f} ms ({idle / floor:.0f}x of it)"
    small = _tickets(rng, 1_000, 1)
    naive = _time(lambda: _naive_pairs(small, 100.0), repeat=3)
    yield (
        f"baseline: naive all-pairs pairing of 1,000 players {naive:.0f} ms "
        f"(O(n^2): ~{naive * 100:,.0f} ms at 10,000)"
    )


def leaderboard() -> Iterator[str]:
    rng = random.Random(2026)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(str(Path(tmp) / "bench.db"))
        try:
            t0 = time.perf_counter()
            with store.transaction():
                store.db.executemany(
                    "INSERT INTO players VALUES (?, ?, ?, 0, 0)",
                    ((f"p{i}", f"t{i}", f"Player {i}") for i in range(RATED)),
                )
                store.db.executemany(
                    "INSERT INTO accounts VALUES (?, ?, ?, 'scrypt$x', 0, 0)",
                    ((f"p{i}", f"Player {i}", f"player{i}") for i in range(RATED)),
                )
                rows = []
                for i in range(RATED):
                    r, d = rng.gauss(1500, 300), rng.uniform(45, 350)
                    games = rng.randrange(1, 200)
                    rows.append(
                        (f"p{i}", "three_cushion", r, d, 0.06, r, d, 0.06, 0, games,
                         games // 2, 0, games - games // 2, games * 10, games * 12, 7, 0)
                    )  # fmt: skip
                store.db.executemany(
                    "INSERT INTO standings VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows
                )
            yield f"{RATED:,} rated players written in {time.perf_counter() - t0:.1f} s"
            board = store.standings

            def top() -> None:
                board.leaderboard("three_cushion", 20, 0, NOW)

            def deep() -> None:
                board.leaderboard("three_cushion", 20, RATED // 2, NOW)

            def profile() -> None:
                board.standings_of(f"p{RATED // 3}", NOW)

            t_top, t_deep, t_profile = _time(top, 21), _time(deep, 11), _time(profile, 21)
            yield f"leaderboard top 20: {t_top:.2f} ms"
            yield f"leaderboard page at offset {RATED // 2:,}: {t_deep:.2f} ms"
            yield f"profile standings: {t_profile:.3f} ms"
            store.db.execute("DROP INDEX standings_board")
            base = _time(top, 5)
            yield f"baseline: top 20 without the index {base:.1f} ms ({base / t_top:.0f}x slower)"
        finally:
            store.close()


def run() -> Iterator[str]:
    yield from pairing()
    yield from leaderboard()
