"""Defence against attack in real matches: a defensive bot and the same level without defence
play three-cushion on a real server (``python -m server`` on loopback, a throw-away SQLite
file), as real bot clients (``client.bot.player.BotPlayer`` over ``client.session.Session``,
the websocket protocol). Printed, never asserted (docs/benchmarks.md "Defence").

``ROOMS`` rooms play at once for ``SECONDS`` seconds (the server holds every stroke for its
table time, 10-15 s, so rooms in parallel are what makes many innings in a few minutes); the
bots think in one pool of two worker processes, with a ``THINK_S`` cap per stroke. In every
room seat order is whatever the lag decides; one bot is ``DEFENDER`` (``balanced`` by default),
the other ``attacking``.

For every miss of a bot (a stroke that scores nothing), the points the opponent then scores in
its inning are "conceded" after that miss. The defensive bot's misses are split into
defensive strokes (``Plan.safety``) and failed attacks; the attacking bot's are all failed
attacks. To explain the difference, every miss's position is measured afterwards with the
planner (``client.bot.defence.opponent_chance``: the opponent's best chance from where the
balls stopped) and by how far apart the opponent's two object balls lie; and the bot's own
estimate of its attack before it failed (``Plan.expected``).

Environment: ``CAROM_BENCH_DEFENCE_LEVEL`` (3), ``CAROM_BENCH_DEFENCE_ROOMS`` (12),
``CAROM_BENCH_DEFENCE_SECONDS`` (240), ``CAROM_BENCH_DEFENCE_THINK`` (4 s),
``CAROM_BENCH_DEFENCE_PERSONALITY`` (``balanced`` or ``safe``), ``CAROM_BENCH_DEFENCE_SEED``
(2026: the bots' seeds, and the offline run's positions). The server, the bots' worker
processes and the connections all end when the run ends, also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import signal
import statistics
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field

LEVEL = int(os.environ.get("CAROM_BENCH_DEFENCE_LEVEL", "3"))
ROOMS = int(os.environ.get("CAROM_BENCH_DEFENCE_ROOMS", "12"))
SECONDS = float(os.environ.get("CAROM_BENCH_DEFENCE_SECONDS", "240"))
THINK_S = float(os.environ.get("CAROM_BENCH_DEFENCE_THINK", "4"))
DEFENDER = os.environ.get("CAROM_BENCH_DEFENCE_PERSONALITY", "balanced")  # or "safe"
SHOT_CLOCK_S = 60  # generous: a bot's search may wait for a free worker
SEED = int(os.environ.get("CAROM_BENCH_DEFENCE_SEED", "2026"))

Point = tuple[float, float]
Balls = tuple[Point, Point, Point]


@dataclass(frozen=True, slots=True)
class Stroke:
    """One stroke of a bench match, as the server reported it and the bot planned it."""

    room: int
    personality: str
    ball: str  # the cue ball struck
    points: int
    safety: bool
    kind: str  # "flat", "jump", "masse" (Plan.kind)
    expected: float  # the bot's estimate of its attack (Plan.expected)
    think_s: float
    after: Balls  # where the balls stopped (white, yellow, red)
    executed: float | None = None  # the attack replayed with its execution error (Plan.executed)


@dataclass(frozen=True, slots=True)
class Miss:
    personality: str
    kind: str  # "safety" or "attack"
    conceded: int  # the opponent's points in the inning that followed
    expected: float
    ball: str
    after: Balls
    executed: float | None = None


@dataclass
class Tally:
    strokes: list[Stroke] = field(default_factory=list)


# The matches ---------------------------------------------------------------------------------
async def _room(url: str, index: int, pool: Executor, out: list[Stroke], stop_at: float) -> None:
    from client.bot.player import BotPlayer
    from client.session import Session
    from shared.protocol import to_client as tc
    from shared.table import BALLS

    names = (f"Dee {index} ({DEFENDER})", f"Att {index} (attacking)")
    a, b = (
        Session(url, names[0], remember_identity=False),
        Session(url, names[1], remember_identity=False),
    )
    sessions = (a, b)
    games: list[asyncio.Task[object]] = []
    try:
        for s in sessions:
            await s.connect()
        room_id = await a.create_room(
            "three_cushion", distance=10_000, shot_clock_s=SHOT_CLOCK_S, equalizing=False
        )
        await a.join(room_id)
        await b.join(room_id)
        bots = {
            personality: BotPlayer(
                s,
                LEVEL,
                executor=pool,
                seed=SEED + 2 * index + i,
                think_s=THINK_S,
                personality=personality,
                say=lambda _line: None,
            )
            for i, (s, personality) in enumerate(
                zip(sessions, (DEFENDER, "attacking"), strict=True)
            )
        }
        by_seat = {s.state.seat: p for s, p in zip(sessions, (DEFENDER, "attacking"), strict=True)}

        def seen(msg: object) -> None:
            if not isinstance(msg, tc.StrokePlayed):
                return
            personality = by_seat[msg.shooter]
            plans = bots[personality].plans
            plan = plans[-1] if plans else None
            balls = msg.match.balls
            after = tuple((float(balls[n][0]), float(balls[n][1])) for n in BALLS)
            out.append(
                Stroke(
                    index,
                    personality,
                    str(msg.stroke.ball),
                    msg.result.points,
                    plan.safety if plan else False,
                    plan.kind if plan else "flat",
                    plan.expected if plan else 0.0,
                    plan.think_s if plan else 0.0,
                    (after[0], after[1], after[2]),
                    plan.executed if plan else None,
                )
            )

        a.listeners.append(seen)
        games = [asyncio.create_task(bot.play_match()) for bot in bots.values()]
        await asyncio.wait(games, timeout=max(0.0, stop_at - time.monotonic()))
    finally:
        for g in games:
            g.cancel()
        await asyncio.gather(*games, return_exceptions=True)
        for s in sessions:
            await s.close()


async def _matches(url: str, pool: Executor) -> list[list[Stroke]]:
    stop_at = time.monotonic() + SECONDS
    per_room: list[list[Stroke]] = [[] for _ in range(ROOMS)]
    await asyncio.gather(*(_room(url, i, pool, per_room[i], stop_at) for i in range(ROOMS)))
    return per_room


def misses(strokes: list[Stroke]) -> list[Miss]:
    """Every miss whose opponent's following inning ended within the run, with the points that
    inning scored (an inning ends at its first stroke that scores nothing)."""
    out: list[Miss] = []
    for i, s in enumerate(strokes):
        if s.points:
            continue
        conceded = 0
        ended = False
        for t in strokes[i + 1 :]:
            if t.personality == s.personality:
                break  # a re-spot or a foul gave the turn back: the inning is over
            conceded += t.points
            if not t.points:
                ended = True
                break
        if ended:
            kind = "safety" if s.safety else "attack"
            out.append(Miss(s.personality, kind, conceded, s.expected, s.ball, s.after, s.executed))
    return out


# Measuring what each miss left -------------------------------------------------------------
def leave_chance(ball: str, after: Balls, seed: int) -> float:
    """The opponent's best chance from where the balls stopped (the planner's measure)."""
    from client.bot.defence import opponent_chance
    from client.bot.problem import Problem

    problem = Problem.of("three_cushion", "match", after, "white" if ball == "white" else "yellow")
    return opponent_chance(problem, after, seed)


def object_gap(ball: str, after: Balls) -> float:
    """How far apart the opponent's two object balls lie (m): the opponent's object balls are
    the red and the missing player's own ball."""
    from shared.table import BALLS

    own = after[BALLS.index(ball)]
    red = after[BALLS.index("red")]
    return math.dist(own, red)


