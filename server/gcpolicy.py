"""How the server's process uses Python's cyclic garbage collector.

Python's collector stops the event loop for each collection, and a full one walks every tracked
object: each connection holds a few hundred (websockets' connection, asyncio tasks, queues,
buffers), so its cost grows with the number of players. Measured at 2 000 rooms (8 000
connections, bench/server_load.py, docs/benchmarks.md), with ``gc.callbacks`` timing each
collection and counting what it found:

- with Python's default thresholds: 14 full collections in a run, up to 0.9 s each;
- with the start-up heap frozen and the young generation collected after 10 000 objects
  (this module's first version): in 60 s, 35 young collections (1.4 s in all, up to 0.4 s
  each), 3 middle ones (0.9 s) and a full one (0.7 s); the stroke latency's p99 was the
  collector's;
- and **every one of those collections found nothing**: while matches are played the server
  makes no garbage cycles at all (reference counting frees everything). Closing a connection
  made one (6 objects: Python 3.11's socket transport holding itself through a bound method,
  CPython gh-100348); the server now breaks it when the connection is lost (server/net/gateway.py),
  and 200 connections opened, seated and closed leave nothing for a full collection.

So the collector walked millions of live objects to find nothing. The policy now:

- **Freeze every second** (``gc.freeze()``, which only moves a list's head): whatever exists
  is out of the collector's sight from then on, so no collection ever walks the players'
  connections again. Objects still die by reference counting as before; only a cycle that
  becomes garbage after it was frozen waits for the sweep.
- **Sweep every hour** (``gc.unfreeze()``, one full collection, freeze again): a safety net
  for cycles nobody has measured yet. It stops the loop for a full collection of the whole
  heap: ~1 s at 8 000 connections (measured with sweeps every 20 s: 0.98 s on average, the
  longest 1.19 s), so about 0.03 % of the strokes (those sent during it) wait for it.
- The young generation is collected only after 200 000 new objects (Python's default: 700;
  10 000 in the first version of this policy). With the heap frozen every second, that count
  is never reached in play: measured at 2 000 rooms without think time (150 strokes/s,
  docs/benchmarks.md "round 4"), 10 000 gave ~0.7 young collections a second, each walking the
  20 000–60 000 objects made since the last freeze for 35–230 ms with the loop stopped, and
  every one found nothing; they were the loop's longest stalls. A burst of 200 000 objects
  within a second (nothing the server does) is still collected while young.

``/metrics`` shows each generation's collections and pause time, the longest pause, the frozen
objects (as of the start or the last sweep: counting them walks the whole frozen heap), the
sweeps and what they reclaimed (``carom_gc_*``): an operator sees whether anything
waits for the sweeps, and can shorten or lengthen their period (``--gc-sweep-seconds``).
"""

from __future__ import annotations

import asyncio
import gc
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

YOUNG_THRESHOLD: Final = 200_000  # Python's default: 700 (see the module's docstring)
MIDDLE_THRESHOLD: Final = 10  # (the default)
OLD_THRESHOLD: Final = 10  # (the default)
FREEZE_EVERY_S: Final = 1.0
SWEEP_EVERY_S: Final = 3600.0


def settle() -> None:
    """Call once, after start-up and before serving: the start-up heap (modules, code, the
    configuration) lives as long as the process, out of the collector's sight."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, OLD_THRESHOLD)


class Action(Enum):
    FREEZE = "freeze"
    SWEEP = "sweep"


@dataclass(slots=True)
class Schedule:
    """When to freeze and when to sweep; pure (the time is an argument)."""

    sweep_every_s: float = SWEEP_EVERY_S
    freeze_every_s: float = FREEZE_EVERY_S
    next_freeze: float = 0.0
    next_sweep: float = 0.0

    def start(self, now: float) -> None:
        self.next_freeze = now + self.freeze_every_s
        self.next_sweep = now + self.sweep_every_s

    def due(self, now: float) -> Action | None:
        """What to do now, if anything (a sweep freezes too)."""
        if now >= self.next_sweep:
            self.start(now)
            return Action.SWEEP
        if now >= self.next_freeze:
            self.next_freeze = now + self.freeze_every_s
            return Action.FREEZE
        return None


@dataclass(slots=True)
class GcClock:
    """Times every collection (``gc.callbacks``) and counts what it found, per generation,
    and what the sweeps did."""

    seconds: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    collections: list[int] = field(default_factory=lambda: [0, 0, 0])
    collected: list[int] = field(default_factory=lambda: [0, 0, 0])  # garbage objects found
    longest_s: float = 0.0
    sweeps: int = 0
    swept: int = 0  # garbage objects the sweeps found (cycles that waited in the frozen heap)
    # Objects in the frozen heap, counted at the start and after each sweep only: counting
    # walks the whole frozen list (~40 ms at 2 000 rooms, ~3 million objects), and /metrics
    # did it on every scrape, with the event loop stopped.
    frozen: int = 0
    _began: float = 0.0

    def install(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def uninstall(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
            return
        took = time.perf_counter() - self._began
        generation = int(info.get("generation", 2))
        self.seconds[generation] += took
        self.collections[generation] += 1
        self.collected[generation] += int(info.get("collected", 0))
        self.longest_s = max(self.longest_s, took)


class Collector:
    """Runs the ``Schedule`` on the process's collector (the I/O side: ``gc`` is global)."""

    def __init__(self, clock: GcClock, schedule: Schedule) -> None:
        self.clock = clock
        self.schedule = schedule

    def start(self, now: float) -> None:
        settle()
        self.clock.frozen = gc.get_freeze_count()
        self.schedule.start(now)

    def tick(self, now: float) -> Action | None:
        action = self.schedule.due(now)
        if action is Action.SWEEP:
            gc.unfreeze()
            self.clock.swept += gc.collect()
            self.clock.sweeps += 1
            gc.freeze()
            self.clock.frozen = gc.get_freeze_count()  # the loop is stopped for the sweep anyway
        elif action is Action.FREEZE:
            gc.freeze()
        return action

    async def run(self) -> None:
        """Tick for as long as the server runs (cancelled when it stops)."""
        loop = asyncio.get_running_loop()
        self.start(loop.time())
        while True:
            await asyncio.sleep(self.schedule.freeze_every_s)
            self.tick(loop.time())

    @staticmethod
    def frozen() -> int:
        return gc.get_freeze_count()
