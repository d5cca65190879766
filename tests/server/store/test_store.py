"""Persistence, on both stores (SQLite file and PostgreSQL, the ``store_db`` fixture): SIGKILL
the server mid-match, restart it on the same database, finish; privacy of replays; the store's
calls directly; schema migrations."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.core.room import settings_from_wire
from server.net.gateway import GameServer
from server.process import ServerProcess
from server.store.api import open_store
from server.store.sqlite import SCHEMA_VERSION, Store
from shared import rules, wireviews
from shared.physics import Stroke, simulate, simulate_lag
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams, Scoresheet
from tests.server.wire import Wire, search_stroke

OPTIONS = rules.MatchOptions(distance=1, shot_clock_s=30)


@pytest.fixture
async def server(store_db: str) -> AsyncIterator[GameServer]:
    """conftest's server, on each store in turn."""
    srv = GameServer(ServerConfig(port=0, db_path=store_db, workers=0))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def _cue(msg: ts.Stroke) -> Stroke:
    return msg.cue.physics()


def _reference(
    lag: tuple[ts.Stroke, ts.Stroke], breaker: int, strokes: list[ts.Stroke]
) -> Scoresheet:
    """The same match without any kill: the referee and the physics, driven directly."""
    table = OPTIONS.table_spec
    state, _ = rules.apply(rules.new_match(OPTIONS, 0), rules.Start(), 0)
    t = 0
    for seat in (0, 1):
        state, _ = rules.apply(state, rules.LagStroke(seat, _cue(lag[seat])), t)
    both = rules.lag_strokes(state)
    assert both is not None
    state, _ = rules.apply(state, rules.LagResult(simulate_lag(table, state.positions, both)), t)
    t = state.resting_at_ms
    state, _ = rules.apply(state, rules.ChooseBreak(breaker, breaker), t)
    for msg in strokes:
        seat = state.shooter
        assert seat is not None
        cue = _cue(msg)
        result = simulate(table, rules.stroke_start(state), rules.cue_ball(state), cue)
        state, _ = rules.apply(state, rules.PlayStroke(seat, cue, result), t)
        t = state.resting_at_ms
    return wireviews.sheet_view(rules.scoresheet(state))


async def _wait_rest(rest_ms: int) -> None:
    await asyncio.sleep(max(0.0, rest_ms / 1000 - time.time()) + 0.05)


@pytest.mark.slow
async def test_sigkill_mid_match_then_restart_loses_no_stroke(
    store_db: str, procs: list[ServerProcess]
) -> None:
    db = store_db
    first = ServerProcess(db, workers=1)
    procs.append(first)
    alice = await Wire.open(first.url, "alice")
    bob = await Wire.open(first.url, "bob")
    rid = (
        await alice.request(
            ts.CreateRoom(discipline="three_cushion", distance=1, shot_clock_s=30),
            tc.RoomCreated,
        )
    ).room_id
    tokens = [
        (await alice.request(ts.Join(room_id=rid), tc.Joined)).seat_token,
        (await bob.request(ts.Join(room_id=rid), tc.Joined)).seat_token,
    ]
    lag = (
        ts.Stroke(cue=CueParams(direction=180.0, speed=0.05)),
        ts.Stroke(cue=CueParams(direction=0.0, speed=0.5)),
    )
    await alice.send(lag[0])
    await bob.send(lag[1])
    result = await alice.expect(tc.LagResult, timeout=10)
    breaker = result.winner
    assert breaker is not None
    await _wait_rest(result.rest_ms or 0)
    players = [alice, bob]
    await players[breaker].send(ts.ChooseBreak(breaker="me"))
    await alice.expect(tc.Turn, where=lambda m: m.phase == "play")
    snap = await alice.request(ts.Sync(), tc.Snapshot)
    scoring, _ = await search_stroke(snap.match, OPTIONS)
    await players[breaker].send(scoring)
    played = await alice.expect(tc.StrokePlayed, timeout=5)
    assert played.result.points == 1

    # The stroke was broadcast, so it is durable: kill the server without any warning.
    first.kill()
    store = open_store(db)
    try:
        assert store.open_rooms()[0].room_id == rid
    finally:
        store.close()

    second = ServerProcess(db, workers=1)
    procs.append(second)
    ids = [alice.welcome, bob.welcome]
    back = [
        await Wire.open(second.url, name, token=ids[i].token)  # type: ignore[union-attr]
        for i, name in enumerate(("alice", "bob"))
    ]
    for i in (0, 1):
        assert (
            await back[i].request(ts.Rejoin(room_id=rid, seat_token=tokens[i]), tc.Joined)
        ).seat == i
    snap = await back[0].request(ts.Sync(), tc.Snapshot)
    # R-END-2: the room came back in the equalizing inning, with the breaker's point.
    assert snap.match.score[breaker] == 1 and snap.match.equalizing is True
    assert snap.match.shooter == 1 - breaker
    await _wait_rest(snap.match.resting_at_ms)
    miss, _ = await search_stroke(snap.match, OPTIONS, score=False)
    await back[1 - breaker].send(miss)
    over = await back[0].expect(tc.GameOver, timeout=8)
    assert over.winner == breaker

    # Scores identical to the same strokes without a kill; the replay has every stroke.
    assert over.scoresheet == _reference(lag, breaker, [scoring, miss])
    replay = await back[1].request(ts.GetReplay(match_id=over.match_id or 0), tc.Replay)
    assert [s.kind for s in replay.strokes] == ["lag", "stroke", "stroke"]
    assert replay.strokes[1].body.trajectory == played.trajectory  # type: ignore[union-attr]
    assert await asyncio.to_thread(second.stop) == 0  # SIGTERM drains and exits cleanly
    # Draining told the clients why, then closed with 1001 (going away).
    assert await back[0].closed() == 1001
    assert any(isinstance(m, tc.Closing) for m in back[0].log)


