"""Defence against attack: a defensive bot and the same level without defence play each other
offline (the real referee and physics, no server), from seeded random positions; printed, never
asserted (docs/benchmarks.md "Defence").

For every miss of a bot, the points the opponent then scores before the bot is back at the
table are "conceded" after that miss. The defensive bot's misses are split into safeties
(``Plan.safety``: chosen by client/bot/defence.py) and failed attacks; the attacking bot's are
all failed attacks. Also: the share of massé strokes and the think times against the budget.
``CAROM_BENCH_DEFENCE_STROKES`` (default 300) strokes in all, ``CAROM_BENCH_DEFENCE_LEVEL``
(default 3), ``CAROM_BENCH_DEFENCE_PERSONALITY`` (``balanced``, the default, or ``safe``).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

STROKES = int(os.environ.get("CAROM_BENCH_DEFENCE_STROKES", "300"))
LEVEL = int(os.environ.get("CAROM_BENCH_DEFENCE_LEVEL", "3"))
DEFENDER = os.environ.get("CAROM_BENCH_DEFENCE_PERSONALITY", "balanced")  # or "safe"
BUDGET_S = 10.0
GAME_STROKES = 30  # a new random position after this many strokes (keeps the table varied)


@dataclass
class Tally:
    conceded: dict[str, list[int]] = field(default_factory=lambda: {"safety": [], "attack": []})
    think: list[float] = field(default_factory=list)
    strokes: int = 0
    masse: int = 0


def play(strokes: int = STROKES, level_number: int = LEVEL, seed: int = 2026) -> dict[str, Tally]:
    """Strokes alternate by the referee's turn: seat 0 defends (``DEFENDER``), seat 1 attacks."""
    from bench.bots import positions
    from client.bot.plan import plan_stroke
    from client.bot.problem import Problem
    from shared import rules
    from shared.physics import simulate
    from shared.rules.state import Phase

    who = (DEFENDER, "attacking")
    tallies = {p: Tally() for p in who}
    starts = positions(1 + strokes // GAME_STROKES, seed)
    opts = rules.MatchOptions(distance=1000, practice=False)
    played = 0
    for start in starts:
        state = replace(
            rules.new_match(opts, 0),
            phase=Phase.PLAY,
            balls=start,
            white_seat=0,
            shooter=0,
            break_shot=False,
        )
        now = 1
        # The miss whose concession is being counted: (personality, kind) and the points so far.
        open_miss: tuple[str, str, int] | None = None
        for _ in range(GAME_STROKES):
            if played >= strokes:
                break
            seat = state.shooter
            assert seat is not None
            problem = Problem(state)
            mine = who[seat]
            plan = plan_stroke(problem, level_number, seed + played, BUDGET_S, personality=mine)
            tally = tallies[mine]
            tally.think.append(plan.think_s)
            tally.strokes += 1
            tally.masse += plan.cue.elevation >= 30.0
            if plan.respot:
                state, _ = rules.apply(state, rules.Respot(seat), now)
                continue
            stroke = plan.stroke()
            balls = rules.stroke_start(state)
            cue = rules.cue_ball(state)
            result = simulate(opts.table_spec, balls, cue, stroke)
            state, verdict = rules.apply(state, rules.PlayStroke(seat, stroke, result), now)
            now = max(now + 1, state.resting_at_ms + 1)
            played += 1
            points = verdict.points
            if open_miss is not None and open_miss[0] != mine:
                open_miss = (open_miss[0], open_miss[1], open_miss[2] + points)
            if points == 0:
                if open_miss is not None and open_miss[0] != mine:
                    tallies[open_miss[0]].conceded[open_miss[1]].append(open_miss[2])
                open_miss = (mine, "safety" if plan.safety else "attack", 0)
            if state.phase is not Phase.PLAY:
                break
    return tallies


def _mean(xs: list[int]) -> str:
    return f"{statistics.fmean(xs):.2f}" if xs else "—"


def run() -> Iterator[str]:
    started = time.perf_counter()
    tallies = play()
    yield f"level {LEVEL}, {STROKES} strokes, defensive (seat 0) against attacking (seat 1)"
    for name, t in tallies.items():
        yield (
            f"{name}: points conceded per opponent inning after a safety "
            f"{_mean(t.conceded['safety'])} ({len(t.conceded['safety'])} safeties), "
            "after a failed attack "
            f"{_mean(t.conceded['attack'])} ({len(t.conceded['attack'])})"
        )
        think = sorted(t.think)
        if think:
            yield (
                f"{name}: {t.strokes} strokes, massé {t.masse / t.strokes:.1%}, think median "
                f"{statistics.median(think):.2f} s, max {think[-1]:.2f} s (budget {BUDGET_S:.0f} s)"
            )
    yield f"wall time {time.perf_counter() - started:.0f} s"
