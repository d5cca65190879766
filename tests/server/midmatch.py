"""A match well under way, for restart, drain and failover tests.

A test that restarts a server from a fresh match cannot tell a kept state from one rebuilt from
nothing: 0-0, no innings, a shot clock that had just started looks the same either way. So these
tests start from here instead: the breaker has scored, both players have missed, several innings
are on the sheet, and the shooter has used part of the shot clock when the server goes down.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass

from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import MatchView
from tests.server.net.test_live_room import _to_play
from tests.server.wire import Wire, search_stroke

# The fields of a match view that are wall-clock instants: a restart moves them by the downtime.
# Everything else must come back exactly as it was.
CLOCK_FIELDS = ("deadline_ms", "resting_at_ms", "paused_ms", "grace_until_ms", "connected")


def now_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class MidMatch:
    players: list[Wire]  # by seat
    spectator: Wire
    room_id: str
    shooter: int
    options: rules.MatchOptions

    async def snapshot(self) -> MatchView:
        return (await self.spectator.request(ts.Sync(), tc.Snapshot)).match


async def _wait(m: MidMatch, seconds: float) -> None:
    """Let table or thinking time pass with both players reading, as real clients do (a client
    that stops reading stops answering the server's pings and is dropped)."""
    heard = await asyncio.gather(*(w.quiet(seconds) for w in m.players))
    for w, got in zip(m.players, heard, strict=True):
        w.unread.extend(got)


async def _stroke(m: MidMatch, score: bool) -> None:
    match = await m.snapshot()
    assert match.shooter is not None
    stroke, _ = await search_stroke(match, m.options, score=score)
    await m.players[match.shooter].send(stroke)
    played = await m.spectator.expect(tc.StrokePlayed, timeout=10)
    assert bool(played.result.points) == score, played.result
    # The balls roll in table time: the next stroke is accepted once they rest.
    await _wait(m, max(0.0, played.rest_ms / 1000 - time.time()) + 0.05)


async def reach_mid_match(
    url: str, *, shot_clock_s: int = 30, grace_s: int = 60, used_s: float = 8.0
) -> MidMatch:
    """Three-cushion to 5: the breaker scores a point and misses, the opponent misses, and the
    breaker is at the table again with ``used_s`` of the shot clock gone."""
    alice, bob, carol, rid, breaker = await _to_play(
        url, distance=5, shot_clock_s=shot_clock_s, grace_s=grace_s
    )
    options = rules.MatchOptions(distance=5, shot_clock_s=shot_clock_s)
    m = MidMatch([alice, bob], carol, rid, breaker, options)
    await _stroke(m, score=True)
    await _stroke(m, score=False)
    await _stroke(m, score=False)
    match = await m.snapshot()
    assert match.shooter == breaker and match.phase == "play"
    assert match.score[breaker] == 1 and match.innings == (1, 1), match
    assert match.deadline_ms is not None
    # The shooter thinks: part of the clock is used before the server goes down.
    await _wait(m, max(0.0, used_s - (shot_clock_s - (match.deadline_ms - now_ms()) / 1000)))
    return m


def without_clocks(match: MatchView) -> dict[str, object]:
    """The match view as a map of its fields, less the wall-clock instants."""
    return {
        f.name: getattr(match, f.name)
        for f in dataclasses.fields(match)
        if f.name not in CLOCK_FIELDS
    }


def clock_left_ms(match: MatchView) -> int:
    assert match.deadline_ms is not None, match
    return match.deadline_ms - now_ms()
