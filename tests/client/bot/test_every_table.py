"""R-TABLE-1: every advertised table starts and finishes a match in every discipline, through the
real server on loopback, with bots playing both seats (RULES.md R-DISC-FREE's corner zones scale
with the table; before they did, the club tables were refused with ``bad_options``)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from pathlib import Path

import pytest

from client.bot.player import BotPlayer
from client.session import Session
from server.net.gateway import GameServer
from shared.protocol import to_client as tc
from shared.rules import Discipline
from shared.table import TABLES
from tests.servers import serving

# A short match: distance 2 (the issue's), bounded by one inning each (R-END-3) so the 35 matches
# end in about a minute of table time whatever the bots make.
SHORT = {"distance": 2, "innings_limit": 1}


@pytest.fixture
async def game_server(tmp_path: Path) -> AsyncIterator[GameServer]:
    """The tests' server, with room for 70 players and 35 rooms from one address (loopback):
    the per-address limits are for the open internet, not for a club behind one address."""
    async with serving(tmp_path, max_connections_per_address=100, max_rooms_per_address=50) as srv:
        yield srv


async def _play(url: str, table: str, discipline: str, seed: int, pool: Executor) -> tc.GameOver:
    a = Session(url, f"Ann {seed} (bot)")
    b = Session(url, f"Bob {seed} (bot)")
    await a.connect()
    await b.connect()
    try:
        room_id = await a.create_room(discipline, table=table, **SHORT)
        await a.join(room_id)
        await b.join(room_id)
        bots = [
            BotPlayer(s, 1, executor=pool, seed=seed * 2 + i, think_s=0.3)
            for i, s in enumerate((a, b))
        ]
        results = await asyncio.gather(*(p.play_match() for p in bots))
        return results[0]
    finally:
        await a.close()
        await b.close()


@pytest.mark.slow
async def test_a_short_match_on_every_table_in_every_discipline(
    server_url: str, think_pool: Executor
) -> None:
    cases = [(t, d.value) for t in TABLES for d in Discipline]
    assert len(cases) == 35
    results = await asyncio.wait_for(
        asyncio.gather(*(_play(server_url, t, d, i, think_pool) for i, (t, d) in enumerate(cases))),
        240,
    )
    for (table, discipline), over in zip(cases, results, strict=True):
        assert isinstance(over, tc.GameOver), (table, discipline, over)
        assert over.reason in ("distance", "innings_limit", "equalized"), (table, discipline)
        sheet = over.scoresheet
        lines = sheet.match
        assert len(lines) == 2, (table, discipline)
        # Innings are counted and nobody passed the distance.
        assert all(0 < line.innings <= 2 and line.points <= 2 for line in lines), sheet