# Privacy of replays (issue 12, point 5) -------------------------------------------------------


async def _started_match(url: str, names: tuple[str, str], **create: object) -> tuple[int, list]:
    """Two players seated, so a match starts; its match id, the two wires and the room id."""
    a = await Wire.open(url, names[0])
    b = await Wire.open(url, names[1])
    rid = (
        await a.request(
            ts.CreateRoom(discipline="three_cushion", **create),  # type: ignore[arg-type]
            tc.RoomCreated,
        )
    ).room_id
    password = create.get("password")
    await a.request(ts.Join(room_id=rid, password=password), tc.Joined)  # type: ignore[arg-type]
    await b.request(ts.Join(room_id=rid, password=password), tc.Joined)  # type: ignore[arg-type]
    snap = await a.expect(tc.Snapshot, where=lambda m: m.room.match_id is not None)
    match_id = snap.room.match_id
    return match_id, [a, b, rid]


async def test_private_matches_are_seen_only_by_their_players_and_guests(url: str) -> None:
    secret = "s3cret pass"
    private_id, (ann, bob, rid) = await _started_match(
        url, ("ann", "bob"), private=True, password=secret
    )
    carol = await Wire.open(url, "carol")  # a guest: she gave the password
    await carol.request(ts.Spectate(room_id=rid, password=secret), tc.Snapshot)
    mallory = await Wire.open(url, "mallory")  # never did
    # While it runs: the live replay is the players' and guests' only.
    assert (await mallory.refused(ts.GetReplay(match_id=private_id))).code == "no_such_match"
    await carol.request(ts.GetReplay(match_id=private_id), tc.Replay)
    await ann.send(ts.Concede())
    await carol.expect(tc.GameOver)

    public_id, (dan, _, _) = await _started_match(url, ("dan", "eve"))
    await dan.send(ts.Concede())
    await dan.expect(tc.GameOver)

    # Ids are random, not a counter one could walk.
    assert private_id != public_id and min(private_id, public_id) > 1_000_000
    assert abs(private_id - public_id) > 1

    async def listed(w: Wire, **kw: object) -> list[int]:
        got = await w.request(ts.ListMatches(**kw), tc.Matches)  # type: ignore[arg-type]
        return [m.match_id for m in got.matches]

    assert await listed(mallory) == [public_id]
    assert await listed(mallory, player_id=ann.welcome.player_id) == []  # type: ignore[union-attr]
    assert (await mallory.refused(ts.GetReplay(match_id=private_id))).code == "no_such_match"
    for insider in (ann, bob, carol):
        assert await listed(insider) == [public_id, private_id]
        replay = await insider.request(ts.GetReplay(match_id=private_id), tc.Replay)
        assert replay.finished
    # Paging by the last id seen still works with random ids (newest first).
    assert await listed(ann, limit=1) == [public_id]
    assert await listed(ann, limit=1, before=public_id) == [private_id]
    assert await listed(ann, before=private_id) == []