def _measure(rows: list[tuple[str, Balls, int]]) -> list[float]:
    return [leave_chance(ball, after, seed) for ball, after, seed in rows]


def measure_all(pool: Executor, found: list[Miss]) -> list[float]:
    """The opponent's best chance after each miss, measured in ``pool``'s workers."""
    rows = [(m.ball, m.after, SEED + i) for i, m in enumerate(found)]
    chunks = [rows[k : k + 10] for k in range(0, len(rows), 10)]
    return [c for part in pool.map(_measure, chunks) for c in part]


def _interrupted(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends the run as Ctrl-C does: everything is stopped


def run() -> Iterator[str]:
    from client.bot.pool import stop_pool
    from server.process import ServerProcess

    started = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(2, mp_context=ctx)
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        with (
            tempfile.TemporaryDirectory() as tmp,
            ServerProcess(os.path.join(tmp, "defence.db"), workers=1) as server,
        ):
            per_room = asyncio.run(_matches(server.url, pool))
        played = time.perf_counter() - started
        strokes = [s for room in per_room for s in room]
        found = [m for room in per_room for m in misses(room)]
        chances = measure_all(pool, found)
    finally:
        signal.signal(signal.SIGTERM, previous)
        stop_pool(pool)
    yield (
        f"level {LEVEL}, {ROOMS} rooms on a real server for {SECONDS:.0f} s "
        f"(think cap {THINK_S:g} s, shot clock {SHOT_CLOCK_S} s): {len(strokes)} strokes, "
        f"{len(found)} misses with the opponent's inning over; {played:.0f} s of play"
    )
    yield from report(strokes, found, chances, cap_s=THINK_S)
    yield f"wall time {time.perf_counter() - started:.0f} s"


def _mean(xs: list[float] | list[int]) -> str:
    """The mean and its standard error: "0.30 ± 0.06"."""
    if not xs:
        return "—"
    if len(xs) < 2:
        return f"{statistics.fmean(xs):.2f}"
    se = statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{statistics.fmean(xs):.2f} ± {se:.2f}"


def report(
    strokes: list[Stroke], found: list[Miss], chances: list[float], cap_s: float
) -> Iterator[str]:
    """Per bot: points per inning; after each kind of miss, the points conceded, what the
    planner says the opponent's chance was, how far apart the opponent's object balls lay and
    the bot's own estimate before the stroke; the share of jump and massé strokes; think
    times against the cap."""
    for personality in (DEFENDER, "attacking"):
        mine = [s for s in strokes if s.personality == personality]
        if not mine:
            continue
        innings = 1 + sum(1 for s in mine if not s.points)
        points = sum(s.points for s in mine)
        yield (
            f"{personality}: {len(mine)} strokes, {points} points, "
            f"{points / innings:.3f} points per inning"
        )
        for kind, words in (("safety", "a defensive stroke"), ("attack", "a failed attack")):
            picked = [
                (m, c)
                for m, c in zip(found, chances, strict=True)
                if m.personality == personality and m.kind == kind
            ]
            if not picked:
                continue
            ms = [m for m, _ in picked]
            gaps = [object_gap(m.ball, m.after) for m in ms]
            yield (
                f"  after {words}: {_mean([m.conceded for m in ms])} points conceded per "
                f"opponent inning ({len(ms)}); the opponent's best chance then "
                f"{_mean([c for _, c in picked])}, its object balls "
                f"{statistics.median(gaps):.2f} m apart (median); this bot's own estimate "
                f"before the stroke {_mean([m.expected for m in ms])}"
                + (
                    f", replayed with its execution error {_mean(executed)} ({len(executed)})"
                    if (executed := [m.executed for m in ms if m.executed is not None])
                    else ""
                )
            )
        think = sorted(s.think_s for s in mine)
        jumps = [s for s in mine if s.kind == "jump"]
        masses = [s for s in mine if s.kind == "masse"]
        yield (
            f"  jump {len(jumps) / len(mine):.1%} ({sum(s.points for s in jumps)} scored), "
            f"massé {len(masses) / len(mine):.1%} ({sum(s.points for s in masses)} scored); "
            f"think median {statistics.median(think):.2f} s, max {think[-1]:.2f} s "
            f"(cap {cap_s:g} s)"
        )


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
