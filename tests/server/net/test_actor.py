"""Restarts are fair: the time the server was down is charged to nobody (issue 12, point 1).

The real server runs as a child process on a real SQLite file; it is stopped with SIGTERM (a
drain) or SIGKILL (a crash), left down for a few seconds, and started again on the same file.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from server.core.room import shift_clocks
from server.process import ServerProcess
from shared import rules
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import MatchView
from tests.server.midmatch import MidMatch, clock_left_ms, now_ms, reach_mid_match, without_clocks
from tests.server.net.test_live_room import OPTIONS, _to_play
from tests.server.wire import Wire, fill_disk, health, search_stroke

DOWN_S = 3.0  # how long the server stays down; far above the tolerance below
SLACK_MS = 1000  # the clock beat (0.5 s) and message latency; a fresh clock is 5 s away


def test_shift_moves_running_deadlines_and_keeps_a_paused_clock() -> None:
    state = rules.new_match(rules.MatchOptions(), 0)
    from dataclasses import replace

    state = replace(
        state, deadline_ms=10_000, resting_at_ms=4_000, grace_deadline=(None, 9_000), paused_ms=7
    )
    moved = shift_clocks(state, 3_000)
    assert moved.deadline_ms == 13_000 and moved.resting_at_ms == 7_000
    assert moved.grace_deadline == (None, 12_000) and moved.paused_ms == 7
    assert shift_clocks(state, -5) is state


async def _rejoin(url: str, old: Wire, name: str, rid: str) -> Wire:
    assert old.welcome is not None
    back = await Wire.open(url, name, token=old.welcome.token)
    await back.request(ts.Rejoin(room_id=rid, seat_token=old.seat_token), tc.Joined)
    return back


async def _back_as_it_was(url: str, m: MidMatch, before: MatchView, left_before: int) -> None:
    """Both players rejoin the restarted server: the shooter gets a turn with what was left of
    the clock when the server went away (not a fresh 20 s, not less the downtime), the whole
    match is as it was (score, innings, averages, runs, balls, shooter, phase), and nothing was
    called against anyone on the way. ``left_before``: the shooter's clock when it went away."""
    names = ("alice", "bob")
    other = await _rejoin(url, m.players[1 - m.shooter], names[1 - m.shooter], m.room_id)
    shooter = await _rejoin(url, m.players[m.shooter], names[m.shooter], m.room_id)
    turn = await other.expect(tc.Turn, where=lambda t: t.deadline_ms is not None, timeout=5)
    assert turn.shooter == m.shooter and turn.phase == "play"
    assert turn.deadline_ms is not None
    left_after = turn.deadline_ms - now_ms()
    assert abs(left_after - left_before) < SLACK_MS, (left_before, left_after)
    after = (await shooter.request(ts.Sync(), tc.Snapshot)).match
    assert without_clocks(after) == without_clocks(before)
    assert not any(isinstance(msg, tc.Call) and msg.code == "foul" for msg in other.log)
    await shooter.close()
    await other.close()


@pytest.mark.slow
async def test_a_drain_and_restart_charges_no_downtime_to_the_shot_clock(
    tmp_path: Path, procs: list[ServerProcess]
) -> None:
    db = tmp_path / "carom.db"
    first = ServerProcess(db, workers=0)
    procs.append(first)
    m = await reach_mid_match(first.url, shot_clock_s=20, used_s=5)
    before = await m.snapshot()
    left_before = clock_left_ms(before)  # what the shooter had when the server went down
    assert 5_000 < left_before < 16_000, left_before  # partly used, not a fresh 20 s

    assert await asyncio.to_thread(first.stop) == 0  # a real SIGTERM to the process: a drain
    await asyncio.sleep(DOWN_S)
    second = ServerProcess(db, workers=0)
    procs.append(second)

    await _back_as_it_was(second.url, m, before, left_before)


@pytest.mark.slow
async def test_a_kill_and_restart_keeps_the_shot_clock_used_and_the_whole_match(
    tmp_path: Path, procs: list[ServerProcess]
) -> None:
    db = tmp_path / "carom.db"
    first = ServerProcess(db, workers=0)
    procs.append(first)
    m = await reach_mid_match(first.url, shot_clock_s=20, used_s=5)
    before = await m.snapshot()
    left_before = clock_left_ms(before)
    assert 5_000 < left_before < 16_000, left_before  # partly used, not a fresh 20 s
    first.kill()  # crash: no drain; the room's last full write was a stroke seconds ago
    await asyncio.sleep(DOWN_S)
    second = ServerProcess(db, workers=0)
    procs.append(second)

    # The server marked its live rooms twice a second: the clock is what it was at the crash.
    await _back_as_it_was(second.url, m, before, left_before)


