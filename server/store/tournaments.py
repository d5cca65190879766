"""Tournaments in the store: organizers, events, their players and their matches (issue 23).

Its own tables next to the Store's, on the same connection and transactions, like
:mod:`server.standings`; SQLite creates them at schema version 5, PostgreSQL in migration 4
(the same statements with its own types). The queries use only what both databases accept.

An event's rows are its whole state: :meth:`TournamentBook.load` rebuilds the pure
:class:`~server.core.tournament.Tournament` from them after a restart, and :meth:`save` writes
only what changed (the tournament's row, plus the matches and players it marked), so a result
costs a few row writes, not the bracket. Registration is a transaction on the rows themselves
(capacity and closing time checked there), so two nodes of a cluster taking the last place at
once cannot both get it. Who runs an event is a lease in its row (:meth:`claim`).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict
from typing import Any, Final

from server.core.tournament import (
    Entrant,
    Format,
    MatchState,
    Phase,
    Score,
    TMatch,
    Tournament,
    TournamentError,
    TournamentOptions,
)
from server.store.sql import Db

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS organizers (      -- who may create and cancel tournaments
    player_id TEXT PRIMARY KEY,
    granted_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    organizer TEXT NOT NULL,                 -- player_id
    name TEXT NOT NULL,
    format TEXT NOT NULL,
    phase TEXT NOT NULL,                     -- registration, running, finished, cancelled
    options TEXT NOT NULL,                   -- JSON: TournamentOptions
    starts_ms INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,
    version INTEGER NOT NULL,                -- bumped by every change
    winner TEXT,
    groups TEXT NOT NULL,                    -- JSON: round robin groups (player ids)
    runner TEXT,                             -- who runs it (a node; 'local' alone)
    runner_until_ms INTEGER NOT NULL         -- the runner's lease ends then
);
CREATE INDEX IF NOT EXISTS tournaments_phase ON tournaments (phase, starts_ms);
CREATE TABLE IF NOT EXISTS tournament_players (
    tournament_id TEXT NOT NULL,
    player_id TEXT NOT NULL,
    name TEXT NOT NULL,
    registered_ms INTEGER NOT NULL,
    rating REAL NOT NULL,
    seed INTEGER,
    PRIMARY KEY (tournament_id, player_id)
);
CREATE TABLE IF NOT EXISTS tournament_matches (
    tournament_id TEXT NOT NULL,
    round INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    grp INTEGER,
    a TEXT,
    b TEXT,
    state TEXT NOT NULL,
    room_id TEXT,
    match_id INTEGER,
    opened_ms INTEGER,
    seated TEXT NOT NULL,                    -- JSON: player ids who took their seat
    winner TEXT,
    reason TEXT,
    score_a TEXT,                            -- JSON: {points, innings, high_run}
    score_b TEXT,
    PRIMARY KEY (tournament_id, round, idx)
);
CREATE INDEX IF NOT EXISTS tournament_matches_room ON tournament_matches (room_id);
"""

# PostgreSQL: the same tables with 64-bit times and ids (server/pgstore.py migration 4).
PG_SCHEMA: Final = (
    SCHEMA.replace("INTEGER NOT NULL", "BIGINT NOT NULL")
    .replace("match_id INTEGER", "match_id BIGINT")
    .replace("opened_ms INTEGER", "opened_ms BIGINT")
    .replace("rating REAL", "rating DOUBLE PRECISION")
    .replace("CREATE TABLE IF NOT EXISTS", "CREATE TABLE")
    .replace("CREATE INDEX IF NOT EXISTS", "CREATE INDEX")
)

LOCAL_RUNNER: Final = "local"


