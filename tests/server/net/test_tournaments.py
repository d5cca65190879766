"""Tournaments over the real server (server/net/tournaments.py): players seated unasked, a
knockout to its winner, a no-show on a fake clock, a round robin's table, Swiss without
rematches, and an event that goes on after a restart."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from server.config import ServerConfig
from server.net.actor import now_ms
from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol import tournament as tw
from tests.server.wire import Wire

PASSWORD = "correct horse battery"


class FakeClock:
    def __init__(self) -> None:
        self.t = now_ms()

    def __call__(self) -> int:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += int(seconds * 1000)


@asynccontextmanager
async def running(folder: Path, clock: FakeClock) -> AsyncIterator[GameServer]:
    """A real server whose tournament runner reads ``clock`` and ticks often."""
    srv = GameServer(ServerConfig(port=0, db_path=str(folder / "carom.db"), workers=0))
    srv.tournaments.clock = clock
    srv.tournaments.tick_s = 0.05
    await srv.start()
    try:
        yield srv
    finally:
        await srv.stop()


def url_of(srv: GameServer) -> str:
    return f"ws://127.0.0.1:{srv.port}/"


async def member(url: str, name: str, token: str | None = None) -> Wire:
    w = await Wire.open(url, name.lower(), token)
    if token is None:
        await w.request(ts.Register(name=name, password=PASSWORD), tc.Welcome)
    return w


def pid(w: Wire) -> str:
    assert w.welcome is not None
    return w.welcome.player_id


async def organizer(srv: GameServer) -> Wire:
    org = await member(url_of(srv), "Olga")
    assert srv.store is not None
    srv.store.tournaments.grant_organizer(pid(org), now_ms())
    return org


async def create(org: Wire, clock: FakeClock, fmt: str = "knockout", **kw: object) -> str:
    msg = tw.TournamentCreate(
        name=kw.pop("name", "Club night"),  # type: ignore[arg-type]
        discipline=kw.pop("discipline", "three_cushion"),  # type: ignore[arg-type]
        distance=kw.pop("distance", 3),  # type: ignore[arg-type]
        format=fmt,
        capacity=kw.pop("capacity", 8),  # type: ignore[arg-type]
        registration_closes_ms=clock() + 60_000,
        starts_ms=clock() + 60_000,
        **kw,  # type: ignore[arg-type]
    )
    created = await org.request(msg, tw.TournamentCreated)
    return created.tournament_id


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        await asyncio.sleep(0.02)


async def close_all(wires: list[Wire]) -> None:
    """Read what each has been sent, then close it (a client that stops reading holds the
    server's writes back, and with them its own close)."""
    for w in wires:
        await w.quiet(0.05)
        await w.close()


async def info(w: Wire, tid: str) -> tw.TournamentInfo:
    return await w.request(tw.GetTournament(tournament_id=tid), tw.TournamentInfo)


async def play_out(
    players: dict[str, Wire], tid: str, loser: Callable[[str, str], str], watcher: Wire
) -> tw.TournamentInfo:
    """Until the event is over: whoever is seated at a table and is the ``loser`` of its two
    players concedes at once (the runner does everything else)."""
    conceded: set[str] = set()
    while True:
        t = await info(watcher, tid)
        if t.state in ("finished", "cancelled"):
            return t
        for r in t.rounds:
            for m in r.matches:
                if m.state != "open" or m.room_id is None or m.room_id in conceded:
                    continue
                if len(m.players) != 2 or m.match_id is None:
                    continue  # both seated, the match begun: then the loser concedes
                a, b = m.players
                w = players[loser(a, b)]
                await w.expect(tc.Joined, where=lambda j, room=m.room_id: j.room_id == room)
                await w.send(ts.Concede())
                conceded.add(m.room_id)
        await asyncio.sleep(0.05)


async def test_refusals_speak_plainly(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        guest = await Wire.open(url, "guest")
        ann = await member(url, "Anna")
        refused = await ann.refused(
            tw.TournamentCreate(
                name="Mine",
                discipline="three_cushion",
                distance=3,
                format="knockout",
                capacity=4,
                registration_closes_ms=clock() + 1000,
                starts_ms=clock() + 1000,
            )
        )
        assert refused.code == "not_organizer" and "operator" in refused.message
        org = await organizer(srv)
        bad = await org.refused(
            tw.TournamentCreate(
                name="Late",
                discipline="three_cushion",
                distance=3,
                format="swiss",
                capacity=4,
                registration_closes_ms=clock() + 1000,
                starts_ms=clock() + 1000,
            )
        )
        assert bad.code == "bad_options" and "rounds" in bad.message
        tid = await create(org, clock, capacity=2)
        no_account = await guest.refused(tw.TournamentRegister(tournament_id=tid))
        assert no_account.code == "account_needed"
        await ann.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
        again = await ann.refused(tw.TournamentRegister(tournament_id=tid))
        assert again.code == "already_registered"
        bob = await member(url, "Bobby")
        await bob.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
        cy = await member(url, "Cyd")
        full = await cy.refused(tw.TournamentRegister(tournament_id=tid))
        assert (full.code, full.message) == ("tournament_full", "The tournament is full.")
        clock.advance(61)
        closed = await cy.refused(tw.TournamentUnregister(tournament_id=tid))
        assert closed.code == "registration_closed"
        missing = await cy.refused(tw.GetTournament(tournament_id="tnothing"))
        assert missing.code == "no_such_tournament"
        listed = await cy.request(tw.ListTournaments(), tw.Tournaments)
        assert [(s.tournament_id, s.players) for s in listed.tournaments] == [(tid, 2)]
        not_theirs = await ann.refused(tw.TournamentCancel(tournament_id=tid))
        assert not_theirs.code == "not_organizer"
        cancelled = await org.request(tw.TournamentCancel(tournament_id=tid), tw.TournamentInfo)
        assert cancelled.state == "cancelled"
        await close_all([guest, ann, org, bob, cy])


async def test_a_knockout_runs_from_registration_to_a_winner_by_itself(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock)
        await org.request(tw.WatchTournament(tournament_id=tid), tw.TournamentInfo)
        names = ["Anna", "Bobby", "Cyd", "Deb", "Evan"]
        wires = {}
        for name in names:
            w = await member(url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(0.01)  # registration order breaks equal ratings
            wires[pid(w)] = w
        order = {p: i for i, p in enumerate(wires)}  # registration order: the seeds (no ratings)
        clock.advance(60)
        # The better seed always wins: the lower-seeded player concedes as soon as seated.
        final = await play_out(wires, tid, lambda a, b: max(a, b, key=order.get), org)
        assert final.state == "finished"
        first = next(iter(wires))
        assert final.winner == first
        assert [p.seed for p in final.players] == [1, 2, 3, 4, 5]
        # Five players: a bracket of eight, three byes to the best seeds, then 2 rounds more.
        assert len(final.rounds) == 3
        assert [m.reason for m in final.rounds[0].matches] == ["bye", "concede", "bye", "bye"]
        assert all(m.match_id is not None for r in final.rounds[1:] for m in r.matches)
        # A watcher was sent every change, the last one the finished event (the push may come
        # just after the answer that already read the event finished).
        await org.expect(tw.TournamentInfo, where=lambda m: m.re is None and m.state == "finished")
        pushed = [m for m in org.log if isinstance(m, tw.TournamentInfo) and m.re is None]
        assert pushed and pushed[-1].state == "finished" and pushed[-1].winner == first
        versions = [m.version for m in pushed]
        assert versions == sorted(versions)
        # Players were told where their tables were, and each match was rated as usual.
        await wires[first].quiet(0.2)  # read what has arrived
        told = [m for m in wires[first].log if isinstance(m, tw.TournamentTable)]
        assert [t.round for t in told] == [2, 3]
        assert srv.store is not None
        match_ids = [m.match_id for r in final.rounds for m in r.matches if m.match_id]
        rated = srv.store.db.execute(
            "SELECT COUNT(DISTINCT match_id) FROM rating_changes"
        ).fetchone()[0]
        assert rated == len(match_ids) == 4
        await close_all([org, *wires.values()])


async def test_a_player_who_never_comes_loses_by_no_show(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, no_show_s=300)
        ann = await member(url, "Anna")
        bob = await member(url, "Bobby")
        for w in (ann, bob):
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
        await bob.close()  # Bob never comes back
        clock.advance(60)
        joined = await ann.expect(tc.Joined)
        table = await ann.expect(tw.TournamentTable)
        assert table.room_id == joined.room_id and table.opponent == "Bobby"
        assert table.no_show_ms == clock() + 300_000
        clock.advance(299)
        ticks = srv.tournaments.ticks
        await until(lambda: srv.tournaments.ticks >= ticks + 3)  # the runner looked: too early
        assert (await info(org, tid)).state == "running"
        # A stranger cannot take Bob's seat.
        cy = await member(url, "Cyd")
        taken = await cy.refused(ts.Join(room_id=joined.room_id))
        assert taken.code == "room_full" and "tournament" in taken.message
        watching = await cy.request(ts.Spectate(room_id=joined.room_id), tc.Snapshot)
        assert watching.seat is None  # but anyone can watch the table
        await cy.request(ts.Leave(), tc.Left)
        clock.advance(1)
        await ann.expect(tc.Left)  # taken out of the table that will not be played
        t = await info(org, tid)
        assert t.state == "finished" and t.winner == pid(ann)
        [[m]] = [r.matches for r in t.rounds]
        assert (m.winner, m.reason, m.match_id) == (pid(ann), "no_show", None)
        await close_all([org, ann, cy])


async def test_a_round_robin_table_is_ordered_by_match_points(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, "round_robin")
        wires = {}
        for name in ["Anna", "Bobby", "Cyd", "Deb"]:
            w = await member(url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(0.01)  # registration order breaks equal ratings
            wires[pid(w)] = w
        ids = list(wires)
        # Strength: Dee beats all, then Bob, then Ann, then Cy (not the registration order).
        strength = {ids[3]: 4, ids[1]: 3, ids[0]: 2, ids[2]: 1}
        clock.advance(60)
        final = await play_out(wires, tid, lambda a, b: min(a, b, key=strength.get), org)
        assert final.state == "finished" and final.winner == ids[3]
        [table] = final.standings
        assert [ln.player_id for ln in table.lines] == [ids[3], ids[1], ids[0], ids[2]]
        assert [ln.match_points for ln in table.lines] == [6, 4, 2, 0]
        assert [ln.played for ln in table.lines] == [3, 3, 3, 3]
        pairs = [frozenset(m.players) for r in final.rounds for m in r.matches]
        assert len(pairs) == len(set(pairs)) == 6
        await close_all([org, *wires.values()])


async def test_a_swiss_event_pairs_without_rematches(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, "swiss", rounds=3)
        wires = {}
        for name in ["Anna", "Bobby", "Cyd", "Deb", "Evan", "Faye"]:
            w = await member(url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(0.01)  # registration order breaks equal ratings
            wires[pid(w)] = w
        order = {p: i for i, p in enumerate(wires)}
        clock.advance(60)
        final = await play_out(wires, tid, lambda a, b: max(a, b, key=order.get), org)
        assert final.state == "finished"
        assert len(final.rounds) == 3
        pairs = [frozenset(m.players) for r in final.rounds for m in r.matches]
        assert len(pairs) == len(set(pairs)) == 9  # three rounds of three, none repeated
        for r in final.rounds:  # nobody twice in a round
            seen = list(itertools.chain.from_iterable(m.players for m in r.matches))
            assert len(seen) == len(set(seen)) == 6
        assert final.winner == next(iter(wires))
        assert final.standings[0].lines[0].match_points == 6
        await close_all([org, *wires.values()])


async def test_a_restart_mid_round_resumes_the_event(tmp_path: Path) -> None:
    clock = FakeClock()
    tokens: dict[str, str] = {}
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock)
        wires = {}
        for name in ["Anna", "Bobby", "Cyd", "Deb"]:
            w = await member(url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(0.01)  # registration order breaks equal ratings
            wires[pid(w)] = w
            assert w.welcome is not None
            tokens[pid(w)] = w.welcome.token
        ids = list(wires)  # seeds 1-4: 1 v 4 and 2 v 3
        clock.advance(60)
        # Round 1: seed 4 concedes to seed 1; seeds 2 and 3 are seated, their match under way.
        for w in wires.values():
            await w.expect(tc.Joined)
        await wires[ids[3]].send(ts.Concede())
        await until(lambda: any(m.reason == "concede" for m in srv.tournaments.held[tid].rounds[0]))
        await until(lambda: not srv.tournaments.held[tid].changed)  # stored
        seat_tokens = {
            p: next(j.seat_token for j in wires[p].log if isinstance(j, tc.Joined))
            for p in ids[1:3]
        }
        rooms = {p: next(j.room_id for j in wires[p].log if isinstance(j, tc.Joined)) for p in ids}
        await close_all([org, *wires.values()])
    # The same database, a new server: the event goes on where it was.
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await Wire.open(url, "olga", None)
        t = await info(org, tid)
        assert t.state == "running"
        assert [m.reason for m in t.rounds[0].matches] == ["concede", None]
        # Seeds 2 and 3 come back to their table and its match; seed 3 concedes.
        back = {}
        for p in ids[1:3]:
            w = await Wire.open(url, "back", tokens[p])
            await w.request(ts.Rejoin(room_id=rooms[p], seat_token=seat_tokens[p]), tc.Joined)
            back[p] = w
        await back[ids[2]].send(ts.Concede())
        # The final opens: seed 1 connects and is seated unasked; seed 2 leaves the old table
        # for the new one on their own (the runner takes them out of the finished one).
        one = await Wire.open(url, "ann", tokens[ids[0]])
        joined = await one.expect(tc.Joined, timeout=10)
        await back[ids[1]].expect(tc.Joined, where=lambda j: j.room_id == joined.room_id)
        await one.send(ts.Concede())  # seed 1 concedes the final
        await until(lambda: tid not in srv.tournaments.held)
        t = await info(org, tid)
        assert t.state == "finished" and t.winner == ids[1]
        assert [len(r.matches) for r in t.rounds] == [2, 1]
        await close_all([org, one, *back.values()])


@pytest.mark.parametrize("fmt", ["knockout"])
async def test_get_tournament_describes_the_draw(tmp_path: Path, fmt: str) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, fmt, no_show_s=120)
        a = await member(url, "Anna")
        await a.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
        t = await info(a, tid)
        assert (t.state, t.organizer, t.options.no_show_s, t.options.format) == (
            "registration",
            "Olga",
            120,
            fmt,
        )
        assert [p.name for p in t.players] == ["Anna"] and t.rounds == ()
        await a.request(tw.TournamentUnregister(tournament_id=tid), tw.TournamentRegistered)
        clock.advance(60)
        await until(lambda: tid not in srv.tournaments.held)
        assert (await info(a, tid)).state == "cancelled"  # nobody left to play
        await close_all([org, a])


def _get(port: int, path: str) -> tuple[int, dict[str, str], str]:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read().decode()


async def test_the_bracket_page_shows_the_tables_and_reloads_while_running(
    tmp_path: Path,
) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, name="Cup <b>&")
        wires = []
        for name in ["Anna", "Bobby"]:
            w = await member(url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(0.01)
            wires.append(w)
        clock.advance(60)
        joined = await wires[0].expect(tc.Joined)
        loop = asyncio.get_running_loop()
        status, headers, body = await loop.run_in_executor(
            None, _get, srv.port, f"/tournament/{tid}"
        )
        assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
        assert headers["Refresh"] == "5"
        assert "script-src 'self'" in headers["Content-Security-Policy"]
        assert "<h1>Cup &lt;b&gt;&amp;</h1>" in body  # escaped
        assert f'Anna v Bobby: <a href="/room/{joined.room_id}">' in body
        await wires[1].expect(tc.Joined)
        await wires[1].send(ts.Concede())
        await until(lambda: tid not in srv.tournaments.held)
        again = await wires[1].refused(ts.Rematch())
        assert again.code == "wrong_phase" and "not played again" in again.message
        status, headers, body = await loop.run_in_executor(
            None, _get, srv.port, f"/tournament/{tid}"
        )
        assert status == 200 and "Refresh" not in headers  # over: nothing more to show
        assert '<p class="winner">Winner: Anna</p>' in body
        assert "Anna v Bobby 0–0: Anna wins (conceded)" in body
        missing = await loop.run_in_executor(None, _get, srv.port, "/tournament/tnothing")
        assert missing[0] == 404
        await close_all([org, *wires])


async def test_both_absent_both_lose_and_the_next_round_is_a_bye(tmp_path: Path) -> None:
    clock = FakeClock()
    async with running(tmp_path, clock) as srv:
        url = url_of(srv)
        org = await organizer(srv)
        tid = await create(org, clock, no_show_s=60)
        wires = {}
        for name in ["Anna", "Bobby", "Cyd", "Deb"]:
            w = await member(url, name)
            await w.request(tw.TournamentRegister(tournament_id=tid), tw.TournamentRegistered)
            clock.advance(0.01)
            wires[pid(w)] = w
        ids = list(wires)  # seeds 1-4: 1 v 4 and 2 v 3
        for p in (ids[0], ids[3]):  # seeds 1 and 4 never come
            await wires.pop(p).close()
        clock.advance(60)
        for w in wires.values():
            await w.expect(tc.Joined)
        await wires[ids[2]].send(ts.Concede())  # seed 2 beats seed 3
        await until(lambda: srv.tournaments.held[tid].rounds[0][1].reason == "concede")
        clock.advance(60)  # the other table's no-show time: nobody sat down
        await until(lambda: tid not in srv.tournaments.held)
        t = await info(org, tid)
        assert t.state == "finished" and t.winner == ids[1]
        first, second = t.rounds
        assert (first.matches[0].reason, first.matches[0].winner) == ("no_show", None)
        [final] = second.matches
        assert (final.players, final.reason, final.match_id) == ((ids[1],), "bye", None)
        await close_all([org, *wires.values()])
