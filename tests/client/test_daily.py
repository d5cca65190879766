"""The daily problem (docs/analysis.md): a position a player faced and missed in a recorded
match, the same for everyone on a day, and the bot's best answer from it. Real server on
loopback; the recorded match is a practice session ending with a miss."""

from __future__ import annotations

import asyncio
import datetime
import io
from argparse import Namespace

import pytest

from client.bot.daily import answer, problem_of
from client.bot.plan import Judge
from client.daily_cli import positions, run
from shared.analysis.daily import pick
from tests.client.practice_play import MISS_AT, play_practice


@pytest.mark.slow
async def test_the_daily_problem_is_a_missed_position_with_a_known_answer(
    server_url: str,
) -> None:
    await play_practice(server_url)
    found = await positions(server_url, 10)
    # Two points and a miss were played: only the miss's position is a problem.
    assert len(found) == 1
    (p,) = found
    assert p.cue == "white" and p.discipline == "three_cushion" and p.table == "match"
    assert p.balls == (MISS_AT["white"], MISS_AT["yellow"], MISS_AT["red"])
    day = datetime.date(2026, 12, 2)
    assert pick(found, day) == pick(list(reversed(found)), day) == p  # the same for everyone
    best = answer(p, budget_s=10.0)
    assert best, "the bot should find a scoring stroke from this position"
    judge = Judge(problem_of(p))
    assert all(judge.run(h.stroke).points == 1 for h in best)

    out = io.StringIO()
    args = Namespace(url=server_url, date="2026-12-02", answer=True, matches=10)
    assert await asyncio.to_thread(run, args, out) == 0
    text = out.getvalue()
    assert text.startswith("Problem of 02 December 2026: the white to play, three cushions.")
    assert "white: 1.4 diamonds up the table, 2.0 across" in text
    assert "The bot's best strokes:\n  1. " in text and "aim " in text and " m/s" in text
