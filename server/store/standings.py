"""Accounts, ratings and standings in the server's SQLite file (issue 14).

Its own tables, created next to the Store's (``Store.__init__`` makes one :class:`Standings` on
the same connection). The Store calls :meth:`Standings.match_finished` inside the transaction
that records a match's result, so a result and the rating change it causes are committed
together or not at all (a SIGKILL between them cannot leave one without the other).

Ratings follow Glicko-2's rating periods (``shared/ratings``): a standing keeps its values at
the start of the current period and that period's games; the rating shown is the paper's update
over those games. The first game of a new period closes the old one and applies one step of
deviation growth per period the player sat out.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final

from server.store.sql import Db
from shared.ratings import Game, Rating, decay, period_of, rate

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS accounts (
    player_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    name_key TEXT NOT NULL UNIQUE,  -- server.core.accounts.name_key: case and look-alikes folded
    password_hash TEXT NOT NULL,    -- scrypt (server/credentials.py), never the password
    bot INTEGER NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS player_tokens (  -- more identity tokens (one per login)
    token_hash TEXT PRIMARY KEY,
    player_id TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS standings (
    player_id TEXT NOT NULL,
    discipline TEXT NOT NULL,
    rating REAL NOT NULL,           -- shown: Glicko-2 over this period's games
    deviation REAL NOT NULL,
    volatility REAL NOT NULL,
    base_rating REAL NOT NULL,      -- at the start of ``period``
    base_deviation REAL NOT NULL,
    base_volatility REAL NOT NULL,
    period INTEGER NOT NULL,
    games INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,
    losses INTEGER NOT NULL,
    points INTEGER NOT NULL,        -- over rated matches: the general average is points/innings
    innings INTEGER NOT NULL,
    high_run INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    PRIMARY KEY (player_id, discipline)
);
-- Covers the leaderboard's order, so a deep page walks the index only (docs/benchmarks.md).
CREATE INDEX IF NOT EXISTS standings_board ON standings (discipline, rating DESC, player_id);
CREATE TABLE IF NOT EXISTS period_games (
    player_id TEXT NOT NULL,
    discipline TEXT NOT NULL,
    match_id INTEGER NOT NULL,
    opp_rating REAL NOT NULL,       -- the opponent at the start of the period (the paper's rule)
    opp_deviation REAL NOT NULL,
    opp_volatility REAL NOT NULL,
    score REAL NOT NULL,            -- 1 win, 0.5 draw, 0 loss (a forfeit or concede is a loss)
    PRIMARY KEY (player_id, discipline, match_id)
);
CREATE TABLE IF NOT EXISTS rating_changes (
    match_id INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    discipline TEXT NOT NULL,
    before REAL NOT NULL,
    after REAL NOT NULL,
    deviation REAL NOT NULL,
    PRIMARY KEY (match_id, player_id)
);
"""


def standing_key(discipline: str, team_mode: str | None = None) -> str:
    """The ``standings.discipline`` a result counts in: the discipline, or in a team match
    (R-TEAM-1) the discipline's doubles or Scotch doubles standing, one per player
    (``three_cushion_doubles``)."""
    if team_mode in (None, "", "singles"):
        return discipline
    return f"{discipline}_{team_mode}"


@dataclass(frozen=True, slots=True)
class Account:
    player_id: str
    name: str
    password_hash: str
    bot: bool


@dataclass(frozen=True, slots=True)
class Change:
    """One player's rating change from one rated match."""

    match_id: int
    player_id: str
    discipline: str
    before: float
    after: float
    deviation: float


@dataclass(slots=True)
class _Row:
    shown: Rating
    base: Rating
    period: int
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: int = 0
    innings: int = 0
    high_run: int = 0


