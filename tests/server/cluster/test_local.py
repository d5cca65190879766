"""``make cluster``: three nodes on real engines come up, share one lobby, and stop with
nothing left running."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bench import engines
from shared.protocol import to_client as tc
from shared.protocol import to_server as ts
from tests.server.wire import Wire, health


def _children(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents[int(entry.name)] = int(fields[1])
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = {c for c, parent in parents.items() if parent == p}
        out |= kids
        todo.extend(kids)
    return out


@pytest.mark.slow
async def test_make_cluster_starts_three_nodes_and_stops_everything() -> None:
    if engines.missing():
        pytest.skip("; ".join(engines.missing()))
    root = Path(tempfile.mkdtemp(prefix="carom-test-cluster-"))
    root.chmod(0o755)  # PostgreSQL's user must get through (make cluster checks)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.local_cluster", "--dir", str(root), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        t0 = time.monotonic()
        while not any("Ctrl-C stops everything" in line for line in lines):
            assert time.monotonic() - t0 < 60, lines
            line = await asyncio.to_thread(proc.stdout.readline)
            assert line, lines
            lines.append(line)
        urls = [m.group(1) for m in (re.search(r"^node\d\s+(ws://\S+)", x) for x in lines) if m]
        assert len(urls) == 3
        running = _children(proc.pid)
        assert len(running) >= 5  # PostgreSQL (and its helpers), Redis, three nodes
        for url in urls:
            port = int(url.rstrip("/").rsplit(":", 1)[1])
            assert await asyncio.to_thread(health, port) == (200, "ok\n")
        first = await Wire.open(urls[0], "ann")
        rid = (
            await first.request(ts.CreateRoom(discipline="three_cushion"), tc.RoomCreated)
        ).room_id
        last = await Wire.open(urls[2], "bob")
        t0 = time.monotonic()
        while rid not in {r.room_id for r in (await last.request(ts.ListRooms(), tc.Rooms)).rooms}:
            assert time.monotonic() - t0 < 5
            await asyncio.sleep(0.1)
        await first.close()
        await last.close()
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        rest = await asyncio.to_thread(proc.communicate, timeout=60)
        assert proc.returncode == 0, rest
        assert "stopped in" in rest[0]
        still = [p for p in running if Path(f"/proc/{p}").exists()]
        assert still == [], still
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(root, ignore_errors=True)
