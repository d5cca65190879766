"""``python -m bench tournaments``: a 64-player knockout and a 64-player five-round Swiss run by
the real server (docs/benchmarks.md "Tournaments", docs/tournaments.md).

The players are scripted clients on real websockets, in this process: each takes the seat the
server gives it (``joined`` arrives unasked) and, once the match has begun, the player in the
second seat concedes. So every match is short and real (a room, a match row, a result, a rating
change) while the numbers show the event's own machinery:

- wall time from the start time to the winner, and per round;
- the runner's own time per match (its ticks: draw, tables opened, seating, results, saves);
- the time from a round's last result to the next round's first match under way;
- the tournament rows written per match (``TournamentBook.writes``).

A baseline in the same run: one quick-match-style room opened and played the same way,
outside any event (what a match costs without the runner).
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from server.config import ServerConfig
from server.core.tournament import Format, Phase, TournamentOptions
from server.credentials import new_token, token_hash
from server.net.actor import now_ms
from server.net.gateway import GameServer
from server.net.tournaments import TournamentDesk
from shared.protocol import decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts

PLAYERS = 64
SWISS_ROUNDS = 5


class Player:
    """A scripted entrant: takes its seat; in seat 1 it concedes once the match begins."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.seat: int | None = None
        self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        async for data in self.ws:
            assert isinstance(data, bytes)
            msg = decode_server(data)
            if isinstance(msg, tc.Joined):
                self.seat = msg.seat
            elif isinstance(msg, tc.Snapshot) and self.seat == 1:
                if msg.match.phase not in ("waiting", "over"):
                    await self.ws.send(encode(ts.Concede()))
            elif isinstance(msg, tc.GameOver):
                await self.ws.send(encode(ts.Leave()))
                self.seat = None


def _timed(desk: TournamentDesk, spent: list[float]) -> None:
    """Wrap the runner's tick to add up the time it takes."""
    tick = desk.tick

    async def timed() -> None:
        t0 = time.perf_counter()
        await tick()
        spent.append(time.perf_counter() - t0)

    desk.tick = timed  # type: ignore[method-assign]


async def _event(fmt: Format, rounds: int | None) -> list[str]:
    with tempfile.TemporaryDirectory() as tmp:
        srv = GameServer(
            ServerConfig(
                port=0,
                db_path=str(Path(tmp) / "bench.db"),
                workers=0,
                max_connections_per_address=PLAYERS * 2,
            )
        )
        spent: list[float] = []
        _timed(srv.tournaments, spent)
        srv.tournaments.tick_s = 0.05
        await srv.start()
        players: list[Player] = []
        try:
            store = srv.store
            assert store is not None
            now = now_ms()
            tokens = []
            for i in range(PLAYERS):
                token, pid = new_token(), f"pb{i:03d}"
                store.add_player(pid, token_hash(token), f"Player {i}", now)
                store.db.execute(
                    "INSERT INTO accounts VALUES (?, ?, ?, 'scrypt$x', 0, ?)",
                    (pid, f"Player {i}", f"player{i}", now),
                )
                tokens.append((pid, token))
            starts = now + 3_000
            options = TournamentOptions(
                name="Bench",
                discipline="three_cushion",
                distance=1,
                format=fmt,
                capacity=PLAYERS,
                registration_closes_ms=starts,
                starts_ms=starts,
                rounds=rounds,
            )
            t = store.tournaments.create("pb000", options, now)
            for pid, _ in tokens:
                store.tournaments.register(t.tournament_id, pid, pid, now)
            url = f"ws://127.0.0.1:{srv.port}/"
            for pid, token in tokens:
                ws = await connect(url, max_size=None, compression=None)
                await ws.send(encode(ts.Hello(v=1, name=pid, token=token)))
                players.append(Player(ws))
            writes0 = store.tournaments.writes
            while now_ms() < starts:
                await asyncio.sleep(0.05)
            t0 = time.perf_counter()
            spent.clear()
            while True:
                found = store.tournaments.load(t.tournament_id)
                assert found is not None
                if found.phase in (Phase.FINISHED, Phase.CANCELLED):
                    break
                await asyncio.sleep(0.05)
            wall = time.perf_counter() - t0
            played = [m for m in found.matches() if m.match_id is not None]
            writes = store.tournaments.writes - writes0
            gaps = _round_gaps(store, t.tournament_id)
            label = f"{fmt.value} of {PLAYERS}" + (f", {rounds} rounds" if rounds else "")
            return [
                f"{label}: {found.phase.value}, {len(played)} matches in {len(found.rounds)} "
                f"rounds, {wall:.1f} s wall ({wall / len(found.rounds):.2f} s per round)",
                f"  runner time {sum(spent) * 1000 / len(played):.2f} ms per match "
                f"({len(spent)} ticks, median {statistics.median(spent) * 1000:.2f} ms, "
                f"max {max(spent) * 1000:.1f} ms)",
                f"  round turnaround (last result to the next round's first match under way): "
                f"median {statistics.median(gaps):.0f} ms, max {max(gaps):.0f} ms"
                if gaps
                else "  round turnaround: one round only",
                f"  tournament rows written: {writes} ({writes / len(played):.1f} per match)",
            ]
        finally:
            for p in players:
                await p.ws.close()
                p.task.cancel()
            await srv.stop()


