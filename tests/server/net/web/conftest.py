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
from tests.server.net.web.browser import chromium, fit
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


class Browsers:
    """Headless Chromiums for one module's tests. A test's browsers go back to the module when
    it ends (on a blank page, their log read) and the next test takes one of them, its window
    set to the size (or the phone) it asks for: starting Chromium costs over two seconds of
    CPU, and each test's server has a port, so an origin, of its own (nothing a page stored
    reaches the next test)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.stack = contextlib.ExitStack()
        self.idle: list[Any] = []
        self.started = 0

    def take(self, **kw: Any) -> Any:
        if self.idle:
            driver = self.idle.pop()
        else:
            self.started += 1
            folder = self.root / f"browser{self.started}" / "profile"
            folder.mkdir(parents=True)
            driver = self.stack.enter_context(chromium(folder))
        fit(driver, **kw)
        return driver

    def give_back(self, driver: Any) -> None:
        from selenium.common.exceptions import WebDriverException

        try:
            driver.get("about:blank")
            driver.get_log("browser")  # what this test's pages logged stays with this test
        except WebDriverException:
            return  # a browser in trouble is not lent again (the module's end quits it)
        self.idle.append(driver)


@pytest.fixture(scope="module")
def browser_pool(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browsers]:
    pool = Browsers(tmp_path_factory.mktemp("chromium"))
    with pool.stack:
        yield pool


@pytest.fixture
def browsers(
    browser_pool: Browsers, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Any]]:
    """``open(width=…, height=…, mobile=…)``: a headless Chromium on a blank page, for this
    test alone until it ends."""
    uses_engine(request, "Chromium")
    lent: list[Any] = []

    def open_browser(**kw: Any) -> Any:
        lent.append(browser_pool.take(**kw))
        return lent[-1]

    try:
        yield open_browser
    finally:
        for driver in lent:
            browser_pool.give_back(driver)


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
