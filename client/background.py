"""The session on a background thread, for a program with its own main loop (the desktop app).

The window toolkit owns the main thread; the asyncio loop runs in a daemon thread. The UI thread
calls :meth:`BackgroundSession.drain` once per frame to take the events that arrived since the
last frame (in order), reads :meth:`BackgroundSession.state` (a copy published after every
event, so it never changes under the reader), and sends requests with :meth:`call`, which
returns a :class:`concurrent.futures.Future` instead of blocking the frame.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import queue
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from client.session import Event, Session
from client.state import TableState
from shared.protocol import to_client as tc

T = TypeVar("T")


class BackgroundSession:
    """A :class:`Session` whose loop runs in its own thread. Arguments as for Session."""

    def __init__(self, url: str, name: str = "player", **session_kwargs: Any) -> None:
        self._url = url
        self._name = name
        self._kwargs = session_kwargs
        self._events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._session: Session | None = None
        self._published = TableState()

    def start(self, timeout: float = 15.0) -> tc.Welcome:
        """Start the thread, connect and greet; returns ``welcome`` (raises what connect
        raises, e.g. OSError when no server answers)."""
        self._thread.start()
        return self.call(self._connect).result(timeout)

    async def _connect(self) -> tc.Welcome:
        session = Session(self._url, self._name, queue_events=False, **self._kwargs)
        session.listeners.append(self._on_event)
        self._session = session
        return await session.connect()

    def _on_event(self, msg: Event) -> None:
        assert self._session is not None
        self._published = self._session.state.copy()
        self._events.put(msg)

    @property
    def session(self) -> Session:
        """The session itself: touch it only from coroutines passed to :meth:`call`."""
        if self._session is None:
            raise RuntimeError("start() first")
        return self._session

    @property
    def state(self) -> TableState:
        """The state as of the latest event: a copy the loop thread never touches, replaced
        (not changed) at the next event. Read it; do not change it."""
        return self._published

    def server_now_ms(self) -> int:
        return self.session.server_now_ms()

    def drain(self) -> list[Event]:
        """Every event since the previous call, oldest first (never blocks)."""
        out: list[Event] = []
        while True:
            try:
                out.append(self._events.get_nowait())
            except queue.Empty:
                return out

    def call(
        self, fn: Callable[..., Coroutine[Any, Any, T]], *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[T]:
        """Run ``fn(*args, **kwargs)`` (a coroutine function, e.g. ``bg.session.join``) on the
        session's loop; the future holds its result or exception."""
        return asyncio.run_coroutine_threadsafe(fn(*args, **kwargs), self._loop)

    def stop(self, timeout: float = 5.0) -> None:
        if self._session is not None and self._loop.is_running():
            with contextlib.suppress(Exception):  # already closed or the loop is stuck
                self.call(self._session.close).result(timeout)
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)
