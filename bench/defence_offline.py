"""Defence against attack offline: the same two bots as ``bench/defence.py`` play each other
without a server (the real referee and physics, stroke after stroke, no table time), from
seeded random positions (a new one every ``GAME_STROKES`` strokes). Quicker per stroke than the
real matches and reproducible; it is where the first defence numbers came from
(docs/benchmarks.md "Defence"), and the same report: points conceded after a defensive stroke
and after a failed attack, and what each miss left by the planner's measure.

    python -m bench defence_offline
    CAROM_BENCH_DEFENCE_STROKES=300 CAROM_BENCH_DEFENCE_LEVEL=3 python -m bench.defence_offline

``CAROM_BENCH_DEFENCE_STROKES`` (default 300) strokes in all, ``CAROM_BENCH_DEFENCE_LEVEL``
(default 3), ``CAROM_BENCH_DEFENCE_PERSONALITY`` (``balanced``, the default, or ``safe``), a
``BUDGET_S`` think cap.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

from bench.defence import DEFENDER, SEED, Stroke, measure_all, misses, report

STROKES = int(os.environ.get("CAROM_BENCH_DEFENCE_STROKES", "300"))
LEVEL = int(os.environ.get("CAROM_BENCH_DEFENCE_LEVEL", "3"))
BUDGET_S = 10.0
GAME_STROKES = 30  # a new random position after this many strokes (keeps the table varied)


def play(strokes: int = STROKES, level_number: int = LEVEL, seed: int = SEED) -> list[list[Stroke]]:
    """Strokes alternate by the referee's turn: seat 0 defends (``DEFENDER``), seat 1 attacks.
    One list of strokes per starting position."""
    from bench.bots import positions
    from client.bot.plan import plan_stroke
    from client.bot.problem import Problem
    from shared import rules
    from shared.physics import simulate
    from shared.rules.state import Phase

    who = (DEFENDER, "attacking")
    starts = positions(1 + strokes // GAME_STROKES, seed)
    opts = rules.MatchOptions(distance=1000, practice=False)
    played = 0
    games: list[list[Stroke]] = []
    for g, start in enumerate(starts):
        state = replace(
            rules.new_match(opts, 0),
            phase=Phase.PLAY,
            balls=start,
            white_seat=0,
            shooter=0,
            break_shot=False,
        )
        now = 1
        game: list[Stroke] = []
        games.append(game)
        for _ in range(GAME_STROKES):
            if played >= strokes:
                break
            seat = state.shooter
            assert seat is not None
            mine = who[seat]
            plan = plan_stroke(
                Problem(state), level_number, seed + played, BUDGET_S, personality=mine
            )
            if plan.respot:
                state, _ = rules.apply(state, rules.Respot(seat), now)
                continue
            balls = rules.stroke_start(state)
            cue = rules.cue_ball(state)
            result = simulate(opts.table_spec, balls, cue, plan.stroke())
            state, verdict = rules.apply(state, rules.PlayStroke(seat, plan.stroke(), result), now)
            now = max(now + 1, state.resting_at_ms + 1)
            played += 1
            after = state.balls
            game.append(
                Stroke(
                    g,
                    mine,
                    cue,
                    verdict.points,
                    plan.safety,
                    plan.kind,
                    plan.expected,
                    plan.think_s,
                    (after[0], after[1], after[2]),
                    plan.executed,
                )
            )
            if state.phase is not Phase.PLAY:
                break
    return games


def run() -> Iterator[str]:
    started = time.perf_counter()
    games = play()
    strokes = [s for g in games for s in g]
    found = [m for g in games for m in misses(g)]
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        chances = measure_all(pool, found)
    yield (
        f"level {LEVEL}, {len(strokes)} strokes offline (think cap {BUDGET_S:g} s), "
        f"{DEFENDER} (seat 0) against attacking (seat 1); {len(found)} misses with the "
        f"opponent's inning over"
    )
    yield from report(strokes, found, chances, cap_s=BUDGET_S)
    yield f"wall time {time.perf_counter() - started:.0f} s"


if __name__ == "__main__":
    for line in run():
        print(line, flush=True)
