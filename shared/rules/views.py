"""Read-only views of a match: the scoresheet (R-PLAY-2) and the protocol's ``match`` object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shared.rules.placement import contact_of
from shared.rules.referee import cue_ball, lag_balls
from shared.rules.scoring import zone_rule_is_strict
from shared.rules.state import MatchState, Phase, SetRecord
from shared.rules.verdict import GameOver, Seat
from shared.rules.zones import shared_zones, zones_for
from shared.table import BALLS


def average(points: int, innings: int) -> float:
    """R-PLAY-2: general average = points ÷ innings (0 before the first inning)."""
    return points / innings if innings else 0.0


@dataclass(frozen=True, slots=True)
class Line:
    """One player's line on a scoresheet."""

    points: int
    innings: int
    average: float
    high_run: int


@dataclass(frozen=True, slots=True)
class SetSheet:
    number: int  # 1-based
    breaker: Seat
    lines: tuple[Line, Line]
    result: GameOver | None


@dataclass(frozen=True, slots=True)
class Scoresheet:
    sets: tuple[SetSheet, ...]
    match: tuple[Line, Line]  # totals over the sets: general average, best high run
    sets_won: tuple[int, int]
    result: GameOver | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "sets": [
                {
                    "number": s.number,
                    "breaker": s.breaker,
                    "lines": [_line_dict(x) for x in s.lines],
                    "result": _result_dict(s.result),
                }
                for s in self.sets
            ],
            "match": [_line_dict(x) for x in self.match],
            "sets_won": list(self.sets_won),
            "result": _result_dict(self.result),
        }


def _line(rec: SetRecord, seat: Seat) -> Line:
    return Line(
        rec.points[seat],
        rec.innings[seat],
        average(rec.points[seat], rec.innings[seat]),
        rec.high_run[seat],
    )


def scoresheet(state: MatchState) -> Scoresheet:
    sheets = tuple(
        SetSheet(i + 1, rec.breaker, (_line(rec, 0), _line(rec, 1)), rec.result)
        for i, rec in enumerate(state.sets)
    )
    totals = []
    for seat in (0, 1):
        points = sum(r.points[seat] for r in state.sets)
        innings = sum(r.innings[seat] for r in state.sets)
        high = max(r.high_run[seat] for r in state.sets)
        totals.append(Line(points, innings, average(points, innings), high))
    won = [0, 0]
    for rec in state.sets:
        if rec.result is not None and rec.result.winner is not None:
            won[rec.result.winner] += 1
    return Scoresheet(sheets, (totals[0], totals[1]), (won[0], won[1]), state.result)


def _line_dict(line: Line) -> dict[str, Any]:
    return {
        "points": line.points,
        "innings": line.innings,
        "average": round(line.average, 3),
        "high_run": line.high_run,
    }


def _result_dict(result: GameOver | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"winner": result.winner, "reason": result.reason.value}


def match_view(state: MatchState) -> dict[str, Any]:
    """The protocol's ``match`` object (PROTOCOL.md): JSON/msgpack-safe, lists not tuples."""
    rec = state.current
    opts = state.options
    view: dict[str, Any] = {
        "phase": state.phase.value,
        "discipline": opts.discipline.value,
        "distance": opts.target,
        "shooter": state.shooter,
        "cue_ball": cue_ball(state) if state.shooter is not None else None,
        "white_seat": state.white_seat,
        "balls": {b: [p[0], p[1]] for b, p in zip(BALLS, state.balls, strict=True)},
        "score": list(rec.points),
        "innings": list(rec.innings),
        "average": [round(average(rec.points[s], rec.innings[s]), 3) for s in (0, 1)],
        "high_run": list(rec.high_run),
        "current_run": state.current_run,
        "timeouts_left": list(rec.timeouts_left),
        "deadline_ms": state.deadline_ms,
        "paused_ms": state.paused_ms,
        "resting_at_ms": state.resting_at_ms,
        "break_shot": state.break_shot,
        "spot_choice": state.spot_choice,
        "equalizing": state.equalizing,
        "set": len(state.sets),
        "sets": opts.sets,
        "sets_won": list(scoresheet(state).sets_won),
        "connected": list(state.connected),
        "grace_until_ms": list(state.grace_deadline),
        "result": _result_dict(state.result),
    }
    if state.phase in (Phase.PLAY, Phase.TIMEOUT) and state.shooter is not None:
        # R-FROZEN-1 / R-CALL-3: what the shooter's ball touches (the `turn` message's frozen).
        contact = contact_of(state.balls, cue_ball(state), opts.table_spec)
        view["frozen"] = (
            {"balls": list(contact.balls), "cushions": list(contact.cushions)} if contact else None
        )
    if state.phase in (Phase.LAG, Phase.BREAK_CHOICE):
        view["lag"] = {
            "balls": {str(s): b for s, b in lag_balls(state).items()},
            # R-LAG-3: strokes stay hidden; only whether each seat has played is shown.
            "played": [s is not None for s in state.lag_strokes],
            "winner": state.lag_winner,
            "reason": state.lag_reason,
            "repeats": state.lag_repeats,
        }
    zones = zones_for(opts.discipline, opts.table_spec, opts.zone_leg)
    if zones and state.shooter is not None:
        cue = cue_ball(state)
        a, b = (state.ball(o) for o in BALLS if o != cue)
        counts = dict(state.zone_counts)
        strict = zone_rule_is_strict(opts.discipline)
        view["zones"] = [
            {
                "name": z.name,
                "count": counts.get(z.name, 0),
                "armed": strict or counts.get(z.name, 0) >= 1,
                "on_line": z.on_line(a) or z.on_line(b),
            }
            for z in shared_zones(zones, a, b)
        ]
    return view