class TournamentBook:
    """Synchronous, on the Store's connection (see the Store's docstring for why inline).
    ``writes`` counts the rows written (the bench reports them per match)."""

    def __init__(
        self,
        db: Db,
        transaction: Callable[[], AbstractContextManager[None]],
        schema: bool = True,
    ) -> None:
        self.db = db
        self.transaction = transaction
        self.writes = 0
        if schema:  # False: PostgreSQL's migrations made them
            for statement in SCHEMA.split(";\n"):
                if statement.strip():
                    db.execute(statement)

    # Organizers -----------------------------------------------------------------------------
    def grant_organizer(self, player_id: str, now_ms: int) -> bool:
        """True if the right is new."""
        row = self.db.execute(
            """INSERT INTO organizers VALUES (?, ?) ON CONFLICT (player_id) DO NOTHING
               RETURNING 1""",
            (player_id, now_ms),
        ).fetchone()
        return row is not None

    def revoke_organizer(self, player_id: str) -> bool:
        """True if the account had the right."""
        row = self.db.execute(
            "DELETE FROM organizers WHERE player_id = ? RETURNING 1", (player_id,)
        ).fetchone()
        return row is not None

    def is_organizer(self, player_id: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM organizers WHERE player_id = ?", (player_id,)
        ).fetchone()
        return row is not None

    # Events ---------------------------------------------------------------------------------
    def create(self, organizer: str, options: TournamentOptions, now_ms: int) -> Tournament:
        t = Tournament("t" + secrets.token_hex(5), organizer, options, now_ms)
        with self.transaction():
            self.db.execute(
                """INSERT INTO tournaments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                (
                    t.tournament_id,
                    organizer,
                    options.name,
                    options.format.value,
                    t.phase.value,
                    json.dumps(_options_record(options)),
                    options.starts_ms,
                    now_ms,
                    now_ms,
                    t.version,
                    None,
                    "[]",
                    None,
                    0,
                ),
            )
            self.writes += 1
        return t

    def register(self, tournament_id: str, player_id: str, name: str, now_ms: int) -> Tournament:
        """Register in one transaction with its checks (TournamentError when refused)."""
        with self.transaction():
            t = self._load_for_update(tournament_id)
            entrant = t.register(player_id, name, now_ms)
            self.db.execute(
                "INSERT INTO tournament_players VALUES (?, ?, ?, ?, ?, ?)",
                (tournament_id, player_id, name, now_ms, entrant.rating, None),
            )
            self._bump(t, now_ms)
        return t

    def unregister(self, tournament_id: str, player_id: str, now_ms: int) -> Tournament:
        with self.transaction():
            t = self._load_for_update(tournament_id)
            t.unregister(player_id, now_ms)
            self.db.execute(
                "DELETE FROM tournament_players WHERE tournament_id = ? AND player_id = ?",
                (tournament_id, player_id),
            )
            self._bump(t, now_ms)
        return t

    def _load_for_update(self, tournament_id: str) -> Tournament:
        # The write first: it takes SQLite's write lock and PostgreSQL's row lock, so two
        # registrations for the last place are serialized (the second sees the first's row).
        self.db.execute(
            "UPDATE tournaments SET version = version WHERE tournament_id = ?", (tournament_id,)
        )
        t = self.load(tournament_id)
        if t is None:
            raise TournamentError("no_such_tournament", "No such tournament.")
        return t

    def _bump(self, t: Tournament, now_ms: int) -> None:
        self.db.execute(
            "UPDATE tournaments SET version = ?, updated_ms = ? WHERE tournament_id = ?",
            (t.version, now_ms, t.tournament_id),
        )
        self.writes += 2

    def save(self, t: Tournament, now_ms: int) -> None:
        """Write what changed since the last save (the event's row always)."""
        with self.transaction():
            self.db.execute(
                """UPDATE tournaments SET phase = ?, version = ?, updated_ms = ?, winner = ?,
                       groups = ? WHERE tournament_id = ?""",
                (
                    t.phase.value,
                    t.version,
                    now_ms,
                    t.winner,
                    json.dumps(t.groups),
                    t.tournament_id,
                ),
            )
            self.writes += 1
            if t.entrants_changed:
                for e in t.entrants:
                    self.db.execute(
                        """UPDATE tournament_players SET rating = ?, seed = ?
                           WHERE tournament_id = ? AND player_id = ?""",
                        (e.rating, e.seed, t.tournament_id, e.player_id),
                    )
                    self.writes += 1
            for key in sorted(t.changed):
                self._save_match(t.tournament_id, t.match(key))
        t.changed.clear()
        t.entrants_changed = False

    def _save_match(self, tournament_id: str, m: TMatch) -> None:
        self.db.execute(
            """INSERT INTO tournament_matches VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT (tournament_id, round, idx) DO UPDATE SET
                   state = excluded.state, room_id = excluded.room_id,
                   match_id = excluded.match_id, opened_ms = excluded.opened_ms,
                   seated = excluded.seated, winner = excluded.winner, reason = excluded.reason,
                   score_a = excluded.score_a, score_b = excluded.score_b""",
            (
                tournament_id,
                m.round,
                m.index,
                m.group,
                m.a,
                m.b,
                m.state.value,
                m.room_id,
                m.match_id,
                m.opened_ms,
                json.dumps(m.seated),
                m.winner,
                m.reason,
                None if m.score_a is None else json.dumps(asdict(m.score_a)),
                None if m.score_b is None else json.dumps(asdict(m.score_b)),
            ),
        )
        self.writes += 1

    def load(self, tournament_id: str) -> Tournament | None:
        row = self.db.execute(
            """SELECT organizer, phase, options, created_ms, version, winner, groups
               FROM tournaments WHERE tournament_id = ?""",
            (tournament_id,),
        ).fetchone()
        if row is None:
            return None
        t = Tournament(
            tournament_id,
            row[0],
            _options_from_record(json.loads(row[2])),
            int(row[3]),
            phase=Phase(row[1]),
            version=int(row[4]),
            winner=row[5],
            groups=json.loads(row[6]),
        )
        players = self.db.execute(
            """SELECT player_id, name, registered_ms, rating, seed FROM tournament_players
               WHERE tournament_id = ?""",
            (tournament_id,),
        ).fetchall()
        t.entrants = [
            Entrant(p[0], p[1], int(p[2]), float(p[3]), None if p[4] is None else int(p[4]))
            for p in players
        ]
        # Seeds once drawn, registration order before.
        t.entrants.sort(key=lambda e: (e.seed or 1 << 30, e.registered_ms, e.player_id))
        for m in self.db.execute(
            """SELECT round, idx, grp, a, b, state, room_id, match_id, opened_ms, seated,
                      winner, reason, score_a, score_b
               FROM tournament_matches WHERE tournament_id = ? ORDER BY round, idx""",
            (tournament_id,),
        ).fetchall():
            while len(t.rounds) <= m[0]:
                t.rounds.append([])
            t.rounds[m[0]].append(
                TMatch(
                    int(m[0]),
                    int(m[1]),
                    m[3],
                    m[4],
                    group=m[2],
                    state=MatchState(m[5]),
                    room_id=m[6],
                    match_id=None if m[7] is None else int(m[7]),
                    opened_ms=None if m[8] is None else int(m[8]),
                    seated=json.loads(m[9]),
                    winner=m[10],
                    reason=m[11],
                    score_a=None if m[12] is None else Score(**json.loads(m[12])),
                    score_b=None if m[13] is None else Score(**json.loads(m[13])),
                )
            )
        return t

    def listing(self, limit: int = 100) -> list[dict[str, Any]]:
        """Events not over first (soonest first), then the latest finished or cancelled."""
        rows = self.db.execute(
            """SELECT t.tournament_id, t.name, t.format, t.phase, t.options, t.starts_ms,
                      t.winner,
                      (SELECT COUNT(*) FROM tournament_players p
                        WHERE p.tournament_id = t.tournament_id)
               FROM tournaments t
               ORDER BY CASE WHEN t.phase IN ('registration', 'running') THEN 0 ELSE 1 END,
                        CASE WHEN t.phase IN ('registration', 'running') THEN t.starts_ms
                             ELSE -t.starts_ms END
               LIMIT ?""",
            (limit,),
        ).fetchall()
        return [
            {
                "tournament_id": r[0],
                "name": r[1],
                "format": r[2],
                "state": r[3],
                "options": _options_from_record(json.loads(r[4])),
                "starts_ms": int(r[5]),
                "winner": r[6],
                "players": int(r[7]),
            }
            for r in rows
        ]

    def tournament_of_room(self, room_id: str) -> tuple[str, tuple[int, int]] | None:
        row = self.db.execute(
            "SELECT tournament_id, round, idx FROM tournament_matches WHERE room_id = ?",
            (room_id,),
        ).fetchone()
        return None if row is None else (row[0], (int(row[1]), int(row[2])))

    def to_run(self) -> list[str]:
        """Events that are not over (a runner watches each)."""
        rows = self.db.execute(
            "SELECT tournament_id FROM tournaments WHERE phase IN ('registration', 'running')"
        ).fetchall()
        return [r[0] for r in rows]

    # Runner leases --------------------------------------------------------------------------
    def claim(self, tournament_id: str, runner: str, now_ms: int, lease_ms: int) -> bool:
        """Take or renew the right to run the event: free, ours, or its lease ran out."""
        row = self.db.execute(
            """UPDATE tournaments SET runner = ?, runner_until_ms = ?
               WHERE tournament_id = ? AND (runner IS NULL OR runner = ? OR runner_until_ms < ?)
               RETURNING 1""",
            (runner, now_ms + lease_ms, tournament_id, runner, now_ms),
        ).fetchone()
        return row is not None

    def release(self, tournament_id: str, runner: str) -> None:
        self.db.execute(
            """UPDATE tournaments SET runner = NULL, runner_until_ms = 0
               WHERE tournament_id = ? AND runner = ?""",
            (tournament_id, runner),
        )


def _options_record(o: TournamentOptions) -> dict[str, Any]:
    record = asdict(o)
    record["format"] = o.format.value
    record["v"] = 1
    return record


def _options_from_record(data: dict[str, Any]) -> TournamentOptions:
    fields = {k: v for k, v in data.items() if k != "v"}
    fields["format"] = Format(fields["format"])
    return TournamentOptions(**fields)
