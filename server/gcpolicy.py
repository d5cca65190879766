"""How the server's process uses Python's cyclic garbage collector.

Measured at 2 000 rooms (8 000 connections, bench/server_load.py, docs/benchmarks.md): with
the default thresholds the collector ran 14 full collections in a run, up to 0.9 s each, and
the event loop stood still meanwhile (the loop-lag metric showed ~1 s; every room waited). A
full collection walks every tracked object: each connection holds a few hundred (websockets'
connection, asyncio tasks, queues, buffers), so its cost grows with the number of players.

Two changes cut the collector's total time from 9.7 s to 3.6 s in that run and the steady
state p99 from ~1 s to ~0.27 s:

- everything that exists once the server has started (modules, code, the configuration) is
  moved out of the collector's sight with ``gc.freeze()``: it lives as long as the process;
- the youngest generation is collected after 10 000 new objects instead of 700, so the
  short-lived objects of a message (dicts, lists, the encoded bytes' wrappers) are freed by
  reference counting before a collection could promote them to the old generations, whose
  growth is what triggers the full collections.

Garbage cycles are still collected; only their collection is rarer.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000  # Python's default: 700
MIDDLE_THRESHOLD = 10  # (the default)
OLD_THRESHOLD = 10  # (the default)


def settle() -> None:
    """Call once, after start-up and before serving."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, MIDDLE_THRESHOLD, OLD_THRESHOLD)