class Standings:
    """Synchronous, on the Store's connection (see Store's docstring for why inline)."""

    def __init__(
        self,
        db: Db,
        transaction: Callable[[], AbstractContextManager[None]],
        period_s: float = 7 * 86_400.0,
        tau: float = 0.5,
        schema: bool = True,
    ) -> None:
        self.db = db
        self.transaction = transaction  # the Store's (joins an enclosing one)
        self.period_s = period_s
        self.tau = tau
        if schema:  # False: the PostgreSQL store's migrations create these tables
            db.executescript(SCHEMA)
        # What a taken name raises (the PostgreSQL store adds its driver's error).
        self.duplicate: tuple[type[Exception], ...] = (sqlite3.IntegrityError,)
        self.changes: list[Change] = []  # rated since the lobby last took them (take_changes)

    # Accounts ------------------------------------------------------------------------------
    def register(
        self, player_id: str, name: str, key: str, password_hash: str, bot: bool, now_ms: int
    ) -> bool:
        """Claim a name for this player. False when the name (its key) is taken."""
        try:
            with self.transaction():
                self.db.execute(
                    "INSERT INTO accounts VALUES (?, ?, ?, ?, ?, ?)",
                    (player_id, name, key, password_hash, int(bot), now_ms),
                )
                self.db.execute(
                    "UPDATE players SET name = ? WHERE player_id = ?", (name, player_id)
                )
        except self.duplicate:
            return False
        return True

    def account_by_key(self, key: str) -> Account | None:
        row = self.db.execute(
            "SELECT player_id, name, password_hash, bot FROM accounts WHERE name_key = ?", (key,)
        ).fetchone()
        return None if row is None else Account(row[0], row[1], row[2], bool(row[3]))

    def account(self, player_id: str) -> Account | None:
        row = self.db.execute(
            "SELECT player_id, name, password_hash, bot FROM accounts WHERE player_id = ?",
            (player_id,),
        ).fetchone()
        return None if row is None else Account(row[0], row[1], row[2], bool(row[3]))

    def player_name(self, player_id: str) -> str | None:
        """The name a player (guest or not) last said hello with; None: no such player."""
        row = self.db.execute(
            "SELECT name FROM players WHERE player_id = ?", (player_id,)
        ).fetchone()
        return None if row is None else str(row[0])

    def add_token(self, player_id: str, token_hash: str, now_ms: int) -> None:
        with self.transaction():
            self.db.execute(
                "INSERT INTO player_tokens VALUES (?, ?, ?)", (token_hash, player_id, now_ms)
            )

    def player_by_token(self, token_hash: str) -> tuple[str, str] | None:
        row = self.db.execute(
            """SELECT p.player_id, p.name FROM player_tokens t
               JOIN players p ON p.player_id = t.player_id WHERE t.token_hash = ?""",
            (token_hash,),
        ).fetchone()
        return None if row is None else (row[0], row[1])

    # Ratings -------------------------------------------------------------------------------
    def _load(self, player_id: str, discipline: str, period: int) -> _Row:
        row = self.db.execute(
            """SELECT rating, deviation, volatility, base_rating, base_deviation,
                      base_volatility, period, games, wins, draws, losses, points, innings,
                      high_run
               FROM standings WHERE player_id = ? AND discipline = ?""",
            (player_id, discipline),
        ).fetchone()
        if row is None:
            return _Row(Rating(), Rating(), period)
        r = _Row(Rating(*row[0:3]), Rating(*row[3:6]), *row[6:])
        if r.period < period:  # a new period: the shown rating becomes its start, plus decay
            r.base = decay(r.shown, period - r.period - 1)
            r.shown, r.period = r.base, period
            self.db.execute(
                "DELETE FROM period_games WHERE player_id = ? AND discipline = ?",
                (player_id, discipline),
            )
        return r

    def match_finished(
        self,
        match_id: int,
        winner: int | None,
        reason: str,
        scoresheet: dict[str, Any],
        now_ms: int,
    ) -> list[Change]:
        """Rate the match if it is rated (called inside the Store's finishing transaction)."""
        row = self.db.execute(
            "SELECT discipline, options, players FROM matches WHERE match_id = ?", (match_id,)
        ).fetchone()
        if row is None:
            return []
        discipline, options, players = row[0], json.loads(row[1]), json.loads(row[2])
        ids = [p.get("player_id") for p in players]
        team_mode = (options.get("options") or {}).get("team_mode") or options.get("team_mode")
        if team_mode in ("doubles", "scotch"):
            return self._team_finished(
                match_id, discipline, str(team_mode), ids, winner, reason, scoresheet, now_ms
            )
        if options.get("practice") or len(ids) != 2 or ids[0] == ids[1]:
            return []
        accounts = [self.account(str(pid)) for pid in ids]
        if any(a is None or a.bot for a in accounts):
            return []  # guests and bots play unrated
        if winner is None and reason == "abandoned":
            return []  # nobody played it out: no result to rate
        if self.db.execute(
            "SELECT 1 FROM rating_changes WHERE match_id = ? LIMIT 1", (match_id,)
        ).fetchone():
            return []  # rated already: a result is counted once
        period = period_of(now_ms, self.period_s)
        rows = [self._load(str(pid), discipline, period) for pid in ids]
        lines = scoresheet.get("match") or [{}, {}]
        changes = []
        for seat in (0, 1):
            me, other = rows[seat], rows[1 - seat]
            score = 0.5 if winner is None else (1.0 if winner == seat else 0.0)
            self.db.execute(
                """INSERT INTO period_games VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (player_id, discipline, match_id) DO UPDATE SET
                       opp_rating = excluded.opp_rating,
                       opp_deviation = excluded.opp_deviation,
                       opp_volatility = excluded.opp_volatility, score = excluded.score""",
                (
                    ids[seat],
                    discipline,
                    match_id,
                    other.base.rating,
                    other.base.deviation,
                    other.base.volatility,
                    score,
                ),
            )
            games = [
                Game(Rating(r, d, v), s)
                for r, d, v, s in self.db.execute(
                    """SELECT opp_rating, opp_deviation, opp_volatility, score FROM period_games
                       WHERE player_id = ? AND discipline = ? ORDER BY match_id""",
                    (ids[seat], discipline),
                )
            ]
            before = me.shown
            me.shown = rate(me.base, games, tau=self.tau)
            line = lines[seat] if seat < len(lines) and isinstance(lines[seat], dict) else {}
            me.games += 1
            me.wins += score == 1.0
            me.draws += score == 0.5
            me.losses += score == 0.0
            me.points += int(line.get("points") or 0)
            me.innings += int(line.get("innings") or 0)
            me.high_run = max(me.high_run, int(line.get("high_run") or 0))
            self._save(str(ids[seat]), discipline, me, now_ms)
            change = Change(
                match_id,
                str(ids[seat]),
                discipline,
                before.rating,
                me.shown.rating,
                me.shown.deviation,
            )
            self.db.execute(
                """INSERT INTO rating_changes VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (match_id, player_id) DO UPDATE SET
                       discipline = excluded.discipline, before = excluded.before,
                       after = excluded.after, deviation = excluded.deviation""",
                (
                    match_id,
                    change.player_id,
                    discipline,
                    change.before,
                    change.after,
                    change.deviation,
                ),
            )
            changes.append(change)
        self.changes.extend(changes)
        del self.changes[:-10_000]  # nobody is taking them (no lobby running): stay bounded
        return changes

    def _team_finished(
        self,
        match_id: int,
        discipline: str,
        team_mode: str,
        ids: list[Any],
        winner: int | None,
        reason: str,
        scoresheet: dict[str, Any],
        now_ms: int,
    ) -> list[Change]:
        """R-TEAM-1: a doubles (or Scotch doubles) result in each player's team standing. A
        player's opponent is the other side, rated as its two players' mean at the start of
        the period; the score is the side's; points and innings are the player's own
        (R-TEAM-5). Rated only between four distinct registered humans."""
        if len(ids) != 4 or len(set(ids)) != 4:
            return []
        accounts = [self.account(str(pid)) for pid in ids]
        if any(a is None or a.bot for a in accounts):
            return []
        if winner is None and reason == "abandoned":
            return []
        if self.db.execute(
            "SELECT 1 FROM rating_changes WHERE match_id = ? LIMIT 1", (match_id,)
        ).fetchone():
            return []
        key = standing_key(discipline, team_mode)
        period = period_of(now_ms, self.period_s)
        rows = [self._load(str(pid), key, period) for pid in ids]  # A1, B1, A2, B2
        own = {
            (p.get("seat"), p.get("slot")): p
            for p in scoresheet.get("players") or []
            if isinstance(p, dict)
        }
        changes = []
        for i, pid in enumerate(ids):
            side = i % 2
            foes = [rows[j].base for j in range(4) if j % 2 != side]
            opponent = Rating(
                sum(f.rating for f in foes) / 2,
                sum(f.deviation for f in foes) / 2,
                sum(f.volatility for f in foes) / 2,
            )
            score = 0.5 if winner is None else (1.0 if winner == side else 0.0)
            self.db.execute(
                """INSERT INTO period_games VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (player_id, discipline, match_id) DO UPDATE SET
                       opp_rating = excluded.opp_rating,
                       opp_deviation = excluded.opp_deviation,
                       opp_volatility = excluded.opp_volatility, score = excluded.score""",
                (
                    pid,
                    key,
                    match_id,
                    opponent.rating,
                    opponent.deviation,
                    opponent.volatility,
                    score,
                ),
            )
            games = [
                Game(Rating(r, d, v), s)
                for r, d, v, s in self.db.execute(
                    """SELECT opp_rating, opp_deviation, opp_volatility, score FROM period_games
                       WHERE player_id = ? AND discipline = ? ORDER BY match_id""",
                    (pid, key),
                )
            ]
            me = rows[i]
            before = me.shown
            me.shown = rate(me.base, games, tau=self.tau)
            line = own.get((side, i // 2)) or {}
            me.games += 1
            me.wins += score == 1.0
            me.draws += score == 0.5
            me.losses += score == 0.0
            me.points += int(line.get("points") or 0)
            me.innings += int(line.get("innings") or 0)
            self._save(str(pid), key, me, now_ms)
            change = Change(
                match_id, str(pid), key, before.rating, me.shown.rating, me.shown.deviation
            )
            self.db.execute(
                """INSERT INTO rating_changes VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (match_id, player_id) DO UPDATE SET
                       discipline = excluded.discipline, before = excluded.before,
                       after = excluded.after, deviation = excluded.deviation""",
                (match_id, change.player_id, key, change.before, change.after, change.deviation),
            )
            changes.append(change)
        self.changes.extend(changes)
        del self.changes[:-10_000]
        return changes

    def _save(self, player_id: str, discipline: str, r: _Row, now_ms: int) -> None:
        self.db.execute(
            """INSERT INTO standings VALUES
               (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (player_id, discipline) DO UPDATE SET
                   rating = excluded.rating, deviation = excluded.deviation,
                   volatility = excluded.volatility, base_rating = excluded.base_rating,
                   base_deviation = excluded.base_deviation,
                   base_volatility = excluded.base_volatility, period = excluded.period,
                   games = excluded.games, wins = excluded.wins, draws = excluded.draws,
                   losses = excluded.losses, points = excluded.points,
                   innings = excluded.innings, high_run = excluded.high_run,
                   updated_ms = excluded.updated_ms""",
            (
                player_id,
                discipline,
                r.shown.rating,
                r.shown.deviation,
                r.shown.volatility,
                r.base.rating,
                r.base.deviation,
                r.base.volatility,
                r.period,
                r.games,
                r.wins,
                r.draws,
                r.losses,
                r.points,
                r.innings,
                r.high_run,
                now_ms,
            ),
        )

    def take_changes(self) -> list[Change]:
        """The changes rated since the last call, as committed: one whose transaction was
        rolled back after the rating (a failed commit further up) is not in the table."""
        out, self.changes = self.changes, []
        return [
            c
            for c in out
            if self.db.execute(
                "SELECT 1 FROM rating_changes WHERE match_id = ? AND player_id = ?",
                (c.match_id, c.player_id),
            ).fetchone()
        ]

    def forget_changes(self) -> None:
        """The finishing transaction rolled back: nothing it rated happened."""
        self.changes.clear()

    # Reading -------------------------------------------------------------------------------
    def _deviation_now(self, deviation: float, volatility: float, period: int, now: int) -> float:
        """The deviation as of now: periods sat out since the row's period widen it."""
        idle = period_of(now, self.period_s) - period - 1
        if idle <= 0:
            return deviation
        return decay(Rating(1500.0, deviation, volatility), idle).deviation

    def rating(self, player_id: str, discipline: str, now_ms: int) -> Rating | None:
        row = self.db.execute(
            """SELECT rating, deviation, volatility, period FROM standings
               WHERE player_id = ? AND discipline = ?""",
            (player_id, discipline),
        ).fetchone()
        if row is None:
            return None
        return Rating(row[0], self._deviation_now(row[1], row[2], row[3], now_ms), row[2])

    def leaderboard(
        self, discipline: str, limit: int, offset: int, now_ms: int
    ) -> list[dict[str, Any]]:
        # The page is found on the covering index alone; only its rows are then read whole.
        rows = self.db.execute(
            """WITH page AS (
                   SELECT player_id, rating FROM standings WHERE discipline = ?
                   ORDER BY rating DESC, player_id LIMIT ? OFFSET ?)
               SELECT s.player_id, a.name, s.rating, s.deviation, s.volatility, s.period,
                      s.games, s.wins, s.draws, s.losses, s.points, s.innings, s.high_run
               FROM page p
               JOIN standings s ON s.player_id = p.player_id AND s.discipline = ?
               JOIN accounts a ON a.player_id = s.player_id
               ORDER BY p.rating DESC, p.player_id""",
            (discipline, limit, offset, discipline),
        ).fetchall()
        out = []
        for i, r in enumerate(rows):
            out.append(
                {"rank": offset + i + 1, "player_id": r[0], "name": r[1]}
                | self._standing(r[2], r[3], r[4], r[5], *r[6:], now_ms=now_ms)
            )
        return out

    def _standing(
        self,
        rating: float,
        deviation: float,
        volatility: float,
        period: int,
        games: int,
        wins: int,
        draws: int,
        losses: int,
        points: int,
        innings: int,
        high_run: int,
        *,
        now_ms: int,
    ) -> dict[str, Any]:
        shown = Rating(rating, self._deviation_now(deviation, volatility, period, now_ms))
        return {
            "rating": round(shown.rating, 1),
            "deviation": round(shown.deviation, 1),
            "provisional": shown.provisional,
            "games": games,
            "wins": wins,
            "draws": draws,
            "losses": losses,
            "average": round(points / innings, 3) if innings else 0.0,
            "high_run": high_run,
        }

    def standings_of(self, player_id: str, now_ms: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            """SELECT discipline, rating, deviation, volatility, period, games, wins, draws,
                      losses, points, innings, high_run
               FROM standings WHERE player_id = ? ORDER BY discipline""",
            (player_id,),
        ).fetchall()
        return [{"discipline": r[0]} | self._standing(*r[1:], now_ms=now_ms) for r in rows]

    def changes_of(self, match_ids: list[int], player_id: str) -> dict[int, tuple[float, float]]:
        if not match_ids:
            return {}
        marks = ",".join("?" * len(match_ids))
        return {
            r[0]: (r[1], r[2])
            for r in self.db.execute(
                f"""SELECT match_id, before, after FROM rating_changes
                    WHERE player_id = ? AND match_id IN ({marks})""",
                (player_id, *match_ids),
            )
        }
