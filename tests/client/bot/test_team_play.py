"""A doubles and a Scotch doubles match to their end through a real server on loopback: four
headless clients, the first player of each side a bot, the partners plain clients that strike
when (and only when) the referee says it is their turn (R-TEAM-2, R-TEAM-3); a spectator sees
the same scoresheet."""

from __future__ import annotations

import asyncio
import itertools
from concurrent.futures import Executor

import pytest

from client.bot.player import BotPlayer
from client.session import Session
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams

# Three innings a side at most (R-END-3): a match of level-5 bots and partners who only tap the
# ball took anywhere from 45 s to over three minutes of table time to reach 2 points.
MATCH = {"distance": 2, "equalizing": False, "innings_limit": 3}


async def partner(session: Session, strokes: list[tuple[int, int]]) -> tc.GameOver:
    """A plain client that plays a soft stroke up the table (about 4 s of table time) whenever
    it is its turn; each stroke's (seat, slot) is noted as the referee saw it when it was
    played."""
    acted: tuple[object, ...] | None = None
    while True:
        state = session.state
        match = state.match
        if state.my_turn and match is not None and match.deadline_ms and not state.match_stale:
            key = (match.deadline_ms, str(match.balls))
            if key != acted:
                acted = key
                wait = match.resting_at_ms + 60 - session.server_now_ms()
                await asyncio.sleep(max(0.0, wait / 1000))
                assert state.seat is not None and state.slot is not None
                strokes.append((state.seat, state.slot))
                await session.send(ts.Stroke(cue=CueParams(direction=80.0, speed=0.2)))
        msg = await session.events.get()
        if isinstance(msg, tc.GameOver):
            return msg


@pytest.mark.slow
@pytest.mark.timeout(300)  # table time: a three-cushion stroke rolls 10 to 14 s of real time
@pytest.mark.parametrize("form", ["doubles", "scotch"])
async def test_four_clients_two_of_them_bots_play_a_team_match_to_its_end(
    server_url: str, think_pool: Executor, form: str
) -> None:
    names = ("Ann (bot)", "Bob (bot)", "Cid", "Dot")
    sessions = [Session(server_url, n) for n in names]
    watcher = Session(server_url, "Eve")
    for s in (*sessions, watcher):
        await s.connect()
    try:
        room_id = await sessions[0].create_room("three_cushion", team_mode=form, **MATCH)
        await watcher.spectate(room_id)
        for s in sessions:
            await s.join(room_id)
        assert [(s.state.seat, s.state.slot) for s in sessions] == [(0, 0), (1, 0), (0, 1), (1, 1)]
        seen: list[tc.StrokePlayed] = []
        watcher.listeners.append(
            lambda m: seen.append(m) if isinstance(m, tc.StrokePlayed) else None
        )
        bots = [
            BotPlayer(s, 5, executor=think_pool, seed=i, think_s=1.5)
            for i, s in enumerate(sessions[:2])
        ]
        partner_strokes: list[tuple[int, int]] = []
        games = [
            *(b.play_match() for b in bots),
            *(partner(s, partner_strokes) for s in sessions[2:]),
            watcher.wait_for(lambda m: isinstance(m, tc.GameOver), 400),
        ]
        results = await asyncio.wait_for(asyncio.gather(*games), 420)
    finally:
        for s in (*sessions, watcher):
            await s.close()
    over = results[-1]
    assert isinstance(over, tc.GameOver) and over.reason in ("distance", "innings_limit")
    # Everyone, the spectator too, got the same end and the same scoresheet.
    assert all(r == over for r in results[:4])
    sheet = over.scoresheet
    points = [sheet.match[side].points for side in (0, 1)]
    if over.reason == "distance":
        assert over.winner is not None and points[over.winner] == 2
    else:  # the innings ran out first: more points wins, equal is a draw
        assert max(points) < 2 and all(line.innings == 3 for line in sheet.match), sheet.match
        assert over.winner == (None if points[0] == points[1] else points.index(max(points)))
    assert sheet.players is not None and len(sheet.players) == 4
    for side in (0, 1):
        own = [p for p in sheet.players if p.seat == side]
        assert sum(p.points for p in own) == sheet.match[side].points
    strikers = [(m.shooter, m.shooter_slot) for m in seen]
    assert set(strikers) <= {(0, 0), (1, 0), (0, 1), (1, 1)} and len(strikers) >= 2
    assert partner_strokes == [p for p in strikers if p[1] == 1]
    if form == "doubles":
        # R-TEAM-2: a run stays with its player; the side's innings alternate its partners.
        openers = [strikers[0]] + [b for a, b in itertools.pairwise(strikers) if a != b]
        for a, b in itertools.pairwise(openers):
            assert a[0] != b[0], "a side's inning went to its partner inside the inning"
        for side in (0, 1):
            mine = [p[1] for p in openers if p[0] == side]
            assert all(x != y for x, y in itertools.pairwise(mine)), mine
    else:
        # R-TEAM-3: every stroke of a side is the other partner's, inside and across innings.
        for side in (0, 1):
            mine = [p[1] for p in strikers if p[0] == side]
            assert all(x != y for x, y in itertools.pairwise(mine)), mine
    assert sum(b.strokes_sent for b in bots) >= 1
