"""The headless client against a real server on loopback: hello and identity, the lobby,
errors, the clock offset, and reconnection with rejoin."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import msgpack
import pytest

from client.identity import IdentityStore
from client.session import Event, Link, ServerError, Session
from shared.protocol import to_client as tc
from shared.protocol.views import CueParams


async def test_hello_keeps_the_same_identity_across_runs(server_url: str, tmp_path: Path) -> None:
    store = IdentityStore(tmp_path / "id.json")
    async with Session(server_url, "ann", identity=store) as first:
        player = first.state.player_id
    assert store.load(server_url, "ann") is not None
    async with Session(server_url, "ann", identity=store) as again:
        assert again.state.player_id == player
    async with Session(server_url, "ann", remember_identity=False) as stranger:
        assert stranger.state.player_id != player


async def test_an_unknown_identity_token_gets_a_new_identity(
    server_url: str, tmp_path: Path
) -> None:
    store = IdentityStore(tmp_path / "id.json")
    store.save(server_url, "ann", "token-from-another-server")
    async with Session(server_url, "ann", identity=store) as ann:
        assert ann.state.player_id
    assert store.load(server_url, "ann") not in (None, "token-from-another-server")


async def test_create_join_and_spectate(server_url: str) -> None:
    async with (
        Session(server_url, "ann") as ann,
        Session(server_url, "bob") as bob,
        Session(server_url, "eve") as eve,
    ):
        room_id = await ann.create_room("three_cushion", distance=3)
        assert any(r.room_id == room_id for r in await bob.list_rooms())
        assert await ann.join(room_id) == 0
        await eve.spectate(room_id)
        assert eve.state.spectating and eve.state.seat is None
        assert await bob.join(room_id) == 1
        # Both seats filled: the lag opens (R-LAG-3), and everyone's tracked state shows it.
        for s in (ann, bob, eve):
            await _until(s, lambda st: st.phase == "lag")
            assert s.state.room is not None and s.state.room.options.distance == 3
        assert bob.state.seat_token and bob.state.seat_token != ann.state.seat_token


async def test_refusals_raise_server_errors_with_their_code(server_url: str) -> None:
    async with Session(server_url, "ann") as ann:
        with pytest.raises(ServerError) as err:
            await ann.join("r-nowhere")
        assert err.value.code == "no_such_room"
        room_id = await ann.create_room("three_cushion")
        await ann.join(room_id)
        # A stroke before the match started is refused; the refusal comes back as an event.
        sent = await ann.stroke(CueParams(direction=0.0, speed=2.0))
        refusal = await ann.wait_for(lambda m: getattr(m, "re", None) == sent, timeout=5)
        assert isinstance(refusal, tc.Error) and refusal.code == "wrong_phase"


async def test_a_sequence_gap_fetches_a_fresh_snapshot(server_url: str) -> None:
    async with Session(server_url, "ann") as ann:
        room_id = await ann.create_room("three_cushion")
        await ann.join(room_id)
        await _until(ann, lambda st: st.seq is not None and st.room is not None)
        seq = ann.state.seq
        assert seq is not None
        # A broadcast arrives two ahead of the last one seen: one was lost on the way.
        ann._on_frame(msgpack.packb({"t": "chat", "seq": seq + 2, "from": "x", "text": "hi"}))
        snap = await ann.wait_for(lambda m: isinstance(m, tc.Snapshot), timeout=5)
        # The server's snapshot puts the room's own sequence number back in place.
        assert isinstance(snap, tc.Snapshot) and snap.seq == seq and ann.state.seq == seq


async def test_clock_offset_is_measured(server_url: str) -> None:
    async with Session(server_url, "ann", ping_interval=0.1) as ann:
        for _ in range(100):  # a few pings answered
            if ann.state.rtt_ms is not None:
                break
            await asyncio.sleep(0.05)
        # Same machine: the server clock is ours, to within scheduling noise.
        assert ann.state.rtt_ms is not None and ann.state.rtt_ms < 500
        assert abs(ann.state.clock_offset_ms) < 250


async def test_a_dropped_connection_reconnects_and_rejoins_the_seat(server_url: str) -> None:
    async with Session(server_url, "ann") as ann, Session(server_url, "bob") as bob:
        room_id = await ann.create_room("three_cushion")
        await ann.join(room_id)
        await bob.join(room_id)
        await _until(ann, lambda st: st.phase == "lag")
        token, player = ann.state.seat_token, ann.state.player_id
        seen: list[Event] = []
        ann.listeners.append(seen.append)
        await ann.drop_connection()
        await ann.wait_for(lambda m: isinstance(m, Link) and m.status == "restored", timeout=15)
        statuses = [m.status for m in seen if isinstance(m, Link)]
        assert statuses[:1] == ["lost"] and "restored" in statuses
        assert (ann.state.seat, ann.state.seat_token, ann.state.player_id) == (0, token, player)
        # The opponent saw the seat drop and come back (R-END-5 grace).
        await _until(
            bob, lambda st: 0 in st.player_status and st.player_status[0].status == "connected"
        )
        # And the seat acts again: its lag stroke is accepted (R-LAG-3).
        await ann.stroke(CueParams(direction=0.0, speed=3.0))
        call = await ann.wait_for(
            lambda m: isinstance(m, tc.Call) and m.code == "lag_stroke", timeout=5
        )
        assert isinstance(call, tc.Call) and "Seat 0" in call.text


async def _until(session: Session, pred: Any, timeout: float = 10.0) -> None:
    async def loop() -> None:
        while not pred(session.state):
            await session.wait_for(lambda _m: True)

    await asyncio.wait_for(loop(), timeout)
