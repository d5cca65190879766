"""A bot that explains (``carom bot --explain``): its choice, in one sentence, reaches the room's
chat, which ``carom watch`` prints (docs/bots.md "Defence and personalities"). Real server on
loopback, two level-3 bots, a spectator; the test ends at the first explained stroke."""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor

import pytest

from client.bot.player import BotPlayer
from client.commentary import Commentary
from client.session import Session
from shared.protocol import to_client as tc


@pytest.mark.slow
async def test_an_explaining_bot_says_its_choice_in_the_chat(
    server_url: str, think_pool: Executor
) -> None:
    a, b = Session(server_url, "Ann (bot)"), Session(server_url, "Bob (bot)")
    watcher = Session(server_url, "watcher")
    await a.connect()
    await b.connect()
    await watcher.connect()
    room_id = await a.create_room("three_cushion", distance=1, equalizing=False)
    await watcher.spectate(room_id)
    await a.join(room_id)
    await b.join(room_id)
    bots = [
        BotPlayer(s, 3, executor=think_pool, seed=i, think_s=4, explain=True, personality="safe")
        for i, s in enumerate((a, b))
    ]
    games = [asyncio.create_task(p.play_match()) for p in bots]
    try:
        said = await watcher.wait_for(lambda m: isinstance(m, tc.ChatLine), 90)
        assert isinstance(said, tc.ChatLine)
        assert said.sender in ("Ann (bot)", "Bob (bot)")
        assert said.text.startswith(("Goes for ", "Plays safe: ", "Finds no point"))
        assert said.text.endswith(".") and "\n" not in said.text
        # What carom watch prints for it.
        lines = Commentary().feed(said)
        assert lines == [f"[chat] {said.sender}: {said.text}"]
    finally:
        for g in games:
            g.cancel()
        await asyncio.gather(*games, return_exceptions=True)
        for s in (a, b, watcher):
            await s.close()
