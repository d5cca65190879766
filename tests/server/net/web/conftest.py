"""A real game server on loopback in a thread of its own (the browser tests drive Chromium from
the test's thread), real browsers, and real bots in their own processes; all of them end with
the test, also when it fails."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from server.config import ServerConfig
from server.net.gateway import GameServer
from tests.server.net.web.browser import chromium
from tests.strict import uses_engine

ROOT = Path(__file__).resolve().parents[4]
T = TypeVar("T")


class LiveServer:
    """``GameServer`` on its own event loop in a daemon thread; ``run`` a coroutine there."""

    def __init__(self, folder: Path, **limits: Any) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        config = ServerConfig(port=0, db_path=str(folder / "carom.db"), workers=0, **limits)
        self.srv = GameServer(config)
        self.run(self.srv.start())
        self.port = self.srv.port
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/"
        self.running = True

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        if self.running:
            self.running = False
            self.run(self.srv.stop())

    def close(self) -> None:
        try:
            self.stop()
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def browsers(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """``open(width=…, height=…, mobile=…)``: a new headless Chromium, quit at the end."""
    uses_engine(request, "Chromium")
    with contextlib.ExitStack() as stack:
        count = 0

        def open_browser(**kw: Any) -> Any:
            nonlocal count
            count += 1
            folder = tmp_path / f"browser{count}" / "profile"
            folder.mkdir(parents=True)
            return stack.enter_context(chromium(folder, **kw))

        yield open_browser


@pytest.fixture
def bots(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``start(url, room_id)``: ``carom bot`` joins that room (level 1, quick thinking)."""
    started: list[subprocess.Popen[str]] = []

    def start(url: str, room_id: str, name: str = "Robot") -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "client.cli",
                "bot",
                "--url",
                url,
                "--room",
                room_id,
                "--level",
                "1",
                "--think",
                "0.2",
                "--name",
                name,
                "--quiet",
                "--identity",
                str(tmp_path / f"bot{len(started)}.json"),
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        started.append(proc)
        return proc

    try:
        yield start
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