def test_a_file_from_the_first_schema_is_migrated_and_keeps_private_matches_private(
    tmp_path: Path,
) -> None:
    import sqlite3

    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript(
        """CREATE TABLE rooms (room_id TEXT PRIMARY KEY, options TEXT NOT NULL,
             private INTEGER NOT NULL, password_hash TEXT, created_ms INTEGER NOT NULL,
             closed_ms INTEGER, seq INTEGER NOT NULL, seats TEXT NOT NULL, state TEXT,
             match_id INTEGER, updated_ms INTEGER NOT NULL);
           CREATE TABLE matches (match_id INTEGER PRIMARY KEY AUTOINCREMENT,
             room_id TEXT NOT NULL, discipline TEXT NOT NULL, options TEXT NOT NULL,
             players TEXT NOT NULL, started_ms INTEGER NOT NULL, finished_ms INTEGER,
             winner INTEGER, reason TEXT, scoresheet TEXT);
           INSERT INTO rooms VALUES ('r1', '{}', 1, 'h', 0, 5, 0, '[]', NULL, 1, 0);
           INSERT INTO matches VALUES (1, 'r1', 'three_cushion', '{}', '[]', 0, 5, 0, 'x', NULL);
        """
    )
    con.close()
    with Store(str(db)) as store:
        assert store.list_matches(10) == []
        assert store.match(1) is None and store.match(1, viewer="pnobody") is None
        (version,) = store.db.execute("PRAGMA user_version").fetchone()
        assert version == SCHEMA_VERSION


# The store's calls, on both stores ------------------------------------------------------------

SHEET = {
    "match": [
        {"points": 15, "innings": 20, "average": 0.75, "high_run": 4},
        {"points": 9, "innings": 20, "average": 0.45, "high_run": 2},
    ]
}


def test_room_state_is_stored_compactly_and_rows_from_version_2_still_load(
    tmp_path: Path,
) -> None:
    """The referee state goes in as msgpack (a room is saved after every input; JSON was ~8 %
    of the event loop at 2 000 rooms); a row an older server wrote as JSON text still loads,
    and the file says version 3 so an older server refuses it instead of misreading it."""
    import json

    from server.core.room import Room
    from server.store.sqlite import RoomRecord

    room = Room("r1", settings_from_wire(ts.CreateRoom(discipline="three_cushion")), 1_000)
    state = room.to_record().state
    assert state is not None
    db = str(tmp_path / "c.db")
    with Store(db) as store:
        store.save_room(room.to_record(), 2_000)
        old = RoomRecord("r0", {"discipline": "three_cushion"}, False, None, 1, 4, [], None, None)
        store.save_room(old, 2_000)
        # As a server of schema version 2 wrote it: JSON text.
        store.db.execute("UPDATE rooms SET state = ? WHERE room_id = 'r0'", (json.dumps(state),))
        kinds = dict(store.db.execute("SELECT room_id, typeof(state) FROM rooms").fetchall())
        assert kinds == {"r1": "blob", "r0": "text"}
        sql = "SELECT length(state) FROM rooms WHERE room_id = 'r1'"
        (length,) = store.db.execute(sql).fetchone()
        assert length < len(json.dumps(state)) * 0.8
    with Store(db) as store:
        back = {r.room_id: r.state for r in store.open_rooms()}
        assert back == {"r0": state, "r1": state}
        assert Room.from_record(store.open_rooms()[1], 2_000).state == room.state
        (version,) = store.db.execute("PRAGMA user_version").fetchone()
        assert version == SCHEMA_VERSION


