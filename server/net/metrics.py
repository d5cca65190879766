"""Counters for ``GET /metrics`` (Prometheus text exposition format 0.0.4)."""

from __future__ import annotations

import resource
import time
from collections import Counter
from dataclasses import dataclass, field

from server.gcpolicy import GcClock

# Latency buckets (upper bounds, seconds) of carom_stroke_seconds and the other histograms.
STROKE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# Finer at the low end: a simulation's wait and the loop's lag are normally a few milliseconds.
WAIT_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


@dataclass(slots=True)
class Histogram:
    """A Prometheus histogram: counts per bucket bound (the last count is above them all)."""

    bounds: tuple[float, ...]
    counts: list[int] = field(default_factory=list)
    sum_s: float = 0.0

    def __post_init__(self) -> None:
        self.counts = [0] * (len(self.bounds) + 1)

    def observe(self, seconds: float) -> None:
        self.sum_s += seconds
        for i, bound in enumerate(self.bounds):
            if seconds <= bound:
                self.counts[i] += 1
                return
        self.counts[-1] += 1

    def lines(self, name: str, help_text: str) -> list[str]:
        lines = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
        total = 0
        for bound, n in zip(self.bounds, self.counts, strict=False):
            total += n
            lines.append(f'{name}_bucket{{le="{bound}"}} {total}')
        total += self.counts[-1]
        lines.append(f'{name}_bucket{{le="+Inf"}} {total}')
        lines.append(f"{name}_sum {self.sum_s:.6f}")
        lines.append(f"{name}_count {total}")
        return lines


