"""Persistence: SIGKILL the server mid-match, restart it on the same SQLite file, finish."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.process import ServerProcess
from server.store import Store
from shared import rules
from shared.physics import Stroke, simulate, simulate_lag
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.wire import Wire, find_scoring_stroke

OPTIONS = rules.MatchOptions(distance=1, shot_clock_s=30)


@pytest.fixture
def procs() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for p in started:
        if p.proc.poll() is None:
            p.proc.kill()
            p.proc.wait(10)


def _cue(msg: ts.Stroke) -> Stroke:
    return Stroke(**msg.cue())


def _reference(lag: tuple[ts.Stroke, ts.Stroke], breaker: int, strokes: list[ts.Stroke]) -> dict:
    """The same match without any kill: the referee and the physics, driven directly."""
    table = OPTIONS.table_spec
    state, _ = rules.apply(rules.new_match(OPTIONS, 0), rules.Start(), 0)
    t = 0
    for seat in (0, 1):
        state, _ = rules.apply(state, rules.LagStroke(seat, _cue(lag[seat])), t)
    both = rules.lag_strokes(state)
    assert both is not None
    state, _ = rules.apply(state, rules.LagResult(simulate_lag(table, state.positions, both)), t)
    t = state.resting_at_ms
    state, _ = rules.apply(state, rules.ChooseBreak(breaker, breaker), t)
    for msg in strokes:
        seat = state.shooter
        assert seat is not None
        cue = _cue(msg)
        result = simulate(table, rules.stroke_start(state), rules.cue_ball(state), cue)
        state, _ = rules.apply(state, rules.PlayStroke(seat, cue, result), t)
        t = state.resting_at_ms
    return rules.scoresheet(state).to_dict()


async def _wait_rest(rest_ms: int) -> None:
    await asyncio.sleep(max(0.0, rest_ms / 1000 - time.time()) + 0.05)


@pytest.mark.slow
async def test_sigkill_mid_match_then_restart_loses_no_stroke(
    tmp_path: Path, procs: list[ServerProcess]
) -> None:
    db = tmp_path / "carom.db"
    first = ServerProcess(db, workers=1)
    procs.append(first)
    alice = await Wire.open(first.url, "alice")
    bob = await Wire.open(first.url, "bob")
    rid = (
        await alice.request(
            ts.CreateRoom(discipline="three_cushion", distance=1, shot_clock_s=30),
            tc.RoomCreated,
        )
    ).room_id
    tokens = [
        (await alice.request(ts.Join(room_id=rid), tc.Joined)).seat_token,
        (await bob.request(ts.Join(room_id=rid), tc.Joined)).seat_token,
    ]
    lag = (ts.Stroke(direction=180.0, speed=0.05), ts.Stroke(direction=0.0, speed=0.5))
    await alice.send(lag[0])
    await bob.send(lag[1])
    result = await alice.expect(tc.LagResult, timeout=10)
    breaker = result.winner
    assert breaker is not None
    await _wait_rest(result.rest_ms or 0)
    players = [alice, bob]
    await players[breaker].send(ts.ChooseBreak(breaker="me"))
    await alice.expect(tc.Turn, where=lambda m: m.phase == "play")
    snap = await alice.request(ts.Sync(), tc.Snapshot)
    scoring, _ = find_scoring_stroke(snap.match, OPTIONS)
    await players[breaker].send(scoring)
    played = await alice.expect(tc.StrokePlayed, timeout=5)
    assert played.result["points"] == 1

    # The stroke was broadcast, so it is durable: kill the server without any warning.
    first.kill()
    with Store(str(db)) as store:
        assert store.open_rooms()[0].room_id == rid

    second = ServerProcess(db, workers=1)
    procs.append(second)
    ids = [alice.welcome, bob.welcome]
    back = [
        await Wire.open(second.url, name, token=ids[i].token)  # type: ignore[union-attr]
        for i, name in enumerate(("alice", "bob"))
    ]
    for i in (0, 1):
        assert (
            await back[i].request(ts.Rejoin(room_id=rid, seat_token=tokens[i]), tc.Joined)
        ).seat == i
    snap = await back[0].request(ts.Sync(), tc.Snapshot)
    # R-END-2: the room came back in the equalizing inning, with the breaker's point.
    assert snap.match["score"][breaker] == 1 and snap.match["equalizing"] is True
    assert snap.match["shooter"] == 1 - breaker
    await _wait_rest(snap.match["resting_at_ms"])
    miss, _ = find_scoring_stroke(snap.match, OPTIONS, score=False)
    await back[1 - breaker].send(miss)
    over = await back[0].expect(tc.GameOver, timeout=8)
    assert over.winner == breaker

    # Scores identical to the same strokes without a kill; the replay has every stroke.
    assert over.scoresheet == _reference(lag, breaker, [scoring, miss])
    replay = await back[1].request(ts.GetReplay(match_id=over.match_id or 0), tc.Replay)
    assert [s["kind"] for s in replay.strokes] == ["lag", "stroke", "stroke"]
    assert replay.strokes[1]["trajectory"] == played.trajectory
    assert await asyncio.to_thread(second.stop) == 0  # SIGTERM drains and exits cleanly
    # Draining told the clients why, then closed with 1001 (going away).
    assert await back[0].closed() == 1001
    assert any(isinstance(m, tc.Closing) for m in back[0].log)
