"""A tiny real websocket client for the server tests (the headless client library lives in
``client/``; these tests talk the raw protocol so they check the wire itself)."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from shared import rules
from shared.physics import Stroke, simulate
from shared.protocol import ClientMessage, ServerMessage, decode_server, encode
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.views import CueParams, MatchView
from shared.table import BALLS

M = TypeVar("M", bound=ServerMessage)


@dataclass(eq=False)
class Wire:
    ws: ClientConnection
    log: list[ServerMessage] = field(default_factory=list)  # everything received, in order
    unread: list[ServerMessage] = field(default_factory=list)
    next_id: int = 0
    welcome: tc.Welcome | None = None
    seat_token: str = ""

    @classmethod
    async def open(cls, url: str, name: str | None = None, token: str | None = None) -> Wire:
        # A client reads everything the server sends, as a real one does: with websockets'
        # bounded queue (16 frames) a Wire that does not read stops reading its socket, and
        # its close then waits ten seconds for a closing frame it never takes in.
        w = cls(await connect(url, max_size=None, max_queue=None, compression=None))
        if name is not None:
            await w.send(ts.Hello(v=1, name=name, token=token))
            w.welcome = await w.expect(tc.Welcome)
        return w

    async def send(self, msg: ClientMessage | dict[str, Any] | bytes) -> int | None:
        if isinstance(msg, bytes):
            await self.ws.send(msg)
            return None
        if isinstance(msg, dict):
            await self.ws.send(msgpack.packb(msg, use_bin_type=True))
            return None
        self.next_id += 1
        msg = replace(msg, id=self.next_id)
        await self.ws.send(encode(msg))
        return self.next_id

    async def _read(self, timeout: float) -> ServerMessage:
        data = await asyncio.wait_for(self.ws.recv(), timeout)
        assert isinstance(data, bytes), "the server sends binary frames only"
        msg = decode_server(data)
        self.log.append(msg)
        return msg

    async def expect(
        self, kind: type[M], timeout: float = 5.0, where: Callable[[M], bool] | None = None
    ) -> M:
        """The first message of ``kind`` (matching ``where``); others stay unread."""
        for i, m in enumerate(self.unread):
            if isinstance(m, kind) and (where is None or where(m)):
                return self.unread.pop(i)  # type: ignore[return-value]
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind.TYPE} within {timeout} s; unread: {self.unread}")
            m = await self._read(left)
            if isinstance(m, kind) and (where is None or where(m)):
                return m
            self.unread.append(m)

    async def request(self, msg: ClientMessage, kind: type[M], timeout: float = 5.0) -> M:
        """Send and wait for the direct answer (``re`` = our id); an ``error`` raises."""
        rid = await self.send(msg)
        got = await self.expect(
            ServerMessage,  # type: ignore[type-abstract]
            timeout,
            where=lambda m: getattr(m, "re", None) == rid,
        )
        if isinstance(got, tc.Error) and kind is not tc.Error:
            raise AssertionError(f"{msg.TYPE} refused: {got.code}: {got.message}")
        assert isinstance(got, kind), got
        return got

    async def refused(self, msg: ClientMessage, timeout: float = 5.0) -> tc.Error:
        return await self.request(msg, tc.Error, timeout)

    async def quiet(self, seconds: float) -> list[ServerMessage]:
        """Everything that arrives within ``seconds`` (unread included)."""
        out, self.unread = self.unread, []
        with contextlib.suppress(TimeoutError, ConnectionClosed):
            deadline = time.monotonic() + seconds
            while (left := deadline - time.monotonic()) > 0:
                out.append(await self._read(left))
        return out

    async def closed(self, timeout: float = 10.0) -> int | None:
        """Read (and keep) everything until the server closes us; the close code."""
        with contextlib.suppress(ConnectionClosed):
            deadline = time.monotonic() + timeout
            while (left := deadline - time.monotonic()) > 0:
                with contextlib.suppress(TimeoutError):
                    self.unread.append(await self._read(left))
        return self.ws.close_code

    async def close(self) -> None:
        await self.ws.close()

    def broadcasts(self) -> list[ServerMessage]:
        return [m for m in self.log if hasattr(m, "seq") and not isinstance(m, tc.Snapshot)]


def state_from_view(match: MatchView, options: rules.MatchOptions) -> rules.MatchState:
    """A referee state with the snapshot's balls and shooter, to try strokes offline."""
    state = rules.new_match(options, 0)
    balls = tuple((float(match.balls[b][0]), float(match.balls[b][1])) for b in BALLS)
    return replace(
        state,
        phase=rules.Phase.PLAY,
        balls=balls,  # type: ignore[arg-type]
        shooter=match.shooter,
        white_seat=match.white_seat,
        break_shot=match.break_shot,
        deadline_ms=None,
    )


def find_scoring_stroke(
    match: MatchView, options: rules.MatchOptions, score: bool = True
) -> tuple[ts.Stroke, float]:
    """The first stroke on a fixed grid that the referee scores (or, with ``score=False``, that
    misses), found by simulating with the server's own physics from the snapshot positions."""
    return stroke_for(state_from_view(match, options), options, score)


async def search_stroke(
    match: MatchView, options: rules.MatchOptions, score: bool = True
) -> tuple[ts.Stroke, float]:
    """:func:`find_scoring_stroke` in a thread: the search simulates for a second or more of
    CPU, and servers sharing the test's event loop must keep their timers meanwhile (a cluster
    node that cannot renew its leases loses its rooms, a shot clock runs on)."""
    return await asyncio.to_thread(find_scoring_stroke, match, options, score)


def stroke_for(
    state: rules.MatchState, options: rules.MatchOptions, score: bool = True
) -> tuple[ts.Stroke, float]:
    """:func:`find_scoring_stroke` from a referee state (tests that drive the room core)."""
    state = replace(state, deadline_ms=None, resting_at_ms=0)  # tried at time 0: at rest, no clock
    cue = rules.cue_ball(state)
    table = options.table_spec
    # A soft miss first: the balls roll in table time, which tests over the wire wait out (a
    # miss at 0.1 m/s rests in 1.5 s, at 0.3 m/s in 6.5 s).
    grid = (
        [
            (sp, tx, float(d))
            for sp in (3.5, 2.5, 4.5)
            for tx in (0.0, 0.3, -0.3)
            for d in range(360)
        ]
        if score
        else [(sp, 0.0, float(d)) for sp in (0.1, 0.3) for d in range(0, 360, 15)]
    )
    for speed, tip_x, direction in grid:
        stroke = Stroke(direction, speed, tip_x, 0.1)
        result = simulate(table, state.positions, cue, stroke)
        _, verdict = rules.apply(state, rules.PlayStroke(state.shooter or 0, stroke, result), 0)
        if bool(verdict.points) == score and verdict.foul is None:
            msg = ts.Stroke(cue=CueParams(direction=direction, speed=speed, tip_x=tip_x, tip_y=0.1))
            return msg, result.duration
    raise AssertionError("no stroke on the grid does it")


def fill_disk(path: Path) -> None:
    """Write ``path`` until its filesystem has no free block left."""
    with path.open("wb", buffering=0) as f:
        for size in (1 << 16, 1 << 12, 1 << 9):
            block = b"\0" * size
            try:
                while True:
                    f.write(block)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc


def health(port: int) -> tuple[int, str]:
    """``GET /health``: the status and the body, 503 included."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()
