"""Record a whole match of four bots as a golden file (``golden/*.txt``).

    python -m tests.shared.rules.bot_match doubles three_cushion 3 > golden/x.txt

Four bots (``client.bot.plan``, the same search the ``carom bot`` command runs) play a doubles
or Scotch doubles match through the referee with the real physics simulator: the first player
of each side lags (R-TEAM-1), the lag winner's side breaks, and every stroke is struck by the
partner the referee says is due (R-TEAM-2, R-TEAM-3). Each action is written in the golden
language with the physics result reduced to its event log (each event at its time), the final
positions (to the micrometre) and the duration, and with the verdict the referee gave in the
real run. ``test_golden.py`` then replays the file with hand-built results (no physics), so a
later change of the physics cannot move it, and any change of the referee's decisions shows as
a line that differs.
"""

from __future__ import annotations

import sys

from client.bot.plan import plan_lag, plan_stroke
from client.bot.problem import LagProblem, Problem
from shared.physics import simulate, simulate_lag
from shared.physics.types import ShotResult, Stroke
from shared.rules import (
    ChooseBreak,
    LagResult,
    LagStroke,
    MatchOptions,
    MatchState,
    Phase,
    PlayStroke,
    Respot,
    Start,
    Verdict,
    apply,
    cue_ball,
    lag_balls,
    lag_strokes,
    new_match,
    stroke_start,
)
from shared.rules.placement import Side
from shared.table import BALLS
from tests.shared.rules.golden import T0, render, render_sheet

LEVEL = 4
BUDGET_S = 10.0  # generous: the level's simulation budget decides, so a run is reproducible
MAX_STROKES = 400


def _steps(result: ShotResult) -> list[str]:
    out = []
    for e in result.events:
        at = f"@{e.t:.6f}"
        if e.kind == "ball_cushion":
            out.append(f"{e.balls[0]}>{e.cushion}{at}")
        elif e.kind == "ball_ball":
            out.append(f"{e.balls[0]}*{e.balls[1]}{at}")
        elif e.kind == "off_table":
            out.append(f"off:{e.balls[0]}{at}")
    return out


def _final(result: ShotResult) -> str:
    shown = [f"{b}={p[0]:.6f},{p[1]:.6f}" for b in BALLS if (p := result.final.get(b)) is not None]
    return f"final {' '.join(shown)} dur={result.duration!r}"


def _cue(s: Stroke) -> str:
    return f"cue={s.direction!r},{s.speed!r},{s.tip_x!r},{s.tip_y!r},{s.elevation!r}"


def record(form: str, discipline: str, distance: int, seed: int = 1) -> list[str]:
    options = MatchOptions(discipline=discipline, distance=distance, team_mode=form)  # type: ignore[arg-type]
    table = options.table_spec
    lines = [
        f"# A whole {form} match of four level-{LEVEL} bots ({discipline} to {distance}), "
        "recorded by tests/shared/rules/bot_match.py",
        f"options discipline={discipline} distance={distance} team_mode={form}",
    ]
    state: MatchState = new_match(options, T0)
    now = T0

    def act(text: str, action: object, at: int) -> Verdict:
        nonlocal state
        state, verdict = apply(state, action, at)  # type: ignore[arg-type]
        lines.append(f"{text}  => {render(verdict, state)}")
        return verdict

    act("start", Start(), now)
    while state.phase is Phase.LAG:
        for side, ball in lag_balls(state).items():
            plan = plan_lag(LagProblem(options.table, state.balls, ball), LEVEL, seed + side)
            stroke = plan.stroke()
            act(f"lag {side} {stroke.direction!r} {stroke.speed!r}", LagStroke(side, stroke), now)
        strokes = lag_strokes(state)
        assert strokes is not None
        result = simulate_lag(table, state.positions, strokes)
        act(f"lagresult {' '.join(_steps(result))} {_final(result)}", LagResult(result), now)
        now = state.resting_at_ms
    assert state.lag_winner is not None
    winner = state.lag_winner
    act(f"choose {winner} {winner}", ChooseBreak(winner, winner), now)
    for number in range(MAX_STROKES):
        if state.phase is Phase.OVER:
            break
        now = state.resting_at_ms
        assert state.shooter is not None and state.shooter_slot is not None
        side, slot = state.shooter, state.shooter_slot
        plan = plan_stroke(Problem(state), LEVEL, seed * 1000 + number, BUDGET_S, humanise=True)
        if plan.respot:
            act(f"respot {side}.{slot}", Respot(side, slot), now)
            continue
        spot: Side | None = plan.cue.spot if state.spot_choice else None  # type: ignore[assignment]
        stroke = plan.stroke()
        start = stroke_start(state, spot)
        result = simulate(table, start, cue_ball(state), stroke)
        where = f" spot={spot}" if spot else ""
        text = f"stroke by={side}.{slot}{where} {_cue(stroke)} {' '.join(_steps(result))}"
        act(f"{text} {_final(result)}", PlayStroke(side, stroke, result, slot=slot), now)
    assert state.phase is Phase.OVER, "the bots did not finish the match"
    return [*lines, "expect", *render_sheet(state)]


if __name__ == "__main__":
    form, discipline, distance = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.stdout.write("\n".join(record(form, discipline, distance)) + "\n")
