"""A short practice session played on a real server: two points the simulator laid out (a
ticky and an umbrella, so their names are known) and a miss, then a concession, so the server
stores a finished match with three strokes. Used by the statistics and replay-analysis tests."""

from __future__ import annotations

import asyncio
from typing import Any

from client.session import ServerError, Session
from shared.analysis.layouts import lay_out
from shared.physics import Stroke
from shared.protocol import to_client as tc
from shared.protocol.views import CueParams
from shared.table import MATCH

TICKY = lay_out(
    MATCH,
    (0.4, 0.3),
    Stroke(270.0, 1.5, 0.4),
    first_after=2,
    first_where=0.5,
    cut=-0.4,
    second_after=2,
    second_where=0.15,
)
UMBRELLA = lay_out(
    MATCH,
    (0.4, 0.3),
    Stroke(105.0, 2.0, 0.4),
    first_after=3,
    first_where=0.5,
    cut=0.4,
    second_after=1,
    second_where=0.15,
)
MISS_AT = {"white": (0.5, 0.7), "red": (2.0, 0.3), "yellow": (2.0, 1.1)}
MISS = Stroke(180.0, 0.5)  # soft, into the bottom cushion: no ball


async def _play(session: Session, balls: dict[str, Any], stroke: Stroke) -> tc.StrokePlayed:
    """Put the balls where they were laid out (once the table is at rest) and play."""
    while True:
        try:
            await session.place({k: (v[0], v[1]) for k, v in balls.items()})
            break
        except ServerError as exc:
            assert exc.code == "balls_moving"
            await asyncio.sleep(0.2)
    await session.stroke(
        CueParams(
            direction=stroke.direction, speed=stroke.speed, tip_x=stroke.tip_x, tip_y=stroke.tip_y
        )
    )
    msg = await session.wait_for(lambda m: isinstance(m, tc.StrokePlayed), 30)
    assert isinstance(msg, tc.StrokePlayed)
    return msg


async def play_practice(url: str) -> None:
    async with Session(url, "ann", remember_identity=False) as ann:
        room_id = await ann.create_room("three_cushion", practice=True)
        await ann.join(room_id)
        await ann.wait_for(
            lambda m: ann.state.match is not None and ann.state.match.phase == "play", 10
        )
        played = []
        for layout in (TICKY, UMBRELLA):
            played.append(await _play(ann, dict(layout.balls), layout.stroke))
        played.append(await _play(ann, MISS_AT, MISS))
        assert [p.result.points for p in played] == [1, 1, 0]
        await ann.concede()
        await ann.wait_for(lambda m: isinstance(m, tc.GameOver), 30)
