"""Judging the lag from one simulation of both lag strokes (RULES.md R-LAG-2 … R-LAG-5).

R-LAG-3: the server simulates both balls in one run from t = 0 and hands the ShotResult here.
R-LAG-6 (as amended): online the strokes are simultaneous, so no repeat is one player's doing;
an endless run of repeats is cut by a coin toss, which is the referee's bookkeeping over several
lags, in ``referee.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from shared.physics.types import ShotResult
from shared.rules.events import by_ball, by_kind, filter_events, first, off_table_balls
from shared.rules.verdict import Seat
from shared.table import BallName, TableSpec

EQUAL_DISTANCE: Final[float] = 0.001  # m, R-LAG-4: "equal distance (within 1 mm)"


@dataclass(frozen=True, slots=True)
class LagOutcome:
    winner: Seat | None  # None: the lag is repeated
    reason: str  # wire word
    text: str = ""

    @property
    def rule(self) -> str:
        """The RULES.md rule that decided it (the off-table decision is R-LAG-5's: "a lag ball
        off the table loses, like touching the red", docs/rules.md)."""
        return LAG_RULE[self.reason]


LAG_RULE: Final[dict[str, str]] = {
    "both_off_table": "R-LAG-5",
    "off_table": "R-LAG-5",
    "both_touched_red": "R-LAG-5",
    "touched_red": "R-LAG-5",
    "crossed": "R-LAG-4",
    "balls_touched": "R-LAG-4",
    "equal": "R-LAG-4",
    "no_top_cushion": "R-LAG-2",
    "nearer": "R-LAG-2",
}


def judge_lag(result: ShotResult, balls: dict[Seat, BallName], table: TableSpec) -> LagOutcome:
    """Who won the lag, or why it is repeated."""
    seats = (0, 1)
    gone = off_table_balls(result.events)
    # Decision (docs/rules.md): a lag ball off the table loses the lag, like touching the red.
    off = (balls[0] in gone, balls[1] in gone)
    if all(off):
        return LagOutcome(None, "both_off_table", "Both lag balls left the table: repeat.")
    if any(off):
        loser = off.index(True)
        return LagOutcome(1 - loser, "off_table", text=f"Seat {loser}'s lag ball left the table.")

    # R-LAG-5: touching the red loses; both touching it repeats.
    red = (_touched_red(result, balls[0]), _touched_red(result, balls[1]))
    if all(red):
        return LagOutcome(None, "both_touched_red", "Both lag balls touched the red: repeat.")
    if any(red):
        loser = red.index(True)
        return LagOutcome(
            1 - loser, "touched_red", text=f"Seat {loser}'s lag ball touched the red."
        )

    # R-LAG-4: the lag balls touched: the one outside its own half at the contact loses.
    hit = first(filter_events(result.events, by_kind("ball_ball"), by_ball(balls[0], balls[1])))
    if hit is not None:
        _, event = hit
        axis = table.width / 2
        outside: list[bool] = []
        for s in seats:
            start = result.initial[balls[s]]
            at = event.after.get(balls[s])
            if at is None:
                return LagOutcome(None, "balls_touched", text="The lag balls touched: repeat.")
            own_side = 1.0 if start[1] > axis else -1.0
            outside.append((at.pos[1] - axis) * own_side < 0)
        if outside[0] != outside[1]:
            loser = outside.index(True)
            return LagOutcome(
                1 - loser, "crossed", text=f"Seat {loser}'s lag ball crossed into the other half."
            )
        return LagOutcome(None, "balls_touched", "The lag balls touched: repeat.")

    # R-LAG-2 (decision): the lag is played onto the top cushion. A ball that never touches it
    # loses, so a soft tap that stays by the bottom cushion cannot beat a real lag; if neither
    # touches it, the lag is repeated.
    top = (_touched_top(result, balls[0]), _touched_top(result, balls[1]))
    if not any(top):
        return LagOutcome(
            None, "no_top_cushion", "Neither lag ball reached the top cushion: repeat."
        )
    if not all(top):
        loser = top.index(False)
        return LagOutcome(
            1 - loser,
            "no_top_cushion",
            text=f"Seat {loser}'s lag ball did not reach the top cushion.",
        )

    # R-LAG-2: nearer the bottom cushion wins (a touch of the bottom cushion still counts).
    xs = []
    for s in seats:
        p = result.final.get(balls[s])
        if p is None:  # unreachable: off-table was handled above
            return LagOutcome(None, "equal", text="Lag not decided: repeat.")
        xs.append(p[0])
    if abs(xs[0] - xs[1]) <= EQUAL_DISTANCE:
        return LagOutcome(
            None, "equal", text="Both lag balls stopped at the same distance: repeat."
        )
    winner = 0 if xs[0] < xs[1] else 1
    return LagOutcome(winner, "nearer", text=f"Seat {winner}'s ball stopped nearer the bottom.")


def _touched_top(result: ShotResult, ball: BallName) -> bool:
    return any(
        e.cushion == "top"
        for _, e in filter_events(result.events, by_kind("ball_cushion"), by_ball(ball))
    )


def _touched_red(result: ShotResult, ball: BallName) -> bool:
    return bool(filter_events(result.events, by_kind("ball_ball"), by_ball(ball, "red")))