@pytest.mark.slow
async def test_a_kill_and_restart_charges_no_downtime_to_a_reconnection_grace(
    tmp_path: Path, procs: list[ServerProcess]
) -> None:
    db = tmp_path / "carom.db"
    first = ServerProcess(db, workers=0)
    procs.append(first)
    alice, bob, carol, rid, breaker = await _to_play(first.url, shot_clock_s=30, grace_s=2)
    players = [alice, bob]
    names = ("alice", "bob")
    away = 1 - breaker
    await players[away].close()  # the opponent's grace (2 s) starts
    status = await carol.expect(tc.PlayerStatus, where=lambda m: m.status == "disconnected")
    assert status.seat == away
    first.kill()  # crash: no drain, the last write was the disconnection
    await asyncio.sleep(DOWN_S)  # longer than the grace that was left
    second = ServerProcess(db, workers=0)
    procs.append(second)

    shooter = await _rejoin(second.url, players[breaker], names[breaker], rid)
    # The shooter is back: the clock runs again, announced with a turn and its new deadline,
    # as it was at the last persisted moment (nearly the whole 30 s).
    turn = await shooter.expect(tc.Turn, where=lambda m: m.deadline_ms is not None, timeout=5)
    assert turn.deadline_ms is not None and turn.deadline_ms - now_ms() > 30_000 - 2 * SLACK_MS
    snap = await shooter.request(ts.Sync(), tc.Snapshot)
    # Not forfeited by the downtime: the grace runs from the restart.
    assert snap.match.phase == "play", snap.match
    grace = snap.match.grace_until_ms[away]
    assert grace is not None and grace > now_ms() + 500
    back = await _rejoin(second.url, players[away], names[away], rid)
    snap = await back.request(ts.Sync(), tc.Snapshot)
    assert snap.match.phase == "play" and snap.match.deadline_ms == turn.deadline_ms
    await shooter.close()
    await back.close()


# Disk full (point 2) ---------------------------------------------------------------------------


@pytest.mark.slow
async def test_disk_full_refuses_the_stroke_keeps_the_room_and_turns_health_red(
    procs: list[ServerProcess], small_disk: Path
) -> None:
    server = ServerProcess(small_disk / "carom.db", workers=0, log_level="INFO")
    procs.append(server)
    alice, bob, carol, rid, breaker = await _to_play(server.url, shot_clock_s=60, grace_s=60)
    players = [alice, bob]
    fill_disk(small_disk / "filler")

    refused: tc.Error | None = None
    played = 0
    shooter = breaker
    for _ in range(8):  # the WAL may have some room left for the first strokes
        before = await carol.request(ts.Sync(), tc.Snapshot)
        shooter = before.match.shooter
        await asyncio.sleep(max(0.0, before.match.resting_at_ms / 1000 - time.time()) + 0.05)
        miss, _ = await search_stroke(before.match, OPTIONS, score=False)
        await players[shooter].send(miss)
        reply = await players[shooter].expect(
            tc.StrokePlayed | tc.Error,  # type: ignore[arg-type]
            timeout=10,
            # Every seat hears every stroke: only the one this shooter just played counts.
            where=lambda m, seq=before.seq: (
                m.seq > seq if isinstance(m, tc.StrokePlayed) else m.code == "unavailable"
            ),
        )
        if isinstance(reply, tc.Error):
            refused = reply
            break
        played += 1
    assert refused is not None, "the full disk never refused a stroke"
    # The shooter was told, in words; nobody heard of a stroke; the room is as it was.
    assert "save" in refused.message and "not played" in refused.message
    # (The strokes the WAL still had room for reached Carol before; none after the refusal.)
    heard = await carol.quiet(0.3)
    assert not any(isinstance(m, tc.StrokePlayed) and m.seq > before.seq for m in heard), heard
    after = await carol.request(ts.Sync(), tc.Snapshot)
    assert after.seq == before.seq and after.match == before.match
    assert after.room == before.room
    # The operator sees it: /health is red with the reason, and the log says what happened.
    status, body = await asyncio.to_thread(health, server.port)
    assert status == 503 and "storage failing" in body and "full" in body, body
    assert any("could not save" in line and rid in line for line in server.log), server.log[-20:]

    # Space again: the same stroke is played, /health is green, the replay has every stroke.
    os.unlink(small_disk / "filler")
    await players[shooter].send(miss)
    again = await carol.expect(tc.StrokePlayed, timeout=10)
    assert again.shooter == shooter and again.seq == after.seq + 1
    status, body = await asyncio.to_thread(health, server.port)
    assert status == 200, body
    snap = await carol.request(ts.Sync(), tc.Snapshot)
    assert snap.room.match_id is not None
    replay = await carol.request(ts.GetReplay(match_id=snap.room.match_id), tc.Replay)
    assert [s.kind for s in replay.strokes] == ["lag"] + ["stroke"] * (played + 1)
    assert replay.strokes[-1].body.trajectory == again.trajectory  # type: ignore[union-attr]
    for w in (alice, bob, carol):
        await w.close()
    assert await asyncio.to_thread(server.stop) == 0
