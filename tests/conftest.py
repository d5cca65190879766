# tests/scheduling.py keeps a module that declares an xdist_group on one worker.
# Real PostgreSQL and Redis processes for the cluster tests (skipped when not installed, an error
# under CAROM_NO_SKIP=1), and the guards that keep a green run honest (tests/strict.py); rule
# coverage by the rules the referee really applies (CAROM_RULE_COVERAGE=1, docs/rules.md);
# pytester runs the coverage plugin on a small suite of its own (tests/test_rule_coverage.py).
import gc
import os

import pytest

# The suite registers and logs in hundreds of throwaway accounts: scrypt at 2^10, not the
# production 2^14 (server/credentials.py; tests/server/test_credentials.py checks the default).
# Set here, so every server the tests start, in process or not, inherits it.
os.environ.setdefault("CAROM_PASSWORD_COST", "10")
# Mesa's software rasteriser (the windows on Xvfb, the offscreen screenshots) starts a thread per
# core by default. While the suite keeps both cores busy those threads only add hand-offs: one
# rendering test took 23 to 25 s of CPU with them, 21 s without (docs/benchmarks.md, round 10).
os.environ.setdefault("LP_NUM_THREADS", "0")
# Hypothesis looks through every installed package's entry points for plugins when it is first
# imported, in each worker and each pytest a test starts. The suite uses none: a bare `import
# hypothesis` takes 0.24 s of CPU instead of 0.43 s without the look (0.1 s less in a worker's
# collection, where pytest has read the packages' metadata already).
os.environ.setdefault("HYPOTHESIS_NO_PLUGINS", "1")
# This machine has no sound device. Without this, pyglet would try OpenAL and then PulseAudio in
# every window the suite opens (offscreen ones say so themselves: client/app/offscreen.py).
os.environ.setdefault("PYGLET_AUDIO", "silent")
# Python collects its young generation every 700 new objects; a worker makes millions (the
# collection of 1 600 tests, Hypothesis's examples, asyncio servers in process) and nearly all
# die by reference counting. Every 50 000: 3 % less CPU for the tests that run in the workers
# (tests/shared, the in-process servers and bots: 28.4 s against 27.5 s, docs/benchmarks.md).
gc.set_threshold(50_000, 20, 20)

pytest_plugins = [
    "tests.strict",
    "tests.engines",
    "tests.rule_coverage",
    "tests.scheduling",
    "tests.forking",  # before tests.stopping, which imports it
    "tests.stopping",
    "pytester",
]


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """After every other plugin's end, freeze the heap: pytest's own end has just collected it
    (and reported what broke in a finalizer), and what it calls at its very end, then the
    interpreter's shutdown, would otherwise walk every object the session made twice more,
    before the OS frees them anyway: about half a second of CPU for each worker, all at the
    run's end (docs/benchmarks.md, rounds 9 and 14)."""
    gc.freeze()
