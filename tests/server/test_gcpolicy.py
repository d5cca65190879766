"""The server's garbage-collector policy (server/gcpolicy.py): freeze every second, sweep the
frozen heap every so often, and show it all on /metrics."""

from __future__ import annotations

import asyncio
import gc
import re
import time
import urllib.request
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.gcpolicy import Action, Collector, GcClock, Schedule
from server.process import ServerProcess
from tests.server.wire import Wire


def test_the_schedule_freezes_every_second_and_sweeps_every_period() -> None:
    s = Schedule(sweep_every_s=10.0, freeze_every_s=1.0)
    s.start(100.0)
    assert s.due(100.5) is None
    assert s.due(101.0) is Action.FREEZE
    assert s.due(101.5) is None  # the next freeze is a second after the last one
    assert s.due(102.2) is Action.FREEZE
    assert s.due(110.0) is Action.SWEEP
    assert s.due(110.5) is None  # a sweep freezes too: the next freeze is a second later
    assert s.due(111.0) is Action.FREEZE
    assert s.due(119.9) is Action.FREEZE
    assert s.due(120.0) is Action.SWEEP


class _Cycle:
    def __init__(self) -> None:
        self.me: Any = self
        self.payload = [1, 2, 3]


@pytest.fixture
def restored_collector() -> Iterator[None]:
    """The test process's collector as it was, whatever the test froze or changed."""
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_a_cycle_frozen_before_it_became_garbage_waits_for_the_sweep(
    restored_collector: None,
) -> None:
    clock = GcClock()
    clock.install()
    try:
        collector = Collector(clock, Schedule(sweep_every_s=60.0, freeze_every_s=1.0))
        collector.start(0.0)
        cycle = _Cycle()
        gone = weakref.ref(cycle)
        assert collector.tick(1.0) is Action.FREEZE
        assert Collector.frozen() > 0
        del cycle  # garbage now, but frozen: the collector does not look at it
        gc.collect()
        assert gone() is not None
        assert collector.tick(60.0) is Action.SWEEP
        assert gone() is None  # reclaimed by the sweep
        assert clock.sweeps == 1 and clock.swept >= 2  # the object and its dict, at least
        assert clock.collections[2] >= 2  # the test's collection and the sweep's, both timed
        assert clock.longest_s > 0
    finally:
        clock.uninstall()


def test_objects_that_die_by_reference_counting_are_freed_though_frozen(
    restored_collector: None,
) -> None:
    """Freezing costs nothing for the usual garbage: an object without a cycle is freed the
    moment its last reference goes, frozen or not."""
    collector = Collector(GcClock(), Schedule(sweep_every_s=60.0, freeze_every_s=1.0))
    collector.start(0.0)

    class Plain:
        pass

    obj = Plain()
    gone = weakref.ref(obj)
    assert collector.tick(1.0) is Action.FREEZE
    del obj
    assert gone() is None


def _metrics(port: int) -> dict[str, float]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        body = r.read().decode()
    return {
        m.group(1): float(m.group(2)) for m in re.finditer(r"^(carom_gc_\S+) (\S+)$", body, re.M)
    }


def test_a_running_server_freezes_sweeps_and_reports_it(tmp_path: Path) -> None:
    """What an operator sees: the frozen heap, the sweeps, how long the collector stopped the
    loop, and that connections come and go without leaving anything for the sweeps (each
    closed connection used to leave its transport in a cycle)."""
    with ServerProcess(
        tmp_path / "carom.db", workers=0, extra_args=("--gc-sweep-seconds", "2")
    ) as server:

        async def come_and_go() -> None:
            for i in range(20):
                w = await Wire.open(server.url, f"visitor{i}")
                await w.ws.close()

        asyncio.run(come_and_go())
        deadline = time.monotonic() + 20
        m = _metrics(server.port)
        while m["carom_gc_sweeps_total"] < 2:  # one sweep after the connections closed
            assert time.monotonic() < deadline, m
            time.sleep(0.2)
            m = _metrics(server.port)
        assert m["carom_gc_frozen_objects"] > 10_000  # the server's heap, out of sight
        assert m["carom_gc_swept_total"] == 0  # nothing was waiting in the frozen heap
        assert m['carom_gc_collections_total{generation="2"}'] >= 2  # each sweep is one
        assert m['carom_gc_seconds_total{generation="2"}'] > 0
        assert 0 < m["carom_gc_longest_pause_seconds"] < 5