@dataclass(slots=True)
class Metrics:
    started: float = field(default_factory=time.time)
    connections_total: int = 0
    messages_in: int = 0
    messages_out: int = 0
    bytes_out: int = 0
    strokes: int = 0
    simulations: int = 0
    simulation_cpu_s: float = 0.0  # CPU inside the physics (worker side)
    simulation_wall_s: float = 0.0  # submit → the room has the result
    # Where that time goes, per simulation (docs/server.md "Physics workers"): submit → the
    # worker begins it (waiting for a slot, in the pipe, in the worker's queue) …
    simulation_queue: Histogram = field(default_factory=lambda: Histogram(WAIT_BUCKETS))
    simulation_run_s: float = 0.0  # … the worker runs it (wall time) …
    simulation_return_s: float = 0.0  # … until the event loop reads its result …
    simulation_handoff_s: float = 0.0  # … until its room takes it up.
    internal_errors: int = 0
    errors: Counter[str] = field(default_factory=Counter)  # error replies by code
    closes: Counter[int] = field(default_factory=Counter)  # connections we closed, by code
    slow_clients: int = 0
    chat_dropped: int = 0  # chat lines not sent to a client that was falling behind
    replay_builds: int = 0  # replay pages encoded (the rest came from the cache)
    refused_per_address: int = 0  # connections dropped: too many from one address
    store_failures: int = 0  # writes that failed (disk full, database gone): refused inputs
    store_s: float = 0.0  # event-loop time spent writing to the database
    loop_lag_s: float = 0.0  # worst event-loop lag over the last sampling window
    # Every probe of the loop's lag (how late a 50 ms sleep wakes), for its quantiles.
    loop_lag: Histogram = field(default_factory=lambda: Histogram(WAIT_BUCKETS))
    # Stroke received → stroke_played queued.
    stroke: Histogram = field(default_factory=lambda: Histogram(STROKE_BUCKETS))
    gc: GcClock = field(default_factory=GcClock)  # the collector's pauses (server/gcpolicy.py)

    def observe_stroke(self, seconds: float) -> None:
        self.stroke.observe(seconds)

    def observe_simulation(
        self, submitted_s: float, began_s: float, ended_s: float, read_s: float, now_s: float
    ) -> None:
        """One simulation's way, in time.monotonic() seconds (the worker's stamps included:
        one clock for every process on the machine)."""
        self.simulation_queue.observe(max(0.0, began_s - submitted_s))
        self.simulation_run_s += max(0.0, ended_s - began_s)
        self.simulation_return_s += max(0.0, read_s - ended_s)
        self.simulation_handoff_s += max(0.0, now_s - read_s)

    def _gc_lines(self) -> list[str]:
        gc = self.gc
        return [
            "# HELP carom_gc_seconds_total Time the garbage collector stopped the event loop.",
            "# TYPE carom_gc_seconds_total counter",
            *(
                f'carom_gc_seconds_total{{generation="{g}"}} {s:.6f}'
                for g, s in enumerate(gc.seconds)
            ),
            "# TYPE carom_gc_collections_total counter",
            *(
                f'carom_gc_collections_total{{generation="{g}"}} {n}'
                for g, n in enumerate(gc.collections)
            ),
            "# HELP carom_gc_collected_total Garbage objects the collections found.",
            "# TYPE carom_gc_collected_total counter",
            *(
                f'carom_gc_collected_total{{generation="{g}"}} {n}'
                for g, n in enumerate(gc.collected)
            ),
            "# HELP carom_gc_longest_pause_seconds The longest collection since the start.",
            "# TYPE carom_gc_longest_pause_seconds gauge",
            f"carom_gc_longest_pause_seconds {gc.longest_s:.6f}",
            "# HELP carom_gc_frozen_objects Objects out of the collector's sight until a sweep "
            "(counted at the start and at each sweep).",
            "# TYPE carom_gc_frozen_objects gauge",
            f"carom_gc_frozen_objects {gc.frozen}",
            "# TYPE carom_gc_sweeps_total counter",
            f"carom_gc_sweeps_total {gc.sweeps}",
            "# HELP carom_gc_swept_total Garbage objects the sweeps found in the frozen heap.",
            "# TYPE carom_gc_swept_total counter",
            f"carom_gc_swept_total {gc.swept}",
        ]

    def render(self, rooms: int, connections: int, players: int, spectators: int) -> str:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        lines = [
            "# HELP carom_rooms Open rooms.",
            "# TYPE carom_rooms gauge",
            f"carom_rooms {rooms}",
            "# HELP carom_connections Open websocket connections.",
            "# TYPE carom_connections gauge",
            f"carom_connections {connections}",
            "# TYPE carom_seated_players gauge",
            f"carom_seated_players {players}",
            "# TYPE carom_spectators gauge",
            f"carom_spectators {spectators}",
            "# TYPE carom_connections_total counter",
            f"carom_connections_total {self.connections_total}",
            "# TYPE carom_messages_in_total counter",
            f"carom_messages_in_total {self.messages_in}",
            "# TYPE carom_messages_out_total counter",
            f"carom_messages_out_total {self.messages_out}",
            "# TYPE carom_bytes_out_total counter",
            f"carom_bytes_out_total {self.bytes_out}",
            "# HELP carom_strokes_total Strokes played and refereed.",
            "# TYPE carom_strokes_total counter",
            f"carom_strokes_total {self.strokes}",
            "# TYPE carom_simulations_total counter",
            f"carom_simulations_total {self.simulations}",
            "# HELP carom_simulation_cpu_seconds_total CPU spent in the physics engine.",
            "# TYPE carom_simulation_cpu_seconds_total counter",
            f"carom_simulation_cpu_seconds_total {self.simulation_cpu_s:.6f}",
            "# HELP carom_simulation_wall_seconds_total Submit-to-result time of simulations.",
            "# TYPE carom_simulation_wall_seconds_total counter",
            f"carom_simulation_wall_seconds_total {self.simulation_wall_s:.6f}",
            *self.simulation_queue.lines(
                "carom_simulation_queue_seconds",
                "Submit to the physics worker beginning the simulation.",
            ),
            "# HELP carom_simulation_run_seconds_total Wall time of simulations in the worker.",
            "# TYPE carom_simulation_run_seconds_total counter",
            f"carom_simulation_run_seconds_total {self.simulation_run_s:.6f}",
            "# HELP carom_simulation_return_seconds_total The worker's result to the event loop "
            "reading it.",
            "# TYPE carom_simulation_return_seconds_total counter",
            f"carom_simulation_return_seconds_total {self.simulation_return_s:.6f}",
            "# HELP carom_simulation_handoff_seconds_total A result read to its room taking it up.",
            "# TYPE carom_simulation_handoff_seconds_total counter",
            f"carom_simulation_handoff_seconds_total {self.simulation_handoff_s:.6f}",
            "# HELP carom_store_seconds_total Event-loop time spent in database writes.",
            "# TYPE carom_store_seconds_total counter",
            f"carom_store_seconds_total {self.store_s:.6f}",
            "# HELP carom_loop_lag_seconds Worst event-loop lag in the last 10 s.",
            "# TYPE carom_loop_lag_seconds gauge",
            f"carom_loop_lag_seconds {self.loop_lag_s:.6f}",
            *self.loop_lag.lines(
                "carom_loop_lag_probe_seconds", "How late each 50 ms probe sleep woke."
            ),
            *self.stroke.lines(
                "carom_stroke_seconds", "Stroke received to stroke_played queued to the room."
            ),
            *self._gc_lines(),
            "# TYPE carom_internal_errors_total counter",
            f"carom_internal_errors_total {self.internal_errors}",
            "# HELP carom_store_failures_total Database writes that failed; their inputs were "
            "refused.",
            "# TYPE carom_store_failures_total counter",
            f"carom_store_failures_total {self.store_failures}",
            "# TYPE carom_chat_dropped_total counter",
            f"carom_chat_dropped_total {self.chat_dropped}",
            "# HELP carom_replay_builds_total Replay pages encoded (not served from the cache).",
            "# TYPE carom_replay_builds_total counter",
            f"carom_replay_builds_total {self.replay_builds}",
            "# TYPE carom_refused_per_address_total counter",
            f"carom_refused_per_address_total {self.refused_per_address}",
            "# TYPE carom_slow_clients_total counter",
            f"carom_slow_clients_total {self.slow_clients}",
            "# TYPE carom_errors_total counter",
            *(f'carom_errors_total{{code="{c}"}} {n}' for c, n in sorted(self.errors.items())),
            "# TYPE carom_closes_total counter",
            *(f'carom_closes_total{{code="{c}"}} {n}' for c, n in sorted(self.closes.items())),
            "# TYPE process_cpu_seconds_total counter",
            f"process_cpu_seconds_total {usage.ru_utime + usage.ru_stime:.3f}",
            "# TYPE process_max_resident_memory_bytes gauge",
            f"process_max_resident_memory_bytes {usage.ru_maxrss * 1024}",
            "# TYPE process_start_time_seconds gauge",
            f"process_start_time_seconds {self.started:.3f}",
        ]
        return "\n".join(lines) + "\n"
