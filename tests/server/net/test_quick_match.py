"""Quick match over the real server: pairing by rating with a widening window (on a fake clock),
a bot offered after the wait, a match between paired players rated at its end, and ratings that
survive a SIGKILL at the moment a match ends."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
from collections.abc import AsyncIterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.core.accounts import AccountsConfig
from server.net.actor import now_ms
from server.net.gateway import GameServer
from server.process import ServerProcess
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.wire import Wire

PASSWORD = "correct horse battery"


class FakeClock:
    def __init__(self) -> None:
        self.t = now_ms()

    def __call__(self) -> int:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += int(seconds * 1000)


@pytest.fixture
async def slow_pairing(tmp_path: Path) -> AsyncIterator[tuple[GameServer, FakeClock]]:
    """A server whose queue pairs only when the test says so, on a clock the test moves."""
    accounts = AccountsConfig(window=100, widen_per_s=10, bot_after_s=30, pair_every_s=3600)
    srv = GameServer(
        ServerConfig(port=0, db_path=str(tmp_path / "carom.db"), workers=0, accounts=accounts)
    )
    await srv.start()
    clock = FakeClock()
    srv.desk.clock = clock
    try:
        yield srv, clock
    finally:
        await srv.stop()


async def _member(url: str, name: str, *, bot: bool = False) -> Wire:
    w = await Wire.open(url, name.lower())
    await w.request(ts.Register(name=name, password=PASSWORD, bot=bot or None), tc.Welcome)
    return w


def _seed_rating(server: GameServer, player_id: str, rating: float) -> None:
    """Give a player a settled rating (as if they had played many rated games)."""
    assert server.store is not None
    server.store.db.execute(
        """INSERT INTO standings VALUES (?, 'three_cushion', ?, 60, 0.06, ?, 60, 0.06,
           0, 40, 20, 0, 20, 400, 500, 9, 0)""",
        (player_id, rating, rating),
    )


async def test_a_far_off_player_is_paired_only_after_the_window_widens(
    slow_pairing: tuple[GameServer, FakeClock],
) -> None:
    server, clock = slow_pairing
    url = f"ws://127.0.0.1:{server.port}/"
    ann, bob = await _member(url, "Ann"), await _member(url, "Bob")
    assert ann.welcome and bob.welcome
    _seed_rating(server, _pid(server, "Ann"), 1500)
    _seed_rating(server, _pid(server, "Bob"), 1800)
    q = await ann.request(ts.Queue(discipline="three_cushion"), tc.Queued)
    assert q.rating == 1500
    assert (await bob.request(ts.Queue(discipline="three_cushion"), tc.Queued)).rating == 1800
    # 300 apart: windows of 100 at once, 200 after 10 s, 290 after 19 s — no pairing.
    for wait in (0, 10, 9):
        clock.advance(wait)
        assert await server.desk.pair_now() == 0
    clock.advance(1)  # 20 s: both windows reach 300
    assert await server.desk.pair_now() == 1
    a_joined, b_joined = await ann.expect(tc.Joined), await bob.expect(tc.Joined)
    assert a_joined.room_id == b_joined.room_id and {a_joined.seat, b_joined.seat} == {0, 1}
    # The match starts exactly as a hand-joined room: the lag call goes to both.
    for w in (ann, bob):
        await w.expect(tc.Call, where=lambda c: c.code == "lag")


async def test_queue_unqueue_and_disconnect(slow_pairing: tuple[GameServer, FakeClock]) -> None:
    server, _ = slow_pairing
    url = f"ws://127.0.0.1:{server.port}/"
    ann = await Wire.open(url, "ann")  # a guest may queue (unrated)
    assert (await ann.request(ts.Queue(discipline="one_cushion"), tc.Queued)).rating == 1500
    await ann.request(ts.Unqueue(), tc.Unqueued)
    bob = await Wire.open(url, "bob")
    await bob.request(ts.Queue(discipline="one_cushion"), tc.Queued)
    assert await server.desk.pair_now() == 0  # Ann left the queue
    await bob.close()
    await asyncio.sleep(0.2)
    assert len(server.desk.matchmaker) == 0  # a disconnect leaves the queue
    cid = (await ann.request(ts.CreateRoom(discipline="one_cushion"), tc.RoomCreated)).room_id
    await ann.request(ts.Join(room_id=cid), tc.Joined)
    refused = await ann.refused(ts.Queue(discipline="one_cushion"))
    assert refused.code == "already_in_room"


async def test_a_bot_is_offered_after_the_wait_and_the_match_is_unrated(
    slow_pairing: tuple[GameServer, FakeClock],
) -> None:
    server, clock = slow_pairing
    url = f"ws://127.0.0.1:{server.port}/"
    robo = await _member(url, "Robo", bot=True)
    ann = await _member(url, "Ann")
    bot_q = await robo.request(ts.Queue(discipline="three_cushion", level=3), tc.Queued)
    assert bot_q.rating == 1500
    await ann.request(ts.Queue(discipline="three_cushion"), tc.Queued)
    clock.advance(29)
    assert await server.desk.pair_now() == 0  # bots only after the wait
    clock.advance(1)
    assert await server.desk.pair_now() == 1
    await ann.expect(tc.Joined)
    await robo.expect(tc.Joined)
    await ann.expect(tc.Call, where=lambda c: c.code == "lag")
    await ann.send(ts.Concede())
    await ann.expect(tc.GameOver)
    board = await ann.request(ts.GetLeaderboard(discipline="three_cushion"), tc.Leaderboard)
    assert board.rows == ()  # against a bot: unrated
    profile = await ann.request(ts.GetProfile(player_id=_pid(server, "Robo")), tc.Profile)
    assert profile.bot and profile.registered


def _pid(server: GameServer, name: str) -> str:
    assert server.store is not None
    row = server.store.db.execute("SELECT player_id FROM accounts WHERE name = ?", (name,))
    (pid,) = row.fetchone()
    return str(pid)


@pytest.mark.slow
async def test_two_players_queue_play_with_bots_and_the_leaderboard_shows_the_result(
    url: str, server: GameServer
) -> None:
    from client.bot.player import BotPlayer
    from client.session import Session

    sessions = [Session(url, n, remember_identity=False) for n in ("ann", "bob")]
    for s in sessions:
        await s.connect()
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    try:
        for s, name in zip(sessions, ("Ann", "Bob"), strict=True):
            await s.request(ts.Register(name=name, password=PASSWORD))
        joined = [
            asyncio.ensure_future(s.wait_for(lambda m: isinstance(m, tc.Joined), timeout=10))
            for s in sessions
        ]
        await asyncio.sleep(0)
        for s in sessions:
            # One point, three cushion: the bots play a short match (the default distance
            # has an equalizing inning and would take minutes).
            answer = await s.request(ts.Queue(discipline="three_cushion", distance=1))
            assert isinstance(answer, tc.Queued)
        await asyncio.gather(*joined)
        rated_soon = [
            asyncio.ensure_future(s.wait_for(lambda m: isinstance(m, tc.Rated), timeout=300))
            for s in sessions
        ]
        await asyncio.sleep(0)
        bots = [BotPlayer(s, 5, executor=pool, seed=i, think_s=4) for i, s in enumerate(sessions)]
        results = await asyncio.wait_for(asyncio.gather(*(b.play_match() for b in bots)), 200)
        over = results[0]
        assert over.reason in ("distance", "equalized")
        winner = over.winner
        names = {s.state.seat: s.name for s in sessions}
        rated = await asyncio.wait_for(asyncio.gather(*rated_soon), 10)
        board = await sessions[0].request(ts.GetLeaderboard(discipline="three_cushion"))
    finally:
        pool.shutdown(cancel_futures=True)
        for s in sessions:
            await s.close()
    assert isinstance(board, tc.Leaderboard)
    rows = board.rows
    assert len(rows) == 2
    # Both outcomes of a one-point match are checked in full: a draw (the equalizing inning
    # answered) leaves two equal ratings where they were, a win moves them apart.
    for row in rows:
        assert row.standing.games == 1 and row.standing.deviation < 350
    if winner is None:
        assert {r.standing.rating for r in rows} == {1500.0}
        assert all(
            (r.standing.wins, r.standing.draws, r.standing.losses) == (0, 1, 0) for r in rows
        )
        assert all(isinstance(r, tc.Rated) and r.before == r.after == 1500 for r in rated)
    else:
        top, bottom = rows
        assert top.name.lower() == names[winner] and bottom.name.lower() == names[1 - winner]
        assert top.standing.rating > 1500 > bottom.standing.rating
        t, b = top.standing, bottom.standing
        assert (t.wins, t.losses, b.wins, b.losses) == (1, 0, 0, 1)
        assert t.high_run >= 1 and t.average > 0
        assert all(isinstance(r, tc.Rated) and r.before == 1500 != r.after for r in rated)
    assert {r.deviation for r in rated if isinstance(r, tc.Rated)} == {
        row.standing.deviation for row in rows
    }


async def test_ratings_survive_a_sigkill_at_the_moment_a_match_ends(tmp_path: Path) -> None:
    db = tmp_path / "carom.db"
    server = ServerProcess(db, workers=0)
    try:
        ann = await _member(server.url, "Ann")
        bob = await _member(server.url, "Bob")
        rid = (await ann.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)).room_id
        await ann.request(ts.Join(room_id=rid), tc.Joined)
        await bob.request(ts.Join(room_id=rid), tc.Joined)
        await bob.expect(tc.Call, where=lambda c: c.code == "lag")
        await bob.send(ts.Concede())  # Bob concedes: a loss (R-END-5)
        over = await ann.expect(tc.GameOver)
        server.kill()  # the instant the result is out; the server wrote it before saying it
    finally:
        server.kill()
    assert over.reason == "concede"
    server = ServerProcess(db, workers=0)
    try:
        viewer = await Wire.open(server.url, "viewer")
        board = await viewer.request(ts.GetLeaderboard(discipline="three_cushion"), tc.Leaderboard)
    finally:
        server.stop()
    top, bottom = board.rows
    assert (top.name, bottom.name) == ("Ann", "Bob")
    assert top.standing.rating > 1500 > bottom.standing.rating
    # Every finished rated match has its rating change, and nothing else has one.
    con = sqlite3.connect(db)
    finished = con.execute("SELECT COUNT(*) FROM matches WHERE finished_ms IS NOT NULL").fetchone()
    changes = con.execute("SELECT COUNT(DISTINCT match_id) FROM rating_changes").fetchone()
    con.close()
    assert finished == changes == (1,)


async def test_four_players_queue_for_doubles_and_sit_down_as_two_sides(
    slow_pairing: tuple[GameServer, FakeClock],
) -> None:
    """R-TEAM-1: four tickets in the doubles pool make one team room, seated by the balanced
    split: everyone gets ``joined`` with a side and a place, and the match starts."""
    server, _ = slow_pairing
    url = f"ws://127.0.0.1:{server.port}/"
    names = ("Ann", "Bob", "Cid", "Dot")
    wires = [await _member(url, n) for n in names]
    for n, r in zip(names, (1500, 1560, 1530, 1590), strict=True):
        _seed_rating(server, _pid(server, n), r)
    for w in wires[:3]:
        await w.request(ts.Queue(discipline="three_cushion", team_mode="doubles"), tc.Queued)
    assert await server.desk.pair_now() == 0  # three are not a table
    await wires[3].request(ts.Queue(discipline="three_cushion", team_mode="doubles"), tc.Queued)
    assert await server.desk.pair_now() == 1
    joined = {n: await w.expect(tc.Joined) for n, w in zip(names, wires, strict=True)}
    assert len({j.room_id for j in joined.values()}) == 1
    # Dot (1590) and Ann (1500) against Bob (1560) and Cid (1530).
    places = {n: (j.seat, j.slot) for n, j in joined.items()}
    assert places == {"Dot": (0, 0), "Bob": (1, 0), "Ann": (0, 1), "Cid": (1, 1)}
    snap = await wires[0].request(ts.Sync(), tc.Snapshot)
    assert snap.room.options.team_mode == "doubles" and snap.room.players == (
        "Dot",
        "Bob",
        "Ann",
        "Cid",
    )
    for w in wires:
        await w.expect(tc.Call, where=lambda c: c.code == "lag")
    # A bot account cannot queue for doubles.
    robot = await _member(url, "Robot", bot=True)
    refused = await robot.refused(ts.Queue(discipline="three_cushion", team_mode="doubles"))
    assert refused.code == "bad_field"