def test_players_rooms_strokes_and_results_come_back_as_written(store_db: str) -> None:
    from server.store.sqlite import RoomRecord

    store = open_store(store_db)
    try:
        store.add_player("pa", "hash-a", "Ann", 1)
        store.add_player("pb", "hash-b", "Bob", 1)
        store.touch_player("pa", "Annie", 2)
        assert store.player_by_token("hash-a") == ("pa", "Annie")
        assert store.player_by_token("nope") is None
        seats: list[dict[str, object] | None] = [
            {"player_id": "pa", "name": "Annie", "token_hash": "s1"},
            None,
        ]
        room = RoomRecord(
            "r1", {"discipline": "three_cushion"}, True, "scrypt$h", 5, 0, seats, None, None
        )
        store.save_room(room, 6)
        players = [{"player_id": "pa", "name": "Annie"}, {"player_id": "pb", "name": "Bob"}]
        room.match_id = store.start_match("r1", "three_cushion", {}, players, 7, private=True)
        assert 0 < room.match_id < 2**53
        room.seq, room.state = 3, {"score": [1, 0], "nested": {"x": 0.25}}
        record = bytes(range(256))  # any bytes survive, NUL included
        assert store.commit_stroke(room, "lag", None, 8, b"\x00lag", 9) == 1
        assert store.commit_stroke(room, "stroke", 0, 10, record, 11) == 2
        (back,) = store.open_rooms()
        assert (back.room_id, back.seq, back.state, back.seats) == ("r1", 3, room.state, seats)
        assert (back.private, back.password_hash, back.match_id) == (
            True,
            "scrypt$h",
            room.match_id,
        )
        assert back.updated_ms == 11
        assert store.strokes(room.match_id) == [
            (1, "lag", None, 8, b"\x00lag"),
            (2, "stroke", 0, 10, record),
        ]
        assert store.strokes(room.match_id, after=1) == [(2, "stroke", 0, 10, record)]
        assert [n for n, *_ in store.strokes(room.match_id, limit=1)] == [1]
        reader = store.reader()  # a worker thread's own connection sees the committed rows
        try:
            assert len(store.strokes(room.match_id, db=reader)) == 2
        finally:
            reader.close()
        # Private: only its players and guests see it.
        store.finish_match(room.match_id, 0, "distance", SHEET, 12)
        assert store.list_matches(10) == []
        assert store.match(room.match_id, viewer="pz") is None
        store.add_guest("r1", "pz")
        store.add_guest("r1", "pz")  # twice is once
        (seen,) = store.list_matches(10, viewer="pz")
        assert (seen["winner"], seen["reason"], seen["strokes"]) == (0, "distance", 2)
        assert seen["scoresheet"] == SHEET
        assert store.match(room.match_id, viewer="pb")["players"] == players  # type: ignore[index]
        store.close_room("r1", 13)
        assert store.open_rooms() == []
    finally:
        store.close()


def test_a_taken_name_is_refused_and_a_rated_result_moves_both_ratings(store_db: str) -> None:
    store = open_store(store_db)
    try:
        for pid, name in (("pa", "Ann"), ("pb", "Bob")):
            store.add_player(pid, "t" + pid, name, 0)
        assert store.standings.register("pa", "Ann", "ann", "scrypt$x", False, 0)
        assert store.standings.register("pb", "Bob", "bob", "scrypt$x", False, 0)
        assert not store.standings.register("pb", "ANN", "ann", "scrypt$y", False, 0)
        assert store.standings.account_by_key("ann").player_id == "pa"  # type: ignore[union-attr]
        store.standings.add_token("pa", "login-token", 1)
        assert store.player_by_token("login-token") == ("pa", "Ann")
        players = [{"player_id": "pa", "name": "Ann"}, {"player_id": "pb", "name": "Bob"}]
        ids = []
        for _ in range(2):  # the second result updates the rows the first one wrote
            ids.append(store.start_match("r1", "three_cushion", {}, players, 86_400_000))
            store.finish_match(ids[-1], 0, "distance", SHEET, 86_400_000)
        ann, bob = store.standings.leaderboard("three_cushion", 20, 0, 86_400_000)
        assert (ann["name"], ann["wins"], bob["name"], bob["losses"]) == ("Ann", 2, "Bob", 2)
        assert ann["rating"] > 1500 > bob["rating"]
        assert ann["high_run"] == 4 and ann["average"] == 0.75
        changes = store.standings.changes_of(ids, "pb")
        assert set(changes) == set(ids) and all(
            after < before for before, after in changes.values()
        )
        assert [c.player_id for c in store.standings.take_changes()] == ["pa", "pb"] * 2
    finally:
        store.close()


# PostgreSQL only -------------------------------------------------------------------------------