def _round_gaps(store: object, tournament_id: str) -> list[float]:
    """Per round after the first: from the previous round's last result (the match's
    finished_ms) to this round's first match start (started_ms), in ms."""
    db = store.db  # type: ignore[attr-defined]
    rows = db.execute(
        """SELECT t.round, m.started_ms, m.finished_ms FROM tournament_matches t
           JOIN matches m ON m.match_id = t.match_id WHERE t.tournament_id = ?""",
        (tournament_id,),
    ).fetchall()
    by_round: dict[int, list[tuple[int, int]]] = {}
    for r, started, finished in rows:
        by_round.setdefault(r, []).append((started, finished))
    gaps = []
    for r in sorted(by_round)[1:]:
        prev = by_round.get(r - 1)
        if prev:
            gaps.append(min(s for s, _ in by_round[r]) - max(f for _, f in prev))
    return gaps


async def _baseline() -> str:
    """One room played the same way with no event around it."""
    with tempfile.TemporaryDirectory() as tmp:
        srv = GameServer(ServerConfig(port=0, db_path=str(Path(tmp) / "b.db"), workers=0))
        await srv.start()
        try:
            url = f"ws://127.0.0.1:{srv.port}/"
            times = []
            for i in range(10):
                t0 = time.perf_counter()
                a = await connect(url, max_size=None, compression=None)
                b = await connect(url, max_size=None, compression=None)
                for ws, name in ((a, f"base a{i}"), (b, f"base b{i}")):
                    await ws.send(encode(ts.Hello(v=1, name=name)))
                    await ws.recv()
                await a.send(encode(ts.CreateRoom(discipline="three_cushion", distance=1)))
                room_id = ""
                while not room_id:
                    msg = decode_server(await a.recv())  # type: ignore[arg-type]
                    if isinstance(msg, tc.RoomCreated):
                        room_id = msg.room_id
                await a.send(encode(ts.Join(room_id=room_id)))
                await asyncio.sleep(0.01)  # a sits first: b takes seat 1 and concedes
                await b.send(encode(ts.Join(room_id=room_id)))
                player = Player(b)
                while True:
                    msg = decode_server(await a.recv())  # type: ignore[arg-type]
                    if isinstance(msg, tc.GameOver):
                        break
                times.append((time.perf_counter() - t0) * 1000)
                player.task.cancel()
                for ws in (a, b):
                    await ws.close()
            return (
                f"baseline: two players connect, open a room, join it and concede outside any "
                f"event, "
                f"median {statistics.median(times):.0f} ms"
            )
        finally:
            await srv.stop()


def run() -> Iterator[str]:
    yield from asyncio.run(_event(Format.KNOCKOUT, None))
    yield from asyncio.run(_event(Format.SWISS, SWISS_ROUNDS))
    yield asyncio.run(_baseline())
