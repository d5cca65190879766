"""No secret in any log line (issue 12, point 6): identity tokens, seat tokens, passwords."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from server.core.room import Member
from server.net.actor import Enter
from server.process import ServerProcess
from server.redact import redacted
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.wire import Wire, fill_disk


def test_messages_and_inbox_items_print_without_their_secrets() -> None:
    hello = ts.Hello(v=1, name="ann", token="T" * 32)
    join = Enter(Member(3, "pann", "ann"), ts.Join(room_id="r1", password="hunter2"), "S" * 32, "H")
    for shown in (redacted(hello), redacted(join)):
        assert "TTTT" not in shown and "SSSS" not in shown and "hunter2" not in shown
        assert "<redacted>" in shown
    assert "name='ann'" in redacted(hello) and "room_id='r1'" in redacted(join)


async def _until_refused(wires: list[Wire], msg: ts.Hello | ts.Rejoin | ts.Join) -> tc.Error:
    """Send ``msg`` from one connection after the other until the server refuses it (the disk
    is full, but a write may still fit in space the database's files already have)."""
    for w in wires:
        sent = await w.send(msg)
        got = await w.expect(
            tc.Error | tc.Welcome | tc.Joined,  # type: ignore[arg-type]
            where=lambda m, sent=sent: m.re == sent,  # type: ignore[misc]
        )
        if isinstance(got, tc.Error):
            return got
    raise AssertionError(f"{msg.TYPE} was never refused on a full disk")


async def test_no_token_or_password_reaches_the_log_when_requests_fail(
    procs: list[ServerProcess], small_disk: Path
) -> None:
    server = ServerProcess(
        small_disk / "carom.db", workers=0, log_level="DEBUG"
    )  # websockets: INFO
    procs.append(server)
    ann = await Wire.open(server.url, "ann")
    assert ann.welcome is not None
    secret = "correct horse battery"
    rid = (
        await ann.request(
            ts.CreateRoom(discipline="three_cushion", private=True, password=secret),
            tc.RoomCreated,
        )
    ).room_id
    seat_token = (await ann.request(ts.Join(room_id=rid, password=secret), tc.Joined)).seat_token
    # Connections ready before the disk fills (a new identity needs a write too).
    fresh = [await Wire.open(server.url) for _ in range(12)]
    anns = [await Wire.open(server.url, "ann", token=ann.welcome.token) for _ in range(12)]
    bobs = [await Wire.open(server.url, f"bob{i}") for i in range(12)]
    # A reader's open snapshot keeps the server's checkpoints from restarting its WAL, so from
    # now on every commit needs new space: none can succeed in space a checkpoint freed (a join
    # that got through would leave the next one a full room to refuse instead).
    reader = sqlite3.connect(small_disk / "carom.db", isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM rooms").fetchone()
    fill_disk(small_disk / "filler")
    try:
        refusals = [
            await _until_refused(fresh, ts.Hello(v=1, name="ann", token=ann.welcome.token)),
            await _until_refused(anns, ts.Rejoin(room_id=rid, seat_token=seat_token)),
            await _until_refused(bobs, ts.Join(room_id=rid, password=secret)),
        ]
    finally:
        reader.close()
    assert {r.code for r in refusals} == {"unavailable"}
    server.stop()
    log = "\n".join(server.log)
    assert "could not" in log  # the failures were logged …
    for value in (ann.welcome.token, seat_token, secret):
        assert value not in log  # … without a secret