def test_postgres_migrations_run_once_and_a_newer_schema_is_refused(pg_url: str) -> None:
    import threading

    import psycopg

    from server.store.postgres import SCHEMA_VERSION, PostgresStore
    from server.store.sqlite import StoreError

    # Three nodes starting at once: each migration is applied exactly once.
    stores: list[PostgresStore] = []
    threads = [
        threading.Thread(target=lambda: stores.append(PostgresStore(pg_url))) for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert len(stores) == 3
        stores[0].add_player("pa", "ta", "Ann", 0)
        with psycopg.connect(pg_url) as con:
            applied = con.execute("SELECT version FROM carom_schema ORDER BY version").fetchall()
            assert applied == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
        again = PostgresStore(pg_url)  # a restart keeps the data
        assert again.player_by_token("ta") == ("pa", "Ann")
        again.close()
        with psycopg.connect(pg_url, autocommit=True) as con:
            con.execute("INSERT INTO carom_schema VALUES (%s, 0)", (SCHEMA_VERSION + 1,))
        with pytest.raises(StoreError, match="newer carom server") as refused:
            PostgresStore(pg_url)
        assert "postgresql://postgres@127.0.0.1:" in str(refused.value)
    finally:
        for s in stores:
            s.close()


def test_postgres_unreachable_is_one_sentence_without_the_password() -> None:
    from server.store.sqlite import StoreError

    with pytest.raises(StoreError) as refused:
        open_store("postgresql://carom:hunter2@127.0.0.1:1/carom")
    assert "cannot reach the database postgresql://carom@127.0.0.1:1/carom" in str(refused.value)
    assert "hunter2" not in str(refused.value)


def test_postgres_lost_connection_fails_one_write_clearly_then_reconnects(pg_url: str) -> None:
    import psycopg

    from server.store.postgres import PostgresStore
    from server.store.sql import DatabaseUnavailable

    store = PostgresStore(pg_url)
    try:
        store.add_player("pa", "ta", "Ann", 0)
        # The database ends our session (as a PostgreSQL restart or a failover would).
        pid = store.db.execute("SELECT pg_backend_pid()").fetchone()[0]
        with psycopg.connect(pg_url, autocommit=True) as con:
            con.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(DatabaseUnavailable):  # an OSError: the server answers unavailable
            store.touch_player("pa", "Annie", 1)
        assert store.failure is not None and "failed a statement" in store.failure
        store.touch_player("pa", "Annie", 2)  # a new connection; nothing half-written
        assert store.failure is None
        assert store.player_by_token("ta") == ("pa", "Annie")
    finally:
        store.close()


def test_postgres_a_late_write_from_a_replaced_holder_is_refused(pg_url: str) -> None:
    """Fencing: node A held room r1 with lease token 1 and stalled; node B took the lease with
    token 2. What A writes afterwards is refused, whole; B's writes go in."""
    from server.store.postgres import Fenced, PostgresStore
    from server.store.sqlite import RoomRecord

    a, b = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        room = RoomRecord("r1", {}, False, None, 0, 1, [None, None], {"score": [0, 0]}, None)
        a.fence("r1", 1)
        a.save_room(room, 1)
        room.match_id = a.start_match("r1", "three_cushion", {}, [], 2)
        assert a.commit_stroke(room, "stroke", 0, 3, b"one", 3) == 1
        b.fence("r1", 2)  # B takes over, then reads the room
        (seen,) = b.open_rooms()
        room.seq, room.state = 2, {"score": [1, 0]}
        with pytest.raises(Fenced):
            a.commit_stroke(room, "stroke", 0, 4, b"two", 4)
        with pytest.raises(Fenced):
            a.save_room(room, 5)
        with pytest.raises(Fenced):
            a.close_room("r1", 6)
        assert a.failure is None  # not a database failure
        (now,) = b.open_rooms()
        assert (now.seq, now.state) == (1, {"score": [0, 0]})  # as B read it
        assert [n for n, *_ in b.strokes(room.match_id)] == [1]  # A's late stroke is not in
        seen.seq = 2
        assert b.commit_stroke(seen, "stroke", 1, 7, b"b's", 7) == 2
        b.close_room("r1", 8)
        assert b.open_rooms() == []
        assert b.room_fence("r1") == 2
    finally:
        a.close()
        b.close()


def test_postgres_a_version_1_database_is_migrated_keeping_its_rooms(pg_url: str) -> None:
    import psycopg

    from server.store.postgres import MIGRATIONS, SCHEMA_VERSION, PostgresStore

    with psycopg.connect(pg_url, autocommit=True) as con:
        con.execute(
            "CREATE TABLE carom_schema (version INTEGER NOT NULL, applied_ms BIGINT NOT NULL)"
        )
        for statement in MIGRATIONS[0][1].split(";\n"):
            if statement.strip():
                con.execute(statement)
        con.execute("INSERT INTO carom_schema VALUES (1, 0)")
        con.execute(
            "INSERT INTO rooms (room_id, options, private, created_ms, seq, seats, updated_ms) "
            'VALUES (\'rold\', \'{"discipline": "one_cushion", "distance": 7}\', 0, 1, 5, '
            "'[null, null]', 2)"
        )
    store = PostgresStore(pg_url)
    try:
        assert store.schema_version() == SCHEMA_VERSION >= 2
        (room,) = store.open_rooms()
        assert (room.room_id, room.seq) == ("rold", 5)
        # Its create_room options became a record of the current version.
        assert room.options == {
            "v": 2,
            "discipline": "one_cushion",
            "private": False,
            "options": {"distance": 7},
        }
        assert store.room_fence("rold") == 0
    finally:
        store.close()
