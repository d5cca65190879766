"""``carom bot --account NAME --queue DISCIPLINE``: a bot logs in as a registered bot account,
waits in quick match, is offered to a human who waited, and its match is unrated."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.wire import Wire


async def _wait_until(check: object, timeout: float = 60.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not check():  # type: ignore[operator]
        assert asyncio.get_running_loop().time() < deadline, "timed out"
        await asyncio.sleep(0.1)


async def test_a_bot_account_waits_in_quick_match_and_plays_unrated(
    game_server: GameServer, server_url: str
) -> None:
    env = os.environ | {"CAROM_BOT_PASSWORD": "beep boop beep"}
    cmd = [sys.executable, "-m", "client.cli", "bot", "--url", server_url, "--quiet"]
    cmd += ["--account", "Robo", "--queue", "one_cushion", "--level", "4", "--matches", "2"]
    bot = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        desk = game_server.desk
        await _wait_until(lambda: len(desk.matchmaker) == 1)  # the bot is waiting
        ann = await Wire.open(server_url, "ann")
        await ann.request(ts.Register(name="Ann", password="correct horse"), tc.Welcome)
        await ann.request(ts.Queue(discipline="one_cushion"), tc.Queued)
        base = desk.clock()
        desk.clock = lambda: base + 31_000  # Ann has waited past the bot offer (30 s)
        joined = await ann.expect(tc.Joined, timeout=10)
        snap = await ann.expect(tc.Snapshot, 10, lambda m: None not in m.room.players)
        assert "Robo (bot)" in snap.room.players  # marked as a bot where players see it
        await ann.send(ts.Concede())
        over = await ann.expect(tc.GameOver)
        assert over.winner == 1 - joined.seat
        # The bot queues again for its second match: the next player who waited gets it.
        await _wait_until(lambda: len(desk.matchmaker) == 1)
        cy = await Wire.open(server_url, "cy")
        await cy.request(ts.Queue(discipline="one_cushion"), tc.Queued)
        base = desk.clock()
        desk.clock = lambda: base + 31_000
        await cy.expect(tc.Joined, timeout=10)
        await cy.expect(tc.Snapshot, 10, lambda m: None not in m.room.players)
        await cy.send(ts.Concede())
        await cy.expect(tc.GameOver)
        out, err = bot.communicate(timeout=60)
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.communicate()
    assert bot.returncode == 0, err
    assert out.strip().startswith("won")  # --quiet: the last result only
    board = await ann.request(ts.GetLeaderboard(discipline="one_cushion"), tc.Leaderboard)
    assert board.rows == ()  # a match against a bot is never rated
    assert game_server.store is not None
    (robo,) = game_server.store.db.execute("SELECT bot FROM accounts WHERE name = 'Robo'")
    assert robo == (1,)
