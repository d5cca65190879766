"""The bots' thinking worker ends with the process that started it, even one killed with
SIGKILL (no handler runs then): otherwise it stays behind, holding that process's output open."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

STARTS_A_POOL = """
import os, sys, time
from client.bot.pool import thinking_pool
pool = thinking_pool()
worker = pool.submit(os.getpid).result()  # the worker is up: its pid
print(worker, flush=True)
time.sleep(120)
"""


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return any(line.startswith("State:\tZ") for line in f)  # a zombie has ended
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's PR_SET_PDEATHSIG")
def test_a_killed_bot_takes_its_thinking_worker_with_it() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", STARTS_A_POOL], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    worker = 0
    try:
        assert proc.stdout is not None
        worker = int(proc.stdout.readline())
        assert not _gone(worker)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 10
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(worker), "the thinking worker outlived the bot"
        # Its output ends too: nothing holds the pipe any more.
        assert proc.stdout.read() == ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        if worker and not _gone(worker):
            os.kill(worker, signal.SIGKILL)
        if proc.stdout is not None:
            proc.stdout.close()
