"""The window's link to the server: the client library's ``BackgroundSession`` (an asyncio loop
on a daemon thread), drained by the UI once per frame.

Requests go through the session's own methods (``join`` keeps the seat token for ``rejoin``,
``spectate`` re-spectates after a reconnect), never around it. A request that fails
(a refused join, a dropped link) comes back to the UI as a ``RequestFailed`` (the request's
type and an ``error`` message), shown like the server's own refusals, so the screen says it
and nothing is lost.
"""

from __future__ import annotations

import concurrent.futures
import queue
from typing import TYPE_CHECKING, Any

from client.app.model import RequestFailed, UIEvent
from client.background import BackgroundSession
from client.session import ServerError
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from shared.protocol.base import ClientMessage
from shared.protocol.errors import ErrorCode
from shared.protocol.to_client import TEXT_MAX

if TYPE_CHECKING:
    from shared.analysis.stats import MatchLog

# Requests whose answer the UI needs as a message (the session returns it to the caller).
_ANSWERED = (ts.ListRooms, ts.CreateRoom, ts.Sync, ts.Place)


class Bridge:
    def __init__(self, url: str, name: str, **session_kwargs: Any) -> None:
        self.url = url
        self.bg = BackgroundSession(url, name, **session_kwargs)
        self._local: queue.SimpleQueue[UIEvent] = queue.SimpleQueue()

    def start(self, timeout: float = 15.0) -> tc.Welcome:
        """Connect and greet (raises OSError when nobody answers at ``url``)."""
        return self.bg.start(timeout)

    @property
    def clock_offset_ms(self) -> float:
        return self.bg.state.clock_offset_ms

    @property
    def rtt_ms(self) -> float | None:
        """Best round trip to the server the session has seen (ms)."""
        return self.bg.state.rtt_ms

    def send(self, msg: ClientMessage) -> None:
        t = msg.TYPE
        s = self.bg.session
        fut: concurrent.futures.Future[Any]
        if isinstance(msg, ts.Join):
            fut = self.bg.call(s.join, msg.room_id, msg.password)
        elif isinstance(msg, ts.Rejoin):
            fut = self.bg.call(s.rejoin, msg.room_id, msg.seat_token)
        elif isinstance(msg, ts.Spectate):
            fut = self.bg.call(s.spectate, msg.room_id, msg.password)
        elif isinstance(msg, ts.Leave):
            fut = self.bg.call(s.leave)
        elif isinstance(msg, ts.Login):  # the session keeps the account's new token
            fut = self.bg.call(s.login, msg.name, msg.password)
        elif isinstance(msg, ts.Register):
            fut = self.bg.call(s.register, msg.name, msg.password, bool(msg.bot))
        elif isinstance(msg, _ANSWERED):
            fut = self.bg.call(s.request, msg)
        else:
            fut = self.bg.call(s.send, msg)

        def done(f: concurrent.futures.Future[Any]) -> None:
            self._done(t, f)

        fut.add_done_callback(done)

    def _done(self, t: str, fut: concurrent.futures.Future[Any]) -> None:
        exc = fut.exception()
        if exc is None or isinstance(exc, ServerError):
            return  # the server's own ``error`` already arrived as an event
        code = getattr(exc, "code", None) or type(exc).__name__
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        # The code stays in the data (and the log); the screen shows a sentence for it.
        error = tc.Error(code=ErrorCode(str(code)[:64]), message=str(message)[:TEXT_MAX])
        self._local.put(RequestFailed(t, error))

    def player_logs(self, player: str, most: int) -> concurrent.futures.Future[list[MatchLog]]:
        """A player's finished matches, read on the session's loop (so the window never waits)
        over a connection of their own, as ``carom stats`` reads them: the replay pages do not
        come through this window's events, where they would open the replay screen."""
        from client.stats import player_logs

        return self.bg.call(player_logs, self.url, player, most)

    def held_seats(self) -> dict[str, str]:
        """room id → seat token of the seats this identity holds (read from its file)."""
        return self.bg.session.held_seats()

    def drain(self) -> list[UIEvent]:
        out: list[UIEvent] = list(self.bg.drain())
        while True:
            try:
                out.append(self._local.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        self.bg.stop()
