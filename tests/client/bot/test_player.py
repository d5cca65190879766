"""Bots play whole matches through a real server on loopback: the lag, the break choice, strokes
within the shot clock, the end of the game (R-END-1) — and a bot whose connection is cut in the
middle of the match rejoins its seat and finishes it (R-END-5 grace)."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor

import pytest

from client.bot.player import BotPlayer
from client.session import Event, Link, Session
from client.watch import watch
from shared.protocol import to_client as tc

# Short matches: one point, no equalizing inning (R-END-2), the strongest level (fewest strokes:
# the table time of each stroke, ~10 s of real time, dominates the test's length).
MATCH = {"distance": 1, "equalizing": False}


async def _seat_two(url: str) -> tuple[Session, Session, str]:
    a = Session(url, "Ann (bot)")
    b = Session(url, "Bob (bot)")
    await a.connect()
    await b.connect()
    room_id = await a.create_room("three_cushion", **MATCH)
    await a.join(room_id)
    await b.join(room_id)
    return a, b, room_id


async def _first_line(lines: list[str]) -> None:
    while not lines:
        await asyncio.sleep(0.02)


def _check_result(results: list[tc.GameOver]) -> int:
    assert results[0].seq == results[1].seq
    winner = results[0].winner
    assert winner in (0, 1) and results[0].reason == "distance"
    assert winner is not None
    totals = results[0].scoresheet.match
    assert totals[winner].points == 1 and totals[1 - winner].points == 0
    return winner


@pytest.mark.slow
async def test_two_bots_play_a_full_match_while_a_spectator_watches(
    server_url: str, think_pool: Executor
) -> None:
    a, b, room_id = await _seat_two(server_url)
    lines: list[str] = []
    told_at: list[float] = []  # server-clock seconds when each line was printed

    def out(line: str) -> None:
        lines.append(line)
        told_at.append(a.server_now_ms() / 1000)

    last_rest: list[int] = []
    a.listeners.append(
        lambda m: last_rest.append(m.rest_ms) if isinstance(m, tc.StrokePlayed) else None
    )
    spectator = asyncio.create_task(watch(server_url, room_id, out=out))
    try:
        # The spectator is in the room (it printed the room's header) before the lag is played.
        await asyncio.wait_for(_first_line(lines), 30)
        bots = [
            BotPlayer(s, 5, executor=think_pool, seed=i, think_s=4) for i, s in enumerate((a, b))
        ]
        results = await asyncio.wait_for(asyncio.gather(*(p.play_match() for p in bots)), 100)
        winner = _check_result(results)
        # The spectator tells the last stroke when its balls stop, not at the strike.
        assert await asyncio.wait_for(spectator, 30) == 0
    finally:
        spectator.cancel()
        await a.close()
        await b.close()
    # Every stroke was played by a bot, and the lag by both (R-LAG-3).
    assert sum(p.strokes_sent for p in bots) >= 3
    text = "\n".join(lines)
    assert "wins the lag" in text and "chooses who breaks" in text
    assert f"Game over: {('Ann (bot)', 'Bob (bot)')[winner]} wins (distance)" in text
    assert lines[-3].split() == ["Points", "Innings", "Average", "High", "run"]
    over = next(i for i, line in enumerate(lines) if line.startswith("Game over"))
    assert told_at[over] >= last_rest[-1] / 1000 - 0.05


@pytest.mark.slow
async def test_a_bot_cut_off_mid_match_rejoins_and_finishes(
    server_url: str, think_pool: Executor
) -> None:
    a, b, _room = await _seat_two(server_url)
    events: list[Event] = []
    a.listeners.append(events.append)
    seen_by_b: list[tuple[int, str]] = []
    b.listeners.append(
        lambda m: seen_by_b.append((m.seat, m.status)) if isinstance(m, tc.PlayerStatus) else None
    )
    try:
        bots = [
            BotPlayer(s, 5, executor=think_pool, seed=10 + i, think_s=2)
            for i, s in enumerate((a, b))
        ]
        games = [asyncio.create_task(p.play_match()) for p in bots]
        # Cut Ann's connection once the lag is decided, as a network failure would.
        await a.wait_for(lambda m: isinstance(m, tc.LagResult) and m.winner is not None, 60)
        await a.drop_connection()
        results = await asyncio.wait_for(asyncio.gather(*games), 100)
        _check_result(results)
    finally:
        await a.close()
        await b.close()
    statuses = [m.status for m in events if isinstance(m, Link)]
    assert statuses[0] == "lost" and "restored" in statuses
    # The opponent's view: the seat went away and came back (R-END-5), no forfeit.
    assert seen_by_b[:2] == [(0, "disconnected"), (0, "connected")], seen_by_b
    assert results[0].reason == "distance"
