"""``carom watch``: a terminal spectator. Prints each stroke's referee calls, the scoresheet and
the shot clock's warnings live; ends with the final scoresheet.

The text comes from :class:`client.commentary.Commentary`, a pure function of the messages, so
``--record`` saves what was received (one JSON map per line, trajectories left out) and
``--replay`` prints a recording again, identically. Module-level imports stay light.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from shared.protocol import codec
from shared.protocol.base import ServerMessage
from shared.protocol.codec import SERVER_TYPES
from shared.protocol.enums import Phase
from shared.protocol.errors import ProtocolError

# What a recording leaves out: bulky (the commentary does not read it) or secret. Reading a
# recording puts empty or placeholder values back, so every line decodes as its message.
UNRECORDED: dict[str, Any] = {
    "trajectory": {},
    "events": [],
    "token": "unrecorded",
    "seat_token": "unrecorded",
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", default="ws://127.0.0.1:8765/", help="server URL (ws://HOST:PORT)")
    parser.add_argument("--room", help="room to watch (default: the first match being played)")
    parser.add_argument("--password", default=None, help="password of a private room")
    parser.add_argument("--record", metavar="FILE", help="also save the messages (JSON lines)")
    parser.add_argument(
        "--replay", metavar="FILE", help="print a recorded match instead of connecting"
    )
    parser.add_argument(
        "--follow", action="store_true", help="keep watching after the game is over"
    )


def recordable(msg: ServerMessage) -> dict[str, Any]:
    return {k: v for k, v in msg.to_wire().items() if k not in UNRECORDED}


def read_recording(path: str | Path) -> Iterator[ServerMessage]:
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}:{number}: not a JSON message: {exc}") from None
            if not isinstance(msg, dict) or not isinstance(msg.get("t"), str):
                raise ValueError(f"{path}:{number}: a message must be a map with a string 't'")
            cls = SERVER_TYPES.get(msg["t"])
            if cls is None:
                continue  # a message this version does not know
            try:
                yield codec.from_wire(cls, {**UNRECORDED, **msg})
            except ProtocolError as exc:
                raise ValueError(f"{path}:{number}: {exc}") from None


def replay(path: str | Path, out: TextIO) -> int:
    from client.commentary import Commentary

    commentary = Commentary()
    for msg in read_recording(path):
        for line in commentary.feed(msg):
            print(line, file=out)
    return 0


def run(args: argparse.Namespace) -> int:
    import asyncio

    if args.replay:
        try:
            return replay(args.replay, sys.stdout)
        except (OSError, ValueError) as exc:
            print(f"carom watch: {exc}", file=sys.stderr)
            return 1
    from client.session import ServerError

    try:
        return asyncio.run(watch(args.url, args.room, args.password, args.record, args.follow))
    except KeyboardInterrupt:
        return 130
    except ServerError as exc:
        print(f"carom watch: the server refused: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"carom watch: cannot reach {args.url}: {exc}", file=sys.stderr)
        return 1


async def watch(
    url: str,
    room_id: str | None,
    password: str | None = None,
    record: str | None = None,
    follow: bool = False,
    out: Callable[[str], None] | None = None,
    name: str = "spectator",
    at_rest: bool = True,
) -> int:
    """Watch one room until its game is over (or forever with ``follow``).

    With ``at_rest`` (the default) a stroke's outcome is told when its balls stop, as a referee
    calls it (R-PLAY-1) and as the desktop spectators see it; ``stroke_played`` arrives at the
    strike, so printing it then would tell the end of the stroke before it is played."""
    import asyncio
    import contextlib

    from client.commentary import Commentary, clock_line
    from client.session import Link, ServerError, Session
    from shared.protocol import to_client as tc

    emit = out or (lambda line: print(line, flush=True))
    session = Session(url, name, remember_identity=False)
    await session.connect()
    recording = open(record, "w", encoding="utf-8") if record else None  # noqa: SIM115
    commentary = Commentary()
    warned: set[tuple[int, int]] = set()

    async def clock() -> None:
        while True:
            await asyncio.sleep(0.25)
            line = clock_line(session.state, session.server_now_ms(), warned)
            if line:
                emit(line)

    ticker = asyncio.create_task(clock())
    try:
        if room_id is None:
            room_id = await _pick_room(session)
            if room_id is None:
                emit("No match is being played on this server.")
                return 1
        try:
            await session.spectate(room_id, password)
        except ServerError as exc:
            emit(f"Cannot watch room {room_id}: {exc.message}")
            return 1
        while True:
            msg = await session.events.get()
            if isinstance(msg, Link):
                if msg.status in ("lost", "restored"):
                    emit(f"(connection {msg.status})")
                if msg.status == "closed":
                    return 1
                continue
            if recording is not None:
                recording.write(json.dumps(recordable(msg), sort_keys=True) + "\n")
                recording.flush()
            rest_ms = getattr(msg, "rest_ms", None)
            if at_rest and isinstance(rest_ms, int):
                wait_s = (rest_ms - session.server_now_ms()) / 1000
                if wait_s > 0:
                    await asyncio.sleep(wait_s)
            for line in commentary.feed(msg):
                emit(line)
            if isinstance(msg, tc.GameOver) and not follow:
                return 0
    finally:
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker
        if recording is not None:
            recording.close()
        await session.close()


async def _pick_room(session: Any) -> str | None:
    rooms = await session.list_rooms()
    playing = [r for r in rooms if r.phase not in (Phase.WAITING, Phase.OVER)]
    chosen = (playing or list(rooms) or [None])[0]
    return None if chosen is None else str(chosen.room_id)
