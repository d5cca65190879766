"""The headless client library's account and quick-match calls against the real server."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from client.identity import IdentityStore
from client.session import Link, ServerError, Session


async def test_login_keeps_the_account_across_a_reconnection_and_quick_match_keeps_the_seat(
    server_url: str, tmp_path: Path
) -> None:
    ann = Session(server_url, "ann", identity=IdentityStore(tmp_path / "ann.json"))
    bob = Session(server_url, "bob", identity=IdentityStore(tmp_path / "bob.json"))
    await ann.connect()
    await bob.connect()
    try:
        welcome = await ann.register("Ann", "correct horse")
        assert ann.token == welcome.token
        with pytest.raises(ServerError) as refused:
            await bob.login("Ann", "wrong password")
        assert refused.value.code == "bad_login"
        seats = await asyncio.gather(
            ann.quick_match("straight_rail", distance=5), bob.quick_match("straight_rail", 5)
        )
        assert sorted(seats) == [0, 1]
        room_id = ann.state.room_id
        assert room_id is not None and room_id in ann.held_seats()  # kept for rejoin
        # Cut the link: the session greets with the account's token and is still Ann.
        await ann.drop_connection()
        await ann.wait_for(lambda m: isinstance(m, Link) and m.status == "restored", timeout=20)
        assert ann.state.player_id == welcome.player_id and ann.state.seat in (0, 1)
    finally:
        await ann.close()
        await bob.close()
