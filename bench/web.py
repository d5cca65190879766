"""The browser client (docs/web.md), measured in headless Chromium against ``carom serve`` on
loopback: bytes of the lobby and the room page (compressed, everything the page loads), time
from the request to the first table drawn, frame time while a stroke animates, and the CPU an
idle page uses. Numbers are printed, never asserted.

``python -m bench.web --shots DIR`` instead saves the screenshots of docs/web.md into DIR: the
lobby, a stroke at several moments, a spectator's view of a match, a phone in portrait.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from client.session import Session
from shared.protocol.views import CueParams
from tests.server.net.web.browser import chromium

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Serve:
    """``carom serve`` in a child process (one physics worker, as a real install)."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}/"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "client.cli", "serve", "--port", str(self.port),
             "--db", str(folder / "bench.db"), "--workers", "1"],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(self.http + "/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("carom serve did not start")
            time.sleep(0.1)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(2)  # SIGINT: close at once
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _get(url: str) -> tuple[bytes, dict[str, str]]:
    req = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.read(), {k.lower(): v for k, v in r.headers.items()}


def page_bytes(base: str, path: str) -> tuple[int, int]:
    """(bytes on the wire, bytes uncompressed) of a page and every file it loads."""
    body, headers = _get(base + path)
    wire, raw = len(body), len(gzip.decompress(body) if "content-encoding" in headers else body)
    html = gzip.decompress(body).decode() if "content-encoding" in headers else body.decode()
    for url in re.findall(r'(?:src|href)="(/static/[^"]+)"', html):
        data, h = _get(base + url)
        wire += len(data)
        raw += len(gzip.decompress(data)) if "content-encoding" in h else len(data)
    return wire, raw


async def _practice_room(ws: str) -> tuple[Session, str]:
    s = Session(ws, "Bench", remember_identity=False)
    await s.connect()
    room = await s.create_room("three_cushion", practice=True)
    await s.join(room)
    return s, room


def _cpu_ticks(pid: int) -> int:
    """utime + stime of ``pid`` and every process below it (clock ticks)."""
    total = 0
    kids: dict[int, list[int]] = {}
    stats: dict[int, list[str]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            raw = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = raw[raw.rindex(")") + 2 :].split()
        stats[int(entry)] = fields
        kids.setdefault(int(fields[1]), []).append(int(entry))
    todo = [pid]
    while todo:
        p = todo.pop()
        if p in stats:
            total += int(stats[p][11]) + int(stats[p][12])
        todo.extend(kids.get(p, []))
    return total


def _wait(driver: Any, script: str, timeout: float = 30) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise TimeoutError(script)


def run() -> Iterator[str]:
    folder = Path(tempfile.mkdtemp(prefix="carom-bench-web-"))
    serve = Serve(folder)
    loop = asyncio.new_event_loop()
    try:
        for label, path in (("lobby", "/"), ("room page", "/room/r0000000000")):
            wire, raw = page_bytes(serve.http, path)
            yield f"{label}: {wire / 1024:.1f} KiB on the wire (gzip), {raw / 1024:.1f} KiB unpacked"  # noqa: E501
        player, room = loop.run_until_complete(_practice_room(serve.ws))
        with chromium(folder / "profile") as d:
            service_pid = d.service.process.pid
            times = []
            for i in range(6):
                d.get(f"{serve.http}/room/{room}")
                ms = _wait(
                    d,
                    "const m = performance.getEntriesByName('carom-first-table');"
                    "return m.length ? m[0].startTime : 0;",
                )
                times.append(float(ms))
                if i == 0:
                    yield f"first table drawn, cold cache: {ms:.0f} ms from the request"
            yield (
                f"first table drawn, warm cache: median {statistics.median(times[1:]):.0f} ms, "
                f"max {max(times[1:]):.0f} ms (5 loads)"
            )
            # A long stroke watched from the page: frame time and frame interval.
            _wait(d, "return document.body.dataset.ready === '1'")
            d.execute_script("caromStats.frames.length = 0; caromStats.intervals.length = 0;")
            cue = CueParams(direction=33.0, speed=6.0, tip_x=0.3, tip_y=0.2, elevation=0.0)
            loop.run_until_complete(player.stroke(cue))
            _wait(d, "return caromStats.frames.length > 5")
            _wait(d, "return document.querySelector('.turn').textContent !== "
                     "'The balls are rolling.' && caromStats.frames.length > 5", 60)  # fmt: skip
            frames = d.execute_script("return caromStats.frames")
            gaps = d.execute_script("return caromStats.intervals")
            frames.sort()
            gaps.sort()
            yield (
                f"stroke animating: {len(frames)} frames, "
                f"draw median {statistics.median(frames):.2f} ms, "
                f"p95 {frames[int(len(frames) * 0.95)]:.2f} ms; frame interval median "
                f"{statistics.median(gaps):.1f} ms ({1000 / statistics.median(gaps):.0f} fps)"
            )
            # An idle page: the room at rest, then the lobby (it refreshes the rooms every 2 s).
            for label, path in (("room page at rest", f"/room/{room}"), ("lobby", "/")):
                d.get(serve.http + path)
                time.sleep(2)
                hz = os.sysconf("SC_CLK_TCK")
                t0, c0 = time.monotonic(), _cpu_ticks(service_pid)
                time.sleep(10)
                t1, c1 = time.monotonic(), _cpu_ticks(service_pid)
                share = (c1 - c0) / hz / (t1 - t0) * 100
                yield f"idle {label}: Chromium uses {share:.1f} % of one core (10 s)"
        loop.run_until_complete(player.close())
    finally:
        loop.close()
        serve.close()


def shots(out: Path) -> None:
    """The screenshots of docs/web.md and the README."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="carom-shots-"))
    serve = Serve(folder)
    loop = asyncio.new_event_loop()
    bots: list[subprocess.Popen[bytes]] = []
    try:

        async def make() -> str:
            async with Session(serve.ws, "Host", remember_identity=False) as s:
                return await s.create_room("three_cushion", distance=15, shot_clock_s=40)

        match_room = loop.run_until_complete(make())
        for name in ("Caudron", "Jaspers"):
            bots.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "client.cli",
                        "bot",
                        "--url",
                        serve.ws,
                        "--room",
                        match_room,
                        "--level",
                        "4",
                        "--name",
                        name,
                        "--quiet",
                        "--matches",
                        "1",
                        "--identity",
                        str(folder / f"{name}.json"),
                    ],
                    cwd=ROOT,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        with chromium(folder / "p1", width=1280, height=1000) as d:
            d.get(serve.http + "/")
            d.execute_script("localStorage.setItem('carom.name', 'Ada')")
            d.get(serve.http + "/")
            _wait(d, "return document.querySelector('table.rooms tbody tr')")
            time.sleep(2.5)
            d.save_screenshot(str(out / "web_lobby.png"))
            # A practice table: aim, then the stroke at several moments.
            s, room = loop.run_until_complete(_practice_room(serve.ws))
            token = s.state.seat_token
            loop.run_until_complete(s.close())
            # The seat this browser was meant for: its token in the browser's own storage.
            d.execute_script(f"localStorage.setItem('carom.seat.{room}', arguments[0])", token)
            d.get(f"{serve.http}/room/{room}")
            _wait(d, "return document.body.dataset.ready === '1'")
            _wait(d, "const b = document.getElementById('strike'); return b && !b.disabled")
            canvas = d.find_element(By.CSS_SELECTOR, "canvas.table")
            d.execute_script("window.scrollTo(0, 0)")
            ActionChains(d).move_to_element_with_offset(
                canvas, 260, -150
            ).click_and_hold().release().perform()
            spin = d.find_element(By.ID, "spin")
            ActionChains(d).move_to_element_with_offset(spin, 14, -14).click().perform()
            d.execute_script("window.scrollTo(0, 0)")
            d.save_screenshot(str(out / "web_aim.png"))
            d.find_element(By.ID, "strike").click()
            start = time.monotonic()
            for i, at in enumerate((0.25, 0.8, 1.6)):
                time.sleep(max(0.0, start + at - time.monotonic()))
                d.execute_script("window.scrollTo(0, 0)")
                d.save_screenshot(str(out / f"web_stroke_{i + 1}.png"))
            _wait(d, "return document.querySelector('.turn').textContent === 'Your shot.'", 60)
            d.execute_script("window.scrollTo(0, 0)")
            d.save_screenshot(str(out / "web_stroke_rest.png"))
            # The bots' match as a spectator sees it.
            d.get(f"{serve.http}/room/{match_room}")
            _wait(d, "return document.body.dataset.ready === '1'")
            _wait(
                d,
                "const s = [...document.querySelectorAll('.player .score')]"
                ".map(e => +e.textContent);"
                "return s.length === 2 && s[0] + s[1] >= 2",
                300,
            )
            d.find_element(By.NAME, "chat").send_keys("Nice carom!\n")
            _wait(
                d,
                "return document.querySelector('.turn').textContent.endsWith('to play.')"
                " && document.querySelector('.clock').textContent !== ''"
                " && document.querySelector('.call').textContent !== ''",
                60,
            )
            d.execute_script("window.scrollTo(0, 0)")
            d.save_screenshot(str(out / "web_spectator.png"))
        with chromium(folder / "p2", width=390, height=844, mobile=True) as phone:
            phone.get(f"{serve.http}/room/{match_room}")
            _wait(phone, "return document.body.dataset.ready === '1'")
            time.sleep(1.5)
            phone.save_screenshot(str(out / "web_phone.png"))
    finally:
        for b in bots:
            b.terminate()
            b.wait(10)
        loop.close()
        serve.close()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--shots"]:
        shots(Path(sys.argv[2]))
    else:
        for line in run():
            print(line, flush=True)
